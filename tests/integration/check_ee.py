#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The reflector's STAMP Error Estimate on the wire, read by two
independent decoders: tshark's TWAMP-Test dissector and scapy's STAMP
layers (scapy.contrib.stamp), from a prober's --pcap. Both must agree with
the raw bits and with each other on every answer; S must be what the test
expects (the reflector synchronised or not); Z clear (NTP timestamps); the
estimate at least --min-ns; and the prober's JSON (one_way.reflector) must
hold one of the decoded estimates as its maximum, and no more S-clear
answers than the wire had.

  check_ee.py --pcap P --json J --s 0|1 [--min-ns N] [--max-ns N]
"""
import argparse
import json
import math
import subprocess
import sys

from scapy.all import UDP, rdpcap
from scapy.contrib.stamp import STAMPSessionReflectorTestUnauthenticated


def fail(msg):
    print("check_ee: FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def ee_ns(scale, mult):
    return math.ldexp(mult, scale - 32) * 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pcap", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--s", type=int, choices=[0, 1], required=True)
    ap.add_argument("--min-ns", type=float, default=0)
    ap.add_argument("--max-ns", type=float, default=math.inf)
    a = ap.parse_args()
    out = subprocess.run(
        ["tshark", "-r", a.pcap, "-d", "udp.port==862,twamp.test", "-Y", "udp.srcport==862",
         "-T", "fields", "-E", "separator=|", "-E", "occurrence=f", "-e", "twamp.test.error_estimate",
         "-e", "twamp.test.error_estimate.s", "-e", "twamp.test.error_estimate.z",
         "-e", "twamp.test.error_estimate.scale", "-e", "twamp.test.error_estimate.multiplier"],
        check=True, capture_output=True, text=True).stdout.split("\n")
    ts = []
    for line in out:
        if not line.strip():
            continue
        raw, s, z, scale, mult = line.split("|")
        s = 1 if s in ("1", "True") else 0
        z = 1 if z in ("1", "True") else 0
        ts.append((int(raw, 0), s, z, int(scale), int(mult)))
    sc = []
    for p in rdpcap(a.pcap):
        if UDP in p and p[UDP].sport == 862:
            r = STAMPSessionReflectorTestUnauthenticated(bytes(p[UDP].payload))
            e = r.err_estimate
            sc.append((int(e.S), int(e.Z), int(e.scale), int(e.multiplier), bytes(p[UDP].payload)[12:14]))
    if not ts or len(ts) != len(sc):
        fail("tshark decoded %d answers, scapy %d" % (len(ts), len(sc)))
    vals = set()
    s_clear = 0
    for i, (t, c) in enumerate(zip(ts, sc)):
        raw, s, z, scale, mult = t
        wire = int.from_bytes(c[4], "big")
        if raw != wire or (s, z, scale, mult) != c[:4]:
            fail("answer %d: tshark %s, scapy %s, wire 0x%04x" % (i, t, c[:4], wire))
        if (wire >> 15, (wire >> 14) & 1, (wire >> 8) & 0x3f, wire & 0xff) != (s, z, scale, mult):
            fail("answer %d: fields do not match the bits 0x%04x" % (i, wire))
        if s != a.s:
            fail("answer %d: S = %d, expected %d" % (i, s, a.s))
        if z != 0:
            fail("answer %d: Z set (PTP timestamps), expected NTP" % i)
        if mult == 0:
            fail("answer %d: multiplier 0 (no estimate)" % i)
        ns = ee_ns(scale, mult)
        if not a.min_ns <= ns <= a.max_ns:
            fail("answer %d: estimate %.1f ns outside %g..%g" % (i, ns, a.min_ns, a.max_ns))
        vals.add(math.ceil(ns))
        s_clear += s == 0
    ow = json.load(open(a.json))["one_way"]["reflector"]
    if ow["error_estimate_max_ns"] not in vals:
        fail("the prober's largest estimate %d ns is none of the wire's %s" %
             (ow["error_estimate_max_ns"], sorted(vals)[:8]))
    if ow["s_clear"] > s_clear:
        fail("the prober counted %d S-clear answers, the wire had %d" % (ow["s_clear"], s_clear))
    print("check_ee: %d answers, tshark = scapy = wire; S=%d, Z=0; estimates %s ns (prober's max %d)" %
          (len(ts), a.s, ", ".join("%d" % v for v in sorted(vals)[:6]) + (" ..." if len(vals) > 6 else ""),
           ow["error_estimate_max_ns"]))


main()
