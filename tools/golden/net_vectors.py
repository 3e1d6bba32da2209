#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Golden vectors for lib/codec (network layers), from independent tools.

scapy builds every reference frame; tshark decodes each one, and its decoding
becomes the expected parse result. The output is a C header that
tests/unit/codec_net/test_codec_net.c includes: for "build" vectors it checks
that our builder writes exactly scapy's bytes (so tshark's decoding is the
decoding of our frames), and for every vector that codec_parse_frame() and
the checksum checks agree with tshark. The frames also seed the fuzz corpus.

    tools/golden/net_vectors.py           regenerate the committed files
    tools/golden/net_vectors.py --check   regenerate into a temp dir, diff

Needs Debian's python3-scapy and tshark; the unit test does not.
"""

import argparse
import filecmp
import ipaddress
import os
import shutil
import subprocess
import sys
import tempfile

import golden
from golden import IP_A, IP_B, MAC_A, MAC_B, ROOT, pattern

try:
    from scapy.all import (ARP, ICMP, IP, TCP, UDP, Dot1Q, Ether, ICMPv6EchoReply,
                           ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                           ICMPv6NDOptDstLLAddr, ICMPv6NDOptSrcLLAddr,
                           IPOption_Router_Alert, IPv6, IPv6ExtHdrDestOpt,
                           IPv6ExtHdrFragment, IPv6ExtHdrHopByHop, IPv6ExtHdrRouting,
                           Padding, Raw, fragment, fragment6, wrpcap)
    from scapy.layers.inet import IPOption
except ImportError:
    golden.no_scapy("net_vectors.py")

HEADER = "tests/unit/codec_net/vectors/net_vectors.h"
CORPUS = "tests/fuzz/codec_net/corpus_frame"

IP6_A = "2001:db8::1"
IP6_B = "2001:db8:0:1::2"


def l2(vlan=None, dst=MAC_B, src=MAC_A):
    e = Ether(dst=dst, src=src)
    if vlan is not None:
        prio, dei, vid = vlan
        e = e / Dot1Q(prio=prio, id=dei, vlan=vid)
    return e


def ip4(ttl=64, tos=0, ip_id=0, **kw):
    return IP(src=IP_A, dst=IP_B, ttl=ttl, tos=tos, id=ip_id, flags="DF", **kw)


def ip6(ttl=64, tos=0):
    return IPv6(src=IP6_A, dst=IP6_B, hlim=ttl, tc=tos)


def flow(ver=4, vlan=None, sport=0, dport=0, ttl=64, tos=0):
    return dict(ver=ver, vlan=vlan, sport=sport, dport=dport, ttl=ttl, tos=tos)


def udp_zero_csum_payload(base, plen):
    """Payload whose UDP checksum computes to 0, which RFC 768 sends as 0xffff."""
    pay = bytearray(pattern(plen))
    pay[-2:] = b"\0\0"
    ck = Ether(bytes(base / UDP(sport=4000, dport=862) / Raw(bytes(pay))))[UDP].chksum
    # One's complement: adding the checksum itself as a word makes it 0.
    pay[-2:] = ck.to_bytes(2, "big")
    return bytes(pay)


def vectors():
    """(name, kind, params, scapy packet). kind "parse" = scapy-only frame."""
    v = []

    # --- frames our builders must reproduce byte for byte ---
    for name, fl, ip_id, plen in [
        ("udp4", flow(4, None, 40000, 862), 0x1234, 44),
        ("udp4_vlan", flow(4, (5, 0, 100), 40001, 862, 255, 0xB8), 1, 44),
        ("udp4_empty", flow(4, None, 1, 7), 0xFFFF, 0),
        ("udp4_odd", flow(4, None, 11111, 11111, 1, 0x10), 2, 13),
        ("udp6", flow(6, None, 40000, 862), 0, 14),
        ("udp6_vlan", flow(6, (0, 1, 4094), 862, 40000, 2, 0x2E), 0, 41),
    ]:
        pay = pattern(plen, len(v))
        net = ip4(fl["ttl"], fl["tos"], ip_id) if fl["ver"] == 4 else ip6(fl["ttl"], fl["tos"])
        p = l2(fl["vlan"]) / net / UDP(sport=fl["sport"], dport=fl["dport"]) / Raw(pay)
        v.append((name, "udp", dict(flow=fl, ip_id=ip_id, payload=pay), p))

    fl = flow(4, None, 4000, 862)
    pay = udp_zero_csum_payload(l2() / ip4(ip_id=3), 20)
    v.append(("udp4_csum_ffff", "udp", dict(flow=fl, ip_id=3, payload=pay),
              l2() / ip4(ip_id=3) / UDP(sport=4000, dport=862) / Raw(pay)))

    for name, fl, typ, ident, seq, plen in [
        ("icmp4_req", flow(4), 8, 0x4C50, 1, 56),
        ("icmp4_rep_vlan", flow(4, (7, 0, 10), ttl=128), 0, 0xBEEF, 65535, 7),
        ("icmp4_req_empty", flow(4), 8, 0, 0, 0),
    ]:
        pay = pattern(plen, 3)
        p = l2(fl["vlan"]) / ip4(fl["ttl"], fl["tos"]) / ICMP(type=typ, id=ident, seq=seq) / Raw(pay)
        v.append((name, "icmp", dict(flow=fl, type=typ, id=ident, seq=seq, payload=pay), p))

    for name, fl, seq, ack, flags, win, mss in [
        ("tcp4_syn", flow(4, None, 45678, 80), 0x01020304, 0, "S", 64240, 1460),
        ("tcp4_synack", flow(4, None, 80, 45678), 0xFFFFFFFF, 0x01020305, "SA", 65535, 1400),
        ("tcp4_rst", flow(4, None, 45678, 80), 0x01020305, 0, "R", 0, 0),
        ("tcp4_rstack_vlan", flow(4, (1, 0, 2), 45678, 80), 7, 0x80000000, "RA", 0, 0),
        ("tcp6_syn_vlan", flow(6, (3, 0, 300), 1024, 443, 64, 0x04), 0xDEADBEEF, 0, "S", 1000, 1440),
        ("tcp6_rst", flow(6, None, 1024, 443), 1, 2, "R", 0, 0),
    ]:
        opts = [("MSS", mss)] if mss else []
        net = ip4(fl["ttl"], fl["tos"]) if fl["ver"] == 4 else ip6(fl["ttl"], fl["tos"])
        p = l2(fl["vlan"]) / net / TCP(sport=fl["sport"], dport=fl["dport"], seq=seq, ack=ack,
                                       flags=flags, window=win, options=opts)
        v.append((name, "tcp", dict(flow=fl, seq=seq, ack=ack, flags=int(p[TCP].flags),
                                     window=win, mss=mss), p))

    # ICMPv6 echo (RFC 4443 4.1), built by codec_build_icmp_echo over IPv6.
    for name, fl, typ, ident, seq, plen in [
        ("icmp6_req", flow(6), 128, 0x4C50, 1, 56),
        ("icmp6_rep_vlan", flow(6, (7, 0, 10), ttl=128), 129, 0xBEEF, 65535, 7),
    ]:
        pay = pattern(plen, 5)
        layer = ICMPv6EchoRequest if typ == 128 else ICMPv6EchoReply
        p = l2(fl["vlan"]) / ip6(fl["ttl"], fl["tos"]) / layer(id=ident, seq=seq, data=pay)
        v.append((name, "icmp", dict(flow=fl, type=typ, id=ident, seq=seq, payload=pay), p))

    # Neighbor Discovery (RFC 4861 4.3, 4.4): the NS A sends for B, and the
    # NA A sends when B solicits A (codec_build_na from codec_build_ns).
    sn = ipaddress.IPv6Address(IP6_B).packed
    sn = "ff02::1:ff%02x:%02x%02x" % (sn[13], sn[14], sn[15])
    sn_mac = "33:33:" + ":".join("%02x" % b for b in ipaddress.IPv6Address(sn).packed[12:])
    v.append(("nd_ns", "ns", dict(flow=flow(6)),
              Ether(dst=sn_mac, src=MAC_A) / IPv6(src=IP6_A, dst=sn, hlim=255) /
              ICMPv6ND_NS(tgt=IP6_B) / ICMPv6NDOptSrcLLAddr(lladdr=MAC_A)))
    v.append(("nd_na", "na", dict(flow=flow(6)),
              Ether(dst=MAC_B, src=MAC_A) / IPv6(src=IP6_A, dst=IP6_B, hlim=255) /
              ICMPv6ND_NA(tgt=IP6_A, R=0, S=1, O=1) / ICMPv6NDOptDstLLAddr(lladdr=MAC_A)))

    # IPv6 fragments (RFC 8200 4.5) of one UDP datagram at MTU 1280, as
    # scapy's fragment6() cuts it: first, middle and last.
    fl = flow(6, None, 40000, 862)
    pay = pattern(3000, 9)
    whole = ip6() / IPv6ExtHdrFragment(id=0x12345678) / UDP(sport=40000, dport=862) / Raw(pay)
    frs = fragment6(whole, 1280)
    for k, fr in enumerate(frs):
        v.append(("frag6_%d" % k, "frag6",
                  dict(flow=fl, payload=pay, mtu=1280, id=0x12345678, index=k), l2() / fr))

    v.append(("arp_req", "arp", dict(op=1, sha=MAC_A, spa=IP_A, tha=None, tpa=IP_B),
              Ether(dst="ff:ff:ff:ff:ff:ff", src=MAC_A, type=0x0806) /
              ARP(op=1, hwsrc=MAC_A, psrc=IP_A, hwdst="00:00:00:00:00:00", pdst=IP_B)))
    v.append(("arp_rep", "arp", dict(op=2, sha=MAC_B, spa=IP_B, tha=MAC_A, tpa=IP_A),
              Ether(dst=MAC_A, src=MAC_B, type=0x0806) /
              ARP(op=2, hwsrc=MAC_B, psrc=IP_B, hwdst=MAC_A, pdst=IP_A)))

    # --- frames only parsed (other senders, odd corners) ---
    P = "parse"
    v.append(("p_ipv4_opt_ra", P, {},
              l2() / IP(src=IP_A, dst=IP_B, options=[IPOption_Router_Alert()]) /
              UDP(sport=5, dport=6) / Raw(pattern(10))))
    v.append(("p_ipv4_opt_max", P, {},  # IHL 15: 40 bytes of options
              l2() / IP(src=IP_A, dst=IP_B, options=[IPOption(b"\x07\x27\x04" + bytes(36) + b"\x00")]) /
              TCP(sport=9, dport=10, flags="S", options=[("MSS", 536)])))
    frags = fragment(l2() / IP(src=IP_A, dst=IP_B, id=77) / UDP(sport=1, dport=2) / Raw(pattern(100)),
                     fragsize=48)
    v.append(("p_frag_first", P, {}, frags[0]))
    v.append(("p_frag_middle", P, {}, frags[1]))
    v.append(("p_frag_last", P, {}, frags[-1]))
    v.append(("p_eth_padding", P, {},
              l2() / ip4() / UDP(sport=7, dport=7) / Raw(b"ab") / Padding(b"\xaa" * 16)))
    v.append(("p_udp4_bad_csum", P, {}, l2() / ip4() / UDP(sport=1, dport=2, chksum=0x1234) / Raw(b"x" * 9)))
    v.append(("p_udp4_no_csum", P, {}, l2() / ip4() / UDP(sport=1, dport=2, chksum=0) / Raw(b"x" * 9)))
    v.append(("p_udp6_zero_csum", P, {}, l2() / ip6() / UDP(sport=1, dport=2, chksum=0) / Raw(b"x" * 9)))
    v.append(("p_ipv4_bad_csum", P, {}, l2() / IP(src=IP_A, dst=IP_B, chksum=0x1111) / ICMP() / Raw(b"y" * 4)))
    v.append(("p_icmp4_bad_csum", P, {}, l2() / ip4() / ICMP(chksum=0xBAD0, id=1, seq=2)))
    v.append(("p_tcp_synack_linux", P, {},
              l2() / ip4() / TCP(sport=80, dport=33000, seq=5, ack=6, flags="SA", window=65160,
                                 options=[("MSS", 1460), ("SAckOK", b""), ("Timestamp", (1, 2)),
                                          ("NOP", None), ("WScale", 7)])))
    v.append(("p_tcp_opts_nop_mss", P, {},
              l2() / ip6() / TCP(sport=1, dport=2, flags="S",
                                 options=[("NOP", None), ("NOP", None), ("WScale", 2),
                                          ("MSS", 9000), ("EOL", None)])))
    v.append(("p_icmp6_echo", P, {}, l2((0, 0, 5)) / ip6() / ICMPv6EchoRequest(id=0x1111, seq=0x2222, data=b"ping")))
    v.append(("p_arp_vlan", P, {},
              l2((2, 0, 42), dst="ff:ff:ff:ff:ff:ff") /
              ARP(op=1, hwsrc=MAC_A, psrc=IP_A, pdst=IP_B)))
    v.append(("p_ipv6_hbh_udp", P, {}, l2() / ip6() / IPv6ExtHdrHopByHop() / UDP(sport=1, dport=2)))
    v.append(("p_ipv6_dstopt_udp", P, {},
              l2() / ip6() / IPv6ExtHdrDestOpt() / UDP(sport=3, dport=4) / Raw(b"opts")))
    v.append(("p_ipv6_rh_segleft", P, {},
              l2() / ip6() / IPv6ExtHdrRouting(type=0, segleft=1, addresses=[IP6_B]) /
              UDP(sport=5, dport=6) / Raw(b"route")))
    v.append(("p_ipv6_hbh_frag_first", P, {},
              l2() / IPv6(src=IP6_A, dst=IP6_B) / IPv6ExtHdrHopByHop() /
              IPv6ExtHdrFragment(id=7, m=1, offset=0) / UDP(sport=7, dport=8) / Raw(pattern(16))))
    v.append(("p_lldp", P, {}, Ether(dst="01:80:c2:00:00:0e", src=MAC_A, type=0x88CC) / Raw(pattern(30))))
    return v


FIELDS = [
    "eth.dst", "eth.src", "eth.type", "vlan.priority", "vlan.dei", "vlan.id", "vlan.etype",
    "arp.opcode", "arp.src.hw_mac", "arp.src.proto_ipv4", "arp.dst.hw_mac", "arp.dst.proto_ipv4",
    "ip.version", "ip.hdr_len", "ip.dsfield", "ip.len", "ip.id", "ip.flags.mf", "ip.frag_offset",
    "ip.ttl", "ip.proto", "ip.checksum.status", "ip.src", "ip.dst",
    "ipv6.tclass", "ipv6.plen", "ipv6.nxt", "ipv6.hlim", "ipv6.src", "ipv6.dst",
    "ipv6.hopopts.nxt", "ipv6.hopopts.len_oct", "ipv6.dstopts.nxt", "ipv6.dstopts.len_oct",
    "ipv6.routing.nxt", "ipv6.routing.len_oct", "ipv6.routing.segleft",
    "ipv6.fraghdr.nxt", "ipv6.fraghdr.offset", "ipv6.fraghdr.more", "ipv6.fraghdr.ident",
    "udp.srcport", "udp.dstport", "udp.length", "udp.checksum", "udp.checksum.status",
    "tcp.srcport", "tcp.dstport", "tcp.seq_raw", "tcp.ack_raw", "tcp.hdr_len", "tcp.flags",
    "tcp.window_size_value", "tcp.options.mss_val", "tcp.checksum.status",
    "icmp.type", "icmp.code", "icmp.ident", "icmp.seq", "icmp.checksum.status",
    "icmpv6.type", "icmpv6.code", "icmpv6.echo.identifier", "icmpv6.echo.sequence_number",
    "icmpv6.checksum.status",
]


def tshark_decode(pcap):
    cmd = ["tshark", "-n", "-r", pcap, "-T", "fields", "-E", "occurrence=f", "-E", "separator=\t",
           "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
           "-o", "tcp.check_checksum:TRUE", "-o", "ip.defragment:FALSE",
           "-o", "ipv6.defragment:FALSE", "-o", "tcp.analyze_sequence_numbers:FALSE"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        vals = line.split("\t")
        rows.append({k: v for k, v in zip(FIELDS, vals) if v != ""})
    return rows


def num(s):
    return int(s, 0)


def expect_from_tshark(t, frame_len):
    """codec_frame fields as tshark decodes the frame, in our documented semantics."""
    e = {}
    csum = {"ip": -1, "l4": -1}
    e["dst"] = t["eth.dst"]
    e["src"] = t["eth.src"]
    l3 = 14
    if "vlan.id" in t:
        e["has_vlan"] = 1
        e["vlan_tci"] = num(t["vlan.priority"]) << 13 | num(t["vlan.dei"]) << 12 | num(t["vlan.id"])
        e["ethertype"] = num(t["vlan.etype"])
        l3 = 18
    else:
        e["ethertype"] = num(t["eth.type"])
    e["l3_off"] = l3
    if "arp.opcode" in t:
        e["arp_op"] = num(t["arp.opcode"])
        e["arp_sha"] = t["arp.src.hw_mac"]
        e["arp_tha"] = t["arp.dst.hw_mac"]
        e["arp_spa"] = int(ipaddress.IPv4Address(t["arp.src.proto_ipv4"]))
        e["arp_tpa"] = int(ipaddress.IPv4Address(t["arp.dst.proto_ipv4"]))
    hlen = None
    if "ip.proto" in t:
        e["ip_version"] = 4
        e["ip_proto"] = num(t["ip.proto"])
        e["ttl"] = num(t["ip.ttl"])
        e["tos"] = num(t["ip.dsfield"])
        hlen = num(t["ip.hdr_len"])
        e["l3_hlen"] = hlen
        e["ip_len"] = num(t["ip.len"])
        e["src4"] = int(ipaddress.IPv4Address(t["ip.src"]))
        e["dst4"] = int(ipaddress.IPv4Address(t["ip.dst"]))
        e["ip_id"] = num(t["ip.id"])
        mf = num(t["ip.flags.mf"])
        off = num(t["ip.frag_offset"]) * 8  # tshark shows 8-byte units
        e["more_fragments"] = mf
        e["frag_off"] = off
        e["is_fragment"] = int(mf != 0 or off != 0)
        csum["ip"] = int(t["ip.checksum.status"] == "1")
    elif "ipv6.nxt" in t:
        e["ip_version"] = 6
        e["ttl"] = num(t["ipv6.hlim"])
        e["tos"] = num(t["ipv6.tclass"])
        # The extension headers as tshark decodes them (one of each kind in
        # our vectors: tshark gives the first occurrence of each field).
        hlen = 40
        nxt = num(t["ipv6.nxt"])
        while nxt in (0, 43, 44, 60):
            if nxt == 44:
                e["frag_hdr_off"] = l3 + hlen
                off = num(t["ipv6.fraghdr.offset"]) * 8
                mf = int(t["ipv6.fraghdr.more"] in ("1", "True"))
                e["frag_id"] = num(t["ipv6.fraghdr.ident"])
                e["ip_id"] = e["frag_id"] & 0xFFFF
                e["frag_off"], e["more_fragments"] = off, mf
                hlen += 8
                nxt = num(t["ipv6.fraghdr.nxt"])
                if mf or off:
                    e["is_fragment"] = 1
                    break
                continue
            key = {0: "hopopts", 43: "routing", 60: "dstopts"}[nxt]
            hlen += num(t["ipv6.%s.len_oct" % key])
            if nxt == 43 and num(t["ipv6.routing.segleft"]) != 0:
                e["ip6_ext_refused"] = 1
            nxt = num(t["ipv6.%s.nxt" % key])
        e["ip_proto"] = nxt
        e["l3_hlen"] = hlen
        e["ip_len"] = 40 + num(t["ipv6.plen"])
        e["src6"] = ipaddress.IPv6Address(t["ipv6.src"]).packed
        e["dst6"] = ipaddress.IPv6Address(t["ipv6.dst"]).packed
    if hlen is not None:
        l4 = l3 + hlen
        e["l4_off"] = l4
        e["l4_len"] = e["ip_len"] - hlen
        # Our documented limits: no L4 for fragments.
        if e.get("is_fragment") or e["ip_proto"] not in (6, 17, 1 if e["ip_version"] == 4 else 58):
            csum["l4"] = 0
            return e, csum
        l4h = None
        if "udp.srcport" in t:
            e["sport"], e["dport"] = num(t["udp.srcport"]), num(t["udp.dstport"])
            e["l4_len"] = num(t["udp.length"])
            l4h = 8
            st = t["udp.checksum.status"]
            # tshark leaves a zero checksum "not present" (3) over IPv4 and
            # calls it illegal (4) over IPv6.
            csum["l4"] = int(st == "1" or (st == "3" and e["ip_version"] == 4))
        elif "tcp.srcport" in t:
            e["sport"], e["dport"] = num(t["tcp.srcport"]), num(t["tcp.dstport"])
            e["tcp_seq"] = num(t["tcp.seq_raw"])
            e["tcp_ack"] = num(t.get("tcp.ack_raw", "0"))
            e["tcp_flags"] = num(t["tcp.flags"]) & 0xFF
            e["tcp_window"] = num(t["tcp.window_size_value"])
            e["tcp_mss"] = num(t.get("tcp.options.mss_val", "0"))
            l4h = num(t["tcp.hdr_len"])
            csum["l4"] = int(t["tcp.checksum.status"] == "1")
        elif "icmp.type" in t:
            e["icmp_type"], e["icmp_code"] = num(t["icmp.type"]), num(t["icmp.code"])
            e["icmp_id"], e["icmp_seq"] = num(t["icmp.ident"]), num(t["icmp.seq"])
            l4h = 8
            csum["l4"] = int(t["icmp.checksum.status"] == "1")
        elif "icmpv6.type" in t:
            e["icmp_type"], e["icmp_code"] = num(t["icmpv6.type"]), num(t["icmpv6.code"])
            if "icmpv6.echo.identifier" in t:  # echo only: ND has no id/seq
                e["icmp_id"] = num(t["icmpv6.echo.identifier"])
                e["icmp_seq"] = num(t["icmpv6.echo.sequence_number"])
            l4h = 8
            csum["l4"] = int(t["icmpv6.checksum.status"] == "1")
        else:
            csum["l4"] = 0
        if l4h is not None:
            e["payload_off"] = l4 + l4h
            e["payload_len"] = e["l4_len"] - l4h
    return e, csum


def c_bytes(b, indent="\t\t"):
    lines = []
    for i in range(0, len(b), 12):
        lines.append(indent + " ".join("0x%02x," % x for x in b[i:i + 12]))
    return "\n".join(lines)


def c_mac(m):
    return "{{" + ", ".join("0x" + x for x in m.split(":")) + "}}"


def c_ip4(s):
    return "0x%08x" % int(ipaddress.IPv4Address(s))


def c_val(k, val):
    if isinstance(val, (bytes, bytearray)):
        return "{" + ", ".join("0x%02x" % x for x in val) + "}"
    if isinstance(val, str):
        return c_mac(val)
    return "0x%x" % val if val > 9 else str(val)


def c_flow(fl):
    out = [".src_mac = %s" % c_mac(MAC_A), ".dst_mac = %s" % c_mac(MAC_B)]
    if fl["vlan"] is not None:
        prio, dei, vid = fl["vlan"]
        out += [".vlan = true", ".vlan_tci = 0x%04x" % (prio << 13 | dei << 12 | vid)]
    out.append(".ip_version = %d" % fl["ver"])
    if fl["ver"] == 4:
        out += [".src4 = %s" % c_ip4(IP_A), ".dst4 = %s" % c_ip4(IP_B)]
    else:
        out += [".src6 = %s" % c_val("", ipaddress.IPv6Address(IP6_A).packed),
                ".dst6 = %s" % c_val("", ipaddress.IPv6Address(IP6_B).packed)]
    out += [".sport = %d" % fl["sport"], ".dport = %d" % fl["dport"],
            ".ttl = %d" % fl["ttl"], ".tos = 0x%02x" % fl["tos"]]
    return "{" + ", ".join(out) + "}"


def write_outputs(outdir):
    vs = vectors()
    frames = [bytes(p) for _, _, _, p in vs]
    with tempfile.TemporaryDirectory() as td:
        pcap = os.path.join(td, "v.pcap")
        wrpcap(pcap, [Ether(f) for f in frames])
        decoded = tshark_decode(pcap)
    assert len(decoded) == len(vs)

    h = []
    h.append("/* SPDX-License-Identifier: BSD-3-Clause */")
    h.append("/* Generated by tools/golden/net_vectors.py (scapy + tshark): do not edit. */")
    h.append("#ifndef LATPROBE_NET_VECTORS_H\n#define LATPROBE_NET_VECTORS_H\n")
    h.append("#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n#include \"latprobe/codec.h\"\n")
    h.append("enum golden_kind { GOLDEN_PARSE, GOLDEN_UDP, GOLDEN_ICMP, GOLDEN_TCP, GOLDEN_ARP,\n"
             "\tGOLDEN_NS, GOLDEN_NA, GOLDEN_FRAG6 };\n")
    h.append("struct golden_net_vec {\n\tconst char *name;\n\tenum golden_kind kind;\n"
             "\tconst uint8_t *frame;\n\tsize_t len;\n"
             "\t/* builder inputs; a payload is the last plen bytes of frame */\n"
             "\tstruct codec_flow flow;\n\tuint16_t ip_id;\n\tsize_t plen;\n"
             "\tuint8_t icmp_type;\n\tuint16_t icmp_id, icmp_seq;\n"
             "\tuint32_t tcp_seq, tcp_ack;\n\tuint8_t tcp_flags;\n\tuint16_t tcp_window, tcp_mss;\n"
             "\tuint16_t arp_op;\n\tstruct codec_mac arp_sha, arp_tha;\n\tuint32_t arp_spa, arp_tpa;\n"
             "\t/* frag6: the datagram's UDP payload, the MTU, id and which fragment */\n"
             "\tconst uint8_t *payload;\n\tuint16_t frag_mtu;\n\tuint32_t frag_id;\n\tunsigned frag_index;\n"
             "\t/* tshark's decoding */\n\tstruct codec_frame expect;\n"
             "\tint ipv4_csum_ok, l4_csum_ok; /* 1, 0, or -1: not applicable */\n};\n")
    for (name, kind, prm, _), f in zip(vs, frames):
        h.append("static const uint8_t golden_%s[%d] = {\n%s\n};\n" % (name, len(f), c_bytes(f, "\t")))
        if kind == "frag6" and prm["index"] == 0:
            h.append("static const uint8_t golden_frag6_payload[%d] = {\n%s\n};\n"
                     % (len(prm["payload"]), c_bytes(prm["payload"], "\t")))
    h.append("static const struct golden_net_vec golden_net_vecs[] = {")
    for (name, kind, prm, _), f, t in zip(vs, frames, decoded):
        exp, csum = expect_from_tshark(t, len(f))
        items = [".name = \"%s\"" % name, ".kind = GOLDEN_%s" % kind.upper(),
                 ".frame = golden_%s" % name, ".len = sizeof(golden_%s)" % name]
        if kind in ("udp", "icmp", "tcp", "ns", "na", "frag6"):
            items.append(".flow = " + c_flow(prm["flow"]))
        if kind == "frag6":
            items += [".payload = golden_frag6_payload", ".plen = %d" % len(prm["payload"]),
                      ".frag_mtu = %d" % prm["mtu"], ".frag_id = 0x%08x" % prm["id"],
                      ".frag_index = %d" % prm["index"]]
        if kind == "udp":
            items += [".ip_id = 0x%04x" % prm["ip_id"], ".plen = %d" % len(prm["payload"])]
        if kind == "icmp":
            items += [".plen = %d" % len(prm["payload"]), ".icmp_type = %d" % prm["type"],
                      ".icmp_id = 0x%04x" % prm["id"], ".icmp_seq = %d" % prm["seq"]]
        if kind == "tcp":
            items += [".tcp_seq = 0x%08x" % prm["seq"], ".tcp_ack = 0x%08x" % prm["ack"],
                      ".tcp_flags = 0x%02x" % prm["flags"], ".tcp_window = %d" % prm["window"],
                      ".tcp_mss = %d" % prm["mss"]]
        if kind == "arp":
            items += [".arp_op = %d" % prm["op"], ".arp_sha = %s" % c_mac(prm["sha"]),
                      ".arp_spa = %s" % c_ip4(prm["spa"]), ".arp_tpa = %s" % c_ip4(prm["tpa"])]
            if prm["tha"]:
                items.append(".arp_tha = %s" % c_mac(prm["tha"]))
        items.append(".expect = {" + ", ".join(".%s = %s" % (k, c_val(k, v)) for k, v in exp.items()) + "}")
        items += [".ipv4_csum_ok = %d" % csum["ip"], ".l4_csum_ok = %d" % csum["l4"]]
        h.append("\t{\n\t\t" + ",\n\t\t".join(items) + ",\n\t},")
    h.append("};\n\n#endif /* LATPROBE_NET_VECTORS_H */")

    golden.write_vectors(outdir, HEADER, h, CORPUS,
                         [(name, f) for (name, _, _, _), f in zip(vs, frames)])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary tree and diff against the committed files")
    args = ap.parse_args()
    if not args.check:
        shutil.rmtree(os.path.join(ROOT, CORPUS), ignore_errors=True)
        write_outputs(ROOT)
        print("wrote %s and %s/" % (HEADER, CORPUS))
        return 0
    with tempfile.TemporaryDirectory() as td:
        write_outputs(td)
        bad = 0
        if subprocess.run(["diff", "-u", os.path.join(ROOT, HEADER), os.path.join(td, HEADER)]).returncode:
            bad += 1
        cmp = filecmp.dircmp(os.path.join(ROOT, CORPUS), os.path.join(td, CORPUS))
        for n in cmp.left_only + cmp.right_only + cmp.diff_files:
            print("corpus differs: %s" % n)
            bad += 1
        print("golden vectors %s" % ("differ" if bad else "match"))
        return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
