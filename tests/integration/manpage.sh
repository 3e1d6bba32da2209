#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# latprobe(1) and the bash completion, both generated from the --help texts
# at build time (dist/gen-docs.py), checked against --help independently of
# that script: every subcommand of `latprobe --help` has a section, every
# option of its --help is in that section and is completed; groff finds
# nothing to warn about (lintian's check); --profile completes profile names.
#   manpage.sh LATPROBE MANPAGE COMPLETION
. "$(dirname "$0")/lib.sh"
lp_begin
MAN=$(readlink -f "${2:?usage: $0 LATPROBE MANPAGE COMPLETION}")
COMPLETION=$(readlink -f "${3:?usage: $0 LATPROBE MANPAGE COMPLETION}")
lp_have man || lp_skip "needs man (man-db)"
[ -s "$MAN" ] || fail "$MAN: missing or empty"

# Subcommands as `latprobe --help` lists them (two spaces, a name, two+).
mapfile -t subs < <("$LATPROBE" --help |
	awk '/Subcommands:/ { on = 1; next } on && /^$/ { exit }
	     on && /^  [a-z][a-z0-9-]*  / { print $1 }')
[ "${#subs[@]}" -ge 5 ] || fail "found ${#subs[@]} subcommands in latprobe --help"

# The page as text, wide enough that no option is broken over two lines.
LC_ALL=C MANWIDTH=250 man --no-hyphenation --no-justification -l "$MAN" \
	2>"$WORK/man.err" | col -b >"$WORK/man.txt"
[ -s "$WORK/man.txt" ] || { cat "$WORK/man.err" >&2; fail "man -l $MAN printed nothing"; }
# groff's warnings, the way lintian asks for them (its groff-message tag).
LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z \
	"$MAN" >/dev/null 2>"$WORK/groff.err"
[ ! -s "$WORK/groff.err" ] || { cat "$WORK/groff.err" >&2; fail "groff warns about $MAN"; }

# SEE ALSO links the guides of the DPDK built against (22.11 or 24.11, ...),
# as pkg-config reports it (meson passed the same version to gen-docs.py).
dv=$(pkg-config --modversion libdpdk 2>/dev/null || true)
if [ -n "$dv" ]; then
	mm=$(echo "$dv" | cut -d. -f1,2)
	grep -qF "https://doc.dpdk.org/guides-$mm/" "$WORK/man.txt" ||
		fail "SEE ALSO does not link DPDK $mm's guides: $(grep -o 'https://doc.dpdk.org/[^ ]*' "$WORK/man.txt")"
fi

# Completion: what bash offers for the words given (the last one completed).
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_latprobe; printf "%s\n" "${COMPREPLY[@]}"' - "$COMPLETION" "$@"
}
bash -n "$COMPLETION" || fail "$COMPLETION: not valid bash"
complete_words latprobe '' >"$WORK/c.subs"

checked=0
for s in "${subs[@]}"; do
	grep -qx "$s" "$WORK/c.subs" || fail "completion does not offer subcommand $s"
	# Its section: from "latprobe SUB" (a subsection heading, 3 spaces) to the
	# next heading.
	awk -v h="   latprobe $s" '$0 == h { on = 1; next }
		on && /^([A-Za-z]|   [A-Za-z])/ { exit } on' "$WORK/man.txt" >"$WORK/man.$s"
	[ -s "$WORK/man.$s" ] || fail "man page: no section 'latprobe $s'"
	"$LATPROBE" "$s" --help >"$WORK/help.$s" 2>&1 || fail "latprobe $s --help exited $?"
	# Options: every -x / --long at the start of a help line (2 spaces), and
	# the long form after a short one ("-t, --duration T").
	mapfile -t opts < <(grep -oE '^  --?[A-Za-z0-9][A-Za-z0-9-]*(, --[a-z0-9-]+)?' "$WORK/help.$s" |
		tr ',' '\n' | tr -d ' ' | sort -u)
	case $s in
	probe | reflect | info | plot | compare)
		[ "${#opts[@]}" -ge 1 ] || fail "no option found in latprobe $s --help"
		;;
	esac
	complete_words latprobe "$s" -- - >"$WORK/c.$s"
	for o in "${opts[@]}"; do
		grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|$)" "$WORK/man.$s" ||
			fail "man page, section latprobe $s: no $o"
		grep -qx -- "$o" "$WORK/c.$s" || fail "completion of 'latprobe $s -- -': no $o"
		checked=$((checked + 1))
	done
	# Its examples are on the page too.
	while IFS= read -r ex; do
		grep -qF -- "$ex" "$WORK/man.$s" || fail "man page, section latprobe $s: no example '$ex'"
	done < <("$LATPROBE" "$s" --help | awk '/^examples:/ { on = 1; next }
		on && /^$/ { exit } on && /^  latprobe/ { sub(/^ +/, ""); print }')
done
echo "manpage: ${#subs[@]} subcommands, $checked options on the page and completed"

# Profile names after --profile, from $LATPROBE_PROFILE_DIR.
mkdir -p "$WORK/profiles"
: >"$WORK/profiles/lph1-only"
: >"$WORK/profiles/README.md"
LATPROBE_PROFILE_DIR=$WORK/profiles complete_words "$LATPROBE" probe --profile lph1 >"$WORK/c.prof"
grep -qx lph1-only "$WORK/c.prof" || fail "--profile lph1<TAB> does not offer lph1-only"
LATPROBE_PROFILE_DIR=$WORK/profiles complete_words "$LATPROBE" probe --profile '' >"$WORK/c.prof"
grep -qx README.md "$WORK/c.prof" && fail "--profile offers README.md (not a profile)"
# From the checkout around this build: the repository's own profiles.
grep -qx veth-afxdp-probe "$WORK/c.prof" || fail "--profile does not offer the checkout's veth-afxdp-probe"
# After --json, file names; before '--', EAL options and '--'.
touch "$WORK/lph1-out.json"
(cd "$WORK" && complete_words latprobe probe -- --json lph1-) | grep -qx lph1-out.json ||
	fail "--json does not complete file names"
complete_words latprobe probe --in >"$WORK/c.eal"
grep -qx -- --in-memory "$WORK/c.eal" || fail "before '--': no --in-memory offered"
echo "manpage: ok"
