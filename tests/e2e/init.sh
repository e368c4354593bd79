#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the e2e/demo guest: mount, load the kernel modules the
# scenarios need, run the job named by pd.run= on the kernel command line,
# then report through the console and QEMU's debug-exit device.
# With pd.debug=1 (the debug kernel of make e2e-debug) kmemleak forgets
# what boot left before the module loads, and after the job the module is
# unloaded and kmemleak scans and prints what leaked.
/bin/busybox --install -s /bin
# Debian's ip and nft before busybox's applets
export PATH=/usr/sbin:/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /sys/fs/cgroup
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
echo 1 > /proc/sys/kernel/printk_ratelimit_burst 2>/dev/null
# tunnel drivers (built into the debug kernel, loaded by t_tunnels
# elsewhere) add no fallback devices (gre0, tunl0, ...) to namespaces
echo 2 > /proc/sys/net/core/fb_tunnels_only_for_init_net

debug=0
grep -q 'pd\.debug=1' /proc/cmdline && debug=1
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ $debug = 1 ]; then
	mount -t debugfs debugfs /sys/kernel/debug
	# as syzkaller does: what boot left is not the module's
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
fi

# dedupctl from its Debian package (make deb), with busybox's dpkg;
# -F depends: this userland has no dpkg status for libc6 and libmnl0,
# whose libraries tests/vm/vm.sh copied in from the host. No job runs
# without it.
pkg=0
if dpkg -i -F depends /lib/pd/dedupctl.deb &&
	dpkg -l dedupctl | grep -q '^ii  dedupctl ' && [ -x /usr/sbin/dedupctl ] &&
	/usr/sbin/dedupctl --help >/dev/null; then
	pkg=1
	echo "init: installed: $(dpkg -l dedupctl | grep '^ii') ($(ls /usr/sbin/dedupctl))"
else
	echo "init: FAILED to install dedupctl's package (/lib/pd/dedupctl.deb)"
fi

while read -r m; do
	insmod "/lib/pd/$m" || echo "init: cannot load $m"
done < /lib/pd/order
# pd.modparams=a=1,b=2: the module's parameters (a boot with many
# possible CPUs needs larger caps)
PD_MODPARAMS=$(sed -n 's/.*pd\.modparams=\([^ ]*\).*/\1/p' /proc/cmdline | tr ',' ' ')
export PD_MODPARAMS
# shellcheck disable=SC2086
insmod /lib/pd/pktdedup.ko $PD_MODPARAMS || echo "init: cannot load pktdedup.ko"

run=$(sed -n 's/.*pd\.run=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
# pd.only=t_A,t_B runs those scenarios only (after the setup); pd.scale=N makes the
# fuzzing and stress scenarios N times longer (make fuzz)
PD_ONLY=$(sed -n 's/.*pd\.only=\([a-z0-9_,]*\).*/\1/p' /proc/cmdline)
PD_SCALE=$(sed -n 's/.*pd\.scale=\([0-9]*\).*/\1/p' /proc/cmdline)
export PD_ONLY PD_SCALE="${PD_SCALE:-1}" PD_DEBUG=$debug
status=1
[ $pkg = 1 ] || run=nopackage
case "$run" in
e2e) sh /lib/pd/scenarios.sh && status=0 ;;
demo) sh /lib/pd/demo.sh && status=0 ;;
# make bench-xdp (eval/bench-xdp/guest.sh; only in vm.sh's bench image)
benchxdp) sh /lib/pd/bench-xdp.sh && status=0 ;;
# make e2e-debug-selftest: faults on purpose, which the debug kernel reports
selftest)
	# lockdep first: a KASAN report turns lock debugging off
	for w in lockdep kasan ubsan leak warn; do
		insmod /lib/pd/pdselftest.ko what=$w 2>/dev/null
	done
	status=0
	;;
nopackage) echo "init: no job run: dedupctl's package did not install" ;;
*) echo "init: unknown job '$run'" ;;
esac

problems='Oops|BUG:|WARNING:|Call Trace|invoked oom-killer|Out of memory'
if [ $debug = 1 ]; then
	problems="$problems|UBSAN:|ODEBUG:|corruption|rcu: INFO|stall"
	t0=$(cut -d. -f1 /proc/uptime)
	# a first scan while the module's symbols still name its frames
	echo scan > $KMEMLEAK
	if grep -q '^pktdedup ' /proc/modules; then
		# after rmmod a backtrace shows raw addresses: .text + offset
		echo "init: pktdedup .text at $(cat /sys/module/pktdedup/sections/.text)"
		grep -q '^unreferenced object' $KMEMLEAK && cat $KMEMLEAK
		# unloading frees everything the module holds: what stays leaked
		rmmod pktdedup || { echo "init: rmmod pktdedup failed"; status=1; }
	fi
	# kmemleak ignores objects younger than 5 s; scan twice, as
	# syzkaller does, so stale pointers on stacks hide nothing
	sleep 6
	echo scan > $KMEMLEAK
	sleep 1
	echo scan > $KMEMLEAK
	leaks=$(grep -c '^unreferenced object' $KMEMLEAK)
	echo "init: kmemleak: $leaks unreferenced objects (scan: $(($(cut -d. -f1 /proc/uptime) - t0)) s)"
	if [ "$leaks" -gt 0 ]; then
		head -n 200 $KMEMLEAK
		status=1
	fi
fi

# the kernel's own verdict on the run: anything it would not say calmly
if dmesg | grep -qE "$problems"; then
	echo "init: the kernel logged a problem:"
	dmesg | grep -E -A 20 "$problems" | head -n 60
	status=1
fi
[ $status -eq 0 ] && echo "pd-result: $run pass" || echo "pd-result: $run fail"
sync
printf "\\$(printf %o $status)" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
sleep 5
poweroff -f
