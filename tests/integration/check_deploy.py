#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Checks of deploy/ that promtool does not do (tests/integration/deploy.sh).

  check_deploy.py TOP [--rendered K8S.yaml] [--exposition FILE ...]

- every metric name deploy/ queries is one of metric names (or a
  recording rule of rules.yml), and with --exposition, one that a running
  latprobe really exports (with the labels the rules group by);
- the Grafana dashboard: JSON, a datasource variable every panel uses, the
  panels the fleet needs (RTT heatmap, p99, loss), variables defined;
- the Kubernetes manifests (python3-yaml; no cluster): kinds, required
  fields, host network, hugepages resources and volume, capabilities each
  with a comment saying why, scrape annotations, ConfigMaps that exist;
- the pinglist and the nodes file against the documented grammar.

Prints one line per failed check and exits 1, else one summary line.
"""
import argparse
import ipaddress
import json
import os
import re
import sys

import yaml

# The fleet's metric names (a contract: docs/fleet.md, docs/usage.md).
CONTRACT_COUNTERS = {
    "latprobe_probes_sent_total", "latprobe_probes_received_total",
    "latprobe_probes_lost_total", "latprobe_reflector_answered_total",
    "latprobe_reflector_dropped_total",
}
CONTRACT_HISTOGRAMS = {
    "latprobe_rtt_seconds", "latprobe_network_rtt_seconds",
    "latprobe_reflector_turnaround_seconds",
}
CONTRACT_OTHER = {"latprobe_build_info"}
# Labels the rules and the dashboard may group or filter by: the exporter's
# (target, proto, label, reason, le) and the scrape's (instance, job).
KNOWN_LABELS = {"instance", "job", "target", "proto", "label", "reason", "le"}
PROBE_PROTOS = {"stamp", "sockperf", "udp-echo", "icmp", "tcp-syn"}
CAPS_ALLOWED = {"IPC_LOCK", "NET_ADMIN", "NET_RAW", "NET_BIND_SERVICE",
                "SYS_ADMIN"}
BENCH_V4 = ipaddress.ip_network("198.18.0.0/15")
BENCH_V6 = ipaddress.ip_network("2001:2::/48")

fails = []


def check(cond, msg):
    if not cond:
        fails.append(msg)
    return cond


def contract_series():
    names = set(CONTRACT_COUNTERS) | CONTRACT_OTHER
    for h in CONTRACT_HISTOGRAMS:
        names |= {h + "_bucket", h + "_sum", h + "_count"}
    return names


NAME_RE = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"')


def metric_names(expr):
    """Names in a PromQL expression that are latprobe's (strings and label
    matchers' values left out)."""
    return {n for n in NAME_RE.findall(STRING_RE.sub('""', expr))
            if "latprobe" in n}


def grouping_labels(expr):
    out = set()
    for m in re.finditer(r"\b(?:by|without)\s*\(([^)]*)\)", expr):
        out |= {x.strip() for x in m.group(1).split(",") if x.strip()}
    for m in re.finditer(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)\s*\"",
                         expr):
        out.add(m.group(1))
    return out


# ---- Prometheus rules -----------------------------------------------------

def load_rules(top):
    path = os.path.join(top, "deploy/prometheus/rules.yml")
    with open(path) as f:
        doc = yaml.safe_load(f)
    records, alerts, exprs = set(), set(), []
    for g in doc["groups"]:
        for r in g["rules"]:
            exprs.append(("rules.yml " + r.get("record", r.get("alert", "?")),
                          r["expr"]))
            if "record" in r:
                records.add(r["record"])
            else:
                alerts.add(r["alert"])
    return records, alerts, exprs


def check_exprs(where_exprs, records, used):
    known = contract_series()
    for where, expr in where_exprs:
        for n in metric_names(expr):
            check(n in known or n in records,
                  f"{where}: '{n}' is neither a latprobe metric nor a "
                  "recording rule of rules.yml")
            if n not in records:
                used.add(n)
        for lab in grouping_labels(expr):
            check(lab in KNOWN_LABELS or lab.startswith("__"),
                  f"{where}: label '{lab}' is not one latprobe or the "
                  "scrape sets")


# ---- Grafana --------------------------------------------------------------

def all_panels(panels):
    for p in panels:
        yield p
        yield from all_panels(p.get("panels", []))


def check_grafana(top, records, used):
    path = os.path.join(top, "deploy/grafana/latprobe.json")
    try:
        with open(path) as f:
            dash = json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{path}: not JSON: {e}")
        return
    for k in ("title", "uid", "schemaVersion", "panels", "templating"):
        check(k in dash, f"grafana: no '{k}'")
    check(isinstance(dash.get("schemaVersion"), int),
          "grafana: schemaVersion is not an integer")
    tvars = dash.get("templating", {}).get("list", [])
    names = {v.get("name") for v in tvars}
    ds_vars = [v for v in tvars if v.get("type") == "datasource"]
    if check(len(ds_vars) == 1 and ds_vars[0].get("query") == "prometheus",
             "grafana: no single datasource variable of type prometheus"):
        ds_ref = "${" + ds_vars[0]["name"] + "}"
    else:
        ds_ref = None
    exprs = []
    for v in tvars:
        if v.get("type") == "query":
            q = v.get("query")
            q = q.get("query") if isinstance(q, dict) else q
            check(v.get("datasource", {}).get("uid") == ds_ref,
                  f"grafana: variable {v.get('name')} not on {ds_ref}")
            exprs.append((f"grafana variable {v.get('name')}", q or ""))
    ids = []
    kinds = {}
    for p in all_panels(dash.get("panels", [])):
        title = p.get("title", "?")
        ids.append(p.get("id"))
        gp = p.get("gridPos", {})
        check(all(isinstance(gp.get(k), int) for k in "xywh") and
              gp["x"] + gp["w"] <= 24,
              f"grafana: panel '{title}' has no valid gridPos")
        if p.get("type") == "row":
            continue
        check(p.get("datasource", {}).get("uid") == ds_ref,
              f"grafana: panel '{title}' does not use {ds_ref}")
        targets = p.get("targets", [])
        check(targets, f"grafana: panel '{title}' has no query")
        for t in targets:
            e = t.get("expr", "")
            check(e, f"grafana: panel '{title}' has an empty query")
            exprs.append((f"grafana panel '{title}'", e))
            kinds.setdefault(p.get("type"), []).append((e, t, p))
    check(len(ids) == len(set(ids)), "grafana: panel ids not unique")
    # What the issue asks the dashboard to show.
    check(any("latprobe_rtt_seconds_bucket" in e and
              t.get("format") == "heatmap"
              for e, t, _ in kinds.get("heatmap", [])),
          "grafana: no RTT heatmap (heatmap panel on "
          "latprobe_rtt_seconds_bucket, format heatmap)")
    check(any("pair:latprobe_rtt_seconds:p99_rate1m" in e
              for e, _, _ in kinds.get("timeseries", [])),
          "grafana: no p99-per-pair time series")
    check(any("latprobe_probes_loss" in e or "latprobe_probes_lost_total" in e
              for e, _, _ in kinds.get("timeseries", [])),
          "grafana: no loss time series")
    builtin = {"__rate_interval", "__interval", "__range"}
    for where, e in exprs:
        for v in re.findall(r"\$\{?([a-zA-Z_][a-zA-Z0-9_]*)", e):
            check(v in names or v in builtin,
                  f"{where}: variable ${v} is not defined")
    check_exprs(exprs, records, used)


# ---- pinglist and nodes ---------------------------------------------------

def in_bench(addr):
    return (addr in BENCH_V4) if addr.version == 4 else (addr in BENCH_V6)


def parse_target(tok):
    """ADDR[:PORT] (IPv6 as [ADDR]:PORT or bare) -> (address, port)."""
    m = re.fullmatch(r"\[([0-9a-fA-F:.]+)\](?::(\d+))?", tok)
    if m:
        host, port = m.group(1), m.group(2)
    elif tok.count(":") == 1:
        host, port = tok.split(":")
    else:
        host, port = tok, None
    addr = ipaddress.ip_address(host)
    if port is not None:
        if not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f"port '{port}'")
        port = int(port)
    return addr, port


def parse_pinglist(text, where):
    """The pinglist grammar: ADDR[:PORT] [proto=P] [label=L],
    '#' starts a comment. Returns [(addr, port, proto, label)]."""
    out = []
    seen = set()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        toks = line.split()
        try:
            addr, port = parse_target(toks[0])
        except ValueError as e:
            check(False, f"{where}:{n}: bad ADDR[:PORT] '{toks[0]}' ({e})")
            continue
        check(in_bench(addr), f"{where}:{n}: {addr} is outside the "
              "benchmarking ranges 198.18.0.0/15 and 2001:2::/48")
        opts = {}
        for t in toks[1:]:
            k, eq, v = t.partition("=")
            if not check(eq and k in ("proto", "label") and k not in opts,
                         f"{where}:{n}: '{t}' is not proto=... or "
                         "label=... (once each)"):
                continue
            opts[k] = v
        proto = opts.get("proto", "stamp")
        check(proto in PROBE_PROTOS, f"{where}:{n}: unknown proto '{proto}'")
        label = opts.get("label", "")
        check("label" not in opts or
              re.fullmatch(r"[A-Za-z0-9_.:/-]{1,64}", label),
              f"{where}:{n}: label '{label}' is empty or has characters "
              "a Prometheus label value should not carry")
        key = (addr, port or 862, proto)
        check(key not in seen, f"{where}:{n}: {toks[0]} {proto} twice")
        seen.add(key)
        out.append((addr, port, proto, label))
    return out


def read_nodes(path):
    """{node name: reflector address} of a nodes file."""
    out = {}
    with open(path) as f:
        for line in f:
            w = line.split("#", 1)[0].split()
            if len(w) >= 3:
                out[w[0]] = ipaddress.ip_interface(w[1]).ip
    return out


def check_pinglist_dir(d, nodes_file):
    """make-pinglists' output: every list parses, never names its own node,
    only names known reflectors; returns the number of pairs."""
    nodes = read_nodes(nodes_file)
    known = set(nodes.values())
    pairs = 0
    for name, own in nodes.items():
        path = os.path.join(d, f"pinglist.{name}")
        if not check(os.path.isfile(path), f"{path}: missing"):
            continue
        with open(path) as f:
            tl = parse_pinglist(f.read(), path)
        addrs = [t[0] for t in tl]
        check(own not in addrs, f"{path}: lists its own node {own}")
        check(set(addrs) <= known, f"{path}: lists unknown addresses")
        pairs += len(tl)
    return pairs


def check_lists(top):
    kdir = os.path.join(top, "deploy/kubernetes")
    with open(os.path.join(kdir, "pinglist")) as f:
        targets = parse_pinglist(f.read(), "deploy/kubernetes/pinglist")
    check(len(targets) >= 2, "pinglist: fewer than two targets")
    refl = set()
    names = set()
    with open(os.path.join(kdir, "nodes")) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if not check(len(line) in (3, 4), f"nodes:{n}: not NODE "
                         "REFLECT_ADDR/LEN PROBE_ADDR/LEN [RACK]"):
                continue
            check(line[0] not in names, f"nodes:{n}: {line[0]} twice")
            names.add(line[0])
            for a in line[1:3]:
                try:
                    itf = ipaddress.ip_interface(a)
                    check("/" in a and in_bench(itf.ip),
                          f"nodes:{n}: {a} is not ADDR/LEN in a "
                          "benchmarking range")
                except ValueError:
                    check(False, f"nodes:{n}: bad address '{a}'")
            try:
                refl.add(ipaddress.ip_interface(line[1]).ip)
            except ValueError:
                pass
    for addr, _, _, _ in targets:
        check(addr in refl, f"pinglist: {addr} is no node's reflector "
              "address in nodes")
    return len(targets)


# ---- Kubernetes -----------------------------------------------------------

def cap_comments(text):
    """Each '- CAP' line under capabilities.add must follow a comment line
    (the why)."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.fullmatch(r"\s*- ([A-Z_]+)\s*", line)
        if m and m.group(1) in CAPS_ALLOWED | {"ALL"}:
            check(i > 0 and lines[i - 1].strip().startswith("#"),
                  f"kubernetes: capability {m.group(1)} without a comment "
                  "saying why")


def check_daemonset(ds, where, cms):
    name = ds["metadata"]["name"]
    check(ds.get("apiVersion") == "apps/v1", f"{where}: apiVersion not apps/v1")
    spec = ds.get("spec", {})
    sel = spec.get("selector", {}).get("matchLabels", {})
    tmpl = spec.get("template", {})
    labels = tmpl.get("metadata", {}).get("labels", {})
    check(sel and all(labels.get(k) == v for k, v in sel.items()),
          f"{name}: selector does not match the template's labels")
    pod = tmpl.get("spec", {})
    check(pod.get("hostNetwork") is True, f"{name}: not hostNetwork")
    ann = tmpl.get("metadata", {}).get("annotations", {})
    check(ann.get("prometheus.io/scrape") == "true",
          f"{name}: no prometheus.io/scrape annotation")
    vols = {v["name"]: v for v in pod.get("volumes", [])}
    huge_vols = {n for n, v in vols.items()
                 if v.get("emptyDir", {}).get("medium", "").startswith(
                     "HugePages")}
    check(huge_vols, f"{name}: no hugepages volume (emptyDir HugePages)")
    for n, v in vols.items():
        if "configMap" in v:
            check(v["configMap"].get("name") in cms,
                  f"{name}: volume {n} names ConfigMap "
                  f"'{v['configMap'].get('name')}' that kustomization "
                  "does not make")
    ctrs = pod.get("containers", [])
    check(ctrs, f"{name}: no container")
    for c in ctrs:
        cn = c.get("name", "?")
        check(c.get("image"), f"{name}/{cn}: no image")
        res = c.get("resources", {})
        req, lim = res.get("requests", {}), res.get("limits", {})
        hp = [k for k in lim if k.startswith("hugepages-")]
        check(hp, f"{name}/{cn}: no hugepages limit")
        for k in hp:
            check(req.get(k) == lim[k],
                  f"{name}/{cn}: {k} request differs from its limit")
        check("memory" in lim or "cpu" in lim,
              f"{name}/{cn}: hugepages need a memory or cpu limit too")
        mounts = {m["name"]: m for m in c.get("volumeMounts", [])}
        check(any(v in mounts for v in huge_vols),
              f"{name}/{cn}: hugepages volume not mounted")
        for m in mounts:
            check(m in vols, f"{name}/{cn}: mounts undefined volume {m}")
        caps = c.get("securityContext", {}).get("capabilities", {})
        add = set(caps.get("add", []))
        check(add <= CAPS_ALLOWED, f"{name}/{cn}: capabilities "
              f"{sorted(add - CAPS_ALLOWED)} not among those DPDK needs")
        check({"IPC_LOCK", "NET_RAW", "NET_ADMIN"} <= add,
              f"{name}/{cn}: IPC_LOCK, NET_ADMIN and NET_RAW not all added")
        check("ALL" in caps.get("drop", []),
              f"{name}/{cn}: does not drop ALL other capabilities")
        check(c.get("securityContext", {}).get("privileged") is not True,
              f"{name}/{cn}: privileged")
        ports = {p.get("name"): p.get("containerPort")
                 for p in c.get("ports", [])}
        check(str(ports.get("metrics")) == ann.get("prometheus.io/port"),
              f"{name}/{cn}: prometheus.io/port is not the metrics port")
        env = {e["name"] for e in c.get("env", [])}
        check({"NODE_NAME", "HOST_IP"} <= env,
              f"{name}/{cn}: NODE_NAME/HOST_IP (downward API) not set")
    return name


def check_kubernetes(top, rendered):
    kdir = os.path.join(top, "deploy/kubernetes")
    with open(os.path.join(kdir, "kustomization.yaml")) as f:
        kust = yaml.safe_load(f)
    check(kust.get("kind") == "Kustomization", "kustomization: wrong kind")
    cms = set()
    for g in kust.get("configMapGenerator", []):
        cms.add(g["name"])
        for fn in g.get("files", []):
            check(os.path.isfile(os.path.join(kdir, fn)),
                  f"kustomization: {g['name']} file {fn} missing")
    check(kust.get("generatorOptions", {}).get("disableNameSuffixHash"),
          "kustomization: ConfigMap names get a hash (a pinglist change "
          "would restart every prober instead of a SIGHUP)")
    check("latprobe-pinglist" in cms, "kustomization: no pinglist ConfigMap")
    kinds = {}
    for res in kust.get("resources", []):
        path = os.path.join(kdir, res)
        if not check(os.path.isfile(path), f"kustomization: {res} missing"):
            continue
        with open(path) as f:
            text = f.read()
        cap_comments(text)
        for doc in yaml.safe_load_all(text):
            if doc is None:
                continue
            for k in ("apiVersion", "kind", "metadata"):
                check(k in doc, f"{res}: no {k}")
            check(doc.get("metadata", {}).get("name"), f"{res}: no name")
            kind = doc.get("kind")
            kinds.setdefault(kind, []).append(doc)
            if kind == "DaemonSet":
                check_daemonset(doc, res, cms)
    ds = {d["metadata"]["name"] for d in kinds.get("DaemonSet", [])}
    check(ds == {"latprobe-reflect", "latprobe-probe"},
          f"kubernetes: DaemonSets {sorted(ds)}, want latprobe-reflect "
          "and latprobe-probe")
    check("Namespace" in kinds, "kubernetes: no Namespace")
    if rendered:
        with open(rendered) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        got = {(d["kind"], d["metadata"]["name"]) for d in docs}
        for want in [("ConfigMap", c) for c in cms] + \
                [("DaemonSet", n) for n in ds]:
            check(want in got, f"kubectl kustomize: no {want[0]} {want[1]}")
        for d in docs:
            if d["kind"] == "ConfigMap" and "pinglist" in d.get("data", {}):
                parse_pinglist(d["data"]["pinglist"], "rendered ConfigMap")
            if d["kind"] != "Namespace":
                check(d["metadata"].get("namespace") == "latprobe",
                      f"kubectl kustomize: {d['kind']} "
                      f"{d['metadata']['name']} not in namespace latprobe")
    return len(kinds.get("DaemonSet", []))


# ---- a real exposition ----------------------------------------------------

def parse_exposition(path):
    """{sample name: [label dict, ...]} from the text format."""
    out = {}
    line_re = re.compile(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s+\S+")
    lab_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            m = line_re.match(line)
            if m:
                out.setdefault(m.group(1), []).append(
                    dict(lab_re.findall(m.group(3) or "")))
    return out


def check_exposition(files, used):
    got = {}
    for fn in files:
        for k, v in parse_exposition(fn).items():
            got.setdefault(k, []).extend(v)
    for n in sorted(used):
        check(n in got, f"deploy/ queries '{n}', which latprobe does not "
              f"export (not in {', '.join(files)})")
    # `label` may be absent: an empty label value is no label in Prometheus.
    pair = {"target", "proto"}
    for n in ("latprobe_probes_sent_total", "latprobe_probes_lost_total",
              "latprobe_rtt_seconds_bucket"):
        for labs in got.get(n, []):
            check(pair <= set(labs), f"{n}: labels {sorted(labs)} lack "
                  "target/proto (the rules group by them)")
            check(set(labs) - {"le"} <= KNOWN_LABELS,
                  f"{n}: labels {sorted(set(labs) - KNOWN_LABELS)} that "
                  "the rules do not expect (series cardinality)")
    les = sorted({float(l["le"]) for l in got.get(
        "latprobe_rtt_seconds_bucket", []) if l.get("le") not in
        (None, "+Inf")})
    if check(les, "latprobe_rtt_seconds_bucket: no finite le bound"):
        check(abs(les[0] - 1e-6) < 1e-12 and abs(les[-1] - 1.0) < 1e-9,
              f"latprobe_rtt_seconds: le from {les[0]} to {les[-1]}, "
              "not 1e-06 to 1")
    for labs in got.get("latprobe_reflector_dropped_total", []):
        check("reason" in labs,
              "latprobe_reflector_dropped_total without a reason label")
    return len(got)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("top")
    ap.add_argument("--rendered", help="output of kubectl kustomize")
    ap.add_argument("--exposition", nargs="*", default=[],
                    help="/metrics pages of a running reflector and prober")
    ap.add_argument("--pinglist-dir", nargs=3,
                    metavar=("DIR", "NODES", "PAIRS"),
                    help="only check make-pinglists' output in DIR, made "
                    "from NODES: PAIRS pairs in all")
    a = ap.parse_args()
    if a.pinglist_dir:
        d, nf, want = a.pinglist_dir
        got = check_pinglist_dir(d, nf)
        check(got == int(want), f"{d}: {got} pairs, want {want}")
        for f in fails:
            print("check_deploy: " + f)
        if not fails:
            print(f"check_deploy: ok: {d}: {got} pairs")
        return 1 if fails else 0
    records, alerts, exprs = load_rules(a.top)
    used = set()
    check_exprs(exprs, records, used)
    check_grafana(a.top, records, used)
    npl = check_lists(a.top)
    nds = check_kubernetes(a.top, a.rendered)
    nexp = check_exposition(a.exposition, used) if a.exposition else 0
    if fails:
        for f in fails:
            print("check_deploy: " + f)
        return 1
    print(f"check_deploy: ok: {len(records)} recording rules, {len(alerts)} "
          f"alerts, {len(used)} latprobe series queried, dashboard ok, "
          f"{nds} DaemonSets, pinglist of {npl} targets"
          + (f", {nexp} exported series names cover every query"
             if a.exposition else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
