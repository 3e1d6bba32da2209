#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Every example of README.md, docs/*.md and the --help texts, run as written
# against the testbed (tools/examples says how each one is marked and run);
# an unmarked example fails.
. "$(dirname "$0")/lib.sh"
need_env
lp_have sockperf || lp_skip "needs sockperf (tools/setup installs it)"
lp_begin
$PY "$LP_TOP/tools/examples" --build "$(dirname "$(dirname "$LATPROBE")")"
