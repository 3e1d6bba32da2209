#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Entrypoint of the latprobe DaemonSets (deploy/kubernetes, docs/fleet.md):
#   entrypoint.sh reflect | probe
# Env: NODE_NAME, HOST_IP (downward API); LATPROBE_BACKEND (dpdk|kernel,
# default dpdk); LATPROBE_EAL (EAL options, dpdk only; default
# `--in-memory -l LAST`, LAST the last CPU allowed); PCIDEVICE_* (PCI
# addresses the SR-IOV device plugin allocated: each becomes an `-a`);
# LATPROBE_METRICS_PORT; LATPROBE_CONFIG (default /etc/latprobe);
# LATPROBE_RUN (default /run/latprobe); LATPROBE_DRY_RUN=1 prints the command
# instead of running it (tests/integration/deploy.sh).
# The prober's pinglist is the ConfigMap's, less this node's own reflector;
# when the ConfigMap changes, the list is made again and the prober gets
# SIGHUP (it keeps the histograms of the targets that stay).
set -eu

role=${1:?usage: entrypoint.sh reflect|probe}
cfg=${LATPROBE_CONFIG:-/etc/latprobe}
run=${LATPROBE_RUN:-/run/latprobe}
backend=${LATPROBE_BACKEND:-dpdk}
node=${NODE_NAME:?NODE_NAME not set (downward API spec.nodeName)}
host_ip=${HOST_IP:?HOST_IP not set (downward API status.hostIP)}

die() {
	echo "latprobe-$role: $*" >&2
	exit 1
}

case $role in
reflect) col=2 port=${LATPROBE_METRICS_PORT:-9862} ;;
probe) col=3 port=${LATPROBE_METRICS_PORT:-9863} ;;
*) die "role must be reflect or probe, not '$role'" ;;
esac

# This node's addresses: its line in `nodes`, or the node's IP on the kernel
# backend.
addr=$(awk -v n="$node" -v c="$col" '$1 == n { print $c; exit }' "$cfg/nodes" 2>/dev/null || true)
refl_addr=$(awk -v n="$node" '$1 == n { print $2; exit }' "$cfg/nodes" 2>/dev/null || true)
if [ -z "$addr" ]; then
	[ "$backend" = kernel ] || die "node $node has no line in $cfg/nodes (needed by the dpdk backend)"
	addr=$host_ip/32
	refl_addr=$addr
fi

set -- "$role"
if [ "$backend" = kernel ]; then
	set -- "$@" --backend kernel
	[ "$role" = probe ] || set -- "$@" --addr "${addr%/*}"
else
	# The lcore: the last CPU this container may run on (a pod's cpuset
	# under the static CPU manager need not start at 0); EAL's control
	# threads keep the others.
	cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
	last=${cpus##*,}
	last=${last##*-}
	# shellcheck disable=SC2086 # LATPROBE_EAL is a list of words
	set -- "$@" ${LATPROBE_EAL:---in-memory -l $last}
	for dev in $(env | sed -n 's/^PCIDEVICE_[A-Z0-9_]*=//p' | tr ',' ' '); do
		set -- "$@" -a "$dev"
	done
	set -- "$@" -- --addr "$addr"
fi
set -- "$@" -q --metrics "$host_ip:$port"

if [ "$role" = reflect ]; then
	[ "${LATPROBE_DRY_RUN:-0}" = 0 ] || {
		echo "latprobe $*"
		exit 0
	}
	exec latprobe "$@"
fi

list=$cfg/pinglist.$node
[ -f "$list" ] || list=$cfg/pinglist
[ -f "$list" ] || die "no pinglist in $cfg"
mkdir -p "$run"
# A node does not probe its own reflector.
make_list() {
	awk -v me="${refl_addr%/*}" '{ a = $1; sub(/:[0-9]+$/, "", a) } a != me' "$list" \
		>"$run/pinglist.new"
	mv "$run/pinglist.new" "$run/pinglist"
}
make_list
set -- "$@" --forever --targets "$run/pinglist"
if [ "${LATPROBE_DRY_RUN:-0}" != 0 ]; then
	echo "latprobe $*"
	cat "$run/pinglist"
	exit 0
fi

latprobe "$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT
sum=$(cksum <"$list")
while kill -0 "$pid" 2>/dev/null; do
	sleep 30 &
	wait $! || true
	now=$(cksum <"$list" 2>/dev/null || true)
	if [ -n "$now" ] && [ "$now" != "$sum" ]; then
		sum=$now
		make_list
		kill -HUP "$pid" 2>/dev/null || true
	fi
done
rc=0
wait "$pid" || rc=$?
exit "$rc"
