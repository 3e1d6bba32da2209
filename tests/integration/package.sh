#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The Debian package end to end: tools/package builds it (lintian: no
# error), apt installs it, and the INSTALLED /usr/bin/latprobe runs
# --version, man -w, info, --profile from /usr/share, completion, and a
# kernel-backend reflect/probe over loopback in a namespace of its own;
# then the package is removed (also on failure).
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || lp_skip "needs root (apt installs the package)"
for t in dpkg-buildpackage dh lintian apt-get man ip; do
	lp_have "$t" || lp_skip "needs $t (tools/setup installs it)"
done
if dpkg-query -W -f='${Status}' latprobe 2>/dev/null | grep -q 'ok installed'; then
	lp_skip "a latprobe package is installed already; this test would remove it"
fi
lp_begin
t0=$(date +%s)

"$LP_TOP/tools/package" --nocheck -o "$WORK" >"$WORK/package.log" 2>&1 ||
	{ cat "$WORK/package.log" >&2; fail "tools/package failed"; }
sed 's/^/  /' "$WORK/package.log"
deb=$(tail -1 "$WORK/package.log")
[ -f "$deb" ] || fail "tools/package did not print a .deb path (got '$deb')"
# The .deb for another test (tools/trixie installs it on a fresh Debian 13).
if [ -n "${LP_PACKAGE_KEEP:-}" ]; then
	mkdir -p "$LP_PACKAGE_KEEP" && cp "$deb" "$LP_PACKAGE_KEEP/"
fi
ver=$(sed -n "s/^[[:space:]]*version: '\([^']*\)'.*/\1/p" "$LP_TOP/meson.build" | head -1)
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ] || fail "package version is not meson's $ver"
# Run-time dependencies: no -dev package.
dpkg-deb -f "$deb" Depends | grep -q -- '-dev' && fail "the package depends on a -dev package"
# The DPDK packages are those of the ABI built against (22.11: librte-eal23,
# 24.11: librte-eal25): the packages here that hold its libraries, linked
# (dh_shlibdeps) or loaded by EAL (debian/dpdk-substvars).
libdir=$(pkg-config --variable=libdir libdpdk)
abi=$(objdump -p "$(readlink -f "$libdir/librte_eal.so")" | awk '$1 == "SONAME" { print $2 }')
abi=${abi##*.so.}
[[ $abi =~ ^[0-9]+$ ]] || fail "no DPDK ABI from librte_eal's SONAME"
want=(libnuma1)
for l in eal ethdev net_af_xdp mempool_ring net_null net_netvsc; do
	p=$(dpkg-query -S "$libdir/librte_$l.so.$abi" 2>/dev/null | sed -n '1s/:.*//p')
	[ -n "$p" ] || fail "no package holds librte_$l.so.$abi"
	want+=("$p")
done
for d in "${want[@]}"; do
	dpkg-deb -f "$deb" Depends | grep -qE "(^|, )$d( |,|\$)" || fail "the package does not depend on $d"
done
# ... and no librte-* package of another ABI.
other=$(dpkg-deb -f "$deb" Depends Recommends | tr ',' '\n' | awk '{ print $1 }' |
	grep -E '^librte-' | grep -vE -- "-?$abi\$" || true)
[ -z "$other" ] || fail "librte packages of another ABI than $abi: $other"
lp_log "DPDK ABI $abi: Depends $(dpkg-deb -f "$deb" Depends | tr -d '\n')"

lp_cleanup_push "DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq latprobe >/dev/null 2>&1 || dpkg --purge latprobe >/dev/null 2>&1 || true"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" >"$WORK/apt.log" 2>&1 ||
	{ cat "$WORK/apt.log" >&2; fail "apt-get install $deb failed"; }
[ -x /usr/bin/latprobe ] || fail "no /usr/bin/latprobe after install"
LATPROBE=/usr/bin/latprobe

# From / with no profile directory in the environment: nothing of the
# checkout can be found.
cd /
unset LATPROBE_PROFILE_DIR
expect 0 "^latprobe $ver( \(git [0-9a-z.-]+\))?\$" "$LATPROBE" --version
expect 0 '^/usr/share/man/man1/latprobe\.1' man -w latprobe
expect 0 'TSC' "$LATPROBE" info -- --calibrate 100ms
expect 2 "profile 'no-such' not found.*profiles:.* azure-netvsc.* veth-afxdp-refl" \
	"$LATPROBE" probe --profile no-such -- --addr 198.18.0.1/24 198.18.0.2
[ -f /usr/share/doc/latprobe/usage.md.gz ] || [ -f /usr/share/doc/latprobe/usage.md ] ||
	fail "no /usr/share/doc/latprobe/usage.md"
# bash completion from its installed place, profiles from /usr/share.
comp=/usr/share/bash-completion/completions/latprobe
[ -f "$comp" ] || fail "no $comp"
bash -c '. "$1"; COMP_WORDS=(latprobe probe --profile veth-afxdp-p); COMP_CWORD=3
	_latprobe; printf "%s\n" "${COMPREPLY[@]}"' - "$comp" | grep -qx veth-afxdp-probe ||
	fail "installed completion does not offer the installed profile veth-afxdp-probe"
unit=$(dpkg -L latprobe | grep 'systemd/system/latprobe-reflect@\.service$' || true)
[ -n "$unit" ] || fail "no latprobe-reflect@.service in the package"
if lp_have systemd-analyze; then
	SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$unit" >"$WORK/verify.log" 2>&1 ||
		{ cat "$WORK/verify.log" >&2; fail "systemd-analyze verify $unit"; }
fi

# Kernel backend over loopback, in a namespace of our own (its own port
# space: nobody else's 862).
ns=${LP_NS_PREFIX}pkg
lp_ns_exists "$ns" && ip netns del "$ns"
ip netns add "$ns"
lp_cleanup_push "ip netns del '$ns' 2>/dev/null || true"
ip -n "$ns" link set lo up
LP_BG_LOG=$WORK/refl.log lp_bg_ns "$ns" "$LATPROBE" reflect --backend kernel \
	--addr 127.0.0.1 -q -t 30 --json "$WORK/refl.json"
refl_pid=$LP_LAST_PID
sleep 1
timeout 30 ip netns exec "$ns" "$LATPROBE" probe --backend kernel --addr 127.0.0.1 \
	-n 500 -w 10 -q --json "$WORK/probe.json" 127.0.0.1 >"$WORK/probe.txt" 2>"$WORK/probe.err" ||
	{ cat "$WORK/probe.err" "$WORK/refl.log" >&2; fail "installed latprobe probe over loopback"; }
$PY "$LP_TOP/tests/integration/check_report.py" --json "$WORK/probe.json" --sent 500 --no-loss ||
	fail "loopback report"
grep -E '^summary: 127\.0\.0\.1:862 stamp' "$WORK/probe.txt" || fail "no summary line"
kill -INT "$refl_pid"
wait "$refl_pid" || { cat "$WORK/refl.log" >&2; fail "the installed reflector exited $?"; }
[ "$(json_get "$WORK/refl.json" counters/answered.stamp)" -ge 500 ] ||
	fail "the installed reflector answered fewer than 500 probes"

# Removal leaves nothing behind.
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq latprobe >"$WORK/apt.log" 2>&1 ||
	{ cat "$WORK/apt.log" >&2; fail "apt-get purge latprobe failed"; }
[ ! -e /usr/bin/latprobe ] || fail "/usr/bin/latprobe left after purge"
[ ! -e /usr/share/latprobe ] || fail "/usr/share/latprobe left after purge"
echo "package: ok in $(($(date +%s) - t0)) s"
