# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The Stable Bloom Filter's blocked layout (layout blocked): a key's cells
# in one cache line, the decrement run in another; and its line layout
# (layout line), the decrement run in the key's line too. Set, shown and
# planned through netlink and /proc; they count and drop copies as the
# flat layout does; layout auto builds a filter of one CPU blocked below 4
# MiB and line from 4 MiB, and a shared one line; what they cannot take is
# refused with the configuration unchanged.

# A member of the plan in dedupctl -j show of NS: plan_num NS KEY
plan_num() {
	inns "$1" dedupctl -j show | grep -o '"plan":{[^}]*' | json_num "$2"
}

# The layout asked and the layout built, as dedupctl -j show of NS has them
layouts() {
	inns "$1" dedupctl -j show | grep -o '"layout":"[a-z]*"' | tr '\n' ' ' |
		sed 's/ $//'
}

# The layout /proc says NS's filter was built with
proc_layout() {
	inns "$1" cat /proc/net/pktdedup/config | grep '^layout'
}

# What a lined layout cannot take, refused: Max above 1, a line's worth
# of P
layout_refusals() {
	expect_fail "$1 with max 3" 1 "cell maximum 1" \
		inns b dedupctl set max 3
	expect_fail "$1 with p 600" 1 "cells of a line" \
		inns b dedupctl set p 600
}

# Copies counted right after their packets, and dropped: none is missed
layout_copies() {
	inns b dedupctl set action count
	inns b dedupctl reset
	send -4 $A4 $B4 --count 200 --copies 2
	tol=$(tolerance 200 "$(fresh_fp b 400)")
	expect_near "$1: duplicates of 200 x 2" 200 \
		"$(stat_of b duplicates)" 0 "$tol"
	expect_ok "$1: drop" inns b dedupctl set action drop
	inns b dedupctl reset
	expect_near "$1: received of 200 x 3 (drop)" 200 \
		"$(received_of -4 $A4 $B4 --count 200 --copies 3)" "$tol" 0
}

t_layout() {
	t_begin "the SBF's blocked and line layouts: set, shown, planned, counting and dropping copies"
	expect_ok "flat, 2 MiB" inns b dedupctl set filter sbf mem 2M fps 1% \
		action count layout flat
	p_flat=$(plan_num b p)
	# the setting, then the plan's layout, as -j show has them
	expect_eq "flat asked, built flat" '"layout":"flat" "layout":"flat"' \
		"$(layouts b)"
	expect_eq "/proc: flat" "layout flat" "$(proc_layout b)"
	expect_ok "layout auto" inns b dedupctl set layout auto
	expect_eq "auto, built blocked per CPU" \
		'"layout":"auto" "layout":"blocked"' "$(layouts b)"
	expect_ok "scope shared" inns b dedupctl set scope shared
	expect_eq "auto, built line when every CPU steps it" \
		'"layout":"auto" "layout":"line"' "$(layouts b)"
	expect_eq "/proc: line, shared" "layout line" "$(proc_layout b)"
	expect_ok "scope percpu" inns b dedupctl set scope percpu
	expect_eq "/proc: blocked" "layout blocked" "$(proc_layout b)"
	expect_eq "dedupctl show: the layout built" 1 \
		"$(inns b dedupctl show | grep -c 'layout blocked')"
	# from 4 MiB, auto builds line; so does layout line at any size
	expect_ok "4 MiB" inns b dedupctl set mem 4M
	expect_eq "auto, built line from 4 MiB" \
		'"layout":"auto" "layout":"line"' "$(layouts b)"
	expect_eq "/proc: line" "layout line" "$(proc_layout b)"
	expect_ok "layout line, 2 MiB" inns b dedupctl set layout line mem 2M
	expect_eq "line in force" '"layout":"line" "layout":"line"' \
		"$(layouts b)"
	expect_eq "dedupctl show: the layout asked" 1 \
		"$(inns b dedupctl show | grep -c ', line (a key.s cells and its decrements')"
	expect_eq "dedupctl show: the layout built" 1 \
		"$(inns b dedupctl show | grep -c 'layout line')"
	fp=$(plan_num b fp_bound)
	awk -v f="$fp" 'BEGIN { exit !(f > 0 && f <= 0.01) }' ||
		t_fail "line fp bound $fp not within the 1% target"
	layout_copies line
	before=$(show_cfg b)
	layout_refusals line
	expect_eq "configuration unchanged" "$before" "$(show_cfg b)"
	expect_ok "layout blocked" inns b dedupctl set layout blocked \
		action count
	expect_eq "blocked in force" '"layout":"blocked" "layout":"blocked"' \
		"$(layouts b)"
	expect_eq "/proc says so" "layout blocked" "$(proc_layout b)"
	# the planner raises P for the shared lines, and keeps fps
	p_blk=$(plan_num b p)
	fp=$(plan_num b fp_bound)
	if [ -z "$p_blk" ] || [ "$p_blk" -lt "$p_flat" ]; then
		t_fail "blocked P $p_blk below flat P $p_flat"
	else
		echo "#   P: flat $p_flat, blocked $p_blk"
	fi
	awk -v f="$fp" 'BEGIN { exit !(f > 0 && f <= 0.01) }' ||
		t_fail "blocked fp bound $fp not within the 1% target"
	layout_copies blocked
	# refused, nothing changed: as line's, and the setting on a family
	# that does not take it
	before=$(show_cfg b)
	layout_refusals blocked
	expect_fail "layout to ibf-mc" 1 "another filter family" \
		inns b dedupctl set filter ibf-mc layout blocked
	expect_fail "a layout of no kind" 2 "not flat, blocked, line or auto" \
		inns b dedupctl set layout striped
	expect_eq "configuration unchanged" "$before" "$(show_cfg b)"
	expect_ok "back to flat" inns b dedupctl set layout flat action count
	expect_eq "flat again" "layout flat" "$(proc_layout b)"
	expect_ok "back to sbf" inns b dedupctl set filter sbf mem 256K \
		layout auto
	t_end
}
