#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""When did the first probe go on the wire?

  tools/first_packet.py --pcapng FILE --udp-dport N
      the send time (ns since the epoch) of the first IPv4/UDP frame to
      port N in a pcapng file (latprobe probe --pcap writes them): for
      STAMP (port 862) the probe's own T1 timestamp, which latprobe takes
      from the TSC anchored to CLOCK_REALTIME; else the pcapng timestamp
  tools/first_packet.py --iface IF --udp-dport N [--timeout S]
      listen on IF (AF_PACKET, root) and print the kernel's receive
      timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME) of the first IPv4/UDP
      frame to port N; "ready" on stderr once listening
  tools/first_packet.py --exec T0FILE CMD [ARG...]
      write the time now (ns since the epoch) into T0FILE, then exec CMD:
      the start of a startup measurement, taken as late as possible

tools/bench uses these for startup_ms (exec of latprobe probe to its first
probe). Exit 1 when no such frame was seen.
"""

import os
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35


def udp_dport(frame):
    """The UDP destination port of an Ethernet [+802.1Q] IPv4 frame."""
    r = udp_at(frame)
    return r[0] if r else None


def udp_at(frame):
    """(destination port, payload offset) of an Ethernet [+802.1Q] IPv4/UDP
    frame, or None."""
    off = 12
    if len(frame) < 14:
        return None
    etype = struct.unpack_from("!H", frame, off)[0]
    if etype == 0x8100 and len(frame) >= 18:
        off += 4
        etype = struct.unpack_from("!H", frame, off)[0]
    off += 2
    if etype != 0x0800 or len(frame) < off + 20:
        return None
    ihl = (frame[off] & 0x0F) * 4
    if frame[off + 9] != 17 or len(frame) < off + ihl + 4:
        return None
    frag = struct.unpack_from("!H", frame, off + 6)[0]
    if frag & 0x1FFF:
        return None
    return struct.unpack_from("!H", frame, off + ihl + 2)[0], off + ihl + 8


NTP_UNIX = 2208988800


def stamp_t1_ns(frame):
    """The STAMP Session-Sender timestamp (RFC 8762: NTP format, after the
    4-byte sequence number) of a probe, in ns since the Unix epoch."""
    r = udp_at(frame)
    if r is None or len(frame) < r[1] + 12:
        return None
    sec, frac = struct.unpack_from("!II", frame, r[1] + 4)
    return (sec - NTP_UNIX) * 1000000000 + (frac * 1000000000 >> 32)


def from_pcapng(path, port):
    data = open(path, "rb").read()
    pos, endian, resol = 0, "<", {}
    n_if = 0
    while pos + 12 <= len(data):
        btype = struct.unpack_from(endian + "I", data, pos)[0]
        if btype == 0x0A0D0D0A:
            bom = data[pos + 8:pos + 12]
            endian = "<" if bom == b"\x4d\x3c\x2b\x1a" else ">"
            n_if = 0
        blen = struct.unpack_from(endian + "I", data, pos + 4)[0]
        if blen < 12 or pos + blen > len(data):
            break
        body = data[pos + 8:pos + blen - 4]
        if btype == 1:  # interface description: find if_tsresol
            res = 1e-6
            o = 8
            while o + 4 <= len(body):
                code, olen = struct.unpack_from(endian + "HH", body, o)
                if code == 0:
                    break
                if code == 9 and olen >= 1:
                    v = body[o + 4]
                    res = 2.0 ** -(v & 0x7F) if v & 0x80 else 10.0 ** -v
                o += 4 + ((olen + 3) & ~3)
            resol[n_if] = res
            n_if += 1
        elif btype == 6:  # enhanced packet
            ifid, hi, lo, caplen = struct.unpack_from(endian + "IIII", body, 0)
            frame = body[20:20 + caplen]
            if udp_dport(frame) == port:
                if port == 862:
                    # DPDK 22.11's pcapng block timestamps are not
                    # trustworthy (seen years off here); a STAMP probe
                    # carries its own send time (T1, CLOCK_REALTIME).
                    return stamp_t1_ns(frame)
                ticks = (hi << 32) | lo
                res = resol.get(ifid, 1e-6)
                if abs(res - 1e-9) < 1e-15:
                    return ticks
                return int(round(ticks * res * 1e9))
        pos += blen
    return None


def from_iface(iface, port, timeout):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_ALL))
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind((iface, 0))
    s.settimeout(0.2)
    print("ready", file=sys.stderr, flush=True)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            frame, anc, _, addr = s.recvmsg(65536, 64)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING or udp_dport(frame) != port:
            continue
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SO_TIMESTAMPNS:
                sec, nsec = struct.unpack("qq", val[:16])
                return sec * 1000000000 + nsec
        return time.time_ns()
    return None


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--exec":
        if len(argv) < 4:
            print("first_packet: --exec T0FILE CMD...", file=sys.stderr)
            return 2
        with open(argv[2], "w") as f:
            f.write("%d\n" % time.time_ns())
        os.execvp(argv[3], argv[3:])
    opts = dict(zip(argv[1::2], argv[2::2]))
    port = int(opts.get("--udp-dport", "0"))
    if "--pcapng" in opts:
        t = from_pcapng(opts["--pcapng"], port)
    elif "--iface" in opts:
        t = from_iface(opts["--iface"], port, float(opts.get("--timeout", "30")))
    else:
        print("first_packet: --pcapng FILE or --iface IF (try --help)",
              file=sys.stderr)
        return 2
    if t is None:
        print("first_packet: no UDP frame to port %d" % port, file=sys.stderr)
        return 1
    print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
