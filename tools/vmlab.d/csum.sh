# shellcheck shell=bash
# Not a case: the checksum-offload check the cases share, sourced
# with them. A case sets csum_rx, csum_tx (the offloads latprobe enables of
# what its PMD offers in DPDK 22.11: port_csum_pick(), lib/port/offload.c)
# and csum_l4 (how the reflector takes the L4 checksum of a request: "nic",
# the PMD's RX_L4_CKSUM_GOOD; "software", no verdict; "partial", the PMD's
# RX_L4_CKSUM_NONE; "software+partial": the STAMP requests without a
# verdict, the sockperf ones NONE, as tools/vmlab.d/mq.sh sends them); run_case
# calls csum_check OUT after the case's check.
#
# What each PMD offers, from DPDK 22.11's drivers (not guessed):
# - net_virtio (virtio_dev_info_get): rx UDP/TCP_CKSUM only with the
#   device's VIRTIO_NET_F_GUEST_CSUM, tx UDP/TCP_CKSUM only with
#   VIRTIO_NET_F_CSUM; QEMU offers neither on a netdev without a vnet
#   header (dgram): rx none, tx none, every sum verified in software.
# - net_e1000_em (em_get_rx/tx_port_offloads_capa): rx and tx IPV4, UDP,
#   TCP_CKSUM; but its rx path (rx_desc_error_to_pkt_flags) only ever says
#   BAD, never GOOD: the good sums are verified in software.
# - net_e1000_igb and net_e1000_igb_vf (igb_get_rx/tx_port_offloads_capa,
#   eth_igbvf_infos_get): rx and tx IPV4, UDP, TCP_CKSUM (+SCTP, TSO); its
#   rx path says GOOD or BAD of every frame: the reflector takes the NIC's
#   GOOD, except for reassembled datagrams (verified in software).
# latprobe enables rx ipv4,udp,tcp and tx udp of these.

# csum_check OUT: info's "checksum offloads used" line and its capability
# lines, checksum_offloads.{rx,tx} of every JSON, and the reflector's
# counters: rx.l4_csum_nic + rx.l4_csum_software + rx.l4_partial = the
# UDP requests answered, split as csum_l4 says, none dropped for a sum.
csum_check() {
	local o=$1
	[ -n "${csum_l4:-}" ] || return 0
	python3 - "$o" "${csum_rx:-}" "${csum_tx:-}" "$csum_l4" <<'PYEOF'
import glob, json, re, sys
o, rx, tx, how = sys.argv[1:5]
ok = True
def fail(m):
    global ok
    print("FAIL: offloads: " + m)
    ok = False
info = open(f"{o}/info.txt", errors="replace").read()
want = f"checksum offloads used: rx {rx or 'none'}, tx {tx or 'none'}"
if want not in info:
    got = re.search(r"checksum offloads used: .*", info)
    fail(f"info: want '{want}', got '{got.group(0) if got else None}'")
names = {"ipv4": "IPV4_CKSUM", "udp": "UDP_CKSUM", "tcp": "TCP_CKSUM"}
for what, used in (("rx", rx), ("tx", tx)):
    m = re.search(rf"^\s*{what} offloads:(.*)$", info, re.M)
    capa = m.group(1).split() if m else []
    for n in filter(None, used.split(",")):
        if names[n] not in capa:
            fail(f"info: {what} offloads lack {names[n]} ({' '.join(capa)})")
    if not used and any(v in capa for v in names.values()):
        fail(f"info: {what} offers a checksum offload that is not used ({' '.join(capa)})")
jsons = ["refl.json"] + sorted(p.split("/")[-1] for p in glob.glob(f"{o}/probe-*.json"))
for f in jsons:
    try:
        co = json.load(open(f"{o}/{f}")).get("checksum_offloads")
    except (OSError, ValueError) as e:
        fail(f"{f}: {e}")
        continue
    if co != {"rx": rx, "tx": tx}:
        fail(f"{f}: checksum_offloads {co} != {{'rx': '{rx}', 'tx': '{tx}'}}")
c = json.load(open(f"{o}/refl.json")).get("counters", {})
g = lambda k: c.get(k, 0)
udp = g("answered.stamp") + g("answered.sockperf") + g("answered.udp_echo")
nic, sw, part, re_ = g("rx.l4_csum_nic"), g("rx.l4_csum_software"), g("rx.l4_partial"), g("reassembled")
if g("dropped.l4_checksum") or g("dropped.ip_checksum"):
    fail(f"reflector dropped.l4_checksum {g('dropped.l4_checksum')} dropped.ip_checksum {g('dropped.ip_checksum')}")
if nic + sw + part != udp:
    fail(f"reflector: l4_csum_nic {nic} + l4_csum_software {sw} + l4_partial {part} != {udp} UDP requests answered")
# Reassembled datagrams have no verdict of the NIC: always software.
sp = g("answered.sockperf")
exp = {"nic": (udp - re_, re_, 0), "software": (0, udp, 0),
       "partial": (0, re_, udp - re_), "software+partial": (0, udp - sp, sp)}[how]
if how == "software+partial" and sp == 0:
    fail("reflector: no sockperf request answered (the RX_L4_CKSUM_NONE ones)")
if (nic, sw, part) != exp:
    fail(f"reflector ({how}): l4_csum_nic/software/l4_partial {nic}/{sw}/{part}, want {exp[0]}/{exp[1]}/{exp[2]}")
print(f"  offloads: rx '{rx}' tx '{tx}' in info and {len(jsons)} JSON; "
      f"L4 sums of {udp} requests: nic {nic}, software {sw}, partial {part}")
sys.exit(0 if ok else 1)
PYEOF
}
