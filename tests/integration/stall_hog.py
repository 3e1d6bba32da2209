#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Stall a process in bursts of a known length at a known rate:
SIGSTOP, LEN ms, SIGCONT, then GAP ms, COUNT times. Prints one line per
burst with its measured length (ms), then "injected N"; exits 0, or 1 when
the process went away.

  stall_hog.py PID LEN_MS GAP_MS COUNT
"""
import os
import signal
import sys
import time


def main():
    pid, len_ms, gap_ms, count = (int(sys.argv[1]), float(sys.argv[2]),
                                  float(sys.argv[3]), int(sys.argv[4]))
    done = 0
    try:
        for _ in range(count):
            time.sleep(gap_ms / 1000.0)
            t0 = time.monotonic()
            os.kill(pid, signal.SIGSTOP)
            time.sleep(len_ms / 1000.0)
            os.kill(pid, signal.SIGCONT)
            print('stall %.3f' % ((time.monotonic() - t0) * 1000.0),
                  flush=True)
            done += 1
    except ProcessLookupError:
        print('injected %d (process gone)' % done)
        return 1
    finally:
        # Never leave it stopped.
        try:
            os.kill(pid, signal.SIGCONT)
        except ProcessLookupError:
            pass
    print('injected %d' % done)
    return 0


if __name__ == '__main__':
    sys.exit(main())
