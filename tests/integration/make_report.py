#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a synthetic latprobe JSON report (format_version 1) for compare.sh.

Its "hdr" strings come from this file's own HdrHistogram V2 encoder
(written from the format's description, independently of
lib/histogram/hdr_codec.c), so compare.sh also checks that our reader
accepts another writer's encoding.

  make_report.py OUT --median NS --sigma S --n N --seed K
                 [--proto stamp] [--size 44] [--cpu MODEL] [--driver D]
"""
import argparse
import base64
import json
import math
import random
import struct
import zlib


def index(v):
    b = max(0, (v | 255).bit_length() - 8)
    return (b << 7) + (v >> b)


def lowest(i):
    b = i // 128 - 1 if i >= 256 else 0
    return (i - (b << 7)) << b if i >= 256 else i


def zigzag(v):
    z = (v << 1) ^ (v >> 63)
    z &= (1 << 64) - 1
    out = bytearray()
    for _ in range(8):
        if z < 0x80:
            out.append(z)
            return bytes(out)
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z & 0xFF)
    return bytes(out)


def encode(counts):
    last = max((i for i, c in enumerate(counts) if c), default=-1)
    payload = bytearray()
    i = 0
    while i <= last:
        if counts[i] == 0:
            j = i
            while j <= last and counts[j] == 0:
                j += 1
            payload += zigzag(-(j - i)) if j - i > 1 else zigzag(0)
            i = j
        else:
            payload += zigzag(counts[i])
            i += 1
    raw = struct.pack(">iiiiqqd", 0x1C849313, len(payload), 0, 2, 1,
                      10**10, 1.0) + bytes(payload)
    comp = zlib.compress(raw)
    return base64.b64encode(struct.pack(">ii", 0x1C849314, len(comp)) +
                            comp).decode()


def series(values):
    counts = [0] * 3584
    for v in values:
        counts[index(v)] += 1
    vs = sorted(values)
    n = len(vs)
    mean = sum(vs) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in vs) / n)

    def pct(p):
        rank = max(1, math.ceil(p / 100 * n - 1e-9))
        seen = 0
        for i, c in enumerate(counts):
            seen += c
            if seen >= rank:
                hi = lowest(i + 1) - 1 if i >= 1 else 0
                return min(max(hi, vs[0]), vs[-1])
    return {"count": n, "min": vs[0], "mean": mean, "stddev": sd,
            "max": vs[-1], "p50": pct(50), "p90": pct(90), "p99": pct(99),
            "p99_9": pct(99.9), "p99_99": pct(99.99), "p99_999": pct(99.999),
            "underflow": 0, "overflow": 0, "hdr": encode(counts),
            "hdr_lowest": 1, "hdr_highest": 10**10, "hdr_sigfigs": 2,
            "sum": sum(vs)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--median", type=float, required=True)
    ap.add_argument("--sigma", type=float, default=0.2)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--proto", default="stamp")
    ap.add_argument("--size", type=int, default=44)
    ap.add_argument("--cpu", default="AMD EPYC")
    ap.add_argument("--driver", default="net_af_xdp")
    ap.add_argument("--host", default="vm")
    ap.add_argument("--no-hdr", action="store_true")
    # every value the lowest of its counter, written one per line: a
    # histogram then holds the raw samples exactly (for SciPy)
    ap.add_argument("--quantize-to")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    vals = [max(1, round(a.median * math.exp(a.sigma * rng.gauss(0, 1))))
            for _ in range(a.n)]
    if a.quantize_to:
        vals = [lowest(index(v)) for v in vals]
        open(a.quantize_to, "w").write("\n".join(map(str, vals)) + "\n")
    rtt = series(vals)
    if a.no_hdr:  # a report from before format_version 1
        for k in ("hdr", "hdr_lowest", "hdr_highest", "hdr_sigfigs", "sum"):
            del rtt[k]
    rep = {"format_version": 1, "machine": {"cpu_model": a.cpu,
                                            "nic_driver": a.driver},
           "host": a.host, "proto": a.proto, "size": a.size, "port_driver": a.driver,
           "probes": {"sent": a.n, "received": a.n}, "rtt_ns": rtt}
    if a.no_hdr:
        del rep["format_version"]
    json.dump(rep, open(a.out, "w"), indent=1)


if __name__ == "__main__":
    main()
