#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_reflector: valid frames for each thing the
reflector answers, addressed to it (198.18.0.2, 02:00:00:00:00:02).

    /usr/bin/python3 tests/fuzz/engine/make_corpus.py tests/fuzz/engine/corpus_reflector
"""
import os
import struct
import sys

from scapy.all import ARP, ICMP, IP, UDP, Dot1Q, Ether, Raw

ME, PEER = "198.18.0.2", "198.18.0.1"
MY_MAC, PEER_MAC = "02:00:00:00:00:02", "02:00:00:00:00:01"
NTP_T1 = (3908988800 << 32) | 0x80000000  # 2023-11-14 + 0.5 s


def stamp_sender(seq, ssid=1, tlvs=b""):
    # RFC 8762 §4.2.1 with the RFC 8972 SSID, then TLVs (RFC 8972 §4).
    return struct.pack("!IQHH28x", seq, NTP_T1, 0x0001, ssid) + tlvs


def tlv(typ, value, flags=0):
    return struct.pack("!BBH", flags, typ, len(value)) + value


def udp(dport, payload, vlan=None):
    eth = Ether(src=PEER_MAC, dst=MY_MAC)
    if vlan is not None:
        eth = eth / Dot1Q(vlan=vlan)
    return eth / IP(src=PEER, dst=ME, flags="DF") / UDP(sport=40000, dport=dport) / Raw(payload)


frames = {
    "stamp.bin": udp(862, stamp_sender(7)),
    "stamp_vlan.bin": udp(862, stamp_sender(8), vlan=100),
    # Extra Padding, Timestamp Information, Class of Service, unknown type 200
    "stamp_tlvs.bin": udp(862, stamp_sender(9, 2,
                                            tlv(1, bytes(16)) + tlv(3, bytes(4)) +
                                            tlv(4, bytes([0xb8, 0, 0, 0])) +
                                            tlv(200, b"abcd"))),
    "stamp_twamp_light.bin": udp(862, stamp_sender(10)[:14]),
    "arp_request.bin": Ether(src=PEER_MAC, dst="ff:ff:ff:ff:ff:ff") /
        ARP(op=1, hwsrc=PEER_MAC, psrc=PEER, pdst=ME),
    "icmp_echo.bin": Ether(src=PEER_MAC, dst=MY_MAC) /
        IP(src=PEER, dst=ME) / ICMP(type=8, id=0x4200, seq=1) / Raw(bytes(range(32))),
    # seq u64, flags u16 (client | pong request), length u32, big-endian
    "sockperf.bin": udp(11111, struct.pack("!QHI", 1, 3, 64) + bytes(50)),
    "udp_echo.bin": udp(7, struct.pack("!Q", 5) + bytes(24)),
}

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "corpus_reflector")
os.makedirs(out, exist_ok=True)
for name, pkt in frames.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes(pkt))
