#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Golden vectors for STAMP authenticated mode, built independently.

What it does: builds the authenticated Session-Sender (RFC 8762 §4.2.2,
Figure 4) and Session-Reflector (§4.3.2, Figure 6) packets itself with
struct.pack from the RFC layouts (with the RFC 8972 §3 SSID after the error
estimate), and their HMAC with Python's hmac/hashlib: HMAC-SHA-256 over the
first 96 octets, truncated to 128 bits (RFC 8762 §4.4). Then it compiles
tools/golden/stamp_auth_gen.c against lib/codec/stamp_auth.c (plain C and
libcrypto, no DPDK), which prints what our codec builds for the same cases,
and compares the two byte for byte. On success the Python-built packets and
keys are written to tests/unit/codec_stamp/vectors/stamp_auth_golden.h,
which the unit test checks our builders, parsers and verifier against.

tshark 4.0's TWAMP-Test dissector has no authenticated-mode layout (no HMAC
field; it decodes every packet as the unauthenticated one), so no
third-party dissector is in this check.

Rerun (needs cc and libssl-dev):
    /usr/bin/python3 tools/golden/stamp_auth_vectors.py   # from the repo root
then commit tests/unit/codec_stamp/vectors/stamp_auth_golden.h if it changed.
"""

import hashlib
import hmac
import os
import struct
import subprocess
import sys
import tempfile

from golden import (NTP_EE, PTP_EE, REFL_SEQ, ROOT, SENDER_SEQ, SSID, T1_NS,
                    T2_NS, T3_NS, TTL)

OUT = os.path.join(ROOT, "tests/unit/codec_stamp/vectors/stamp_auth_golden.h")

KEY1 = b"latprobe golden key"
KEY2 = bytes(range(64))


def ntp(ns):
    """RFC 5905 64-bit NTP timestamp, fraction to the nearest 2^-32 s."""
    sec = ns // 10**9 + 2208988800
    frac = ((ns % 10**9 << 32) + 10**9 // 2) // 10**9
    return (sec & 0xFFFFFFFF) << 32 | frac


def ptp(ns):
    """Truncated PTPv2: 32-bit seconds, 32-bit nanoseconds."""
    return (ns // 10**9 & 0xFFFFFFFF) << 32 | ns % 10**9


def ts(ns, ee):
    return ptp(ns) if ee & 0x4000 else ntp(ns)


def seal(key, covered, length):
    assert len(covered) == 96
    mac = hmac.new(key, covered, hashlib.sha256).digest()[:16]
    return covered + mac + bytes(length - 112)


def sender(key, ee, length):
    # Figure 4: seq, MBZ(12), timestamp, error estimate, SSID, MBZ(68)
    covered = struct.pack(">I12xQHH68x", SENDER_SEQ, ts(T1_NS, ee), ee, SSID)
    return seal(key, covered, length)


def reflector(key, ee, length):
    # Figure 6: seq, MBZ(12), T3, error estimate, SSID, MBZ(4), T2, MBZ(8),
    # sender seq, MBZ(12), sender timestamp, sender error estimate, MBZ(6),
    # sender TTL, MBZ(15)
    covered = struct.pack(">I12xQHH4xQ8xI12xQH6xB15x", REFL_SEQ,
                          ts(T3_NS, ee), ee, SSID, ts(T2_NS, ee), SENDER_SEQ,
                          ts(T1_NS, ee), ee, TTL)
    return seal(key, covered, length)


CASES = [
    # name, key name, reflector?, error estimate, length
    ("auth_sender_ntp_112", "key1", False, NTP_EE, 112),
    ("auth_reflector_ntp_112", "key1", True, NTP_EE, 112),
    ("auth_sender_ptp_112", "key1", False, PTP_EE, 112),
    ("auth_reflector_ptp_112", "key1", True, PTP_EE, 112),
    ("auth_sender_key64_128", "key2", False, NTP_EE, 128),
    ("auth_reflector_key64_128", "key2", True, NTP_EE, 128),
]
KEYS = {"key1": KEY1, "key2": KEY2}


def c_bytes(h, name, data):
    h.write(f"static const uint8_t {name}[] = {{\n")
    items = [f"0x{b:02x}" for b in data]
    for i in range(0, len(items), 8):
        h.write("\t" + ", ".join(items[i:i + 8]) + ",\n")
    h.write("};\n\n")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        gen = os.path.join(tmp, "stamp_auth_gen")
        # codec.c (codec_hex_digit) needs DPDK's headers (inline only).
        dpdk = subprocess.run(["pkg-config", "--cflags", "libdpdk"],
                              check=True, capture_output=True,
                              text=True).stdout.split()
        subprocess.run(["cc", "-O1", "-I", os.path.join(ROOT, "lib/codec"),
                        "-I", os.path.join(ROOT, "lib/util")] + dpdk +
                       [os.path.join(ROOT, "lib/codec/codec.c"),
                        os.path.join(ROOT, "lib/codec/stamp.c"),
                        os.path.join(ROOT, "lib/codec/stamp_auth.c"),
                        os.path.join(ROOT, "tools/golden/stamp_auth_gen.c"),
                        "-lcrypto", "-lm", "-o", gen], check=True)
        ours = dict(l.split() for l in
                    subprocess.run([gen], check=True, capture_output=True,
                                   text=True).stdout.splitlines())
    built = []
    for name, key, refl, ee, length in CASES:
        want = (reflector if refl else sender)(KEYS[key], ee, length)
        got = bytes.fromhex(ours.get(name, ""))
        if got != want:
            sys.exit(f"{name}: ours {got.hex()}\n  vs python {want.hex()}")
        built.append((name, key, refl, ee, want))
        print(f"ok {name} ({length} bytes)")

    with open(OUT, "w") as h:
        h.write("/* SPDX-License-Identifier: BSD-3-Clause */\n"
                "/* Generated by tools/golden/stamp_auth_vectors.py: STAMP\n"
                " * authenticated packets built by Python (struct.pack from\n"
                " * RFC 8762 Figures 4 and 6, hmac/hashlib HMAC-SHA-256/128).\n"
                " * Do not edit. */\n\n")
        h.write("struct stamp_auth_golden {\n\tconst char *name;\n"
                "\tconst uint8_t *key;\n\tsize_t key_len;\n"
                "\tbool reflector;\n\tuint16_t ee;\n"
                "\tconst uint8_t *bytes;\n\tsize_t len;\n};\n\n")
        for k, v in KEYS.items():
            c_bytes(h, f"golden_auth_{k}", v)
        for name, _, _, _, data in built:
            c_bytes(h, f"golden_{name}", data)
        h.write("static const struct stamp_auth_golden "
                "stamp_auth_golden[] = {\n")
        for name, key, refl, ee, data in built:
            h.write(f"\t{{\"{name}\", golden_auth_{key}, "
                    f"sizeof(golden_auth_{key}), "
                    f"{'true' if refl else 'false'}, {ee:#06x}, "
                    f"golden_{name}, sizeof(golden_{name})}},\n")
        h.write("};\n")
    subprocess.run(["clang-format", "-i", OUT], check=True)
    print(f"wrote {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
