#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# `meson install` puts the Debian package's layout under its prefix, and the
# installed binary, outside any checkout, finds its profiles under its own
# prefix (bin/../share/latprobe/dpdk-config), never in the tree it was built
# from; the systemd unit passes systemd-analyze verify. No root needed.
#   install.sh LATPROBE BUILDDIR
. "$(dirname "$0")/lib.sh"
lp_begin
BUILD=$(readlink -f "${2:?usage: $0 LATPROBE BUILDDIR}")
prefix=$(meson introspect --buildoptions "$BUILD" |
	$PY -c 'import json, sys; print([o["value"] for o in json.load(sys.stdin) if o["name"] == "prefix"][0])')
dest=$WORK/dest
meson install -C "$BUILD" --no-rebuild --destdir "$dest" >"$WORK/install.log" 2>&1 ||
	{ tail -20 "$WORK/install.log" >&2; fail "meson install --destdir failed"; }
root=$dest$prefix
for f in bin/latprobe share/latprobe/dpdk-config/veth-afxdp-probe \
	share/latprobe/dpdk-config/azure-netvsc share/doc/latprobe/usage.md \
	share/doc/latprobe/README.md share/doc/latprobe/dpdk-config/README.md \
	share/doc/latprobe/examples/reflect.conf share/man/man1/latprobe.1 \
	share/bash-completion/completions/latprobe; do
	[ -s "$root/$f" ] || fail "meson install: no $prefix/$f"
done
unit=$(find "$dest" -name 'latprobe-reflect@.service' | head -1)
[ -n "$unit" ] || fail "meson install: no latprobe-reflect@.service"
grep -qx "ExecStart=$prefix/bin/latprobe reflect \$LATPROBE_EAL -- \$LATPROBE_OPTS" "$unit" ||
	fail "the unit does not run $prefix/bin/latprobe"
# Only profiles in the profile directory.
[ ! -e "$root/share/latprobe/dpdk-config/README.md" ] || fail "README.md among the profiles"

# The installed binary, moved out of the build: a profile that exists only
# in its prefix is found; with the checkout's dpdk-config/ hidden from it,
# it never reads the source tree (a name only there is not found).
bin=$root/bin/latprobe
printf '%s\n' '# lph1 test profile' >"$root/share/latprobe/dpdk-config/lph1-only"
expect 2 "profile 'no-such' not found.* lph1-only" \
	env -u LATPROBE_PROFILE_DIR "$bin" probe --profile no-such -- --addr 198.18.0.1/24 198.18.0.2
grep -q " veth-afxdp-probe" "$WORK/err" || fail "installed profiles not listed"
# 'ring' exists in the checkout and (installed) in the prefix: removed from
# the prefix, the installed binary must not find it in the checkout.
rm "$root/share/latprobe/dpdk-config/ring"
if [ ! -e /usr/share/latprobe/dpdk-config/ring ]; then
	expect 2 "profile 'ring' not found" \
		env -u LATPROBE_PROFILE_DIR "$bin" info --profile ring --
fi
# $LATPROBE_PROFILE_DIR comes first.
mkdir -p "$WORK/env-profiles"
: >"$WORK/env-profiles/lph1-env"
expect 2 "profiles: lph1-env," \
	env LATPROBE_PROFILE_DIR="$WORK/env-profiles" "$bin" probe --profile no-such -- --addr 198.18.0.1/24 198.18.0.2
# The build tree's binary still finds the checkout's profiles first.
expect 2 "profiles: azure-mana, azure-netvsc" \
	env -u LATPROBE_PROFILE_DIR "$LATPROBE" probe --profile no-such -- --addr 198.18.0.1/24 198.18.0.2

# --version: meson's project version (and git describe in a checkout).
ver=$(sed -n "s/^[[:space:]]*version: '\([^']*\)'.*/\1/p" "$LP_TOP/meson.build" | head -1)
expect 0 "^latprobe $ver( \(git [0-9a-z.-]+\))?\$" "$bin" --version

# The unit, with its ExecStart pointed at the installed binary.
if lp_have systemd-analyze; then
	punit=${unit%/*}/latprobe-probe@.service
	[ -f "$punit" ] || fail "meson install: no latprobe-probe@.service"
	for u in "$unit" "$punit"; do
		sed "s|^ExecStart=$prefix/bin/latprobe|ExecStart=$bin|" "$u" >"$WORK/${u##*/}"
	done
	SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no \
		"$WORK/latprobe-reflect@.service" "$WORK/latprobe-probe@.service" \
		>"$WORK/verify.log" 2>&1 ||
		{ cat "$WORK/verify.log" >&2; fail "systemd-analyze verify failed"; }
	[ ! -s "$WORK/verify.log" ] || { cat "$WORK/verify.log" >&2; fail "systemd-analyze verify warns"; }
	echo "install: systemd-analyze verify clean"
else
	echo "install: no systemd-analyze, unit not verified"
fi
echo "install: ok ($prefix under --destdir)"
