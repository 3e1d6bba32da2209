#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""A STAMP / TWAMP-Light peer latprobe did not write, on kernel UDP sockets.

STAMP packets are built and parsed with scapy's own layers
(scapy.contrib.stamp: STAMPSessionSenderTestUnauthenticated and
STAMPSessionReflectorTestUnauthenticated, RFC 8762/8972 as scapy lays them
out); TWAMP-Light packets (RFC 5357 section 4.1.2 sender, 4.2.1 reflector)
are packed here field by field as the RFC figures draw them.

  stamp_peer.py reflect --bind IP [--port 862] --mode MODE --count N
  stamp_peer.py send --to IP [--port 862] --kind stamp|twamp --len L
                     --count N [--random-pad] [--stateful]

reflect answers N requests then exits (or after --timeout s without one).
Modes: stateless (RFC 8762 stateless, S=1 scale 10 multiplier 3), stateful
(own sequence numbers from 0), ptp (Z=1: T2/T3 truncated PTPv2 and a
claimed turnaround of exactly PTP_TURN_NS), twamp41 (RFC 5357 reflector
packet, 41 bytes, own numbering from 7), long (the STAMP answer followed by
100 bytes of random padding: longer than the request), short (20 bytes: too
short to hold the sender's sequence number).

send sends N requests one at a time, waits for each answer (1 s) and checks
it: same length as the request, the sender's sequence number, timestamp and
error estimate echoed where they fit, T2 <= T3, stateless: the reflector's
sequence number is ours, --stateful: it counts 0, 1, 2..., TWAMP-Light
padding after byte 44 returned as sent. Prints one line
per run and the first exchange in hex; exits 1 on any mismatch or loss.
"""
import argparse
import os
import socket
import struct
import sys
import time

from scapy.contrib.stamp import (ErrorEstimate,
                                 STAMPSessionReflectorTestUnauthenticated,
                                 STAMPSessionSenderTestUnauthenticated)

NTP_OFFSET = 2208988800
PTP_TURN_NS = 50000


def ntp_now():
    ns = time.time_ns()
    sec, rem = divmod(ns, 1000000000)
    return (sec + NTP_OFFSET) << 32 | (rem << 32) // 1000000000


def ptp_now(add_ns=0):
    ns = time.time_ns() + add_ns
    sec, rem = divmod(ns, 1000000000)
    return (sec & 0xffffffff) << 32 | rem


def ntp_float(ts):
    return (ts >> 32) - NTP_OFFSET + (ts & 0xffffffff) / 2**32


def ee_bits(s, z, scale, mult):
    return s << 15 | z << 14 | scale << 8 | mult


def reflect_one(req, mode, own_seq, ttl):
    """The answer to req (bytes) in this mode."""
    t2 = ntp_now()
    sseq, sts, see = struct.unpack_from('!IQH', req.ljust(14, b'\0'))
    if mode == 'twamp41':
        # RFC 5357 4.2.1: seq, T3, EE, MBZ, T2, sender seq, T1, sender EE,
        # MBZ, sender TTL; nothing after (41 bytes).
        return struct.pack('!IQHHQIQHHB', own_seq, ntp_now(), 0x0001, 0, t2,
                           sseq, sts, see, 0, ttl)
    ee = ErrorEstimate(S=1, Z=0, scale=10, multiplier=3)
    seq = sseq if mode in ('stateless', 'long', 'short') else own_seq
    ssid = struct.unpack_from('!H', req, 14)[0] if len(req) >= 16 else 0
    if mode == 'ptp':
        ee = ErrorEstimate(S=1, Z=1, scale=0, multiplier=1)
    pkt = STAMPSessionReflectorTestUnauthenticated(
        seq=seq, err_estimate=ee, ssid=ssid, seq_sender=sseq,
        err_estimate_sender=ErrorEstimate(
            S=see >> 15, Z=(see >> 14) & 1, scale=(see >> 8) & 0x3f,
            multiplier=see & 0xff),
        ttl_sender=ttl)
    raw = bytearray(bytes(pkt))
    if mode == 'ptp':
        # scapy types a Z=1 timestamp as a 64-bit UTC count, not RFC
        # 8186's truncated PTPv2 (32-bit seconds, 32-bit nanoseconds):
        # the two timestamps are written here, T3 = T2 + PTP_TURN_NS.
        t2p = ptp_now()
        struct.pack_into('!Q', raw, 16, t2p)
        struct.pack_into('!Q', raw, 4, t2p + PTP_TURN_NS)
        struct.pack_into('!Q', raw, 28, sts)
    else:
        struct.pack_into('!Q', raw, 16, t2)
        struct.pack_into('!Q', raw, 28, sts)       # T1 exactly as sent
        struct.pack_into('!Q', raw, 4, ntp_now())  # T3, last
    raw = bytes(raw)
    if mode == 'long':
        raw = raw.ljust(len(req), b'\0') + os.urandom(100)
    elif mode == 'short':
        raw = raw[:20]
    elif len(req) > len(raw):
        raw += req[len(raw):]  # RFC 8972 TLVs / padding echoed
    return raw


def cmd_reflect(a):
    fam = socket.AF_INET6 if ':' in a.bind else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    # IP_RECVTTL (Linux 12): the TTL each request arrived with.
    s.setsockopt(socket.IPPROTO_IP, getattr(socket, 'IP_RECVTTL', 12), 1)
    s.bind((a.bind, a.port))
    s.settimeout(a.timeout)
    print(f'stamp_peer reflect: {a.mode} on {a.bind}:{a.port}', flush=True)
    own = 7 if a.mode == 'twamp41' else 0
    for i in range(a.count):
        try:
            req, anc, _, peer = s.recvmsg(65535, socket.CMSG_SPACE(4))
        except socket.timeout:
            break
        ttl = 255
        for lvl, typ, data in anc:
            if lvl == socket.IPPROTO_IP and typ == socket.IP_TTL:
                ttl = struct.unpack('i', data[:4])[0] & 0xff
        if len(req) < 14:
            continue
        ans = reflect_one(req, a.mode, own, ttl)
        own += 1
        s.sendto(ans, peer)
        if i == 0:
            print(f'request  {len(req):4d} B: {req[:64].hex()}')
            print(f'answer   {len(ans):4d} B: {ans[:64].hex()}', flush=True)
    print(f'stamp_peer reflect: answered {own - (7 if a.mode == "twamp41" else 0)}',
          flush=True)
    return 0


def build_request(a, seq, rnd):
    ts = ntp_now()
    if a.kind == 'stamp':
        pkt = STAMPSessionSenderTestUnauthenticated(
            seq=seq, err_estimate=ErrorEstimate(S=0, Z=0, scale=20,
                                                multiplier=1), ssid=0x5a5a)
        raw = bytearray(bytes(pkt))
        struct.pack_into('!Q', raw, 4, ts)
        return bytes(raw.ljust(a.len, b'\0')), ts
    # RFC 5357 4.1.2: seq, timestamp, error estimate, packet padding
    head = struct.pack('!IQH', seq, ts, 0x3fff)
    pad = a.len - len(head)
    body = rnd.randbytes(pad) if a.random_pad else bytes(pad)
    return head + body, ts


def cmd_send(a):
    import random
    rnd = random.Random(0x5eed)
    fam = socket.AF_INET6 if ':' in a.to else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    s.connect((a.to, a.port))
    got, bad = 0, []
    for i in range(a.count):
        req, ts = build_request(a, 1000 + i, rnd)
        s.send(req)
        try:
            ans = s.recv(65535)
        except (socket.timeout, ConnectionRefusedError):
            bad.append(f'#{i}: no answer')
            continue
        if i == 0:
            print(f'request  {len(req):4d} B: {req[:64].hex()}')
            print(f'answer   {len(ans):4d} B: {ans[:64].hex()}')
        if len(ans) != len(req):
            bad.append(f'#{i}: {len(ans)} bytes back for {len(req)}')
            continue
        got += 1
        b = ans.ljust(44, b'\0')
        r = STAMPSessionReflectorTestUnauthenticated(b[:44])
        want_seq = i if a.stateful else 1000 + i
        if len(ans) >= 4 and r.seq != want_seq:
            bad.append(f'#{i}: reflector seq {r.seq}, expected {want_seq}')
        t3 = struct.unpack_from('!Q', b, 4)[0]
        t2 = struct.unpack_from('!Q', b, 16)[0]
        if len(ans) >= 12 and t3 == 0:
            bad.append(f'#{i}: no T3')
        if len(ans) >= 24 and not 0 < t2 <= t3:
            bad.append(f'#{i}: T2 {t2:#x} T3 {t3:#x}')
        if len(ans) >= 28 and r.seq_sender != 1000 + i:
            bad.append(f'#{i}: sender seq {r.seq_sender}')
        if len(ans) >= 36 and struct.unpack_from('!Q', b, 28)[0] != ts:
            bad.append(f'#{i}: sender timestamp not echoed')
        if len(ans) >= 38 and b[36:38] != req[12:14]:
            bad.append(f'#{i}: sender error estimate not echoed')
        if len(ans) >= 41 and r.ttl_sender == 0:
            bad.append(f'#{i}: sender TTL 0')
        if a.kind == 'twamp' and len(ans) > 44 and ans[44:] != req[44:]:
            # latprobe's choice (docs/peers.md): TWAMP-Light padding is
            # answered as it came, not read as RFC 8972 TLVs.
            bad.append(f'#{i}: padding after byte 44 changed')
    ee = ans[12:14].hex() if got and len(ans) >= 14 else '-'
    print(f'stamp_peer send: {a.kind} {a.len} B x {a.count}: {got} answered, '
          f'{len(bad)} wrong; reflector error estimate {ee}')
    for m in bad[:5]:
        print(f'  {m}', file=sys.stderr)
    return 0 if not bad and got == a.count else 1


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest='cmd', required=True)
    r = sub.add_parser('reflect')
    r.add_argument('--bind', required=True)
    r.add_argument('--port', type=int, default=862)
    r.add_argument('--mode', default='stateless',
                   choices=['stateless', 'stateful', 'ptp', 'twamp41',
                            'long', 'short'])
    r.add_argument('--count', type=int, default=1000)
    r.add_argument('--timeout', type=float, default=20.0)
    s = sub.add_parser('send')
    s.add_argument('--to', required=True)
    s.add_argument('--port', type=int, default=862)
    s.add_argument('--kind', choices=['stamp', 'twamp'], default='stamp')
    s.add_argument('--len', type=int, default=44)
    s.add_argument('--count', type=int, default=50)
    s.add_argument('--random-pad', action='store_true')
    s.add_argument('--stateful', action='store_true')
    a = p.parse_args()
    if a.cmd == 'send' and (a.len < 14 or (a.kind == 'stamp' and a.len < 44)):
        p.error('--len: at least 14 (twamp) or 44 (stamp)')
    return cmd_reflect(a) if a.cmd == 'reflect' else cmd_send(a)


if __name__ == '__main__':
    sys.exit(main())
