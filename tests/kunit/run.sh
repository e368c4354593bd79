#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make kunit: the KUnit suites inside a UML kernel with KASAN, through
# kunit.py of Debian's linux-source-6.1. The kernel tree and the build
# folder are cached outside the repository (scripts/kernel-tools.sh), so a
# second run only rebuilds what changed.
#
# The tree gets net/pktdedup, a link to this repository (its Kbuild and
# module/Kconfig), and one line each in net/Kconfig and net/Makefile; a
# run from another work tree first drops the objects the last one built.
# Pass/fail comes from kunit.py's parsed results; any "BUG: KASAN" fails.
# The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
repo=$(pwd)
tree=$(scripts/kernel-tools.sh tree) || exit 1
cache=$(dirname "$tree")
build="$cache/kunit-build"
log="${1:-build}/kunit.log"
mkdir -p "$(dirname "$log")" "$build"

# One run at a time: work trees share the tree and its build folder.
exec 9>"$cache/kunit.lock"
flock 9
# Objects another work tree built are not ours: its sources may be newer
# than ours, and make would keep them.
[ "$(readlink "$tree/net/pktdedup")" = "$repo" ] || rm -rf "$build/net/pktdedup"
ln -sfn "$repo" "$tree/net/pktdedup"
grep -q 'net/pktdedup/module/Kconfig' "$tree/net/Kconfig" ||
	sed -i 's|^endif   # if NET$|source "net/pktdedup/module/Kconfig"\n\n&|' "$tree/net/Kconfig"
grep -q 'net/pktdedup/module/Kconfig' "$tree/net/Kconfig" ||
	{ echo "kunit: cannot hook module/Kconfig into net/Kconfig" >&2; exit 1; }
grep -q 'CONFIG_PKTDEDUP' "$tree/net/Makefile" ||
	echo 'obj-$(CONFIG_PKTDEDUP) += pktdedup/' >> "$tree/net/Makefile"

python3 "$tree/tools/testing/kunit/kunit.py" run --arch=um \
	--kunitconfig="$repo/tests/kunit/kunitconfig" --build_dir="$build" \
	--jobs="$(nproc)" --kconfig_add CONFIG_KASAN=y \
	--kconfig_add CONFIG_KASAN_VMALLOC=y --timeout=900 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

summary=$(grep -a 'Testing complete\. Ran' "$log" | tail -n 1)
total=$(echo "$summary" | sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p')
passed=$(echo "$summary" | sed -n 's/.*passed: \([0-9]*\).*/\1/p')
if [ -z "$total" ]; then
	echo "kunit: kunit.py gave no result (exit $rc)"
	echo "0 passed, 1 failed"
	exit 1
fi
passed=${passed:-0}
failed=$((total - passed))
if grep -aq 'BUG: KASAN' "$log"; then
	echo "kunit: KASAN reported a bug:"
	grep -a -A 20 'BUG: KASAN' "$log" | head -n 40
	failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
