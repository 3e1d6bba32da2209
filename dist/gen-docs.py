#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write latprobe's man page and bash completion from its --help texts.

  dist/gen-docs.py [--man FILE] [--completion FILE] [--datadir DIR]
                   [--sysconfdir DIR] LATPROBE

The help texts in app/ are the one source: this script runs the built
binary (`latprobe --help`, then `latprobe SUB --help` for every subcommand
the first lists) and turns what it prints into latprobe(1) and the
completion, so neither can drift from --help. A subcommand added to the
top-level help shows up in both without a change here. Runs at build time
(dist/meson.build); tests/integration/manpage.sh checks the result against
--help independently.
"""

import argparse
import datetime
import os
import re
import subprocess
import sys

# DPDK's EAL options worth completing before "--" (EAL's, not ours).
EAL_OPTIONS = ("-l -a -b -m --lcores --vdev --in-memory --no-huge --no-pci "
               "--file-prefix --log-level --iova-mode --socket-mem "
               "--huge-dir --proc-type --main-lcore").split()


def run_help(latprobe, *args):
    # A sanitizer build's leak report is not this script's business (the
    # ASan tests look for leaks); the text is all it reads.
    env = dict(os.environ, LC_ALL="C", ASAN_OPTIONS="detect_leaks=0")
    r = subprocess.run([latprobe, *args, "--help"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, check=False,
                       env=env)
    if r.returncode != 0 and args:
        # One subcommand's broken --help must not break the build: its
        # section says so, tests/integration/manpage.sh fails on it.
        print("gen-docs: warning: 'latprobe %s --help' exited %d" %
              (" ".join(args), r.returncode), file=sys.stderr)
        return "usage: latprobe %s ...\n\n(no --help text at build time)\n" \
            % " ".join(args)
    if r.returncode != 0:
        sys.exit("gen-docs: '%s --help' exited %d: %s" %
                 (latprobe, r.returncode, r.stderr.strip()))
    return r.stdout


def blocks(text):
    """Paragraphs: lists of lines separated by blank lines."""
    out, cur = [], []
    for line in text.rstrip("\n").split("\n"):
        if line.strip() == "":
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(line.rstrip())
    if cur:
        out.append(cur)
    return out


OPT_LINE = re.compile(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$")


def parse_option_lines(lines):
    """'  -t, --duration T      text' entries with their continuation lines
    -> [(spec, description)]."""
    opts = []
    for line in lines:
        m = OPT_LINE.match(line)
        if m and not line.startswith("   "):
            opts.append([m.group(1).strip(), (m.group(2) or "").strip()])
        elif opts:
            opts[-1][1] = (opts[-1][1] + " " + line.strip()).strip()
    return [tuple(o) for o in opts]


def parse_help(text):
    """A --help text -> dict: usage (lines), parts [(kind, payload)] in
    order, where kind is para, verbatim, options, examples or exit."""
    h = {"usage": [], "parts": []}
    for b in blocks(text):
        first = b[0]
        if first.startswith("usage:"):
            h["usage"] = [first[len("usage:"):].strip()] + \
                [ln.strip() for ln in b[1:]]
        elif first.strip() == "examples:":
            h["parts"].append(("examples", b[1:]))
        elif first.startswith("exit codes:"):
            h["parts"].append(("exit", b))
        elif first.strip() == "options:":
            h["parts"].append(("options", parse_option_lines(b[1:])))
        elif OPT_LINE.match(first) and not first.startswith("   "):
            h["parts"].append(("options", parse_option_lines(b)))
        elif any(ln.startswith(" ") for ln in b):
            # A paragraph with an indented list: keep its lines (e.g. the
            # subcommand list, which is parsed on its own).
            h["parts"].append(("verbatim", b))
        else:
            h["parts"].append(("para", b))
    return h


SUB_LINE = re.compile(r"^  ([a-z][a-z0-9-]*)\s{2,}(\S.*)$")


def parse_subcommands(top):
    """The 'Subcommands:' list of `latprobe --help` -> [(name, summary)]."""
    subs = []
    for b in blocks(top):
        if not b[0].rstrip().endswith("Subcommands:"):
            continue
        for line in b[1:]:
            m = SUB_LINE.match(line)
            if m:
                subs.append([m.group(1), m.group(2)])
            elif subs:
                subs[-1][1] += " " + line.strip()
    if not subs:
        sys.exit("gen-docs: no 'Subcommands:' list in 'latprobe --help'")
    return [tuple(s) for s in subs]


def option_names(spec):
    """'-t, --duration T' -> (['-t', '--duration'], 'T');
    '-h N | E1,E2,...' -> (['-h'], 'N | E1,E2,...')."""
    names, rest = [], spec
    while True:
        m = re.match(r"(--?[A-Za-z0-9][A-Za-z0-9-]*)(,\s*|\s+|=|$)", rest)
        if not m:
            break
        names.append(m.group(1))
        rest = rest[m.end():]
        if not m.group(2).startswith(","):
            break
    return names, rest.strip()


# ---- roff ----------------------------------------------------------------

def roff(text):
    """Escape text for a roff line: backslashes, a leading dot or quote,
    and a '-' that starts a word (an option: a minus, not a hyphen)."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![A-Za-z0-9_])-", r"\\-", text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def roff_verbatim(lines, out):
    out.append(".PP")
    out.append(".RS 4")
    out.append(".nf")
    for ln in lines:
        out.append(roff(ln) if ln.strip() else ".sp")
    out.append(".fi")
    out.append(".RE")


def roff_help(h, out):
    out.append(".PP")
    for i, u in enumerate(h["usage"]):
        if i:
            out.append(".br")
        out.append(roff(u))
    for kind, payload in h["parts"]:
        if kind == "para":
            out.append(".PP")
            out.extend(roff(ln.strip()) for ln in payload)
        elif kind == "verbatim":
            roff_verbatim(payload, out)
        elif kind == "options":
            for spec, desc in payload:
                out.append(".TP")
                out.append("\\fB" + roff(spec) + "\\fR")
                out.append(roff(desc) if desc else "this help")
        elif kind == "examples":
            out.append(".PP")
            out.append("Examples:")
            roff_verbatim(payload, out)
        elif kind == "exit":
            roff_verbatim(payload, out)


def man_page(latprobe, args, top, subs, helps):
    ver = subprocess.run([latprobe, "--version"], stdout=subprocess.PIPE,
                         text=True, check=False,
                         env=dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
                         ).stdout.strip()
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    when = (datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
            if epoch else datetime.datetime.now(datetime.timezone.utc))
    th = parse_help(top)
    out = [
        ".\\\" Generated by dist/gen-docs.py from the --help texts of "
        "latprobe; do not edit.",
        '.TH LATPROBE 1 "%s" "%s" "User Commands"' %
        (when.strftime("%Y-%m-%d"), roff(ver)),
        ".SH NAME",
        "latprobe \\- kernel-bypass network latency prober (DPDK)",
        ".SH SYNOPSIS",
    ]
    for i, u in enumerate(th["usage"]):
        if i:
            out.append(".br")
        out.append(roff(u))
    for name, _ in subs:
        out.append(".br")
        out.append(roff("latprobe %s --help" % name))
    out.append(".SH DESCRIPTION")
    out.append(".PP")
    out.append(
        "latprobe measures network round trips at the packet level: "
        "one host runs \\fBlatprobe reflect\\fR, another \\fBlatprobe "
        "probe\\fR; both are poll-mode DPDK applications (or use kernel "
        "sockets with \\-\\-backend kernel). Each section below is the "
        "\\-\\-help text of one subcommand.")
    for kind, payload in th["parts"]:
        if kind == "para":
            out.append(".PP")
            out.extend(roff(ln.strip()) for ln in payload)
        elif kind == "verbatim" and payload[0].rstrip().endswith(
                "Subcommands:"):
            out.append(".PP")
            out.append(roff(payload[0].strip()))
            for name, summary in subs:
                out.append(".TP")
                out.append("\\fB%s\\fR" % roff(name))
                out.append(roff(summary))
        elif kind == "verbatim":
            roff_verbatim(payload, out)
    out.append(".SH COMMANDS")
    for name, _ in subs:
        out.append(".SS latprobe %s" % roff(name))
        roff_help(helps[name], out)
    out.append(".SH EXAMPLES")
    for kind, payload in th["parts"]:
        if kind == "examples":
            roff_verbatim(payload, out)
    out.append(".SH EXIT STATUS")
    for kind, payload in th["parts"]:
        if kind == "exit":
            roff_verbatim(payload, out)
    profiles = os.path.join(args.datadir, "latprobe", "dpdk-config")
    out += [
        ".SH ENVIRONMENT",
        ".TP",
        ".B LATPROBE_PROFILE_DIR",
        roff("the first directory --profile NAME looks in."),
        ".SH FILES",
        ".TP",
        roff(profiles + "/"),
        roff("EAL profiles for --profile NAME (looked up after "
             "$LATPROBE_PROFILE_DIR and, for a binary run from a build "
             "directory, the checkout's dpdk-config/; an installed binary "
             "also looks in share/latprobe/dpdk-config/ next to its own "
             "bin/)."),
        ".TP",
        roff("/etc/latprobe/dpdk-config/"),
        roff("this host's own profiles, looked up right after "
             "$LATPROBE_PROFILE_DIR; latprobe setup writes host there."),
        ".TP",
        roff("/run/latprobe/setup.state"),
        roff("what latprobe setup changed, for latprobe setup --undo."),
        ".TP",
        roff(os.path.join(args.sysconfdir, "latprobe",
                          "reflect-NAME.conf")),
        roff("options of the systemd service latprobe-reflect@NAME "
             "(LATPROBE_EAL, LATPROBE_OPTS); an example is in "
             + os.path.join(args.datadir, "doc", "latprobe", "examples",
                            "reflect.conf") + "."),
        ".TP",
        roff(os.path.join(args.datadir, "doc", "latprobe") + "/"),
        roff("usage.md (every option, the report, exit codes), design.md, "
             "peers.md, performance.md."),
        ".SH SEE ALSO",
        ".BR sockperf (1),",
        ".BR systemd.service (5),",
        ".BR systemd.exec (5);",
        "DPDK's guides (dpdk-devbind.py, dpdk-hugepages.py, the PMDs): "
        + dpdk_guides(args.dpdk_version),
    ]
    return "\n".join(out) + "\n"


def dpdk_guides(version):
    """The guides of DPDK MAJOR.MINOR (a release's x.y.z -> guides-x.y/);
    the latest ones when the version is not known."""
    m = re.match(r"^(\d+)\.(\d+)", version)
    if not m:
        return "https://doc.dpdk.org/guides/"
    return "https://doc.dpdk.org/guides\\-%s.%s/" % (m.group(1), m.group(2))


# ---- bash completion ----------------------------------------------------

def completion(args, subs, helps):
    def words(ws):
        return " ".join(sorted(set(ws)))

    lines = [
        "# bash completion for latprobe(1). Generated by dist/gen-docs.py "
        "from the",
        "# --help texts of latprobe; do not edit.",
        "# shellcheck shell=bash",
        "",
        "declare -gA _latprobe_opts=() _latprobe_args=() _latprobe_files=() "
        "_latprobe_values=()",
    ]
    eal_subs = []
    for name, _ in subs:
        h = helps[name]
        if any("[EAL options]" in u for u in h["usage"]):
            eal_subs.append(name)
        opts, with_arg, files, values = ["--help"], [], [], []
        for kind, payload in h["parts"]:
            if kind != "options":
                continue
            for spec, _ in payload:
                names, metavar = option_names(spec)
                opts += names
                if not metavar:
                    continue
                with_arg += names
                if re.search(r"FILE|CSV|\.json|\.html", metavar):
                    files += names
                elif re.fullmatch(r"[a-z][a-z0-9-]*", metavar):
                    # A literal value ("--backend kernel").
                    values += ["%s=%s" % (n, metavar) for n in names]
        lines.append("_latprobe_opts[%s]='%s'" % (name, words(opts)))
        lines.append("_latprobe_args[%s]=' %s '" % (name, words(with_arg)))
        lines.append("_latprobe_files[%s]=' %s '" % (name, words(files)))
        lines.append("_latprobe_values[%s]=' %s '" % (name, words(values)))
    lines += [
        "_latprobe_subs='%s'" % " ".join(n for n, _ in subs),
        "_latprobe_eal_subs=' %s '" % " ".join(eal_subs),
        "_latprobe_eal='%s'" % " ".join(EAL_OPTIONS),
        "_latprobe_datadir='%s'" % os.path.join(args.datadir, "latprobe",
                                                "dpdk-config"),
        "",
        r"""# Profile names where latprobe looks for them (app/cli.c profile_dirs()).
_latprobe_profiles()
{
	local exe=$1 dir d f
	[[ $exe == */* ]] || exe=$(type -P "$exe" 2>/dev/null)
	dir=${exe%/*}
	for d in "${LATPROBE_PROFILE_DIR:-}" \
		"$([ -e "$dir/../build.ninja" ] && echo "$dir/../../dpdk-config")" \
		"$dir/../share/latprobe/dpdk-config" "$_latprobe_datadir" \
		/usr/share/latprobe/dpdk-config; do
		[ -n "$d" ] && [ -d "$d" ] || continue
		for f in "$d"/*; do
			f=${f##*/}
			[[ -f $d/$f && $f != *.* ]] && printf '%s\n' "$f"
		done
	done | sort -u
}

_latprobe()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' sub i sep=0 ws v
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()
	if ((COMP_CWORD == 1)); then
		mapfile -t COMPREPLY < <(compgen -W "$_latprobe_subs --help --version" -- "$cur")
		return
	fi
	sub=${COMP_WORDS[1]}
	[[ -n ${_latprobe_opts[$sub]+x} ]] || return
	for ((i = 2; i < COMP_CWORD; i++)); do
		[[ ${COMP_WORDS[i]} == -- ]] && sep=1
	done
	# --opt=VALUE: bash splits at '=' (COMP_WORDBREAKS).
	if [[ $prev == = ]] && ((COMP_CWORD > 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	elif [[ $cur == = ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 1]}
		cur=''
	fi
	if [[ $prev == --profile ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_latprobe_profiles "${COMP_WORDS[0]}")" -- "$cur")
		return
	fi
	if [[ ${_latprobe_files[$sub]} == *" $prev "* ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	if [[ ${_latprobe_args[$sub]} == *" $prev "* ]]; then
		for v in ${_latprobe_values[$sub]}; do
			[[ ${v%%=*} == "$prev" ]] && ws+=" ${v#*=}"
		done
		[[ -n ${ws:-} ]] &&
			mapfile -t COMPREPLY < <(compgen -W "$ws" -- "$cur")
		return
	fi
	if [[ $cur == -* ]]; then
		ws=${_latprobe_opts[$sub]}
		if ((sep == 0)) && [[ $_latprobe_eal_subs == *" $sub "* ]]; then
			ws+=" -- --profile $_latprobe_eal"
		fi
		mapfile -t COMPREPLY < <(compgen -W "$ws" -- "$cur")
		return
	fi
	# Positional arguments: report files for plot and compare.
	case $sub in
	plot | compare) mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
}
complete -F _latprobe latprobe
""",
    ]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("latprobe")
    ap.add_argument("--man")
    ap.add_argument("--completion")
    ap.add_argument("--datadir", default="/usr/share")
    ap.add_argument("--sysconfdir", default="/etc")
    # The DPDK built against (meson: libdpdk's version): SEE ALSO links
    # its guides (doc.dpdk.org/guides-22.11/, ...-24.11/).
    ap.add_argument("--dpdk-version", default="")
    args = ap.parse_args()
    latprobe = os.path.abspath(args.latprobe)
    top = run_help(latprobe)
    subs = parse_subcommands(top)
    helps = {name: parse_help(run_help(latprobe, name)) for name, _ in subs}
    if args.man:
        with open(args.man, "w", encoding="utf-8") as f:
            f.write(man_page(latprobe, args, top, subs, helps))
    if args.completion:
        with open(args.completion, "w", encoding="utf-8") as f:
            f.write(completion(args, subs, helps))


if __name__ == "__main__":
    main()
