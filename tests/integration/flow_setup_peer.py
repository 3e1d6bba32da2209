#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A UDP echo (RFC 862) over a kernel socket that holds the first datagram
of every new 5-tuple for DELAY_MS before echoing it, as a cloud virtual
switch sets a flow up in software on its first packet and then offloads
it. For tests/integration/flows.sh (--new-flow-every).

  flow_setup_peer.py ADDR PORT DELAY_MS SECONDS

Prints "listening", then on exit "tuples N echoed M". Bounded in time
(SECONDS) and in remembered tuples (65536); the testbed's addresses only.
"""
import socket
import sys
import time


def main():
    addr, port = sys.argv[1], int(sys.argv[2])
    delay = float(sys.argv[3]) / 1000.0
    seconds = float(sys.argv[4])
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((addr, port))
    s.settimeout(0.2)
    print("listening", flush=True)
    seen, echoed = set(), 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data, peer = s.recvfrom(65535)
        except socket.timeout:
            continue
        if peer not in seen and len(seen) < 65536:
            seen.add(peer)
            time.sleep(delay)  # never shorter; longer only by scheduling
        s.sendto(data, peer)
        echoed += 1
    print(f"tuples {len(seen)} echoed {echoed}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
