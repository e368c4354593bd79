# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# A fixed seed (dedupctl set seed N): the filters are seeded from it as
# dedup-sim --seed N seeds its filter, at every rebuild and reset. Whoever
# knows it can predict the filter, so its value goes only to those who may
# set it (CAP_NET_ADMIN over the namespace); everyone else, /proc and the
# Prometheus text see only that it is fixed.

# Duplicates b's instance counts of 3000 distinct UDP packets from a, just
# after a reset: all false positives of a small filter, so the number
# depends on the seeds alone (pdnet sends from CPU 0, one filter sees all).
fp_run() {
	inns b dedupctl reset
	send -4 $A4 $B4 --count 3000 --first 50000
	stat_of b duplicates
}

t_seed() {
	t_begin "a fixed seed: the same filter at every reset, its value for CAP_NET_ADMIN only"
	before=$(show_cfg b)
	expect_eq "random by default (/proc)" "seed random" \
		"$(inns b grep '^seed ' /proc/net/pktdedup/config)"
	expect_eq "random by default (-j)" '"seed_mode":"random"' \
		"$(show_cfg b | grep -o '"seed[a-z_]*":[^,]*')"
	expect_ok "set seed" inns b dedupctl set seed 4242 mem 1K proto udp
	expect_eq "/proc: fixed, never the value" "seed fixed" \
		"$(inns b grep '^seed ' /proc/net/pktdedup/config)"
	expect_eq "no 4242 in /proc" 0 \
		"$(inns b cat /proc/net/pktdedup/config | grep -c 4242)"
	expect_eq "root: the value (-j)" '"seed_mode":"fixed" "seed":4242' \
		"$(show_cfg b | grep -o '"seed[a-z_]*":[^,]*' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "root: the value (raw reply)" "config.seed-mode=1 config.seed=4242" \
		"$(nl_b send get-config | grep '^config.seed' | tr '\n' ' ' | sed 's/ $//')"
	expect_eq "uid 65534: fixed, no value (-j)" '"seed_mode":"fixed"' \
		"$(inns b pdnet asuser 65534 dedupctl -j show | grep -o '"seed[a-z_]*":[^,]*')"
	expect_eq "uid 65534: no seed attribute in the reply" "config.seed-mode=1" \
		"$(inns b pdnet asuser 65534 pdnl send get-config | grep '^config.seed')"
	expect_eq "uid 65534: show says who may see it" \
		"seed     fixed (its value is shown to CAP_NET_ADMIN only)" \
		"$(inns b pdnet asuser 65534 dedupctl show | grep '^seed ')"
	# root of its own user namespace, in b's network namespace (owned by
	# the initial one): no CAP_NET_ADMIN there, as genetlink judges SET
	expect_eq "root of another user namespace: no value" "config.seed-mode=1" \
		"$(inns b pdnet asuser 65534 unshare -Ur pdnl send get-config | grep '^config.seed')"
	expect_fail "root of another user namespace: set seed refused" 1 \
		"CAP_NET_ADMIN" \
		inns b pdnet asuser 65534 unshare -Ur dedupctl set seed 1
	expect_eq "prometheus: seed=\"fixed\", no value" "1 0" \
		"$(inns b pdnet asuser 65534 dedupctl stats -o prometheus | grep -c 'seed="fixed"') $(inns b dedupctl stats -o prometheus | grep -c 4242)"
	expect_eq "save as root: the seed" "seed 4242" \
		"$(inns b dedupctl save | grep -o 'seed [0-9a-z]*')"
	expect_fail "save as uid 65534: refused, not a wrong file" 1 \
		"run save as root" inns b pdnet asuser 65534 dedupctl save
	expect_fail "uid 65534: set seed refused" 1 "CAP_NET_ADMIN" \
		inns b pdnet asuser 65534 dedupctl set seed 1

	# the filters: the same seeds after every reset (a small filter errs,
	# and how often depends on the seeds alone), and after a rebuild
	d1=$(fp_run)
	d2=$(fp_run)
	expect_ok "a rebuild (the same settings again)" \
		inns b dedupctl set seed 4242 mem 1K
	d3=$(fp_run)
	echo "#   false positives of 3000 new packets, seed 4242: $d1, $d2 after a reset, $d3 after a rebuild"
	[ "$d1" -gt 0 ] || t_fail "no false positive: the test tells nothing"
	expect_eq "the same after a reset" "$d1" "$d2"
	expect_eq "the same after a rebuild" "$d1" "$d3"
	expect_ok "another seed" inns b dedupctl set seed 0x1092
	o1=$(fp_run)
	o2=$(fp_run)
	expect_eq "seed 0x1092: the same after a reset" "$o1" "$o2"
	expect_ok "random again" inns b dedupctl set seed random
	r1=$(fp_run)
	r2=$(fp_run)
	echo "#   seed 0x1092: $o1; random seeds: $r1, $r2 (another draw each reset)"
	expect_eq "random: /proc" "seed random" \
		"$(inns b grep '^seed ' /proc/net/pktdedup/config)"
	expect_eq "random: no value" "config.seed-mode=0" \
		"$(nl_b send get-config | grep '^config.seed')"

	# refusals, each naming the attribute; nothing changes
	cfg0=$(show_cfg b)
	refused_with "seed beside seed-mode random" -22 \
		"a fixed seed beside seed-mode random" \
		send set-config config.seed-mode=u8:0 config.seed=u64:7
	refused_with "seed-mode fixed with no seed in force" -22 \
		"no seed given and none in force" \
		send set-config config.seed-mode=u8:1
	refused_with "seed-mode 2" -34 "config.seed-mode" \
		send set-config config.seed-mode=u8:2
	refused_with "a seed of 4 bytes" -22 "config.seed" \
		send set-config config.seed=u32:7
	refused_with "pad in a request" -22 "config.pad" \
		send set-config config.pad=u64:0
	expect_fail "seed -1 (dedupctl)" 2 "seed: '-1' is not random or a number" \
		inns b dedupctl set seed -1
	expect_fail "seed 2^64 (dedupctl)" 2 "is not random or a number" \
		inns b dedupctl set seed 18446744073709551616
	expect_eq "nothing changed" "$cfg0" "$(show_cfg b)"
	# fixed alone keeps the seed in force
	expect_eq "seed-mode fixed alone, a seed in force" ok \
		"$(nl_b send set-config config.seed=u64:99 > /dev/null; nl_b send set-config config.seed-mode=u8:1 | tail -n 1)"
	expect_eq "the seed kept" "config.seed=99" \
		"$(nl_b send get-config | grep '^config.seed=')"
	expect_ok "back to the defaults" inns b dedupctl set seed random mem 256K proto any
	expect_eq "configuration as before" "$before" "$(show_cfg b)"
	t_end
}
