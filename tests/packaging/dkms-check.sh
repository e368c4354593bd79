#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: DKMS builds pktdedup.ko from its source tree for the
# kernel whose headers are installed (linux-headers-amd64's), in a DKMS
# tree of its own under BUILD/dkms (--dkmstree, --sourcetree: nothing
# under /var/lib/dkms or /usr/src). Never installs or loads the module.
# As for any DKMS module, Debian's dkms signs what it builds, creating
# its signing key /var/lib/dkms/mok.key (and mok.pub) if missing.
#
#   tests/packaging/dkms-check.sh [BUILD] [stage]
#   stage: only put the source tree into BUILD/dkms/src/pktdedup-VERSION
#
# The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "${1:-build}"
B=$(realpath "${1:-build}")
root=$B/dkms
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
modver=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' module/main.c)

# the source tree: dkms.conf, Kbuild, module/'s sources and headers
src=$root/src/pktdedup-$ver
rm -rf "$root"
mkdir -p "$src" "$root/tree"
cp dkms.conf Kbuild "$src/"
find module \( -name '*.[ch]' -o -name Kconfig \) -exec cp --parents -t "$src/" {} +
[ "${2:-}" = stage ] && { echo "$src"; exit 0; }

if [ -n "$ver" ] && [ "$ver" = "$modver" ]; then
	ok "dkms.conf's PACKAGE_VERSION is the module's MODULE_VERSION ($ver)"
else
	bad "dkms.conf's PACKAGE_VERSION '$ver' != module/main.c's MODULE_VERSION '$modver'"
fi
command -v dkms >/dev/null || { bad "dkms is missing (scripts/install-deps.sh)"; finish; }
kver=$(scripts/kernel-tools.sh kver)
[ -d "/lib/modules/$kver/build" ] ||
	{ bad "no headers for $kver (linux-headers-amd64)"; finish; }

dkms() { command dkms --dkmstree "$root/tree" --sourcetree "$root/src" "$@"; }
if dkms add -m pktdedup -v "$ver" >"$root/add.log" 2>&1; then
	ok "dkms add pktdedup/$ver"
else
	sed 's/^/#   /' "$root/add.log"
	bad "dkms add pktdedup/$ver"
	finish
fi
if dkms build -m pktdedup -v "$ver" -k "$kver" -j "$(nproc)" >"$root/build.log" 2>&1; then
	ok "dkms build pktdedup/$ver for $kver"
else
	sed 's/^/#   /' "$root/build.log" | tail -n 30
	find "$root/tree" -name make.log -exec tail -n 30 {} \; | sed 's/^/#   /'
	bad "dkms build pktdedup/$ver for $kver"
	finish
fi
st=$(dkms status -m pktdedup -v "$ver" -k "$kver" 2>&1)
case "$st" in
*": built"*) ok "dkms status: $st" ;;
*) bad "dkms status says '$st', not built" ;;
esac
ko=$(find "$root/tree/pktdedup/$ver/$kver" -name 'pktdedup.ko*' | head -n 1)
if [ -n "$ko" ]; then
	ok "built: ${ko#"$root"/}"
	v=$(modinfo -F version "$ko")
	want "modinfo version '$v' (want $ver)" [ "$v" = "$ver" ]
	vm=$(modinfo -F vermagic "$ko")
	want "vermagic '$vm' (want $kver)" [ "${vm%% *}" = "$kver" ]
	sig=$(modinfo -F sig_id "$ko")
	want "signed by dkms with its MOK key: '$sig'" [ -n "$sig" ]
	# the same parameters as the module make builds (when it was built)
	n=$(modinfo -F parm "$ko" | wc -l)
	m=$(modinfo -F parm "$B/kmod/pktdedup.ko" 2>/dev/null | wc -l)
	[ "$m" = 0 ] && m=$n
	want "$n module parameters" [ "$n" -gt 0 ]
	want "as many as make module's ($m)" [ "$n" = "$m" ]
else
	bad "no pktdedup.ko in the DKMS tree"
fi
finish
