#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make e2e-debug: the e2e scenarios on the debug kernel (KASAN, UBSAN,
# lockdep, debug objects, kmemleak; tests/vm/debug-kernel.sh) in QEMU with
# 2 vCPUs. Builds (or takes from the cache) the kernel, builds pktdedup.ko
# against it in BUILD_DIR/kmod-debug, assembles the guest without Debian's
# modules and boots it; the console is kept in BUILD_DIR/vm/e2e-debug.log.
#
# The last line is "N passed, N failed": the guest's own counts, plus one
# failure if the kernel reported anything (KASAN, UBSAN, lockdep, RCU,
# debug objects, kmemleak, WARN, BUG, oops) and one if the guest hung or
# gave no result.
#
# With "selftest" it checks the checkers instead (make e2e-debug-selftest):
# a module (tests/e2e/debug-selftest) does an out-of-bounds read, an
# undefined shift, a leak, an AB-BA locking order and a WARN, and each must
# be reported (console: BUILD_DIR/vm/selftest-debug.log).
#
# Usage: tests/vm/e2e-debug.sh BUILD_DIR [selftest]
# E2E_DEBUG_TIMEOUT (seconds, default 3300) bounds the guest: a hang's
# bound, not a time limit (under make check's load its run takes 30-40 min).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=scripts/lib/kernel-cache.sh
. scripts/lib/kernel-cache.sh
B=${1:-build}
mode=${2:-e2e}
secs=${E2E_DEBUG_TIMEOUT:-3300}
kmod="$B/kmod-debug"
log="$B/vm/e2e-debug.log"
out_txt="$B/vm/e2e-debug.host.txt"
mkdir -p "$B/vm" "$kmod"

die() {
	echo "e2e-debug: $*"
	echo "0 passed, 1 failed"
	exit 1
}

t0=$(date +%s)
kdir=$(tests/vm/debug-kernel.sh build) || die "the debug kernel did not build"
t1=$(date +%s)

kc_mirror_module "$kmod"
# this tree has its vmlinux: Kbuild gives the module its BTF, split
# against the kernel's, whose digest the module reports (btf_base)
objcopy -O binary --only-section=.BTF "$kdir/vmlinux" "$kmod/vmlinux.btf" ||
	die "the debug kernel has no BTF"
make -C "$kdir" M="$(realpath "$kmod")" CONFIG_PKTDEDUP=m \
	PD_BTF_BASE="$(scripts/btf-base.sh digest "$kmod/vmlinux.btf")" modules \
	>"$kmod/build.log" 2>&1 || { tail -n 30 "$kmod/build.log"; die "pktdedup.ko did not build against the debug kernel"; }
if [ "$mode" = selftest ]; then
	mkdir -p "$B/kmod-selftest"
	cp -p tests/e2e/debug-selftest/Kbuild tests/e2e/debug-selftest/*.c "$B/kmod-selftest/"
	make -C "$kdir" M="$(realpath "$B/kmod-selftest")" modules \
		>"$B/kmod-selftest/build.log" 2>&1 || { tail -n 30 "$B/kmod-selftest/build.log"; die "pdselftest.ko did not build"; }
fi
tests/vm/vm.sh initramfs "$B" debug || die "no initramfs"
t2=$(date +%s)

if [ "$mode" = selftest ]; then
	out_txt="$B/vm/selftest-debug.host.txt"
	tests/vm/vm.sh boot "$B" selftest 600 debug >"$out_txt" 2>&1
	rc=$?
	log="$B/vm/selftest-debug.log"
	# shellcheck source=tests/lib/tap.sh
	. tests/lib/tap.sh
	while IFS='|' read -r name pattern; do
		if grep -aqE "$pattern" "$log"; then
			ok "$name reported"
		else
			bad "$name not reported (want /$pattern/ in $log)"
		fi
	done <<-'EOF'
	KASAN|BUG: KASAN: slab-out-of-bounds in pdselftest_init
	UBSAN|UBSAN: shift-out-of-bounds in .*pdselftest\.c
	kmemleak|^unreferenced object 0x
	lockdep|WARNING: possible circular locking dependency detected
	WARN|WARNING: CPU: .*pdselftest_init
	EOF
	if [ "$rc" -ne 0 ] && grep -q '^vm.sh: the kernel reported' "$out_txt"; then
		ok "the run fails on them"
	else
		bad "the run did not fail on them (exit $rc)"
	fi
	echo "e2e-debug selftest: guest $(($(date +%s) - t2)) s"
	finish
fi

tests/vm/vm.sh boot "$B" e2e "$secs" debug 2>&1 | tee "$out_txt"
rc=${PIPESTATUS[0]}
t3=$(date +%s)

summary=$(grep -aE '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
pass=0
fail=0
if [ -n "$summary" ]; then
	pass=${summary%% passed*}
	fail=${summary#*passed, }
	fail=${fail%% failed*}
fi
extra=0
if grep -q '^vm.sh: the kernel reported' "$out_txt"; then
	echo "e2e-debug: the debug kernel reported a problem (see $log)"
	extra=1
elif [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "e2e-debug: the run failed with no failed scenario (exit $rc; see $log)"
	extra=1
fi
echo "e2e-debug: kernel $((t1 - t0)) s, module and initramfs $((t2 - t1)) s, guest $((t3 - t2)) s"
echo "$pass passed, $((fail + extra)) failed"
[ "$rc" -eq 0 ] && [ $((fail + extra)) -eq 0 ]
