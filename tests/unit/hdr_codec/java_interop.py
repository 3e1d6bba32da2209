#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Our HdrHistogram V2 codec against the reference Java implementation.

Both ways: we encode, Java decodes; Java encodes, we decode. Each side
prints count, min, max, mean and p50/p90/p99/p99.9/p99.99/p100 of what it
decoded; the integers must be equal, the means within 0.1 % (the two sides
take a bucket's middle a half nanosecond apart). Exit 77 (skip) when javac
or the jar is missing.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

JAR = "/usr/share/java/hdrhistogram.jar"


def main():
    tool, java_src = sys.argv[1], sys.argv[2]
    if shutil.which("javac") is None or not os.path.exists(JAR):
        print("SKIP: needs javac (default-jdk-headless) and libhdrhistogram-java "
              "(tools/setup installs both)")
        return 77
    tmp = tempfile.mkdtemp(prefix="hdrcheck.")
    try:
        shutil.copy(java_src, tmp)
        subprocess.run(["javac", "-cp", JAR, "-d", tmp,
                        os.path.join(tmp, "HdrCheck.java")], check=True)
        cp = JAR + ":" + tmp

        def java(*args):
            return subprocess.run(["java", "-cp", cp, "HdrCheck", *args],
                                  check=True, capture_output=True,
                                  text=True).stdout.split("\n")[:-1]

        def ours(*args):
            return subprocess.run([tool, *args], check=True,
                                  capture_output=True,
                                  text=True).stdout.split("\n")[:-1]

        rng = random.Random(18)
        cases = [
            ["1:1"],
            ["10000000000:1"],
            ["1:1", "10000000000:1"],
            ["255:3", "256:4", "257:5", "511:1", "512:1"],
            ["1000:4611686018427387903"],  # huge count (fits ZigZag)
            ["440:1000", "1600:100", "8300:10", "55000:1"],
        ]
        for _ in range(40):
            n = rng.randint(1, 60)
            vals = set()
            case = []
            for _ in range(n):
                # log-uniform over the whole range: every magnitude
                v = int(10 ** rng.uniform(0, 10))
                v = min(max(v, 1), 10**10)
                if v in vals:
                    continue
                vals.add(v)
                case.append("%d:%d" % (v, rng.choice([1, 1, 2, 7, 1000,
                                                      rng.randint(1, 10**6)])))
            cases.append(case)

        fails = 0
        b64_ours = [ours("encode", *c)[0] for c in cases]
        b64_java = [java("encode", *c)[0] for c in cases]
        for direction, b64 in (("ours->java", b64_ours),
                               ("java->ours", b64_java)):
            a = java("decode", *b64)
            b = ours("decode", *b64)
            for case, x, y in zip(cases, a, b):
                xs, ys = x.split(), y.split()
                ok = (len(xs) == len(ys) == 10 and xs[:3] == ys[:3]
                      and xs[4:] == ys[4:]
                      # our sum is a uint64: the mean of 2^62 values is
                      # not comparable
                      and (int(xs[0]) > 2**50
                           or abs(float(xs[3]) - float(ys[3]))
                           <= 1e-3 * max(1.0, float(xs[3]))))
                if not ok:
                    fails += 1
                    print("MISMATCH %s %s\n  java: %s\n  ours: %s"
                          % (direction, " ".join(case[:6]), x, y))
        print("%d histograms both ways, %d mismatches" % (len(cases), fails))
        return 1 if fails else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
