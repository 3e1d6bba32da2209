#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Send a bounded burst of frames a reflector must not answer (and a few it
must), from a kernel interface, with scapy. Prints the expected counter
values as JSON on stdout: {"counters/<name>": count, ...}.

usage: send_garbage.py IFACE DST_MAC DST_IP SRC_IP [COUNT]
Only 198.18.0.0/15 addresses are accepted (the testbed's).
"""
import ipaddress
import json
import sys

from scapy.all import (ARP, ICMP, IP, TCP, UDP, Ether, IPv6, Raw, conf,
                       sendp)

conf.verb = 0
BENCH = ipaddress.ip_network("198.18.0.0/15")


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    iface, dmac, dip, sip = sys.argv[1:5]
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 20
    for a in (dip, sip):
        if ipaddress.ip_address(a) not in BENCH:
            print(f"refusing {a}: not in 198.18.0.0/15", file=sys.stderr)
            return 2
    other = str(ipaddress.ip_address(dip) + 1)
    eth = Ether(dst=dmac)
    sockperf_no_pong = (b"\x00" * 7 + b"\x01" + b"\x00\x01" +
                        b"\x00\x00\x00\x40" + b"\x00" * 50)
    cases = {
        "dropped.ethertype": [eth / Raw(b"\x88\xb5" + b"x" * 50)],
        "dropped.malformed": [Ether(bytes(eth / IP(src=sip, dst=dip) /
                                          UDP(dport=862) / Raw(b"y" * 80))[:40])],
        "dropped.ip_checksum": [eth / IP(src=sip, dst=dip, chksum=0x1234) /
                                UDP(dport=862) / Raw(b"\x00" * 44)],
        "dropped.udp_port": [eth / IP(src=sip, dst=dip) /
                             UDP(sport=40000, dport=9999) / Raw(b"z" * 20)],
        # IPv6 to a reflector without an IPv6 --addr is not for it.
        "dropped.not_for_us": [eth / IP(src=sip, dst=other) / UDP(dport=862) /
                               Raw(b"\x00" * 44),
                               eth / IPv6(dst="fe80::1") / UDP(dport=862)],
        "dropped.ip_proto": [eth / IP(src=sip, dst=dip) / TCP(dport=80)],
        "dropped.icmp_other": [eth / IP(src=sip, dst=dip) / ICMP(type=13)],
        # RFC 5357 §4.1.2: below 14 bytes a STAMP packet is no test packet.
        "dropped.bad_probe": [eth / IP(src=sip, dst=dip) /
                              UDP(sport=40000, dport=862) / Raw(b"\x01\x02"),
                              eth / IP(src=sip, dst=dip) /
                              UDP(sport=40000, dport=862) / Raw(b"\x01" * 13)],
        "sockperf_no_reply": [eth / IP(src=sip, dst=dip) /
                              UDP(sport=40000, dport=11111) /
                              Raw(sockperf_no_pong)],
        # Loop protection: chargen's port and the other answering ports as
        # source (scapy's default source port 53 is under dropped.low_port).
        "dropped.loop_port": [eth / IP(src=sip, dst=dip) / UDP(sport=19, dport=7) /
                              Raw(b"c" * 16)] +
                             [eth / IP(src=sip, dst=dip) / UDP(sport=p, dport=862) /
                              Raw(b"\x00" * 44) for p in (862, 11111, 13, 17, 37)],
        # Martian sources (spoofed on the wire, answered to nobody).
        "dropped.bad_source": [eth / IP(src="127.0.0.1", dst=dip) /
                               UDP(sport=40000, dport=7) / Raw(b"m" * 16),
                               eth / IP(src=dip, dst=dip) / ICMP(id=7, seq=1),
                               eth / IP(src="255.255.255.255", dst=dip) /
                               UDP(sport=40000, dport=862) / Raw(b"\x00" * 44)] +
                              # the subnet broadcast of the reflector's /24,
                              # 0/8, multicast, class E, a group source MAC
                              [eth / IP(src=a, dst=dip) / UDP(sport=40000, dport=862) /
                               Raw(b"\x00" * 44)
                               for a in (str(ipaddress.ip_network(dip + "/24",
                                                                  strict=False).broadcast_address),
                                         "0.0.0.1", "224.0.0.1", "240.0.0.1")] +
                              [Ether(dst=dmac, src="01:00:5e:00:00:01") /
                               IP(src=sip, dst=dip) / UDP(sport=40000, dport=862) /
                               Raw(b"\x00" * 44)],
        # A low source port to the STAMP port (not a loop port).
        "dropped.low_port": [eth / IP(src=sip, dst=dip) / UDP(dport=7) /
                             Raw(b"l" * 16),
                             eth / IP(src=sip, dst=dip) / UDP(sport=1023, dport=862) /
                             Raw(b"\x00" * 44)],
        "dropped.arp_other": [eth / ARP(op=2, psrc=sip, pdst=dip)],
        # A wrong UDP checksum (neither right nor partial): dropped, never
        # answered; STAMP (the fast path's check) and echo, and ICMP.
        "dropped.l4_checksum": [eth / IP(src=sip, dst=dip) /
                                UDP(sport=40001, dport=7, chksum=0x1234) /
                                Raw(b"w" * 16),
                                eth / IP(src=sip, dst=dip) /
                                UDP(sport=40001, dport=862, chksum=0x1234) /
                                Raw(b"\x00" * 44),
                                eth / IP(src=sip, dst=dip) /
                                ICMP(id=7, seq=1, chksum=0x1234) / Raw(b"q" * 16)],
        # A lone first fragment: taken into reassembly, never completed.
        "fragments": [eth / IP(src=sip, dst=dip, flags="MF") /
                             Raw(b"f" * 40)],
        # Answered ones, so the test also sees the counters move the other way.
        "answered.icmp_echo": [eth / IP(src=sip, dst=dip) / ICMP(id=7, seq=1) /
                               Raw(b"p" * 16)],
        "answered.udp_echo": [eth / IP(src=sip, dst=dip) / UDP(sport=7007, dport=7) /
                              Raw(b"e" * 16)],
    }
    expect = {}
    for name, frames in cases.items():
        sendp(frames * count, iface=iface)
        expect[f"counters/{name}"] = len(frames) * count
    print(json.dumps(expect))
    return 0


if __name__ == "__main__":
    sys.exit(main())
