#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Take a CPU from whatever runs there, in bursts of a known length (issue
34): pinned to CPU, SCHED_FIFO at PRIO (above any SCHED_OTHER task, so a
busy-polling worker pinned there gets nothing until the burst ends), a
busy loop of LEN ms, then GAP ms asleep, COUNT times. Prints one line per
burst with its measured length (ms), then "injected N total_ms T".

  fifo_hog.py CPU LEN_MS GAP_MS COUNT GO_FILE [PRIO]

It prints "ready" once pinned and FIFO, then waits (asleep, polling every
10 ms, 60 s at most) for GO_FILE to exist before its first burst: a python
process starts in seconds on a loaded host (2.7 to 5.9 s seen at load 10 on
2 vCPUs), so a hog started after the prober could burst after its run.

A FIFO busy loop can starve the machine, so it is bounded three ways: the
bursts' sum is refused above 3 s, each burst is cut at its length by the
loop's own clock, and SIGALRM ends the process after the whole schedule
plus 70 s whatever happens (the caller adds a timeout -s KILL on top). The
kernel's RT throttling (sched_rt_runtime_us) caps it at 95 % of a second
anyway; bursts of 100 ms or so, 150 ms apart, do not reach that.
"""
import os
import signal
import sys
import time


def main():
    cpu, len_ms, gap_ms, count = (int(sys.argv[1]), float(sys.argv[2]),
                                  float(sys.argv[3]), int(sys.argv[4]))
    go = sys.argv[5]
    prio = int(sys.argv[6]) if len(sys.argv) > 6 else 50
    if count * len_ms > 3000:
        print('fifo_hog: %d bursts of %g ms: more than 3 s of a FIFO loop'
              % (count, len_ms), file=sys.stderr)
        return 2
    signal.alarm(int(count * (len_ms + gap_ms) / 1000) + 70)
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(prio))
    print('ready', flush=True)
    for _ in range(6000):
        if os.path.exists(go):
            break
        time.sleep(0.01)
    else:
        print('fifo_hog: no %s in 60 s' % go, file=sys.stderr)
        return 2
    total = 0.0
    for _ in range(count):
        time.sleep(gap_ms / 1000.0)
        t0 = time.monotonic()
        end = t0 + len_ms / 1000.0
        while time.monotonic() < end:
            pass
        burst = (time.monotonic() - t0) * 1000.0
        total += burst
        print('burst %.3f' % burst, flush=True)
    print('injected %d total_ms %.3f' % (count, total), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
