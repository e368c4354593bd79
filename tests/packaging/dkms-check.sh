#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make dkms-check: DKMS builds pktdedup.ko from its source tree for the
# kernel whose headers are installed (linux-headers-amd64's), in a DKMS
# tree of its own under BUILD/dkms (--dkmstree, --sourcetree: nothing
# under /var/lib/dkms or /usr/src). Never installs or loads the module.
# As for any DKMS module, Debian's dkms signs what it builds, creating
# its signing key /var/lib/dkms/mok.key (and mok.pub) if missing.
# Built twice: with a BTF base, the .BTF of Debian's vmlinuz for those
# headers (PKTDEDUP_BOOT: the image kernel-tools.sh unpacks, as
# /boot/vmlinuz-KVER on a machine running another kernel), the module has
# its own BTF and a filled .BTF_ids; with none (PKTDEDUP_BTF_BASE=none), it
# builds without BTF and its log says why.
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
mkdir -p "$src"
cp dkms.conf Kbuild "$src/"
cp --parents scripts/dkms-make.sh scripts/btf-base.sh scripts/module-btf.sh \
	scripts/btfids/btfids.c "$src/"
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

btf_img=$(scripts/kernel-tools.sh image)/boot
btf_base=$(scripts/kernel-tools.sh btf-base)/vmlinux.btf
digest=$(scripts/btf-base.sh digest "$btf_base")
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
# grep reads it all: with pipefail, grep -q's early exit could fail readelf (SIGPIPE)
has_btf() { readelf -S "$1" | grep ' \.BTF ' >/dev/null; }
no_btf() { ! has_btf "$1"; }

# one DKMS build in tree NAME, with the environment given: its pktdedup.ko
# in $ko, its make.log in $mlog
dkms_build() {	# NAME ENV...
	local name=$1 tree=$root/$1 st
	shift
	ko=
	mlog=$tree/pktdedup/$ver/$kver/$(uname -m)/log/make.log
	dkms() { command dkms --dkmstree "$tree" --sourcetree "$root/src" "$@"; }
	mkdir -p "$tree"
	if dkms add -m pktdedup -v "$ver" >"$root/$name.add.log" 2>&1; then
		ok "$name: dkms add pktdedup/$ver"
	else
		sed 's/^/#   /' "$root/$name.add.log"
		bad "$name: dkms add pktdedup/$ver"
		return 1
	fi
	if env "$@" dkms --dkmstree "$tree" --sourcetree "$root/src" build -m pktdedup -v "$ver" -k "$kver" -j "$(nproc)" \
		>"$root/$name.build.log" 2>&1; then
		ok "$name: dkms build pktdedup/$ver for $kver ($*)"
	else
		sed 's/^/#   /' "$root/$name.build.log" | tail -n 30
		find "$tree" -name make.log -exec tail -n 30 {} \; | sed 's/^/#   /'
		bad "$name: dkms build pktdedup/$ver for $kver ($*)"
		return 1
	fi
	st=$(dkms status -m pktdedup -v "$ver" -k "$kver" 2>&1)
	case "$st" in
	*": built"*) ok "$name: dkms status: $st" ;;
	*) bad "$name: dkms status says '$st', not built" ;;
	esac
	ko=$(find "$tree/pktdedup/$ver/$kver" -name 'pktdedup.ko*' | head -n 1)
	case $ko in
	*.xz) xz -dc "$ko" >"$root/$name.ko" && ko=$root/$name.ko ;;
	esac
	[ -n "$ko" ] || { bad "$name: no pktdedup.ko in the DKMS tree"; return 1; }
	ok "$name: built: ${ko#"$root"/}"
}

if dkms_build btf PKTDEDUP_BOOT="$btf_img"; then
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
	want "btf: the module has its own BTF (.BTF, kept by dkms's strip -g)" has_btf "$ko"
	objcopy -O binary --only-section=.BTF_ids "$ko" "$root/btf.ids"
	want "btf: .BTF_ids' set8 of kfuncs counts 1" [ "$(u32 "$root/btf.ids" 0)" = 1 ]
	want "btf: pd_xdp_judge's id in it is not 0 ($(u32 "$root/btf.ids" 8))" \
		[ "$(u32 "$root/btf.ids" 8)" -gt 0 ]
	want "btf: btf_base is the digest of the vmlinuz's BTF ($digest)" \
		grep -qx "$digest" <(strings "$ko")
	want "btf: the build log names its base" \
		grep -q "pktdedup: BTF split against .* (btf_base $digest)" "$mlog"
fi
none=none
if dkms_build nobtf PKTDEDUP_BTF_BASE="$none"; then
	want "nobtf: no .BTF" no_btf "$ko"
	want "nobtf: the build log says why" \
		grep -q 'pktdedup: built without BTF (btf_base none), .*: PKTDEDUP_BTF_BASE says none' "$mlog"
	want "nobtf: btf_base is none" grep -qx none <(strings "$ko")
	sig=$(modinfo -F sig_id "$ko")
	want "nobtf: signed by dkms all the same: '$sig'" [ -n "$sig" ]
fi
finish
