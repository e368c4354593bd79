# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The Stable Bloom Filter's blocked layout (layout blocked): a key's cells
# in one cache line, the decrement run in another. Set, shown and planned
# through netlink and /proc; it counts and drops copies as the flat layout
# does; what it cannot take is refused with the configuration unchanged.

# A member of the plan in dedupctl -j show of NS: plan_num NS KEY
plan_num() {
	inns "$1" dedupctl -j show | grep -o '"plan":{[^}]*' | json_num "$2"
}

t_layout() {
	t_begin "the SBF's blocked layout: set, shown, planned, counting and dropping copies"
	expect_ok "flat, 4 MiB" inns b dedupctl set filter sbf mem 4M fps 1% \
		action count layout flat
	p_flat=$(plan_num b p)
	# the setting, then the plan's layout, as -j show has them
	expect_eq "flat asked, built flat" '"layout":"flat" "layout":"flat"' \
		"$(inns b dedupctl -j show | grep -o '"layout":"[a-z]*"' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "/proc: flat" "layout flat" \
		"$(inns b cat /proc/net/pktdedup/config | grep '^layout')"
	expect_ok "layout auto" inns b dedupctl set layout auto
	expect_eq "auto, built blocked per CPU" \
		'"layout":"auto" "layout":"blocked"' \
		"$(inns b dedupctl -j show | grep -o '"layout":"[a-z]*"' | tr '\n' ' ' | sed 's/ $//')"
	expect_ok "scope shared" inns b dedupctl set scope shared
	expect_eq "auto, built blocked when every CPU steps it" \
		'"layout":"auto" "layout":"blocked"' \
		"$(inns b dedupctl -j show | grep -o '"layout":"[a-z]*"' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "/proc: blocked" "layout blocked" \
		"$(inns b cat /proc/net/pktdedup/config | grep '^layout')"
	expect_eq "dedupctl show: the layout built" 1 \
		"$(inns b dedupctl show | grep -c 'layout blocked')"
	expect_ok "scope percpu, layout blocked" inns b dedupctl set \
		scope percpu layout blocked
	expect_eq "blocked in force" '"layout":"blocked" "layout":"blocked"' \
		"$(inns b dedupctl -j show | grep -o '"layout":"[a-z]*"' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "/proc says so" "layout blocked" \
		"$(inns b cat /proc/net/pktdedup/config | grep '^layout')"
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
	# copies right after their packets: none is missed
	inns b dedupctl reset
	send -4 $A4 $B4 --count 200 --copies 2
	tol=$(tolerance 200 "$(fresh_fp b 400)")
	expect_near "duplicates of 200 x 2" 200 "$(stat_of b duplicates)" 0 "$tol"
	expect_ok "drop" inns b dedupctl set action drop
	inns b dedupctl reset
	expect_near "received of 200 x 3 (drop)" 200 \
		"$(received_of -4 $A4 $B4 --count 200 --copies 3)" "$tol" 0
	# refused, nothing changed: Max above 1, a line's worth of P, and
	# the setting on a family that does not take it
	before=$(show_cfg b)
	expect_fail "blocked with max 3" 1 "cell maximum 1" \
		inns b dedupctl set max 3
	expect_fail "blocked with p 600" 1 "cells of a line" \
		inns b dedupctl set p 600
	expect_fail "layout to ibf-mc" 1 "another filter family" \
		inns b dedupctl set filter ibf-mc layout blocked
	expect_fail "a layout of no kind" 2 "not flat, blocked or auto" \
		inns b dedupctl set layout striped
	expect_eq "configuration unchanged" "$before" "$(show_cfg b)"
	expect_ok "back to flat" inns b dedupctl set layout flat action count
	expect_eq "flat again" "layout flat" \
		"$(inns b cat /proc/net/pktdedup/config | grep '^layout')"
	expect_ok "back to sbf" inns b dedupctl set filter sbf mem 256K \
		layout auto
	t_end
}
