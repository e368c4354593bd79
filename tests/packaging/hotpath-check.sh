#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The packet path's object code, as the compiler left it (run by make
# check after the module's build):
#  - in pktdedup.ko built for Debian's kernel, whose
#    CONFIG_INIT_STACK_ALL_ZERO zeroes every local not written at its
#    declaration, the functions every packet runs zero no stack buffer
#    ("rep stos": their key, packet and tail state, the filters' cell
#    positions and the hash's state are __uninitialized, the one-pass
#    parse sets each field of its packet instead of clearing it first,
#    which the core's pd_key_prior_contents and
#    pd_key_nonip_prior_contents tests keep safe), nor do those of frames
#    that are not IP under nonip dedup;
#  - the core's functions that call pd_prefetchw() keep their prefetches
#    (the SBF's: the key's line, the next decrement's, a shared flat
#    filter's cells; the source windows' fold) in the module and in the
#    userspace build of the core, where pd_prefetchw() is
#    __builtin_prefetch as in a UML kernel: a wrapper the compiler does
#    not inline is found const and its calls deleted;
#  - the source analytics' stages ask for their lines ahead of the reads
#    (pd_srcs_ask_slow() before the parse, pd_srcs_find_slow() before the
#    key's hash).
# Usage: hotpath-check.sh BUILD. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/lib/tap.sh
. tests/lib/tap.sh
B=${1:-build}
ko=$B/kmod/pktdedup.ko

# the instructions of function fn (and its clones, fn.constprop.0 ...) in
# disassembly dis
body() {	# DIS FN
	awk -v fn="$2" '
		/^[0-9a-f]+ <[^>]*>:$/ {
			name = $2
			sub(/^</, "", name)
			sub(/>:$/, "", name)
			sub(/\..*$/, "", name)
			on = name == fn
			next
		}
		on' <<<"$1"
}

if [ ! -f "$ko" ]; then
	bad "$ko is built (make module-check)"
	finish
fi
ko_dis=$(objdump -d --no-show-raw-insn "$ko")
for fn in pd_hook pd_process pd_skb_key pd_skb_feed pd_judge pd_xdp_frame \
	pd_nonip_skb pd_xdp_nonip pd_parse_key_open pd_key_hash64 pd_sbf_step \
	pd_sbf_step_cpu pd_sbf_step_ref pd_sbf_step_value pd_bitf_step; do
	code=$(body "$ko_dis" "$fn")
	if [ -z "$code" ]; then
		ok "$fn is inlined into a caller checked here"
		continue
	fi
	if grep -q 'rep stos' <<<"$code"; then
		bad "$fn zeroes stack memory for every packet (rep stos)"
		grep -B3 'rep stos' <<<"$code" | sed 's/^/    /'
	else
		ok "$fn zeroes no stack memory for every packet"
	fi
done

for fn in pd_srcs_ask_slow pd_srcs_find_slow; do
	if body "$ko_dis" "$fn" | grep -q 'prefetch'; then
		ok "$fn asks for the analytics' next line ahead"
	else
		bad "$fn asks for no line ahead in $ko"
	fi
done

for obj in "$B/dedup-sim" "$ko"; do
	dis=$ko_dis
	[ "$obj" = "$ko" ] || dis=$(objdump -d --no-show-raw-insn "$obj")
	# every function of the core that calls pd_prefetchw()
	for fn in pd_sbf_prefetch pd_sbf_step pd_sbf_step_cpu pd_sbf_step_ref \
		pd_sbf_step_value pd_srcwin_fold; do
		if body "$dis" "$fn" | grep -q 'prefetch'; then
			ok "$fn prefetches in $obj"
		else
			bad "$fn has lost its prefetch in $obj"
		fi
	done
done
finish
