# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The checks of the shell suites (tests/style/style.sh, tests/fuzz/run.sh,
# tests/packaging/*-check.sh, tests/vm/e2e-debug.sh selftest), sourced:
# "ok WHAT" / "not ok WHAT" lines, and finish's "N passed, N failed" (its
# exit status: 0 only if nothing failed).
pass=0
fail=0
ok() { echo "ok $*"; pass=$((pass + 1)); }
bad() { echo "not ok $*"; fail=$((fail + 1)); }
want() {	# WHAT TEST...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
finish() {
	echo "$pass passed, $fail failed"
	[ "$fail" = 0 ]
	exit
}
