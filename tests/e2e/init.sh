#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the e2e/demo guest: mount, load the kernel modules the
# scenarios need, run the job named by pd.run= on the kernel command line,
# then report through the console and QEMU's debug-exit device.
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

while read -r m; do
	insmod "/lib/pd/$m" || echo "init: cannot load $m"
done < /lib/pd/order
insmod /lib/pd/pktdedup.ko || echo "init: cannot load pktdedup.ko"

run=$(sed -n 's/.*pd\.run=\([a-z0-9]*\).*/\1/p' /proc/cmdline)
status=1
case "$run" in
e2e) sh /lib/pd/scenarios.sh && status=0 ;;
demo) sh /lib/pd/demo.sh && status=0 ;;
*) echo "init: unknown job '$run'" ;;
esac

# the kernel's own verdict on the run: anything it would not say calmly
if dmesg | grep -qE 'Oops|BUG:|WARNING:|Call Trace|invoked oom-killer|Out of memory'; then
	echo "init: the kernel logged a problem:"
	dmesg | grep -E -A 20 'Oops|BUG:|WARNING:|Call Trace|invoked oom-killer|Out of memory' | head -n 60
	status=1
fi
[ $status -eq 0 ] && echo "pd-result: $run pass" || echo "pd-result: $run fail"
sync
printf "\\$(printf %o $status)" | dd of=/dev/port bs=1 seek=244 count=1 2>/dev/null
sleep 5
poweroff -f
