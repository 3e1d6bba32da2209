# shellcheck shell=bash
# Not a case: doctor's isolation check in guests booted with one of
# isolcpus, nohz_full, rcu_nocbs left out (each check failing
# where it should). A case sets doctor_missing (of isolcpus, nohz_full,
# rcu_nocbs, the ones its cmdline_extra, from doctor_cmdline, lacks), adds
# doctor_guest's lines to its guest script and calls doctor_check OUT.
# (The setup case boots with all three: ok.) rcu_nocbs cannot be missing
# alone: the kernel offloads the RCU callbacks of nohz_full CPUs, and doctor
# knows it (booted isolcpus=1 nohz_full=1: "rcu_nocbs 1", ok); so the netem
# case lacks nohz_full and rcu_nocbs, mq isolcpus, trixie nohz_full.

# doctor_cmdline MISSING...: the isolation arguments for CPU 1 but those.
doctor_cmdline() {
	local a out=''
	for a in isolcpus nohz_full rcu_nocbs; do
		[[ " $* " == *" $a "* ]] || out="$out $a=1"
	done
	echo "${out# }"
}

doctor_guest() {
	cat <<'EOF2'
$L doctor -- --lcores 1 --json $out/doctor-part.json >$out/doctor-part.txt 2>&1
echo "$?" >$out/doctor-part.rc
EOF2
}

# doctor_check OUT: isolation warns, its value naming the missing one as
# "none" and the two given as 1; exit 1 exactly when a check fails.
doctor_check() {
	python3 - "$1" "$doctor_missing" <<'PYEOF'
import json, sys
o, missing = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(f"{o}/doctor-part.json"))
    rc = open(f"{o}/doctor-part.rc").read().strip()
except (OSError, ValueError) as e:
    print(f"FAIL: doctor: {e}")
    sys.exit(1)
v = {c["name"]: (c["verdict"], c.get("value", "")) for c in d.get("checks", [])}
iso = v.get("isolation", ("?", ""))
ok = True
want = [f"{a} {'none' if a in missing.split() else '1'}" for a in ("isolcpus", "nohz_full", "rcu_nocbs")]
if iso[0] != "warn" or any(w not in iso[1] for w in want):
    print(f"FAIL: doctor without {missing}: isolation {iso}, want warn with {want}")
    ok = False
if rc != ("1" if d.get("summary", {}).get("fail", 0) else "0"):
    print(f"FAIL: doctor: exit {rc} with {d.get('summary', {}).get('fail')} failed checks")
    ok = False
print(f"  doctor without {missing}: exit {rc}; isolation {iso}")
sys.exit(0 if ok else 1)
PYEOF
}
