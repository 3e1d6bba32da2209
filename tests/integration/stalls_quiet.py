#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""The checks of tests/integration/stalls_quiet.sh: accounting
of a run's report against a reference measured on the same CPU, or against
stalls injected with a known length. Prints the figures; exits 1 (an
AssertionError) when a check fails.

  stalls_quiet.py quiet BACKEND RUN.json REF.json
  stalls_quiet.py compare AF_XDP.json MEMIF.json
  stalls_quiet.py inject BACKEND RUN.json HOG.log N LEN_MS REF.json QUIET.json
  stalls_quiet.py sigstop BACKEND RUN.json N LEN_MS
  stalls_quiet.py few RUN.json
"""
import json
import math
import sys

# A quiet run's stalls per second against bench/tools/stall's gaps above
# the same threshold on the same CPU: both loops lose the CPU to the same
# things (timer ticks, interrupts, other tasks, the hypervisor), but the
# prober's loop does more between two clock reads (a probe's bookkeeping,
# cache misses on its rings), so a gap of the machine's that the bare loop
# sees as just under the threshold can put the prober's just over: a 10x
# margin on the rate, and 2 a second on top for a reference that saw none
# in its few seconds. A detector that counts a stall per probe (or per
# PMD call) is thousands a second: 100 times and more over.
QUIET_FACTOR = 10
QUIET_SLACK = 2.0
# af_xdp against memif, per second, on the stalls both must see: those
# longer than XDP_LONG_NS. memif's PMD calls are user-space work, so its
# whole loop is judged and an interrupt of 10 us anywhere is a stall;
# af_xdp's loop is mostly inside its kicks (recvfrom/sendto on the veth),
# which are the packet's kernel path and count only when the thread left
# its CPU in a call longer than 20 us: its short stalls are by design a
# small part of memif's (on a busy 2-vCPU host, 53 against 2,000 in the
# 10 us bucket). A preemption of 100 us (5 times the 20 us check) is a
# stall on both wherever it falls. 3x and QUIET_SLACK a second on top:
# the two runs are 3 s apart on a host whose other tasks come and go (at
# load 5: 87 and 89 a second).
XDP_FACTOR = 3
XDP_LONG_NS = 100000


def load(path):
    with open(path) as f:
        return json.load(f)


# The histogram's bucket bounds (lib/timing/stall.c, stall_bucket_upper_ns):
# the JSON lists only the buckets with a count, so a bucket's lower bound
# is the one below it here.
BOUNDS = [2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000, 1000000,
          2000000, 5000000, 10000000, 20000000, 50000000, 100000000,
          200000000, 500000000, 1000000000]


def hist(st):
    """The histogram as (lower_ns, upper_ns, count), upper None: unbounded."""
    out = []
    for b in st.get('histogram', []):
        up = b['upper_ns']
        if up is None:
            lower = BOUNDS[-1]
        else:
            i = BOUNDS.index(up)
            lower = BOUNDS[i - 1] if i > 0 else 0
        out.append((lower, up, b['count']))
    return out


def rate(r):
    return r['stalls']['prober']['count'] / r['duration_s']


def quiet(be, run, ref):
    r, f = load(run), load(ref)
    st = r['stalls']['prober']
    probes = r['rtt_ns']['count']
    thr = st['calibration']['threshold_ns']
    got = rate(r)
    ref_rate = f['over_threshold'] / f['seconds']
    bound = QUIET_FACTOR * ref_rate + QUIET_SLACK
    print(f'  quiet {be}: {st["count"]} stalls in {r["duration_s"]:.2f} s = '
          f'{got:.2f}/s (longest {st["longest_ns"]} ns, total '
          f'{st["total_ns"]} ns), {probes} probes, threshold {thr} ns '
          f'(floor {st["calibration"].get("floor_ns")}); reference loop on '
          f'CPU {f["cpu"]}: {f["over_threshold"]} over {thr} ns in '
          f'{f["seconds"]:.2f} s = {ref_rate:.2f}/s (bound {bound:.2f}/s); '
          f'host-affected {r["stalls"]["host_affected"]["probes"]}')
    assert f['threshold_ns'] == thr, 'the reference ran with another threshold'
    assert probes > 0, 'no probe measured'
    assert got <= bound, \
        f'{got:.2f} stalls/s against the machine\'s {ref_rate:.2f}/s'
    # Not one per probe: fewer than a tenth of the probes beyond the
    # machine's own gaps (the reference's count, twice: the two are
    # seconds apart on a host whose load comes and goes). A stall per
    # probe exceeds that whenever the probes outnumber the machine's gaps
    # about 2.2 to 1 (on a quiet host by thousands); when they do not, the
    # check cannot tell, and says so.
    allow = probes / 10 + 2 * f['over_threshold']
    print(f'    not one per probe: {st["count"]} stalls < {probes} / 10 + '
          f'2 x {f["over_threshold"]} = {allow:.0f}' +
          ('' if 0.9 * probes > 2 * f['over_threshold'] else
           ' (NOT discriminating: the machine\'s own gaps outnumber the'
           ' probes)'))
    assert st['count'] < allow, \
        f'{st["count"]} stalls for {probes} probes: about one per probe'


def long_rate(r, ns):
    """Stalls a second longer than ns (whole buckets above it)."""
    st = r['stalls']['prober']
    return sum(c for lo, up, c in hist(st) if lo >= ns) / r['duration_s']


def compare(xdp, memif):
    ra, rm = load(xdp), load(memif)
    a, m = long_rate(ra, XDP_LONG_NS), long_rate(rm, XDP_LONG_NS)
    print(f'  quiet af_xdp {rate(ra):.2f} stalls/s, memif {rate(rm):.2f}/s; '
          f'longer than {XDP_LONG_NS / 1000:.0f} us: af_xdp {a:.2f}/s, memif '
          f'{m:.2f}/s (within {XDP_FACTOR}x + {QUIET_SLACK}/s of each other)')
    assert a <= XDP_FACTOR * m + QUIET_SLACK, 'af_xdp far above memif'
    assert m <= XDP_FACTOR * a + QUIET_SLACK, 'memif far above af_xdp'


def split(st, len_ns):
    """The injected ones' bucket (LEN in (lower, upper]) and the rest."""
    band = [b for b in hist(st) if b[0] < len_ns and
            (b[1] is None or len_ns <= b[1])]
    rest = [b for b in hist(st) if b not in band]
    return band[0], rest


def long_ones(st, half):
    return sum(c for lo, up, c in hist(st) if up is None or up > half)


def inject(be, run, hog, n, len_ms, ref, quiet_run):
    """A run whose threshold is LEN/2 (so every stall it counts is that
    long) against N FIFO bursts of LEN ms on its CPU, and REF: the same CPU's
    gaps above LEN/2 over as long right after it (the machine's own)."""
    r, f, q = load(run), load(ref), load(quiet_run)
    st = r['stalls']['prober']
    len_ns, half = len_ms * 1e6, len_ms * 1e6 / 2
    with open(hog) as fh:
        bursts = [float(l.split()[1]) for l in fh if l.startswith('burst ')]
    assert len(bursts) == n, f'the hog ran {len(bursts)} bursts of {n}'
    inj_ns = sum(bursts) * 1e6
    thr = st['calibration']['threshold_ns']
    assert thr >= half - 1000, f'threshold {thr} ns, not LEN/2'
    (blo, bup, band), _ = split(st, len_ns)
    found = long_ones(st, half)
    bg = f['over_threshold']
    # After a burst the prober waits for the CPU behind whatever else is
    # runnable there (a loaded host's other tasks): at most about one such
    # wait per burst, which the reference's longest gap bounds. On an idle
    # host that is microseconds and the bound is 10 %; loaded, it grows
    # with the load instead of failing for it.
    wait_ns = f['max_us'] * 1e3
    # The machine's own stalls above LEN/2 (the reference's count) add
    # their time too: at most the run's longest each.
    extra = max(0, st['count'] - n)
    hi = 1.1 * inj_ns + n * wait_ns + extra * st['longest_ns']
    ha = r['stalls']['host_affected']
    cnt, dur = r['rtt_ns']['count'], r['duration_s']
    # Probes a second while the loop ran (the stalls' time out of it).
    busy_s = max(dur - st['total_ns'] / 1e9, 1e-3)
    rr = cnt / busy_s
    # What the stalls can have held. The allowance, the probes of
    # a stall's length at the run's rate, is printed (rate_explain), but
    # it is far too loose to catch anything: in a closed loop (one probe in
    # flight) the loop sends nothing while it is stalled, so a stall
    # overlaps the probe in flight when it began and at most one more (a
    # stall that begins as one probe's answer is read and the next one
    # leaves): 2 a stall, over every stall the run counted (each above
    # LEN/2: the injected ones and the machine's own that long; no share
    # of the quiet run's short ones is added, this run does not count
    # them).
    rate_explain = st['total_ns'] / 1e9 * rr + st['count']
    explain = 2 * st['count']
    qha = q['stalls']['host_affected']['probes'] / q['rtt_ns']['count']
    print(f'  injected {be}: {n} FIFO bursts of {len_ms:g} ms (measured '
          f'{inj_ns / 1e6:.1f} ms in all), threshold {thr} ns; stalls '
          f'{st["count"]}, longer than {half / 1e6:.0f} ms: {found}, in '
          f'({blo / 1e6:g}, {"inf" if bup is None else f"{bup / 1e6:g}"}] ms: '
          f'{band}; the reference loop: {bg} gaps over {f["threshold_ns"]} ns '
          f'in {f["seconds"]:.1f} s, longest {f["max_us"]:.0f} us')
    print(f'    total {st["total_ns"] / 1e6:.1f} ms = '
          f'{100 * st["total_ns"] / inj_ns - 100:+.2f} % of the bursts '
          f'(bound {inj_ns * 0.9 / 1e6:.1f} to {hi / 1e6:.1f} ms), longest '
          f'{st["longest_ns"] / 1e6:.1f} ms; host-affected {ha["probes"]} of '
          f'{cnt} probes ({100 * ha["probes"] / cnt:.3f} %; the stalls can '
          f'hold {explain:.0f} closed-loop, {rate_explain:.0f} at the run\'s '
          f'rate; the quiet run '
          f'at its own threshold: {100 * qha:.3f} %), prober {ha["prober"]} '
          f'both {ha["both"]}')
    assert f['threshold_ns'] == thr, 'the reference ran with another threshold'
    assert found >= 0.9 * n, f'{found} long stalls for {n} injected'
    assert band <= 1.1 * n + bg, \
        f'{band} stalls in the bucket for {n} injected and {bg} of the host\'s'
    # (No bound on all the stalls above LEN/2: at load 17 a run counted 3
    # of 60 to 100 ms beyond the 20 bursts while the reference, 9 s later,
    # saw none: below the bursts' bucket the host's own come and go.)
    assert st['total_ns'] >= 0.9 * inj_ns, 'the stalls\' total is short of the bursts'
    assert st['total_ns'] <= hi, 'the stalls\' total is over the bursts\''
    # A closed loop is between two probes (after one's T4, before the
    # next's T1: reading the answer, building the next) for a share of its
    # time; a burst that lands there holds no probe. The share inside the
    # probes' windows is the sum of their round trips over the time the
    # loop ran; at least that share of the bursts, less 3 sigma of the
    # binomial, each charge a probe to this host (about 90 % on memif,
    # whose round trip is a few us; a detector that charged none fails).
    inside = min(1.0, r['rtt_ns']['sum'] / (dur * 1e9))
    need = n * inside - 3 * math.sqrt(n * inside * (1 - inside))
    print(f'    in the probes\' windows {100 * inside:.1f} % of the time: at '
          f'least {need:.1f} of the bursts charge a probe')
    assert ha['prober'] + ha['both'] >= need, \
        f'{ha["prober"] + ha["both"]} probes charged to this host for {n} bursts (need {need:.1f})'
    assert ha['probes'] <= explain, \
        'more probes host-affected than the stalls can have held'
    u = r['rtt_ns_unaffected']
    assert u['count'] + ha['probes'] == cnt, 'probes lost in the split'


def sigstop(be, run, n, len_ms):
    r = load(run)
    st = r['stalls']['prober']
    half = len_ms * 1e6 / 2
    (blo, bup, band), _ = split(st, len_ms * 1e6)
    found = long_ones(st, half)
    ha, rtt, u = (r['stalls']['host_affected'], r['rtt_ns'],
                  r['rtt_ns_unaffected'])
    print(f'  SIGSTOP {be}: {n} stops of {len_ms} ms; stalls {st["count"]}, '
          f'longer than {half / 1e6:.0f} ms: {found}, in the injected '
          f'bucket: {band}; off-CPU in a PMD call: '
          f'{st["pmd_calls"].get("off_cpu_stalls")}; host-affected prober '
          f'{ha["prober"]} both {ha["both"]} of {rtt["count"]}; rtt max '
          f'{rtt["max"]}, unaffected max {u["max"]}')
    assert found >= 0.9 * n, f'{found} long stalls for {n} injected'
    assert band <= 1.1 * n, f'{band} stalls in the bucket for {n} injected'
    assert u['count'] + ha['probes'] == rtt['count'], 'probes lost in the split'
    assert rtt['max'] > half, 'the stops left no tail'
    assert u['max'] < half, 'an unaffected probe is as slow as a stop'
    assert ha['prober'] + ha['both'] >= 0.9 * n, \
        f'{ha["prober"] + ha["both"]} charged to this host for {n} stops'


def few(run):
    r = load(run)
    rtt, st = r['rtt_ns'], r['stalls']
    print(f'  500 probes: rtt count {rtt["count"]}, p99.9 {rtt["p99_9"]}, '
          f'too_few_samples {rtt.get("too_few_samples")}; verdict '
          f'{st["verdict"]}, no_verdict {st.get("no_verdict")!r}')
    assert rtt['count'] == 500, f'{rtt["count"]} probes measured'
    assert rtt['p99_9'] is None, 'a p99.9 of 500 probes'
    assert 'p99_9' in rtt['too_few_samples'], 'p99_9 not in too_few_samples'
    assert st['verdict'] is None, 'a verdict on 500 probes'
    assert isinstance(st['no_verdict'], str) and st['no_verdict'], \
        'no reason for the missing verdict'


def main():
    cmd, a = sys.argv[1], sys.argv[2:]
    if cmd == 'quiet':
        quiet(*a)
    elif cmd == 'compare':
        compare(*a)
    elif cmd == 'inject':
        inject(a[0], a[1], a[2], int(a[3]), float(a[4]), a[5], a[6])
    elif cmd == 'sigstop':
        sigstop(a[0], a[1], int(a[2]), float(a[3]))
    elif cmd == 'few':
        few(a[0])
    else:
        sys.exit(f'stalls_quiet.py: unknown check {cmd}')


if __name__ == '__main__':
    main()
