#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: builds the Debian packages pktdedup-dkms (the module's source,
# registered with DKMS) and dedupctl (the tool, its man page, completion,
# the pktdedup systemd unit and the dist/ examples) with dpkg-buildpackage,
# out of tree: the tracked and untracked-but-not-ignored files are copied
# into OUT/pktdedup-VERSION, built there, and the .debs, .dsc, .tar.xz,
# .buildinfo and .changes land in OUT. Nothing is written outside OUT.
#
#   scripts/deb.sh [OUT]      OUT defaults to build/deb
#
# VERSION is debian/changelog's, which must be dkms.conf's PACKAGE_VERSION
# and module/main.c's MODULE_VERSION (checked here, and by deb-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/deb}

ver=$(dpkg-parsechangelog -S Version)
dkver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
modver=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' module/main.c)
if [ "$ver" != "$dkver" ] || [ "$ver" != "$modver" ]; then
	echo "deb.sh: versions differ: debian/changelog $ver, dkms.conf $dkver, MODULE_VERSION $modver" >&2
	exit 1
fi

rm -rf "$out"
src=$out/pktdedup-$ver
mkdir -p "$src"
# the files git knows of or would add, as they are in the work tree
git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
	[ -e "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$src"
# the build writes its logs and packages beside the source directory
(cd "$src" && dpkg-buildpackage -us -uc >../build.log 2>&1) || {
	tail -n 40 "$out/build.log" >&2
	echo "deb.sh: dpkg-buildpackage failed; see $out/build.log" >&2
	exit 1
}
ls "$out"/*.deb "$out"/*.changes
