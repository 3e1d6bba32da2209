#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Golden STAMP vectors, checked by an independent decoder (tshark).

What it does: compiles tools/golden/stamp_gen.c against lib/codec/stamp.c
(plain C, no DPDK), which prints the payloads our codec builds for a fixed
set of cases (sender and reflector, NTP and PTP timestamps, RFC 8972 TLVs,
a 41-byte TWAMP-Light packet). scapy wraps each payload in Ether/IPv4/UDP
(sender packets to port 862, reflector packets from it), tshark's TWAMP-Test
dissector ("twamp.test", forced on port 862) decodes them, and every field
it shows is compared with the values the case was built from. On success the
payloads and tshark's readings are written to
tests/unit/codec_stamp/vectors/stamp_golden.h, which the unit test checks
our builders and parsers against.

tshark 4.0 facts this relies on (checked with 4.0.17):
- it always decodes the reflector layout; on a sender packet the reflector
  fields are MBZ and read as zero, and the SSID shows as "twamp.test.mbz1";
- it truncates NTP fractions to whole ns (we round), so times agree to 1 ns;
- it honours the Z bit for Timestamp and Receive Timestamp but decodes the
  reflector's Sender Timestamp as NTP whatever the sender error estimate
  says; that field is compared as NTP-decoded raw bits;
- it does not decode RFC 8972 TLVs; it shows bytes 41.. as "Packet Padding",
  compared byte for byte.

Rerun (Debian 12: apt-get install tshark python3-scapy; needs cc):
    /usr/bin/python3 tools/golden/stamp_vectors.py      # from the repo root
then commit tests/unit/codec_stamp/vectors/stamp_golden.h if it changed.
"""

import calendar
import os
import subprocess
import sys
import tempfile
import time

from scapy.all import IP, UDP, Ether, Raw, wrpcap

from golden import (NTP_EE, PTP_EE, REFL_SEQ, ROOT, SENDER_SEQ, SSID, T1_NS,
                    T2_NS, T3_NS, TTL, c_array)

OUT = os.path.join(ROOT, "tests/unit/codec_stamp/vectors/stamp_golden.h")


FIELDS = [
    "twamp.test.seq_number",
    "twamp.test.timestamp",
    "twamp.test.error_estimate",
    "twamp.test.error_estimate.s",
    "twamp.test.error_estimate.z",
    "twamp.test.error_estimate.scale",
    "twamp.test.error_estimate.multiplier",
    "twamp.test.mbz1",
    "twamp.test.receive_timestamp",
    "twamp.test.sender_seq_number",
    "twamp.test.sender_timestamp",
    "twamp.test.sender_error_estimate",
    "twamp.test.sender_ttl",
    "twamp.test.padding",
]


def tshark_time_ns(s):
    """'Nov 14, 2023 22:13:20.123456788 UTC' -> ns since 1970."""
    s = " ".join(s.replace(" UTC", "").split())
    whole, frac = s.rsplit(".", 1)
    t = time.strptime(whole, "%b %d, %Y %H:%M:%S")
    return calendar.timegm(t) * 10**9 + int(frac.ljust(9, "0")[:9])


def ntp_bits_to_ns_floor(v):
    """What tshark shows for 64 bits read as NTP (fraction truncated)."""
    sec, frac = v >> 32, v & 0xFFFFFFFF
    if not sec & 0x80000000:  # tshark's era rule (RFC 4330 §3): MSB 0 = 2036+
        sec += 1 << 32
    return (sec - 2208988800) * 10**9 + (frac * 10**9 >> 32)


def ptp_bits(ns):
    return (ns // 10**9 & 0xFFFFFFFF) << 32 | ns % 10**9


def near(a, b, what, name):
    if abs(a - b) > 1:
        sys.exit(f"{name}: {what}: tshark {a} vs expected {b}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "stamp_gen")
        subprocess.run(["cc", "-O1", "-I", os.path.join(ROOT, "lib/codec"),
                        "-I", os.path.join(ROOT, "lib/util"),
                        os.path.join(ROOT, "lib/codec/stamp.c"),
                        os.path.join(ROOT, "tools/golden/stamp_gen.c"),
                        "-lm", "-o", gen], check=True)
        cases = [l.split() for l in
                 subprocess.run([gen], check=True, capture_output=True,
                                text=True).stdout.splitlines()]
        frames = []
        for name, hx in cases:
            sport, dport = (40000, 862) if name.startswith("sender") else (862, 40000)
            frames.append(Ether() / IP(src="198.18.0.1", dst="198.18.0.2") /
                          UDP(sport=sport, dport=dport) / Raw(bytes.fromhex(hx)))
        pcap = os.path.join(tmp, "stamp.pcap")
        wrpcap(pcap, frames)
        cmd = ["tshark", "-r", pcap, "-d", "udp.port==862,twamp.test",
               "-T", "fields", "-E", "separator=|", "-E", "occurrence=f"]
        for f in FIELDS:
            cmd += ["-e", f]
        rows = subprocess.run(cmd, check=True, capture_output=True,
                              text=True).stdout.splitlines()
    if len(rows) != len(cases):
        sys.exit(f"tshark decoded {len(rows)} of {len(cases)} frames")

    out = []
    for (name, hx), row in zip(cases, rows):
        f = dict(zip(FIELDS, row.split("|")))
        payload = bytes.fromhex(hx)
        ptp = "ptp" in name
        ee = PTP_EE if ptp else NTP_EE
        refl = name.startswith("reflector")
        seq = int(f["twamp.test.seq_number"])
        ts = tshark_time_ns(f["twamp.test.timestamp"])
        ee_got = int(f["twamp.test.error_estimate"])
        ssid = int(f["twamp.test.mbz1"])
        rx = tshark_time_ns(f["twamp.test.receive_timestamp"])
        sseq = int(f["twamp.test.sender_seq_number"])
        sts = tshark_time_ns(f["twamp.test.sender_timestamp"])
        see = int(f["twamp.test.sender_error_estimate"])
        ttl = int(f["twamp.test.sender_ttl"])
        pad = f["twamp.test.padding"]

        # A TWAMP-Light answer has MBZ where STAMP has the SSID (RFC 5357
        # §4.2.1): bytes 14-15 of a TWAMP-Light request are padding.
        want_ssid = 0 if name == "reflector_light_41" else SSID
        if ee_got != ee or ssid != want_ssid:
            sys.exit(f"{name}: error estimate/SSID {ee_got:#x}/{ssid:#x}")
        # the sub-fields, as tshark splits them (RFC 4656 §4.1.2)
        if (int(f["twamp.test.error_estimate.s"]) != (ee >> 15 & 1) or
                int(f["twamp.test.error_estimate.z"]) != (ee >> 14 & 1) or
                int(f["twamp.test.error_estimate.scale"]) != (ee >> 8 & 0x3F) or
                int(f["twamp.test.error_estimate.multiplier"]) != (ee & 0xFF)):
            sys.exit(f"{name}: error estimate sub-fields {row}")
        sts_ntp = False
        if refl:
            if seq != REFL_SEQ or sseq != SENDER_SEQ or see != ee or ttl != TTL:
                sys.exit(f"{name}: reflector fields {row}")
            near(ts, T3_NS, "T3", name)
            near(rx, T2_NS, "T2", name)
            if ptp:
                # tshark 4.0 reads Sender Timestamp as NTP regardless of Z
                sts_ntp = True
                near(sts, ntp_bits_to_ns_floor(ptp_bits(T1_NS)), "T1 bits", name)
            else:
                near(sts, T1_NS, "T1", name)
        else:
            if seq != SENDER_SEQ or rx != 0 or sseq != 0 or see != 0 or ttl != 0:
                sys.exit(f"{name}: sender fields {row}")
            near(ts, T1_NS, "T1", name)
        if pad != payload[41:].hex():
            sys.exit(f"{name}: bytes 41.. {pad} vs {payload[41:].hex()}")
        out.append((name, payload, seq, ts, ee_got, ssid, rx, sseq, sts, see,
                    ttl, sts_ntp))
        print(f"ok {name} ({len(payload)} bytes)")

    with open(OUT, "w") as h:
        h.write("/* SPDX-License-Identifier: BSD-3-Clause */\n"
                "/* Generated by tools/golden/stamp_vectors.py: payloads of\n"
                " * tools/golden/stamp_gen.c and what tshark "
                + subprocess.run(["tshark", "--version"], capture_output=True,
                                 text=True).stdout.split()[2]
                + " (twamp.test)\n"
                " * read in them; times in ns since 1970, NTP fractions "
                "truncated.\n * Do not edit. */\n\n")
        h.write("struct stamp_golden {\n\tconst char *name;\n"
                "\tconst uint8_t *bytes;\n\tsize_t len;\n\tuint32_t seq;\n"
                "\tuint64_t ts_ns;\n\tuint16_t ee;\n\tuint16_t ssid;\n"
                "\tuint64_t rx_ts_ns;\n\tuint32_t sender_seq;\n"
                "\tuint64_t sender_ts_ns;\n\tuint16_t sender_ee;\n"
                "\tuint8_t sender_ttl;\n"
                "\tbool sender_ts_as_ntp; /* tshark ignored the Z bit */\n"
                "};\n\n")
        for c in out:
            c_array(h, f"golden_{c[0]}", c[1])
        h.write("static const struct stamp_golden stamp_golden[] = {\n")
        for (name, payload, seq, ts, ee, ssid, rx, sseq, sts, see, ttl,
             sts_ntp) in out:
            h.write(f"\t{{\"{name}\", golden_{name}, sizeof(golden_{name}), "
                    f"{seq}, {ts}ULL, {ee:#06x}, {ssid:#06x}, {rx}ULL, {sseq}, "
                    f"{sts}ULL, {see:#06x}, {ttl}, "
                    f"{'true' if sts_ntp else 'false'}}},\n")
        h.write("};\n")
    # the repo's .clang-format, so the check script leaves it unchanged
    # LP_CLANG_FORMAT: tools/check names the pinned major
    subprocess.run([os.environ.get("LP_CLANG_FORMAT", "clang-format"), "-i", OUT],
                   check=True)
    print(f"wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
