#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs, by Debian package name, everything pktdedup's build and tests need.
# Idempotent: packages already present are not fetched again, and apt's lists
# are refreshed only when something is missing. tests/style/commands.txt names
# the package here of every program the tests and scripts run (the style
# suite checks it), and Documentation/developing.md's dependency table lists these packages.
set -euo pipefail

pkgs=(
	build-essential   # gcc, make: the core, the simulator, the native tests
	libwiretap-dev libwsutil-dev libglib2.0-dev pkg-config # dedup-sim reads and writes captures through Wireshark's libwiretap (editcap's own)
	libpcap-dev       # the native tests write a capture through libpcap (another writer than the one dedup-sim reads with)
	wireshark-common  # text2pcap, editcap, mergecap, capinfos: the capture suite makes its captures with them (and t_replay its capture)
	tshark            # the capture suite: Wireshark's decoding of each tunnelled frame it builds (the encapsulation, the inner addresses, the tunnel's identity)
	tcpdump           # the capture suite's stdin_to_stdout: tcpdump -w - | dedup-sim --pcap - --write - | tcpdump -r -; the e2e guest's capture host (vm.sh copies it in)
	ethtool           # the e2e guest: VLAN tags left in the frames a veth sends (txvlan off), as XDP sees them from a NIC
	time              # make compare: GNU time (/usr/bin/time -v), each tool's peak RSS
	libasan8 libubsan1 # sanitizer runtimes for the native test build
	python3           # the CLI contract tests parse dedup-sim's JSON
	python3-yaml      # scripts/nlspec.py reads the netlink spec (YAML)
	linux-source-6.1  # checkpatch.pl, and the kernel tree KUnit runs in (UML)
	linux-headers-amd64 # builds pktdedup.ko against Debian's current kernel
	sparse            # make module C=1
	libmnl-dev        # dedupctl speaks generic netlink through libmnl
	libbpf-dev        # dedupctl loads the module's XDP program through libbpf (and clang, below, builds it); btfids (scripts/btfids) reads BTF with it
	flex bison bc     # building the UML kernel for KUnit
	libelf-dev        # objtool, for the x86_64 debug kernel of make e2e-debug; btfids and the kernel's resolve_btfids (its reference)
	dwarves zlib1g-dev # the module's own BTF: pahole encodes it; the kernel's resolve_btfids (built from linux-source-6.1, the btfids suite's reference) needs zlib
	xz-utils          # scripts/btf-base.sh: the vmlinux in a kernel's XZ-compressed vmlinuz, whose BTF a DKMS build for another kernel is split against
	qemu-system-x86   # boots Debian's kernel for the end-to-end tests
	busybox-static    # the e2e guest's userland
	nftables          # e2e: nft rules that match the marks; make bench-kernel's nft sets
	iptables          # make bench-kernel: xt_recent through iptables-legacy, in UML
	cpio              # packs the e2e initramfs
	iproute2          # ip: the e2e guest's (vm.sh copies it in), make bench-kernel's guest
	kmod              # modprobe, modinfo: the deb and dkms suites
	procps            # ps: make bench-kernel ends UML's processes on a time-out
	git               # the style and deb suites list the tracked files (git ls-files)
	shfmt             # the style suite parses the scripts for the programs they run (tests/style/commands.py)
	valgrind          # make bench: lackey counts the cache lines a packet touches
	dkms              # make dkms-check: DKMS builds the module for the installed headers
	linux-perf        # make bench-kernel-profile: where UML's CPU goes, per function of pktdedup.ko
	clang libclang-rt-14-dev # the fuzz targets: clang 14 and its libFuzzer; clang -target bpf builds the XDP program
	debhelper dh-dkms # make deb: debian/rules (dh, compat 13) and dh_dkms for pktdedup-dkms
	dpkg-dev          # make deb: dpkg-buildpackage, dpkg-buildflags (hardening)
	lintian           # the deb suite: lintian --fail-on error,warning on the packages
	systemd man-db    # the deb suite: systemd-analyze verify on pktdedup.service (man checks its Documentation=); the style suite: man --warnings on the man pages
	prometheus        # promtool checks dedupctl's Prometheus output
	postgresql-15 postgresql-15-hll # the pg suite: sketches merged by PostgreSQL's hll extension, in a temporary cluster
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all ${#pkgs[@]} packages present"
	exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
# PostgreSQL without the cluster and the service Debian makes on install:
# the tests start their own, as an unprivileged user, and remove it
if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
	$SUDO mkdir -p /etc/postgresql-common/createcluster.d
	echo "create_main_cluster = false" |
		$SUDO tee /etc/postgresql-common/createcluster.d/pktdedup.conf > /dev/null
fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
