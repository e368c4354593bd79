#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The btfids suite of make check: the project's btfids (scripts/btfids,
# what fills pktdedup.ko's .BTF_ids under make module and DKMS) against the
# kernel's own resolve_btfids (scripts/kernel-tools.sh resolve-btfids,
# built from linux-source-6.1 for this comparison only). Each object's
# .BTF_ids is zeroed, filled by each tool, and the two sections must be
# byte-identical and not empty of ids: a small object of our own with
# every kind of entry, out of order (tests/packaging/btfids_fixture.c:
# a list of func, struct, union and typedef ids and one no type has, a
# set and a set8), and pktdedup.ko of make module, split against the BTF
# of Debian's kernel (its set8 of kfuncs).
#
#   tests/packaging/btfids-check.sh [BUILD]
#
# The last line is "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
mkdir -p "${1:-build}"
B=$(realpath "${1:-build}")
w=$B/btfids-check
rm -rf "$w"
mkdir -p "$w"
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh

if make --no-print-directory -s B="$B" "$B/btfids/btfids" >"$w/build.log" 2>&1; then
	ok "btfids builds (-Wall -Wextra -Werror)"
else
	sed 's/^/#   /' "$w/build.log"
	bad "btfids builds"
	finish
fi
mine=$B/btfids/btfids
if ref=$(scripts/kernel-tools.sh resolve-btfids 2>"$w/ref.log"); then
	ref=$ref/resolve_btfids
	ok "the kernel's resolve_btfids, for reference"
else
	sed 's/^/#   /' "$w/ref.log"
	bad "the kernel's resolve_btfids (scripts/kernel-tools.sh resolve-btfids)"
	finish
fi

section() { objcopy -O binary --only-section=.BTF_ids "$1" "$2"; }
u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
differs() { ! cmp -s "$1" "$2"; }
fails() { ! "$@" 2>/dev/null; }
is_at() { [ "$(u32 "$1" "$2")" = "$3" ]; }	# FILE OFFSET VALUE

# both tools on OBJ (its .BTF_ids zeroed first), extra arguments for both
# (-b BASE): NAME.ref and NAME.mine, the sections each wrote
both() {	# NAME OBJ [ARG...]
	local name=$1 obj=$2 size
	shift 2
	section "$obj" "$w/$name.orig"
	size=$(stat -c %s "$w/$name.orig")
	head -c "$size" /dev/zero >"$w/$name.zero"
	objcopy --update-section .BTF_ids="$w/$name.zero" "$obj" "$w/$name.ref.o"
	cp "$w/$name.ref.o" "$w/$name.mine.o"
	"$ref" "$@" "$w/$name.ref.o" >"$w/$name.ref.log" 2>&1 || return 1
	"$mine" "$@" "$w/$name.mine.o" >"$w/$name.mine.log" 2>&1 || return 1
	section "$w/$name.ref.o" "$w/$name.ref"
	section "$w/$name.mine.o" "$w/$name.mine"
}
same() {	# NAME
	if cmp -s "$w/$1.ref" "$w/$1.mine"; then
		ok "$1: .BTF_ids byte-identical to resolve_btfids' ($(stat -c %s "$w/$1.ref") bytes)"
	else
		diff <(od -An -tx4 -v "$w/$1.ref") <(od -An -tx4 -v "$w/$1.mine") | sed 's/^/#   /'
		bad "$1: .BTF_ids differs from resolve_btfids'"
	fi
	want "$1: the ids are filled in (not the zeroed section)" \
		differs "$w/$1.zero" "$w/$1.mine"
}

# the fixture: its BTF by pahole, on its own (no base)
fx=$w/fixture.o
if gcc -g -O1 -c -o "$fx" tests/packaging/btfids_fixture.c &&
	LLVM_OBJCOPY=objcopy pahole -J "$fx" && both fixture "$fx"; then
	same fixture
	# the layout of btfids_fixture.c: 6 ids, the set (count, 4 ids), the
	# set8 (count, flags, 3 pairs)
	want "fixture: the set's count is 4" [ "$(u32 "$w/fixture.mine" 24)" = 4 ]
	want "fixture: the set8's count is 3" [ "$(u32 "$w/fixture.mine" 44)" = 3 ]
	sorted() {
		local a b c
		a=$(u32 "$w/fixture.mine" 28) b=$(u32 "$w/fixture.mine" 32)
		c=$(u32 "$w/fixture.mine" 36)
		[ "$a" -lt "$b" ] && [ "$b" -lt "$c" ] &&
			[ "$c" -lt "$(u32 "$w/fixture.mine" 40)" ] &&
			[ "$(u32 "$w/fixture.mine" 52)" -lt "$(u32 "$w/fixture.mine" 60)" ] &&
			[ "$(u32 "$w/fixture.mine" 60)" -lt "$(u32 "$w/fixture.mine" 68)" ]
	}
	want "fixture: the set and the set8 are sorted by id" sorted
	want "fixture: the name no type has is id 0" is_at "$w/fixture.mine" 20 0
	want "fixture: btfids warns of it" grep -q fx_nosuch "$w/fixture.mine.log"
else
	bad "fixture: built, encoded by pahole, filled by both tools"
	cat "$w"/fixture.*.log 2>/dev/null | sed 's/^/#   /'
fi

# pktdedup.ko of make module, split against Debian's kernel's BTF
ko=$B/kmod/pktdedup.ko
base=$(scripts/kernel-tools.sh btf-base)/vmlinux.btf
if ! readelf -S "$ko" 2>/dev/null | grep ' \.BTF ' >/dev/null; then
	make --no-print-directory -s B="$B" module >"$w/module.log" 2>&1 ||
		sed 's/^/#   /' "$w/module.log" | tail -n 20
fi
if readelf -S "$ko" 2>/dev/null | grep ' \.BTF ' >/dev/null && both ko "$ko" -b "$base"; then
	same ko
	want "ko: its set8 of kfuncs counts 1 (pd_xdp_judge)" is_at "$w/ko.mine" 0 1
	want "ko: pd_xdp_judge has an id" differs <(u32 "$w/ko.mine" 8) <(echo 0)
	want "ko: no warning from btfids" [ ! -s "$w/ko.mine.log" ]
	objcopy --update-section .BTF_ids="$w/ko.zero" "$ko" "$w/nobase.o"
	want "ko: btfids without the base it is split against fails" \
		fails "$mine" "$w/nobase.o"
else
	bad "ko: $ko (make module) with BTF, filled by both tools"
	cat "$w"/ko.*.log 2>/dev/null | sed 's/^/#   /'
fi
finish
