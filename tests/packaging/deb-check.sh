#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The deb suite of make check: builds the Debian packages (scripts/deb.sh)
# into BUILD/deb-check (not BUILD/deb, which the guests' initramfs take
# dedupctl's package from while this runs), then checks them: lintian
# passes (--fail-on error,warning; the info and pedantic tags it leaves
# are printed as comments), what each package holds, that the versions
# agree, that the packaged dedupctl runs and is hardened, that
# systemd-analyze accepts the unit, and that dh_dkms's maintainer scripts
# call DKMS. Installs nothing.
#
#   tests/packaging/deb-check.sh [BUILD]
#
# The last line is "N passed, N failed".
# shellcheck disable=SC2317 # the checks are functions that want calls
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "${1:-build}"
B=$(realpath "${1:-build}")
out=$B/deb-check
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

# the versions: debian/changelog's, dkms.conf's, the module's
ver=$(dpkg-parsechangelog -S Version)
dkver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
modver=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' module/main.c)
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
want "debian/changelog's version '$ver' is dkms.conf's PACKAGE_VERSION '$dkver'" \
	same "$ver" "$dkver"
want "debian/changelog's version '$ver' is module/main.c's MODULE_VERSION '$modver'" \
	same "$ver" "$modver"
ctlver=$(sed -n 's/^#define DEDUPCTL_VERSION "\(.*\)"$/\1/p' userspace/dedupctl/version.h)
want "debian/changelog's version '$ver' is dedupctl's DEDUPCTL_VERSION '$ctlver'" \
	same "$ver" "$ctlver"

t0=$(date +%s)
if scripts/deb.sh "$out" >"$B/deb-check.log" 2>&1; then
	ok "dpkg-buildpackage built the packages ($(($(date +%s) - t0)) s)"
else
	sed 's/^/#   /' "$B/deb-check.log" | tail -n 40
	bad "dpkg-buildpackage built the packages (scripts/deb.sh; log: $out/build.log)"
	finish
fi
arch=$(dpkg --print-architecture)
ctl=$out/dedupctl_${ver}_$arch.deb
dkms=$out/pktdedup-dkms_${ver}_all.deb
changes=$out/pktdedup_${ver}_$arch.changes
for f in "$ctl" "$dkms" "$changes"; do
	want "built ${f#"$B"/}" [ -f "$f" ]
done
if ! [ -f "$ctl" ] || ! [ -f "$dkms" ] || ! [ -f "$changes" ]; then finish; fi

# lintian: no error, no warning; the rest shown
if lintian --fail-on error,warning -I --pedantic "$changes" >"$out/lintian.log" 2>&1; then
	ok "lintian --fail-on error,warning: $(grep -cE '^[IPX]: ' "$out/lintian.log") info/pedantic/experimental tags, no E or W"
else
	bad "lintian --fail-on error,warning"
fi
sed 's/^/#   lintian: /' "$out/lintian.log"

# what the packages hold
contents() { dpkg-deb -c "$1" | awk '{ print $1, $6 }'; }
ctl_c=$(contents "$ctl")
dkms_c=$(contents "$dkms")
has() {	# LISTING MODE-PREFIX PATH: PATH is in LISTING, a file of that mode
	grep -qxF -- "$2 ./${3#/}" <<<"$1" ||
		grep -qE -- "^${2}[^ ]* \./${3#/}\$" <<<"$1"
}
want "dedupctl holds /usr/sbin/dedupctl, executable" \
	has "$ctl_c" -rwxr-xr-x /usr/sbin/dedupctl
for f in /usr/share/man/man8/dedupctl.8.gz \
	/usr/share/bash-completion/completions/dedupctl \
	/lib/systemd/system/pktdedup.service \
	/usr/share/doc/dedupctl/examples/pktdedup.conf.example \
	/usr/share/doc/dedupctl/examples/modprobe.d/pktdedup.conf \
	/usr/share/doc/dedupctl/examples/modules-load.d/pktdedup.conf \
	/usr/share/doc/dedupctl/copyright; do
	want "dedupctl holds $f" has "$ctl_c" -rw-r--r-- "$f"
done
no_etc() { ! grep -q ' \./etc/' <<<"$ctl_c"; }
want "dedupctl activates nothing under /etc (the modprobe.d and modules-load.d files are examples)" \
	no_etc
src=/usr/src/pktdedup-$ver
missing=
for f in dkms.conf Kbuild $(git ls-files module) scripts/btfids/btfids.c; do
	has "$dkms_c" -rw-r--r-- "$src/$f" || missing="$missing $f"
done
for f in scripts/dkms-make.sh scripts/btf-base.sh scripts/module-btf.sh; do
	has "$dkms_c" -rwxr-xr-x "$src/$f" || missing="$missing $f"
done
want "pktdedup-dkms holds dkms.conf, Kbuild, all $(git ls-files module | wc -l) files of module/ and the BTF scripts and btfids.c under $src${missing:+ (missing:$missing)}" \
	[ -z "$missing" ]
extra=$(grep -E '^-' <<<"$dkms_c" | awk '{ print $2 }' | grep -vE "^\./usr/share/doc/pktdedup-dkms/|^\./usr/share/man/man7/pktdedup\.7\.gz\$|^\.$src/(dkms\.conf|Kbuild|module/.*|scripts/(dkms-make|btf-base|module-btf)\.sh|scripts/btfids/btfids\.c)\$")
want "pktdedup-dkms holds /usr/share/man/man7/pktdedup.7.gz" \
	has "$dkms_c" -rw-r--r-- /usr/share/man/man7/pktdedup.7.gz
want "pktdedup-dkms holds nothing else${extra:+ (also: $extra)}" [ -z "$extra" ]

# the modprobe.d example names every parameter of the module, and no other
params=$(git ls-files 'module/*.c' | xargs sed -n 's/^module_param\(_named\)\?(\([a-z_]*\),.*/\2/p' | sort)
shown=$(sed -n 's/^#\?options pktdedup //p' dist/modprobe.d/pktdedup.conf |
	tr ' ' '\n' | sed -n 's/=.*//p' | sort)
want "the modprobe.d example shows the module's $(wc -l <<<"$params") parameters, and no other ($(paste -sd ' ' <<<"$shown"))" \
	same "$params" "$shown"

# versions and relations in the control files
for deb in "$ctl" "$dkms"; do
	v=$(dpkg-deb -f "$deb" Version)
	want "$(dpkg-deb -f "$deb" Package)'s version '$v' is $ver" [ "$v" = "$ver" ]
done
want "pktdedup-dkms is Architecture: all" [ "$(dpkg-deb -f "$dkms" Architecture)" = all ]
field_has() {	# DEB FIELD REGEX
	grep -qE -- "$3" <<<"$(dpkg-deb -f "$1" "$2")"
}
want "pktdedup-dkms depends on dkms: '$(dpkg-deb -f "$dkms" Depends)'" \
	field_has "$dkms" Depends '(^|, )dkms( |,|$)'
want "dedupctl recommends pktdedup-dkms" \
	[ "$(dpkg-deb -f "$ctl" Recommends)" = pktdedup-dkms ]
want "dedupctl depends on libmnl0 (shlibs): '$(dpkg-deb -f "$ctl" Depends)'" \
	field_has "$ctl" Depends '(^|, )libmnl0( |,|$)'
for d in pahole libbpf-dev libelf-dev xz-utils; do
	want "pktdedup-dkms depends on $d (MAKE[0]: the module's BTF)" \
		field_has "$dkms" Depends "(^|, )$d( |,|\$)"
done
x=$out/x
rm -rf "$x"
mkdir -p "$x/ctl" "$x/dkms"
dpkg-deb -x "$dkms" "$x/dkms"
want "the packaged dkms.conf is the tree's (PACKAGE_VERSION $dkver)" \
	cmp -s dkms.conf "$x/dkms$src/dkms.conf"

# the packaged dedupctl: it runs, and dpkg-buildflags' hardening reached it
dpkg-deb -x "$ctl" "$x/ctl"
bin=$x/ctl/usr/sbin/dedupctl
runs_help() { "$bin" --help >/dev/null 2>&1; }
want "the packaged dedupctl --help exits 0" runs_help
dyn=$(readelf -d "$bin" 2>/dev/null)
want "dedupctl is linked with -z now (BIND_NOW)" grep -qE 'BIND_NOW|FLAGS_1.*NOW' <<<"$dyn"
phdr=$(readelf -lW "$bin" 2>/dev/null)
syms=$(readelf -W --dyn-syms "$bin" 2>/dev/null)
want "dedupctl is linked with -z relro (GNU_RELRO)" grep -q GNU_RELRO <<<"$phdr"
want "dedupctl is built with -fstack-protector-strong (__stack_chk_fail)" \
	grep -q ' __stack_chk_fail@' <<<"$syms"
want "dedupctl is built with -D_FORTIFY_SOURCE=2 (__*_chk functions)" \
	grep -qE ' __[a-z]+printf_chk@' <<<"$syms"

# the unit: systemd-analyze verify in the package's tree (with modprobe,
# which the unit runs, and the package's man page for Documentation=)
unit=$x/ctl/lib/systemd/system/pktdedup.service
mkdir -p "$x/ctl/sbin"
cp -L "$(command -v modprobe || echo /sbin/modprobe)" "$x/ctl/sbin/modprobe"
if MANPATH=$x/ctl/usr/share/man systemd-analyze verify --root="$x/ctl" \
	/lib/systemd/system/pktdedup.service >"$out/verify.log" 2>&1 &&
	! [ -s "$out/verify.log" ]; then
	ok "systemd-analyze verify pktdedup.service: no complaint"
else
	sed 's/^/#   /' "$out/verify.log"
	bad "systemd-analyze verify pktdedup.service"
fi
want "the unit does nothing without /etc/pktdedup.conf (ConditionPathExists)" \
	grep -qx 'ConditionPathExists=/etc/pktdedup.conf' "$unit"
has_lines() {	# FILE LINE...: each LINE is one of FILE's
	local f=$1 l
	shift
	for l in "$@"; do grep -qxF -- "$l" "$f" || return 1; done
}
want "the unit applies it with dedupctl -f after modprobe pktdedup" \
	has_lines "$unit" "ExecStartPre=/sbin/modprobe pktdedup" \
	"ExecStart=/usr/sbin/dedupctl -f /etc/pktdedup.conf"

# the maintainer scripts: dh_installsystemd's and dh_dkms's
dpkg-deb -e "$ctl" "$x/ctl-control"
dpkg-deb -e "$dkms" "$x/dkms-control"
want "dedupctl's postinst enables pktdedup.service (dh_installsystemd)" \
	grep -q "deb-systemd-helper enable 'pktdedup.service'" "$x/ctl-control/postinst"
post=$x/dkms-control/postinst
pre=$x/dkms-control/prerm
# shellcheck disable=SC2016 # $DKMS_... are the scripts' own words
want "pktdedup-dkms's postinst runs DKMS's common.postinst for pktdedup $ver (dh_dkms)" \
	has_lines "$post" DKMS_NAME=pktdedup "DKMS_VERSION=$ver" \
	'				$DKMS_POSTINST $DKMS_NAME $DKMS_VERSION /usr/share/$DKMS_PACKAGE_NAME "" $2' \
	'		for DKMS_POSTINST in /usr/lib/dkms/common.postinst /usr/share/$DKMS_PACKAGE_NAME/postinst; do'
# shellcheck disable=SC2016
want "pktdedup-dkms's prerm runs dkms remove pktdedup $ver (dh_dkms)" \
	has_lines "$pre" DKMS_NAME=pktdedup "DKMS_VERSION=$ver" \
	'         dkms remove -m $DKMS_NAME -v $DKMS_VERSION --all'
finish
