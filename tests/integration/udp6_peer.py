#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Kernel-socket peers over IPv6 for tests/integration/ipv6.sh.

Debian 12's sockperf 3.7 has no IPv6 ("-i ::1: Invalid address"), so this
speaks sockperf's ping-pong wire format (sequence u64, flags u16, length
u32, big-endian; client bit 0x1, pong request 0x2) over kernel AF_INET6
UDP sockets, as sockperf does over IPv4:

  sockperf-client ADDR PORT COUNT   COUNT ping-pongs, 1 s timeout each; prints
                                    "answered N p50_ns X"; exit 1 if none
  sockperf-server ADDR PORT SECONDS answers pong requests for SECONDS
  tcp-listen ADDR PORT SECONDS      a kernel TCP listener for SECONDS

Every loop is bounded in count and time; addresses are the testbed's.
"""
import socket
import struct
import sys
import time

HDR = struct.Struct(">QHI")
F_CLIENT, F_PONG = 0x1, 0x2


def client(addr, port, count):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    s.connect((addr, port))
    rtts, answered = [], 0
    for seq in range(count):
        msg = HDR.pack(seq, F_CLIENT | F_PONG, 64) + bytes(64 - HDR.size)
        t0 = time.perf_counter_ns()
        s.send(msg)
        try:
            while True:
                data = s.recv(2048)
                if len(data) < HDR.size:
                    continue
                rseq, flags, _ = HDR.unpack_from(data)
                if rseq == seq and not flags & F_CLIENT:
                    rtts.append(time.perf_counter_ns() - t0)
                    answered += 1
                    break
        except socket.timeout:
            continue
    rtts.sort()
    p50 = rtts[len(rtts) // 2] if rtts else 0
    print(f"answered {answered} p50_ns {p50}", flush=True)
    return 0 if answered else 1


def server(addr, port, seconds):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    s.bind((addr, port))
    s.settimeout(0.2)
    print("listening", flush=True)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            data, peer = s.recvfrom(65535)
        except socket.timeout:
            continue
        if len(data) < HDR.size:
            continue
        seq, flags, length = HDR.unpack_from(data)
        if flags & F_CLIENT and flags & F_PONG and length <= len(data):
            reply = HDR.pack(seq, flags & ~F_CLIENT, length) + data[HDR.size:length]
            s.sendto(reply, peer)
    return 0


def tcp_listen(addr, port, seconds):
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(128)
    print("listening", flush=True)
    time.sleep(seconds)
    return 0


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    mode, addr, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    if not addr.startswith("2001:2:") and addr != "::1":
        print("only 2001:2::/48 or ::1", file=sys.stderr)
        return 2
    if mode == "sockperf-client":
        return client(addr, port, min(n, 100000))
    if mode == "sockperf-server":
        return server(addr, port, min(n, 120))
    if mode == "tcp-listen":
        return tcp_listen(addr, port, min(n, 120))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
