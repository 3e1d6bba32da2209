#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the seed corpus of fuzz_prober: frames the prober (198.18.0.1,
02:00:00:00:00:01, source port 40000) may receive from its peer 198.18.0.2.
The last byte picks the prober's mode (see fuzz_prober.c): & 3 = 0 STAMP,
1 STAMP fragmented, 2 tcp-syn, 3 icmp; & 4 = on VLAN 100.

    /usr/bin/python3 tests/fuzz/engine/make_corpus_prober.py tests/fuzz/engine/corpus_prober
"""
import os
import struct
import sys

from scapy.all import ICMP, IP, TCP, UDP, Dot1Q, Ether, Raw, fragment

ME, PEER = "198.18.0.1", "198.18.0.2"
MY_MAC, PEER_MAC = "02:00:00:00:00:01", "02:00:00:00:00:02"
NTP = 3908988800 << 32


def stamp_answer(seq):
    # RFC 8762 §4.3.1: seq, T3, EE, SSID, T2, sender seq, T1, EE, MBZ, TTL.
    return struct.pack("!IQHHQIQHHB3x", seq, NTP + 2, 1, 1, NTP + 1, seq,
                       NTP, 1, 0, 255)


def main(out):
    os.makedirs(out, exist_ok=True)
    back = Ether(src=PEER_MAC, dst=MY_MAC)
    stamp = UDP(sport=862, dport=40000) / Raw(stamp_answer(0))
    probe = bytes(IP(src=ME, dst=PEER, id=0) / UDP(sport=40000, dport=862)
                  / Raw(stamp_answer(0)))
    syn = bytes(IP(src=ME, dst=PEER) / TCP(sport=40000, dport=80))
    seeds = {
        "stamp_answer": (back / IP(src=PEER, dst=ME) / stamp, 0),
        "stamp_answer_vlan": (back / Dot1Q(vlan=100) / IP(src=PEER, dst=ME)
                              / stamp, 4),
        "port_unreachable": (back / IP(src=PEER, dst=ME)
                             / ICMP(type=3, code=3) / Raw(probe[:28]), 0),
        "host_unreachable_tcp": (back / IP(src=PEER, dst=ME)
                                 / ICMP(type=3, code=1) / Raw(syn[:28]), 2),
        "syn_ack": (back / IP(src=PEER, dst=ME)
                    / TCP(sport=80, dport=40000, flags="SA", ack=1), 2),
        "echo_reply": (back / IP(src=PEER, dst=ME)
                       / ICMP(type=0, id=0x4200, seq=0) / Raw(bytes(16)), 3),
    }
    big = (IP(src=PEER, dst=ME, id=7) / UDP(sport=862, dport=40000)
           / Raw(stamp_answer(0).ljust(3000, b"\0")))
    for i, fr in enumerate(fragment(big, fragsize=1480)):
        seeds["fragment%d" % i] = (back / fr, 1)
    for name, (pkt, mode) in seeds.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(bytes(pkt) + bytes([mode]))


if __name__ == "__main__":
    main(sys.argv[1])
