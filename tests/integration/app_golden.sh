#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The app's output, before and after a refactoring: a fixed set of runs
# (usage and errors, probe on ring loopback: one target, buckets, open loop,
# flows, first packets; kernel backend: one target and a pinglist against a
# kernel reflector and its report; memif: a DPDK pinglist against a DPDK
# reflector and its report), each one's exit code, stdout, stderr, JSON and
# CSV normalised by app_golden_norm.py (measured values masked, labels, keys,
# counts and structure kept; why in its header) and compared with
# tests/integration/app_golden/NAME.out. LP_GOLDEN_UPDATE=1 rewrites them.
# Usage and error runs are compared byte for byte (no masking).
. "$(dirname "$0")/lib.sh"
need_env
lp_begin
GOLD=$LP_TOP/tests/integration/app_golden
NORM=("$PY" "$LP_TOP/tests/integration/app_golden_norm.py")
# Four consecutive UDP ports on loopback, free now (picked at run time).
kport=$($PY - <<'PYEOF'
import random, socket
for _ in range(500):
    b, ss = random.randrange(20000, 60000), []
    try:
        for i in range(4):
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ss.append(s)
            s.bind(("127.0.0.1", b + i))
        print(b)
        break
    except OSError:
        pass
    finally:
        for s in ss:
            s.close()
PYEOF
)
[ -n "$kport" ] || lp_die "no four free consecutive UDP ports on loopback"
SUBST=(--subst "$WORK=work" --subst "$kport=kport" --subst "$((kport + 1))=kport1"
	--subst "$((kport + 2))=kport2" --subst "$((kport + 3))=sport"
	--subst "${LP_NS_PREFIX}golden.sock=golden.sock")
cd "$WORK" || exit 1
bad=0

# record NAME: normalise $WORK/NAME.{rc,out,err,json,csv,...} into NAME.out
# and compare it with the golden.
record() {
	local name=$1 f kind
	: >"$WORK/$name.norm"
	for f in "$WORK/$name".*; do
		case $f in
		*.norm) continue ;;
		*.json) kind=json ;;
		*.rc | *.raw) kind=raw ;;
		*) kind=text ;;
		esac
		printf '== %s\n' "${f#"$WORK/"}" >>"$WORK/$name.norm"
		"${NORM[@]}" "${SUBST[@]}" "$kind" "$f" >>"$WORK/$name.norm" ||
			fail "$name: cannot normalise $f"
		printf '\n' >>"$WORK/$name.norm"
	done
	if [ "${LP_GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$WORK/$name.norm" "$GOLD/$name.out"
	elif ! diff -u "$GOLD/$name.out" "$WORK/$name.norm" >&2; then
		printf '%s: FAIL: %s differs from its golden (above)\n' "$LP_PROG" "$name" >&2
		bad=1
	fi
}

# run NAME CMD...: CMD's exit code, stdout and stderr in NAME.{rc,out,err}.
run() {
	local name=$1 rc=0
	shift
	timeout 60 "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null || rc=$?
	echo "$rc" >"$WORK/$name.rc"
}

# 1. Usage text and errors, byte for byte (no EAL: they end before it).
usage=$WORK/usage.raw
: >"$usage"
while IFS= read -r line; do
	[ -n "$line" ] || continue
	eval "set -- $line"
	rc=0
	timeout 30 "$LATPROBE" "$@" >"$WORK/u.out" 2>"$WORK/u.err" </dev/null || rc=$?
	{
		printf '$ latprobe %s\n' "$line"
		printf 'exit %s\n--- stdout\n' "$rc"
		cat "$WORK/u.out"
		printf '\n--- stderr\n'
		cat "$WORK/u.err"
		printf '\n'
	} >>"$usage"
done <<'EOT'
probe --help
reflect --help
probe -- --help
reflect -- --help
probe --backend kernel
probe --backend kernel -n 0 127.0.0.1
probe --backend kernel -n x 127.0.0.1
probe --backend kernel -l 0 127.0.0.1
probe --backend kernel -l 70000 127.0.0.1
probe --backend kernel -w -1 127.0.0.1
probe --backend kernel -t -1 127.0.0.1
probe --backend kernel -t soon 127.0.0.1
probe --backend kernel -i 1parsec 127.0.0.1
probe --backend kernel -h 0 127.0.0.1
probe --backend kernel -h 20,10 127.0.0.1
probe --backend kernel --proto nope 127.0.0.1
probe --backend kernel --timeout 0 127.0.0.1
probe --backend kernel --json /nonexistent/x.json 127.0.0.1
probe --backend kernel --samples /nonexistent/x.csv 127.0.0.1
probe --backend kernel 127.0.0.1:0
probe --backend kernel 127.0.0.1:70000
probe --backend kernel not-an-address
probe --backend kernel -n 5 -t 1 127.0.0.1 127.0.0.2 --forever
probe --backend kernel --targets /nonexistent/pl
probe --backend kernel --targets /nonexistent/pl 127.0.0.1
probe --backend kernel --rate 0 127.0.0.1
probe --backend kernel --rate 100 -i 1ms 127.0.0.1
probe --backend kernel --seed 3 127.0.0.1
probe --backend kernel --spacing foo --rate 100 127.0.0.1
probe --backend kernel --flows 4 127.0.0.1
probe --backend kernel --promisc 127.0.0.1
probe --backend kernel --vlan 7 127.0.0.1
probe --backend kernel --interval-report 50ms 127.0.0.1
probe --backend kernel --metrics nowhere 127.0.0.1
probe --backend kernel --hlog /nonexistent/x.hlog 127.0.0.1
probe --backend kernel --auth-key /nonexistent/k 127.0.0.1
probe --backend kernel --bogus 127.0.0.1
probe --backend nope 127.0.0.1
probe -- --addr 198.18.0.1/24 --vlan 0 198.18.0.2
probe -- --addr 198.18.0.1/33 198.18.0.2
probe -- --addr 198.18.0.1/24 --peer-mac zz 198.18.0.2
probe -- --addr 198.18.0.1/24 --flows 0 198.18.0.2
probe -- --addr 198.18.0.1/24 --flows 4 --new-flow-every 10 198.18.0.2
probe -- --addr 198.18.0.1/24 --flows 4 --proto icmp 198.18.0.2
reflect --backend kernel
reflect --backend kernel --addr 127.0.0.1 --udp-port x
reflect --backend kernel --addr 127.0.0.1 --udp-port 70000
reflect --backend kernel --addr 127.0.0.1 --allow 198.18.0.0/33
reflect --backend kernel --addr 127.0.0.1 --rate-limit 0
reflect --backend kernel --addr 127.0.0.1 --stateful --session-timeout soon
reflect --backend kernel --addr 127.0.0.1 --promisc
reflect --backend kernel --addr 127.0.0.1 -t x
reflect --backend kernel --addr 127.0.0.1 --json /nonexistent/x.json
reflect --backend kernel --addr 127.0.0.1 --metrics nowhere
reflect --backend kernel --addr 127.0.0.1 --auth-key /nonexistent/k
reflect --backend kernel --addr 127.0.0.1 --bogus
reflect --backend kernel --addr 127.0.0.1 extra
reflect -- --addr 198.18.0.2/24 --vlan 4095
EOT
record usage

# The stall detector is off in every run here (--stall-threshold 0): what
# it finds, and so whether the report can separate host from path, is the
# load's choice (tests/integration/stalls.sh and the report's unit goldens
# cover that section).
#
# 2. Probe on ring loopback (one process: every count exact). --timeout 5s
# here and below: on a loaded machine (other tests, 2 vCPUs) an answer can
# take longer than the default 200 ms, and a count would differ.
ring=(--profile ring --log-level=lib.eal:error -- --addr 198.18.0.1/24 --loopback --no-doctor -q --timeout 5s
	--stall-threshold 0)
run ring_stamp "$LATPROBE" probe "${ring[@]}" -n 500 --json ring_stamp.json \
	--samples ring_stamp.csv 198.18.0.2
# --details prints every section of the report ring_stamp shows
# in brief; -v is its short form.
run ring_details "$LATPROBE" probe "${ring[@]}" -n 500 --details 198.18.0.2
run ring_details_v "$LATPROBE" probe "${ring[@]}" -n 500 -v 198.18.0.2
n=$(wc -l <ring_stamp.out)
[ "$n" -le 30 ] || { echo "$LP_PROG: FAIL: ring_stamp's default report: $n lines (> 30)" >&2; bad=1; }
for f in ring_details.out ring_details_v.out; do
	for s in '^Command: ' '^Percentiles' '^ *Latency  ' '^Network RTT .*count' '^Turnaround ' \
		'^Forward ' '^Reverse ' '^One-way figures are not meaningful' \
		'^  Reflector error estimate' '^Port xstats' '^Port path' '^Port events' '^TSC: ' '^summary: '; do
		grep -q "$s" "$f" || { echo "$LP_PROG: FAIL: $f: no '$s' with --details" >&2; bad=1; }
	done
done
for s in '^Command: ' '^ *Latency  ' '^Forward ' '^Port path' '^TSC: '; do
	! grep -q "$s" ring_stamp.out || { echo "$LP_PROG: FAIL: ring_stamp.out: '$s' without --details" >&2; bad=1; }
done
run ring_sockperf "$LATPROBE" probe "${ring[@]}" --proto sockperf -n 400 -h 5 -l 200 \
	--json ring_sockperf.json 198.18.0.2
run ring_udp_echo "$LATPROBE" probe "${ring[@]}" --proto udp-echo -n 300 -h 1000,2000,5000 \
	--json ring_udp_echo.json 198.18.0.2
run ring_icmp "$LATPROBE" probe "${ring[@]}" --proto icmp -n 300 -l 8k --json ring_icmp.json 198.18.0.2
run ring_open "$LATPROBE" probe "${ring[@]}" --rate 20000 -n 3000 --interval-report 100ms \
	--json ring_open.json 198.18.0.2
run ring_flows "$LATPROBE" probe "${ring[@]}" --flows 4 -n 2000 --json ring_flows.json 198.18.0.2
run ring_first "$LATPROBE" probe "${ring[@]}" --new-flow-every 10 -n 1000 --json ring_first.json \
	198.18.0.2
for n in ring_stamp ring_details ring_sockperf ring_udp_echo ring_icmp ring_open ring_flows ring_first; do
	record "$n"
done

# 3. Kernel backend over loopback: a kernel reflector, one target, then a
# pinglist; the reflector's report after SIGINT.
"$LATPROBE" reflect --backend kernel --addr 127.0.0.1 --udp-port "$kport" \
	--sockperf-port "$((kport + 1))" --echo-port "$((kport + 2))" -q --no-doctor --stall-threshold 0 \
	--json kernel_refl.json >kernel_refl.out 2>kernel_refl.err &
kpid=$!
lp_cleanup_push "kill -KILL $kpid 2>/dev/null || true"
lp_wait_for kernel_refl.err '^latprobe reflect: ' 20 || { cat kernel_refl.err >&2; fail "kernel reflector did not start"; }
kprobe=(probe --backend kernel -q --no-doctor --stall-threshold 0 --timeout 5s --sport "$((kport + 3))")
run kernel_one "$LATPROBE" "${kprobe[@]}" -n 300 --json kernel_one.json "127.0.0.1:$kport"
cat >kernel.pl <<EOT
# three protocols, one reflector
127.0.0.1:$kport label=stamp-one
127.0.0.1:$((kport + 1)) proto=sockperf label=sp
127.0.0.1:$((kport + 2)) proto=udp-echo
not an address
EOT
run kernel_multi "$LATPROBE" probe --backend kernel -q --no-doctor --stall-threshold 0 --timeout 5s -n 200 --targets kernel.pl \
	--json kernel_multi.json
kill -INT "$kpid"
rc=0
wait "$kpid" || rc=$?
echo "$rc" >kernel_refl.rc
for n in kernel_one kernel_multi kernel_refl; do
	record "$n"
done

# 4. DPDK over memif: a DPDK reflector, a pinglist from a DPDK prober.
sock=$LP_RUN_DIR/${LP_NS_PREFIX}golden.sock
memif() { echo "net_memif0,role=$1,socket=$sock,socket-abstract=no"; }
rm -f "$sock"
"$LATPROBE" reflect -l 0 "${EAL_COMMON[@]}" --vdev "$(memif server)" -- --addr 198.18.0.2/24 \
	--no-doctor --stall-threshold 0 -q --json memif_refl.json >memif_refl.out 2>memif_refl.err &
mpid=$!
lp_cleanup_push "kill -KILL $mpid 2>/dev/null || true; rm -f '$sock'"
lp_wait_for memif_refl.err '^latprobe reflect: ' 20 || { cat memif_refl.err >&2; fail "memif reflector did not start"; }
cat >memif.pl <<EOT
198.18.0.2 label=stamp-one
198.18.0.2 proto=sockperf label=sp
198.18.0.2 proto=icmp
EOT
run memif_multi "$LATPROBE" probe -l 1 "${EAL_COMMON[@]}" --vdev "$(memif client)" -- \
	--addr 198.18.0.1/24 --no-doctor --stall-threshold 0 -q --timeout 5s -n 300 --targets memif.pl --json memif_multi.json
kill -INT "$mpid"
rc=0
wait "$mpid" || rc=$?
echo "$rc" >memif_refl.rc
for n in memif_multi memif_refl; do
	record "$n"
done

[ "$bad" -eq 0 ] || fail "output differs from tests/integration/app_golden (LP_GOLDEN_UPDATE=1 rewrites it)"
echo "$LP_PROG: ok"
