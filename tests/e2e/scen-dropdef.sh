# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# action drop as a user turns it on, choosing nothing else: the filter
# follows the action (filter auto), a sliding window of 10 ms planned at
# fps 0.001, so that copies a few microseconds apart are dropped and
# neither new packets (beyond the model's 0.1%) nor retransmissions sent
# hundreds of ms after their packet are. The SBF that counts and marks by
# default would take every retransmission whose packet it still holds for
# a copy. And drop with a key of flows or hosts is refused unless forced.

# a's packets to b's port 9000: datagrams b received, then pdnet's "late"
# (the copies sent 10 ms or more after their packet, which a window of
# 10 ms may pass: measured by the sender, not guessed)
dropdef_send() {	# ARGS for pdnet send
	inns b pdnet recv 9000 1500 > /tmp/recv.out &
	_rp=$!
	sleep 0.5
	inns a pdnet send "$@" --late-ns 10000000 > /tmp/send.out ||
		t_fail "pdnet send $*"
	sleep 0.3
	wait $_rp
	DD_GOT=$(sed -n 's/^received //p' /tmp/recv.out)
	DD_LATE=$(sed -n 's/^late //p' /tmp/send.out)
	echo "#   received $DD_GOT, copies sent late $DD_LATE"
}

t_drop_default() {
	t_begin "action drop by default: copies dropped, new packets and retransmissions 300 ms later kept"
	inns b dedupctl set filter auto action count mem 256K
	expect_eq "filter auto with count: the SBF" "filter sbf" \
		"$(inns b grep '^filter ' /proc/net/pktdedup/config)"
	_note=$(inns b dedupctl set action drop 2>&1 >/dev/null)
	expect_eq "set says what drop drops" yes \
		"$(echo "$_note" | grep -q 'action drop with filter auto, a sliding window of 10 ms: a packet is dropped only if one like it came less than that before' && echo yes)"
	_j=$(inns b dedupctl -j show)
	expect_eq "the family" '"filter":"sliding","filter_auto":true' \
		"$(echo "$_j" | grep -o '"filter":"[a-z]*","filter_auto":[a-z]*')"
	expect_eq "its window" 10000000 "$(echo "$_j" | json_num window_ns)"
	expect_eq "its target" 0.001 "$(echo "$_j" | json_num fps)"
	fp=$(fp_rate b)
	expect_eq "fp bound at capacity, 0.1% at most" yes \
		"$(awk -v f="$fp" 'BEGIN { print (f > 0 && f <= 0.001) ? "yes" : "no" }')"
	# all new: none dropped but the model's FP (at capacity)
	inns b dedupctl reset
	dropdef_send -4 $A4 $B4 --count 4000
	tol=$(tolerance 4000 "$fp")
	expect_near "4000 new packets: received" 4000 "$DD_GOT" "$tol" 0
	expect_near "4000 new packets: dropped" 0 "$(stat_of b dropped)" 0 "$tol"
	# 300 packets twice back to back, then all of it again 300 ms later
	# (a retransmission of each): the copies go, the retransmissions stay
	inns b dedupctl reset
	dropdef_send -4 $A4 $B4 --first 5000 --count 300 --copies 2 \
		--again-after 300
	tol=$(tolerance 1200 "$fp")
	expect_near "300 x 2, again 300 ms later: received" 600 "$DD_GOT" \
		"$tol" "$DD_LATE"
	expect_near "copies dropped" 600 "$(stat_of b dropped)" \
		"$DD_LATE" "$tol"
	# the same under an SBF chosen by name: retransmissions dropped too
	_note=$(inns b dedupctl set filter sbf 2>&1 >/dev/null)
	expect_eq "set says the SBF drops retransmissions" yes \
		"$(echo "$_note" | grep -q 'action drop with sbf: .* so a TCP retransmission is dropped' && echo yes)"
	inns b dedupctl reset
	dropdef_send -4 $A4 $B4 --first 6000 --count 300 --copies 2 \
		--again-after 300
	lo=$(tolerance 300 "$(fp_rate b)")
	hi=$(tolerance 300 "$(fn_rate b 600)")
	expect_near "sbf: the retransmissions dropped" 300 "$DD_GOT" "$lo" "$hi"
	expect_eq "filter auto again: the window" "filter sliding" \
		"$(inns b dedupctl set filter auto 2>/dev/null &&
		   inns b grep '^filter ' /proc/net/pktdedup/config)"
	inns b dedupctl set action count
	expect_eq "count: the SBF again" "filter sbf" \
		"$(inns b grep '^filter ' /proc/net/pktdedup/config)"
	t_end
}

t_drop_coarse() {
	t_begin "action drop with key flow, src, dst or pair: refused unless forced"
	inns b dedupctl set action count key packet
	before=$(show_cfg b)
	for k in flow src dst pair; do
		expect_fail "key $k action drop" 1 \
			"action drop with key $k drops every packet" \
			inns b dedupctl set key $k action drop
	done
	expect_eq "nothing changed" "$before" "$(show_cfg b)"
	expect_ok "drop with key packet" inns b dedupctl set action drop
	expect_fail "key flow under drop" 1 "add force" \
		inns b dedupctl set key flow
	expect_ok "forced" inns b dedupctl set key flow force
	expect_eq "in force" "key flow" \
		"$(inns b grep '^key ' /proc/net/pktdedup/config)"
	# force is asked again only when the action or the key is set
	expect_ok "another setting" inns b dedupctl set mem 512K
	expect_fail "action drop again" 1 "add force" \
		inns b dedupctl set action drop
	_saved=$(inns b dedupctl save)
	expect_eq "save says force and filter auto" yes \
		"$(echo "$_saved" | grep '^set ' | grep -q ' action drop force .* filter auto ' && echo yes)"
	inns b dedupctl set action count key packet mem 256K
	echo "$_saved" > /tmp/saved.conf
	expect_ok "the saved file applies" inns b dedupctl -f /tmp/saved.conf
	expect_eq "and gives it back" "$_saved" "$(inns b dedupctl save)"
	inns b dedupctl set action count key packet mem 256K
	expect_eq "the module's default family" auto \
		"$(cat /sys/module/pktdedup/parameters/filter)"
	t_end
}

# The example configuration the package ships, applied as the boot unit
# applies it, then with its capture-host line in force too.
t_example_conf() {
	t_begin "the shipped example configuration: drops copies only"
	ex=/usr/share/doc/dedupctl/examples/pktdedup.conf.example
	if ! [ -f $ex ]; then
		t_fail "$ex: not installed by the package"
		t_end
		return
	fi
	mkns ex
	expect_ok "dedupctl -f (as pktdedup.service)" inns ex dedupctl -f $ex
	cfg=$(inns ex cat /proc/net/pktdedup/config)
	expect_eq "drop, packet key, filter auto: the window" \
		"key packet|action drop|filter sliding|filter_auto yes" \
		"$(echo "$cfg" | grep -E '^(key|action|filter|filter_auto) ' | tr '\n' '|' | sed 's/|$//')"
	sed 's/^#set hook xdp/set hook xdp/' $ex > /tmp/example-capture.conf
	expect_ok "with its capture-host line" \
		inns ex dedupctl -f /tmp/example-capture.conf
	cfg=$(inns ex cat /proc/net/pktdedup/config)
	expect_eq "xdp on the taps, one filter for every CPU" \
		"hook xdp|scope shared" \
		"$(echo "$cfg" | grep -E '^(hook|scope) ' | tr '\n' '|' | sed 's/|$//')"
	inns ex dedupctl disable > /dev/null
	t_end
}

# dedupctl as ip and nft are used: its version and the module's, -n NAME
# into a namespace ip netns made, -j after the command.
t_ctl_conventions() {
	t_begin "dedupctl --version says the module's; -n NETNS as ip -n; -j after the command"
	expect_eq "--version" \
		"dedupctl $(cat /sys/module/pktdedup/version), netlink protocol version 2|module   pktdedup $(cat /sys/module/pktdedup/version), netlink protocol version 2" \
		"$(dedupctl --version | tr '\n' '|' | sed 's/|$//')"
	$IP netns add pdctl || t_fail "ip netns add"
	expect_eq "-n: the namespace's own instance, idle" '"state":"idle"' \
		"$(dedupctl -n pdctl show -j | grep -o '"state":"[a-z]*"')"
	expect_ok "-n: set there" dedupctl -n pdctl set action drop
	expect_eq "there, and only there" "action drop|action count" \
		"$($IP netns exec pdctl grep '^action ' /proc/net/pktdedup/config)|$(grep '^action ' /proc/net/pktdedup/config)"
	expect_fail "-n: a name ip netns does not know" 1 \
		"/run/netns/pdnone: No such file" dedupctl -n pdnone show
	expect_fail "two output formats" 2 "two output formats" \
		dedupctl -j stats -o prometheus
	dedupctl -n pdctl disable > /dev/null
	$IP netns del pdctl
	t_end
}
