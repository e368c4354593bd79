#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Style suite (run by make check):
#  - every C file under module/, the KUnit tests and vectors built into
#    the kernel with it, and scripts/btfids pass the kernel's
#    checkpatch.pl --strict;
#  - the algorithm files of module/core include nothing but the portability
#    header, each other and the uAPI header (freestanding: no libc, no
#    kernel headers), and only port_kernel.h includes kernel headers;
#  - every source file carries an SPDX header;
#  - every program the tests, scripts and build run on the host comes from
#    a package scripts/install-deps.sh installs (tests/style/commands.txt,
#    checked by tests/style/commands.py lint), and the dependency table
#    of Documentation/developing.md lists those packages;
#  - every man page renders without a groff warning (man --warnings);
#  - every recipe block of the task pages (Documentation/user/) is run by
#    an e2e scenario, and every recipe a scenario runs is on its page.
# Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

cp_dir=$(scripts/kernel-tools.sh checkpatch) || { echo "0 passed, 1 failed"; exit 1; }
# the module, the tests that compile into the kernel with it, and btfids
# (scripts/btfids: kernel style, as the kernel's own build tools)
for f in $(git ls-files 'module/*.c' 'module/*.h' 'tests/kunit/*.c' 'tests/vectors/*.h' 'scripts/btfids/*.c'); do
	out=$(perl "$cp_dir/scripts/checkpatch.pl" --no-tree --strict --quiet -f "$f" 2>&1)
	if [ -z "$out" ]; then ok "checkpatch $f"; else bad "checkpatch $f"; echo "$out" | sed 's/^/    /'; fi
done

for f in $(git ls-files 'module/core/*.c' 'module/core/*.h'); do
	[ "$f" = module/core/port_kernel.h ] && continue
	incs=$(grep -E '^#include' "$f" | grep -vE '^#include "[a-z_]+\.h"$' |
		grep -vE '^#include <port_user\.h>$' |
		grep -vE '^#include "\.\./uapi/pktdedup\.h"$')
	if [ -n "$incs" ]; then bad "freestanding $f"; echo "$incs" | sed 's/^/    /'; else ok "freestanding $f"; fi
done

missing=$(for f in $(git ls-files '*.c' '*.h' '*.sh' '*.py' Makefile Kbuild .ci/run); do
	head -n 3 "$f" | grep -q 'SPDX-License-Identifier' || echo "$f"; done)
if [ -z "$missing" ]; then ok "spdx headers"; else bad "spdx headers"; echo "$missing" | sed 's/^/    /'; fi

for f in $(git ls-files '*.[1-8]'); do
	out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
	if [ -z "$out" ]; then ok "man --warnings $f"; else bad "man --warnings $f"; echo "$out" | sed 's/^/    /'; fi
done

# the task pages' recipes: each block marked "<!-- recipe: NAME -->" in
# Documentation/user/ is run word for word by a scenario (run_recipe NS
# PAGE NAME in tests/e2e/), and each recipe a scenario runs is on its page
pages=$(git ls-files 'Documentation/user/*.md')
for page in $pages; do
	for name in $(sed -n 's/^<!-- recipe: \([a-z0-9-]*\) -->$/\1/p' "$page"); do
		if grep -qE "run_recipe [a-z0-9]+ $(basename "$page") $name\$" tests/e2e/*.sh; then
			ok "recipe $name of $page is run by a scenario"
		else
			bad "recipe $name of $page is run by no scenario (run_recipe NS $(basename "$page") $name)"
		fi
	done
done
while read -r page name; do
	if grep -qx "<!-- recipe: $name -->" "Documentation/user/$page" 2>/dev/null; then
		ok "scenarios' recipe $name is on $page"
	else
		bad "a scenario runs recipe $name, which Documentation/user/$page does not have"
	fi
done < <(sed -n 's/^[[:space:]]*run_recipe [a-z0-9]* \([a-z0-9.-]*\) \([a-z0-9-]*\)$/\1 \2/p' tests/e2e/*.sh)

# the task pages' SQL and cron blocks ("<!-- sql: NAME -->", "<!-- cron:
# NAME -->"): each run word for word by a test that names it
for page in $pages; do
	for kn in $(sed -n 's/^<!-- \(sql\|cron\): \([a-z0-9-]*\) -->$/\1:\2/p' "$page"); do
		kind=${kn%%:*} name=${kn#*:}
		if grep -qE "page_block\(\"$kind\", \"$name\"\)|cron_command $(basename "$page") $name\)" tests/pg/*.py tests/e2e/*.sh; then
			ok "$kind block $name of $page is run by a test"
		else
			bad "$kind block $name of $page is run by no test"
		fi
	done
done

# what runs, and where it comes from: the scanner on known text, then one
# line per program the tree runs
for mode in selftest lint; do
	out=$(python3 tests/style/commands.py "$mode" 2>&1)
	rc=$?
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "${line#ok }" ;;
		"not ok "*) bad "${line#not ok }" ;;
		*) echo "    $line" ;;
		esac
	done <<<"$out"
	[ "$rc" -eq 0 ] || grep -q '^not ok ' <<<"$out" ||
		bad "tests/style/commands.py $mode: exit $rc"
done

finish
