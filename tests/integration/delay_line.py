#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A user-space delay line between two interfaces (tests/integration/oneway_asym.sh).

  delay_line.py IF_A IF_B A_TO_B_US B_TO_A_US SECONDS

Every frame that arrives on IF_A leaves on IF_B A_TO_B_US microseconds
later, and the other way round with B_TO_A_US: one direction made slower
on purpose (this kernel has no netem). Raw AF_PACKET sockets, frames the
line sent itself ignored; bounded in time (SECONDS) and in frames
(1,000,000). Prints "delay line: up" once both sockets are bound, and its
counts at the end.
"""
import collections
import select
import socket
import sys
import time

ETH_P_ALL = 3
PACKET_OUTGOING = 4
MAX_FRAMES = 1000000


def main():
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    ifa, ifb = sys.argv[1], sys.argv[2]
    d_ab, d_ba = float(sys.argv[3]) * 1e-6, float(sys.argv[4]) * 1e-6
    end = time.monotonic() + float(sys.argv[5])
    sa = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sb = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sa.bind((ifa, 0))
    sb.bind((ifb, 0))
    sa.setblocking(False)
    sb.setblocking(False)
    # (out socket, delay, queue of (due, frame)) per direction
    q = {sa: (sb, d_ab, collections.deque()), sb: (sa, d_ba, collections.deque())}
    sent = {sa: 0, sb: 0}
    print("delay line: up", flush=True)
    n = 0
    while n < MAX_FRAMES:
        now = time.monotonic()
        if now >= end:
            break
        due = [d[2][0][0] for d in q.values() if d[2]]
        timeout = max(0.0, min(due) - now) if due else 0.05
        r, _, _ = select.select([sa, sb], [], [], min(timeout, 0.05, end - now))
        now = time.monotonic()
        for s in r:
            while True:
                try:
                    data, addr = s.recvfrom(65535)
                except BlockingIOError:
                    break
                if addr[2] == PACKET_OUTGOING:
                    continue
                out, delay, dq = q[s]
                dq.append((now + delay, data))
                n += 1
        now = time.monotonic()
        for s, (out, _, dq) in q.items():
            while dq and dq[0][0] <= now:
                out.send(dq.popleft()[1])
                sent[s] += 1
    print("delay line: %s -> %s %d frames, %s -> %s %d frames" %
          (ifa, ifb, sent[sa], ifb, ifa, sent[sb]), flush=True)


main()
