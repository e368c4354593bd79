#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The e2e and demo VM: Debian's own kernel (downloaded and unpacked by
# kernel-tools.sh, never installed here) under QEMU TCG, with a busybox
# initramfs holding pktdedup.ko, dedupctl's Debian package (make deb; the
# guest's /init installs it with busybox's dpkg), pdnet, Debian's ip and
# nft, and the kernel modules they need.
#
#   vm.sh initramfs BUILD_DIR        assemble BUILD_DIR/vm/initramfs.gz
#                                    (with a last argument "bench", also
#                                    make bench-xdp's job and tools:
#                                    BUILD_DIR/vm/initramfs-bench.gz, which
#                                    boot takes for the job benchxdp)
#   vm.sh boot BUILD_DIR RUN SECONDS boot it running guest job RUN (e2e or
#                                    demo); the console goes to
#                                    BUILD_DIR/vm/RUN.log and to stdout
#                                    (for the demo, from its first "== " on). Exit status 0 only
#                                    if the guest reported success through
#                                    the debug-exit device, printed its
#                                    result line and the kernel logged no
#                                    oops, BUG or WARNING.
#
# VM_APPEND adds to the guest's kernel command line, e.g. "pd.only=t_drop,t_mark"
# (run those scenarios only), "pd.scale=20" (the fuzzing and stress scenarios
# twenty times longer, as make fuzz does), "possible_cpus=256" (every loop
# over possible CPUs runs 256 times, as on many servers) or
# "pd.modparams=max_total_mem=600M,mem=64K" (the module's parameters at
# load). VM_MEM sets the guest's MiB (768), VM_TAG names its log
# (BUILD_DIR/vm/RUN-TAG.log) when one build boots several guests.
#
# With a last argument "debug", both use the debug kernel of
# tests/vm/debug-kernel.sh instead (make e2e-debug): the initramfs
# (vm/initramfs-debug.gz) holds BUILD_DIR/kmod-debug/pktdedup.ko and no
# Debian modules (the debug kernel has what the e2e needs built in); the
# guest gets 3 GiB for KASAN, reports every KASAN error, does not panic on
# a WARN (so one report does not hide the next), and runs a kmemleak scan
# after its job; the console goes to BUILD_DIR/vm/RUN-debug.log, and any
# KASAN, UBSAN, lockdep, RCU, debug-objects or kmemleak report fails the
# run ("vm.sh: the kernel reported" heads the excerpt).
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1

# Kernel modules the guest loads, in addition to their dependencies.
# crc32c_generic first: libcrc32c (for nf_tables) only soft-depends on it
GUEST_MODULES="crc32c_generic veth nf_tables bridge 8021q"
# Copied, with their dependencies, but loaded by the scenario that wants
# them (/lib/pd/order-late): the driver of the guest's two virtio-net
# NICs (boot), which t_xdp_virtio loads; until then the NICs are PCI
# devices without a driver, and no other scenario sees them.
GUEST_LATE_MODULES="virtio_pci virtio_net"
# The same for the tunnel devices t_tunnels makes (/lib/pd/order-tunnels):
# loaded at boot, they would add their fallback devices (gre0, tunl0,
# ...) to every namespace every other scenario makes.
GUEST_TUNNEL_MODULES="vxlan geneve ip_gre ip6_gre ipip sit"
# And the device drivers the XDP scenarios load (dev_modules in
# tests/e2e/lib.sh: no bond0 or dummy0 made in the initial namespace).
GUEST_DEV_MODULES="bonding dummy"

modinfo_field() {	# FILE FIELD
	objcopy -O binary --only-section=.modinfo "$1" /dev/stdout 2>/dev/null |
		tr '\0' '\n' | sed -n "s/^$2=//p"
}

copy_libs() {	# ROOT BINARY: the libraries BINARY loads, as ldd finds them here
	local root=$1 bin=$2 lib
	for lib in $(ldd "$bin" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -Ln "$lib" "$root$lib"
	done
}

copy_bin() {	# ROOT BINARY DEST: the binary and the libraries it loads
	local root=$1 bin=$2 dest=$3
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$bin" "$root$dest"
	copy_libs "$root" "$bin"
}

# dedupctl comes as its Debian package, BUILD/deb/dedupctl_*.deb (make
# deb), which the guest's /init installs with busybox's dpkg -i (busybox
# reads the xz members dpkg-deb writes by default, so the package is built
# as any other). The guest has no dpkg status for libc6 and libmnl0, so
# /init installs it with -F depends; the libraries themselves must still
# be there: copied from the host, as ldd names them for the packaged
# binary.
copy_deb() {	# ROOT BUILD_DIR
	local root=$1 B=$2 debs tmp
	debs=("$B"/deb/dedupctl_*_"$(dpkg --print-architecture)".deb)
	if [ "${#debs[@]}" -ne 1 ] || ! [ -f "${debs[0]}" ]; then
		echo "vm.sh: want one dedupctl package in $B/deb (make deb), found: ${debs[*]}" >&2
		exit 1
	fi
	cp "${debs[0]}" "$root/lib/pd/dedupctl.deb"
	tmp=$(mktemp -d "$B/vm/deb.XXXXXX")
	dpkg-deb -x "${debs[0]}" "$tmp"
	copy_libs "$root" "$tmp/usr/sbin/dedupctl"
	rm -rf "$tmp"
	# what busybox's dpkg keeps: its status file and info/
	mkdir -p "$root/var/lib/dpkg/info"
	: > "$root/var/lib/dpkg/status"
}

initramfs() {
	local B=$1 debug=${2:-} img kver mdir root order=() seen=" " queue m f dep
	local kmod="$B/kmod" out="$B/vm/initramfs.gz"
	root="$B/vm/root"
	if [ "$debug" = bench ]; then
		out="$B/vm/initramfs-bench.gz"
		root="$B/vm/root-bench"
	fi
	if [ "$debug" = debug ]; then
		kmod="$B/kmod-debug"
		out="$B/vm/initramfs-debug.gz"
		root="$B/vm/root-debug"
	else
		img=$(scripts/kernel-tools.sh image)
		kver=$(scripts/kernel-tools.sh kver)
		mdir="$img/lib/modules/$kver/kernel"
	fi
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,proc,sys,dev,tmp,run,etc,lib/pd,usr/sbin}

	# busybox: its applets are installed as links by /init
	cp /bin/busybox "$root/bin/busybox"
	# Debian's tools the scenarios need, with their libraries
	copy_bin "$root" /usr/sbin/ip /usr/sbin/ip
	copy_bin "$root" /usr/sbin/nft /usr/sbin/nft
	copy_bin "$root" /usr/bin/tcpdump /usr/bin/tcpdump
	copy_bin "$root" /usr/sbin/ethtool /usr/sbin/ethtool
	copy_deb "$root" "$B"
	copy_bin "$root" "$B/pdnl" /bin/pdnl
	cp "$B/pdnet" "$root/bin/pdnet"
	cp "$B/pdxdp" "$root/bin/pdxdp"
	cp "$B/e2e/xdp-foreign.bpf.o" "$B/xdp/pktdedup.bpf.o" "$root/lib/pd/"
	cp "$B/policy.expected" "$root/lib/pd/policy.expected"
	# t_replay's capture and what dedup-sim made of it (replay-capture.py)
	if [ -f "$B/replay/settings.sh" ]; then
		mkdir -p "$root/lib/pd/replay"
		cp "$B"/replay/*.pcap "$B/replay/settings.sh" "$root/lib/pd/replay/"
	fi
	# t_keyall_evasion's capture (evasion_capture.py)
	if [ -f "$B/keyall/evasion.sh" ]; then
		mkdir -p "$root/lib/pd/keyall"
		cp "$B/keyall/evasion.pcap" "$B/keyall/evasion.sh" "$root/lib/pd/keyall/"
	fi
	cp "$kmod/pktdedup.ko" "$root/lib/pd/pktdedup.ko"
	if [ "$debug" = debug ] && [ -f "$B/kmod-selftest/pdselftest.ko" ]; then
		cp "$B/kmod-selftest/pdselftest.ko" "$root/lib/pd/"
	fi

	# kernel modules, dependencies first
	visit() {
		local name=$1 file d
		case "$seen" in *" $name "*) return ;; esac
		seen="$seen$name "
		file=$(find "$mdir" -name "$name.ko" -o -name "${name//_/-}.ko" | head -n 1)
		[ -n "$file" ] || { echo "vm.sh: module $name not in $mdir" >&2; exit 1; }
		for d in $(modinfo_field "$file" depends | tr ',' ' '); do
			visit "$d"
		done
		cp "$file" "$root/lib/pd/"
		order+=("$(basename "$file")")
	}
	# each list's modules and the dependencies not listed before, in
	# the order to load them (the debug kernel has them built in)
	modules() {	# FILE MODULE...
		local file=$1 m
		shift
		order=()
		if [ "$debug" != debug ]; then
			for m in "$@"; do
				visit "$m"
			done
		fi
		printf '%s\n' "${order[@]}" | sed '/^$/d' > "$root/lib/pd/$file"
	}
	# shellcheck disable=SC2086
	modules order $GUEST_MODULES
	# shellcheck disable=SC2086
	modules order-late $GUEST_LATE_MODULES
	# shellcheck disable=SC2086
	modules order-tunnels $GUEST_TUNNEL_MODULES
	# shellcheck disable=SC2086
	modules order-devs $GUEST_DEV_MODULES

	# make bench-xdp's guest (eval/bench-xdp/run.sh): its job, its tool,
	# the reference programs and the module's own, as dedupctl embeds it
	if [ "$debug" = bench ]; then
		cp eval/bench-xdp/guest.sh "$root/lib/pd/bench-xdp.sh"
		cp "$B/bench-xdp/pdxb" "$root/bin/pdxb"
		mkdir -p "$root/lib/pd/bench"
		cp "$B"/bench-xdp/xdp-*.bpf.o "$B/xdp/pktdedup.bpf.o" \
			"$root/lib/pd/bench/"
	fi

	# the task pages, whose recipes t_recipe_* run word for word, and the
	# module's man page, whose EXAMPLES t_man_examples runs
	mkdir -p "$root/lib/pd/docs"
	cp Documentation/user/capture-host.md Documentation/user/router.md \
		Documentation/user/fleet.md \
		module/pktdedup.7 "$root/lib/pd/docs/"
	cp tests/e2e/init.sh "$root/init"
	# the scenarios: lib.sh, scenarios.sh (which sources scen-*.sh), demo.sh
	cp tests/e2e/*.sh "$root/lib/pd/"
	rm "$root/lib/pd/init.sh"
	chmod +x "$root/init"
	echo "root:x:0:0:root:/:/bin/sh" > "$root/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >> "$root/etc/passwd"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$out"
	echo "$out ($(du -h "$out" | cut -f1))"
}

# The guest's Prometheus outputs (tests/e2e/scen-metrics.sh prints each
# between "pd-prom-begin NAME" and "pd-prom-end NAME"): each through
# Debian's promtool check metrics, which must pass and say nothing (no
# format error, no lint problem). The serial console ends lines with CR.
check_prom() {	# LOG
	local log=$1 dir name n=0 bad=0 out
	grep -aq '^pd-prom-begin ' "$log" || return 0
	command -v promtool > /dev/null || {
		echo "vm.sh: no promtool to check the guest's Prometheus output (scripts/install-deps.sh installs Debian's prometheus)" >&2
		return 1
	}
	dir=$(mktemp -d)
	tr -d '\r' < "$log" | awk -v d="$dir" '
		/^pd-prom-begin / { f = d "/" $2 ".prom"; printf "" > f; next }
		/^pd-prom-end / { close(f); f = ""; next }
		f { print > f }'
	for f in "$dir"/*.prom; do
		name=$(basename "$f" .prom)
		n=$((n + 1))
		if out=$(promtool check metrics < "$f" 2>&1) && [ -z "$out" ]; then
			echo "vm.sh: promtool check metrics: $name ok ($(grep -vc '^#' "$f") series)"
		else
			echo "vm.sh: promtool check metrics: $name failed: $out" >&2
			bad=1
		fi
	done
	rm -rf "$dir"
	[ "$bad" = 0 ]
}

# The guest's exported sketches and fleet.md's rows (tests/e2e/
# scen-sketch.sh) merged by PostgreSQL's hll extension on the host:
# tests/pg/guest_sketches.py.
check_sketches() {	# LOG
	grep -aqE '^pd-(sketch|fleet)-begin ' "$1" || return 0
	python3 tests/pg/guest_sketches.py "$1"
}

# What the debug kernel must never say: KASAN, UBSAN, lockdep and RCU
# splats (lockdep's and RCU's start with "WARNING:"), debug objects, list
# corruption, kmemleak's report, and everything the plain e2e fails on.
DEBUG_REPORTS='BUG: KASAN|UBSAN:|WARNING:|BUG:|Oops|Call Trace|Kernel panic|inconsistent lock state|possible recursive locking|possible circular locking|suspicious RCU usage|rcu: INFO|self-detected stall|ODEBUG:|list_(add|del) corruption|unreferenced object 0x|kmemleak: [0-9]+ new suspected|soft lockup|invoked oom-killer|Out of memory'

boot() {
	local B=$1 run=$2 secs=$3 debug=${4:-} img kver log rc=0 kernel initrd mem append
	local nics=()
	if [ "$debug" = debug ]; then
		kernel="$(tests/vm/debug-kernel.sh dir)/arch/x86/boot/bzImage"
		initrd="$B/vm/initramfs-debug.gz"
		log="$B/vm/$run-debug.log"
		mem=3072
		append="console=ttyS0 panic=-1 oops=panic kasan_multi_shot loglevel=5 pd.run=$run pd.debug=1"
	else
		img=$(scripts/kernel-tools.sh image)
		kver=$(scripts/kernel-tools.sh kver)
		kernel="$img/boot/vmlinuz-$kver"
		initrd="$B/vm/initramfs.gz"
		[ "$run" = benchxdp ] && initrd="$B/vm/initramfs-bench.gz"
		log="$B/vm/$run${VM_TAG:+-$VM_TAG}.log"
		mem=${VM_MEM:-768}
		append="console=ttyS0 panic=-1 oops=panic panic_on_warn=1 softlockup_panic=1 loglevel=5 pd.run=$run"
		# two virtio-net NICs wired to each other through a QEMU hub:
		# nothing on the host (no port another guest could hold), the
		# guest's frames only (t_xdp_virtio, make bench-xdp). The second
		# receives at native XDP, which 6.1's virtio_net allows only
		# without the guest offloads (GRO_HW, checksum); the driver is
		# loaded late.
		nics=(-netdev hubport,id=pdn1,hubid=7
			-device virtio-net-pci,netdev=pdn1,mac=52:54:00:0d:00:01
			-netdev hubport,id=pdn2,hubid=7
			-device "virtio-net-pci,netdev=pdn2,mac=52:54:00:0d:00:02,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off,guest_csum=off")
	fi
	append="$append ${VM_APPEND:-}"
	set +e
	timeout --foreground "$secs" qemu-system-x86_64 -accel tcg,thread=single -cpu max \
		-smp 2 -m "$mem" -nographic -no-reboot -monitor none \
		-kernel "$kernel" -initrd "$initrd" -append "$append" \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 "${nics[@]}" < /dev/null |
		tee "$log" | if [ "$run" = demo ]; then
			awk 'f || /^== / { f = 1 } f && !/^pd-result/'
		else
			cat
		fi
	rc=${PIPESTATUS[0]}
	set -e
	# the guest writes 0 (pass) or 1 (fail) to the port: QEMU exits 1 or 3
	if [ "$rc" -eq 124 ]; then
		echo "vm.sh: the guest did not finish in $secs s (hang)" >&2
		return 1
	fi
	if [ "$debug" = debug ] && grep -aqE "$DEBUG_REPORTS" "$log"; then
		echo "vm.sh: the kernel reported (KASAN, UBSAN, lockdep, RCU, debug objects, kmemleak, WARN or BUG); first lines:" >&2
		grep -aE -A 30 "$DEBUG_REPORTS" "$log" | head -n 150 >&2
		return 1
	fi
	if grep -aqE 'Oops|BUG:|WARNING:|Kernel panic|Call Trace|soft lockup|rcu_preempt self-detected stall|invoked oom-killer|Out of memory' "$log"; then
		echo "vm.sh: the kernel logged an oops, BUG, WARNING or OOM kill" >&2
		return 1
	fi
	if ! grep -aq "^pd-result: $run pass" "$log"; then
		echo "vm.sh: no passing result line from the guest" >&2
		return 1
	fi
	[ "$rc" -eq 1 ] || { echo "vm.sh: guest exit code $rc" >&2; return 1; }
	rc=0
	check_prom "$log" || rc=1
	check_sketches "$log" || rc=1
	return $rc
}

case "${1:-}" in
initramfs) initramfs "$2" "${3:-}" ;;
boot) boot "$2" "$3" "$4" "${5:-}" ;;
*) echo "usage: vm.sh initramfs BUILD_DIR [debug|bench] | boot BUILD_DIR RUN SECONDS [debug]" >&2; exit 2 ;;
esac
