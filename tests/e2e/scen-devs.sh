# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Named devices are followed by name, never by a remembered ifindex (a
# device moved out and back, deleted and made again, renamed, and one that
# takes a departed device's ifindex), and a frame is judged once where two
# named devices are stacked (a VLAN on its port, a bridge over its port).
# Sourced by scenarios.sh: uses its namespaces a, b, c and its helpers.
#
# df -- pa6 ~ pb6 -- b: a link of its own (10.6.0.1, .2), and namespace dg
# to move devices to.
#
# Copies dropped may fall short by 2: the SBF forgets a copy with
# probability about k P g / m (g packets since its original). On the
# 256-CPU guest (mem 64K a CPU: m = 2^19 cells, k 3, P 11) with g = 50 that
# is 0.3% a copy, 0.16 misses in 50 copies expected; 3 or more in under
# 0.1% of runs.

dev_link() {
	[ -n "${DEV_LINKED:-}" ] && return
	mkns df
	mkns dg
	link df b 6
	inns df ping -c 1 -W 2 10.6.0.2 > /dev/null
	DEV_LINKED=1
}

# D distinct datagrams from df to b, C times each: to DST from SRC (by
# default 10.6.0.2 from 10.6.0.1)
send_f() {	# D C [DST SRC]
	inns df pdnet send -4 "${4:-10.6.0.1}" "${3:-10.6.0.2}" --count "$1" \
		--copies "$2" > /dev/null || t_fail "pdnet send from df"
	sleep 0.3
}

dev_state() {
	inns b sed -n 's/^dev_state //p' /proc/net/pktdedup/config
}

hooks_line() {
	inns b grep '^netfilter_hooks' /proc/net/pktdedup/config
}

# (sysfs is the initial namespace's: ask ip)
ifindex_of() {	# NS DEV
	inns "$1" $IP -o link show "$2" | cut -d: -f1
}

# An address on a device of namespace NS, up, IPv6 off (no ND or MLD
# packets in the counts).
dev_up() {	# NS DEV ADDR/LEN
	inns "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$2/disable_ipv6"
	inns "$1" $IP addr add "$3" dev "$2"
	inns "$1" $IP link set "$2" up
}

t_dev_follow() {
	t_begin "named devices are followed by name: moved out and back, deleted and made again, renamed; a departed device's ifindex selects nothing"
	dev_link
	expect_ok "hook ingress dev pb6" inns b dedupctl set \
		hook ingress dev pb6 action count key packet
	idx=$(ifindex_of b pb6)
	expect_eq "bound" "pb6 active (ifindex $idx)" "$(dev_state)"
	inns b dedupctl reset
	send_f 50 2
	expect_eq "hooked: packets" 100 "$(stat_of b packets)"

	# moved to dg, then back: the same device, the same ifindex
	inns b $IP link set pb6 netns "$(nspid dg)"
	expect_eq "moved out: absent" "pb6 absent" "$(dev_state)"
	expect_eq "moved out: no hook" "netfilter_hooks none" "$(hooks_line)"
	expect_eq "JSON" '"devices":[{"name":"pb6","state":"absent"}]' \
		"$(inns b dedupctl -j show | grep -o '"devices":\[[^]]*\]')"
	expect_eq "dedupctl show" "select   dev pb6 (pb6 absent), proto any, match-mark any" \
		"$(inns b dedupctl show | grep '^select')"
	inns dg $IP link set pb6 netns "$(nspid b)"
	dev_up b pb6 10.6.0.2/24
	expect_eq "back: the same ifindex" "$idx" "$(ifindex_of b pb6)"
	expect_eq "back: bound again" "pb6 active (ifindex $idx)" "$(dev_state)"
	expect_eq "back: hooked" "netfilter_hooks registered" "$(hooks_line)"
	inns df ping -c 1 -W 2 10.6.0.2 > /dev/null
	inns b dedupctl reset
	send_f 50 2
	expect_eq "back: packets" 100 "$(stat_of b packets)"

	# deleted (its peer with it), then made again under the same names
	inns b $IP link del pb6
	expect_eq "deleted: absent" "pb6 absent" "$(dev_state)"
	link df b 6
	inns df ping -c 1 -W 2 10.6.0.2 > /dev/null
	expect_eq "made again: bound" "pb6 active (ifindex $(ifindex_of b pb6))" \
		"$(dev_state)"
	inns b dedupctl reset
	send_f 50 2
	expect_eq "made again: packets" 100 "$(stat_of b packets)"

	# at prerouting, dropping: pb6 goes, and a device named pz6 takes its
	# ifindex (made with it, its peer py6 in df): its traffic is not pb6's
	expect_ok "prerouting dev pb6 action drop" inns b dedupctl set \
		hook prerouting dev pb6 action drop filter sbf
	idx=$(ifindex_of b pb6)
	inns b $IP link del pb6
	inns b $IP link add pz6 index "$idx" type veth peer name py6 \
		netns "$(nspid df)"
	expect_eq "pz6 took pb6's ifindex" "$idx" "$(ifindex_of b pz6)"
	dev_up b pz6 10.7.0.2/24
	dev_up df py6 10.7.0.1/24
	inns df ping -c 1 -W 2 10.7.0.2 > /dev/null
	inns b dedupctl reset
	inns b pdnet recv 9000 1500 > /tmp/recv.out &
	rp=$!
	sleep 0.5
	send_f 50 2 10.7.0.2 10.7.0.1
	wait $rp
	got=$(sed -n 's/^received //p' /tmp/recv.out)
	expect_eq "the ifindex's new device: not selected" 0 "$(stat_of b packets)"
	expect_eq "nothing of it dropped" 100 "$got"
	expect_eq "pb6 still absent" "pb6 absent" "$(dev_state)"

	# renamed: pz6 becomes pb6 (the device of that name now), then pq6
	inns b $IP link set pz6 down
	inns b $IP link set pz6 name pb6
	inns b $IP link set pb6 up
	expect_eq "renamed to pb6: bound" "pb6 active (ifindex $idx)" \
		"$(dev_state)"
	inns b dedupctl reset
	send_f 50 2 10.7.0.2 10.7.0.1
	expect_eq "renamed to pb6: packets" 100 "$(stat_of b packets)"
	expect_near "renamed to pb6: copies dropped" 50 "$(stat_of b dropped)" 2 0
	inns b $IP link set pb6 down
	inns b $IP link set pb6 name pq6
	inns b $IP link set pq6 up
	expect_eq "renamed away: absent" "pb6 absent" "$(dev_state)"
	inns b dedupctl reset
	send_f 50 2 10.7.0.2 10.7.0.1
	expect_eq "renamed away: not selected" 0 "$(stat_of b packets)"

	inns b $IP link del pq6
	link df b 6
	inns df ping -c 1 -W 2 10.6.0.2 > /dev/null
	expect_ok "back to prerouting, any device" \
		inns b dedupctl set hook prerouting dev any action count
	t_end
}

t_dev_stacked() {
	t_begin "a frame is judged once: stacked devices are refused together, and a device stacked later is left to its lower device's hook"
	dev_link
	pre_counter b pddev
	# VLAN 5 over pa6 ~ pb6
	inns df $IP link add link pa6 name pa6.5 type vlan id 5
	inns b $IP link add link pb6 name pb6.5 type vlan id 5
	dev_up df pa6.5 10.8.0.1/24
	dev_up b pb6.5 10.8.0.2/24
	inns df ping -c 1 -W 2 10.8.0.2 > /dev/null
	before=$(show_cfg b)
	expect_fail "a VLAN device and its port" 1 \
		"dev pb6.5: stacked on another device named here" \
		inns b dedupctl set hook ingress dev pb6,pb6.5 action drop filter sbf
	expect_fail "the other order" 1 "dev pb6.5: stacked on another device named here" \
		inns b dedupctl set hook ingress dev pb6.5,pb6 action drop filter sbf
	expect_fail "a device named twice" 1 "named twice" \
		inns b dedupctl set hook ingress dev pb6,pb6 action drop filter sbf
	expect_eq "refused: nothing changed" "$before" "$(show_cfg b)"
	# one of them: each tagged frame judged once, all 50 pass
	expect_ok "dev pb6 alone" inns b dedupctl set hook ingress dev pb6 \
		action drop filter sbf
	inns b dedupctl reset
	p0=$(pre_count b pddev)
	send_f 50 1 10.8.0.2 10.8.0.1
	expect_eq "VLAN frames through PREROUTING" 50 $(($(pre_count b pddev) - p0))
	expect_eq "none dropped" 0 "$(stat_of b dropped)"

	# a bridge over pb6
	inns b $IP link add br6 type bridge
	inns b sh -c "echo 1 > /proc/sys/net/ipv6/conf/br6/disable_ipv6"
	inns b $IP link set br6 up
	inns b $IP link set pb6 master br6
	expect_fail "a bridge and its port" 1 "dev br6: stacked on another device named here" \
		inns b dedupctl set hook ingress dev br6,pb6 action drop filter sbf
	expect_fail "the other order" 1 "dev br6: stacked on another device named here" \
		inns b dedupctl set hook ingress dev pb6,br6 action drop filter sbf
	inns b $IP link set pb6 nomaster

	# stacked later: br6 and pb6 named while apart, then pb6 enslaved
	expect_ok "dev pb6,br6 (apart)" inns b dedupctl set hook ingress \
		dev pb6,br6 action drop filter sbf
	expect_eq "both hooked" "netfilter_hooks registered" "$(hooks_line)"
	inns b $IP link set pb6 master br6
	expect_eq "br6 stacked on pb6" \
		"pb6 active (ifindex $(ifindex_of b pb6)), br6 stacked on pb6 (ifindex $(ifindex_of b br6))" \
		"$(dev_state)"
	expect_eq "one hook of two" "netfilter_hooks partial" "$(hooks_line)"
	expect_eq "dedupctl show" "select   dev pb6,br6 (br6 stacked on pb6), proto any, match-mark any" \
		"$(inns b dedupctl show | grep '^select')"
	inns b dedupctl reset
	p0=$(pre_count b pddev)
	# frames to pb6's own address reach the bridge, and b's stack
	send_f 50 1
	expect_eq "judged once: packets" 50 "$(stat_of b packets)"
	expect_eq "judged once: none dropped" 0 "$(stat_of b dropped)"
	expect_eq "frames through PREROUTING" 50 $(($(pre_count b pddev) - p0))
	send_f 50 1
	expect_near "their copies dropped at pb6" 50 "$(stat_of b dropped)" 2 0
	inns b $IP link set pb6 nomaster
	expect_eq "apart again: both hooked" "netfilter_hooks registered" \
		"$(hooks_line)"

	# a VLAN device made later under a named device's name
	expect_ok "dev pb6,pv6: pv6 a plain veth" sh -c \
		"nsenter -t $(nspid b) -n $IP link add pv6 type veth peer name pw6 &&
		 nsenter -t $(nspid b) -n dedupctl set hook ingress dev pb6,pv6 action drop filter sbf"
	inns b $IP link del pv6
	expect_eq "pv6 deleted" "pb6 active (ifindex $(ifindex_of b pb6)), pv6 absent" \
		"$(dev_state)"
	inns b $IP link add link pb6 name pv6 type vlan id 7
	inns df $IP link add link pa6 name pa6.7 type vlan id 7
	dev_up b pv6 10.10.0.2/24
	dev_up df pa6.7 10.10.0.1/24
	inns df ping -c 1 -W 2 10.10.0.2 > /dev/null
	expect_eq "pv6 made as a VLAN on pb6: stacked" \
		"pb6 active (ifindex $(ifindex_of b pb6)), pv6 stacked on pb6 (ifindex $(ifindex_of b pv6))" \
		"$(dev_state)"
	inns b dedupctl reset
	p0=$(pre_count b pddev)
	send_f 50 1 10.10.0.2 10.10.0.1
	expect_eq "VLAN 7 frames judged once" 50 "$(stat_of b packets)"
	expect_eq "none dropped" 0 "$(stat_of b dropped)"
	expect_eq "VLAN 7 frames through PREROUTING" 50 $(($(pre_count b pddev) - p0))

	inns b $IP link del pv6
	inns b $IP link del pb6.5
	inns b $IP link del br6
	inns df $IP link del pa6.7
	inns df $IP link del pa6.5
	inns b nft delete table inet pddev
	expect_ok "back to prerouting, any device" \
		inns b dedupctl set hook prerouting dev any action count
	t_end
}

# Echo requests from df to b answered: "received N" of 20.
pings_answered() {
	inns df ping -A -c 20 -W 1 10.6.0.2 2> /dev/null |
		sed -n 's/.* \([0-9]*\) packets received.*/received \1/p'
}

t_dev_altname() {
	t_begin "devices are compared by identity: a device and its altname in one request are refused, a device is followed by its altname when renamed, and a name that comes to name a device already named hooks it once"
	dev_link
	inns b $IP link property add dev pb6 altname tapb
	before=$(show_cfg b)
	expect_fail "pb6 and its altname: refused" 1 \
		"dev tapb: names a device another name here names" \
		inns b dedupctl set hook ingress dev pb6,tapb action drop filter sbf
	expect_eq "refused: nothing changed" "$before" "$(show_cfg b)"
	expect_ok "by its altname alone" inns b dedupctl set hook ingress \
		dev tapb action drop filter sbf
	idx=$(ifindex_of b pb6)
	expect_eq "bound by its altname" "tapb active (ifindex $idx)" \
		"$(dev_state)"
	expect_eq "its pings answered" "received 20" "$(pings_answered)"
	# renamed: the altname still names it
	inns b $IP link set pb6 down
	inns b $IP link set pb6 name pq6
	inns b $IP link set pq6 up
	expect_eq "renamed: still bound" "tapb active (ifindex $idx)" \
		"$(dev_state)"
	expect_eq "renamed: still hooked" "netfilter_hooks registered" \
		"$(hooks_line)"
	inns b dedupctl reset
	send_f 30 2
	expect_near "renamed: copies dropped" 30 "$(stat_of b dropped)" 2 0
	inns b $IP link set pq6 down
	inns b $IP link set pq6 name pb6
	inns b $IP link set pb6 up
	# a name not there yet, which comes to name pb6 as an altname
	expect_ok "dev pb6,tapc (tapc not there)" inns b dedupctl set \
		hook ingress dev pb6,tapc action drop filter sbf
	inns b $IP link property add dev pb6 altname tapc
	expect_eq "tapc: the same device, hooked once" \
		"pb6 active (ifindex $idx), tapc same as pb6" "$(dev_state)"
	expect_eq "its pings answered" "received 20" "$(pings_answered)"
	inns b $IP link property del dev pb6 altname tapc
	expect_eq "the altname gone: absent" "pb6 active (ifindex $idx), tapc absent" \
		"$(dev_state)"
	inns b $IP link property del dev pb6 altname tapb
	expect_ok "back to prerouting, any device" \
		inns b dedupctl set hook prerouting dev any action count
	t_end
}

# Column COL of named device DEV's row in NS's /proc/net/pktdedup/devices.
dev_stat() {	# NS DEV COL
	inns "$1" cat /proc/net/pktdedup/devices | awk -v d="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i }
		NR > 1 && $1 == d { print $col }'
}

# Each named device's counters, at each placement that names devices (a
# netdev hook on each, a netfilter hook matching them, the XDP program
# on each): two taps into b, pb1 (from a, every datagram once) and pb6
# (from df, every datagram twice). The copies are pb6's alone; the
# devices' sums are the totals; /proc, text, JSON and Prometheus agree;
# a reset zeroes them.
t_dev_counters() {
	t_begin "per-device counters: the tap that sends copies has the duplicates and drops, the other none; sums are the totals; /proc, JSON and Prometheus agree"
	dev_link
	# the debug kernel: the XDP path alone (the netfilter ones count
	# through the same pd_judge()), for time
	_hooks="ingress prerouting xdp-generic"
	[ "${PD_DEBUG:-0}" = 1 ] && _hooks=xdp-generic
	for hook in $_hooks; do
		expect_ok "$hook dev pb1,pb6" inns b dedupctl set hook "$hook" \
			dev pb1,pb6 action drop filter sbf key packet
		inns b dedupctl reset
		send -4 $A4 $B4 --count 100
		send_f 50 2
		expect_eq "$hook: pb1 packets" 100 "$(dev_stat b pb1 packets)"
		expect_eq "$hook: pb1 duplicates" 0 "$(dev_stat b pb1 duplicates)"
		expect_eq "$hook: pb1 dropped" 0 "$(dev_stat b pb1 dropped)"
		expect_eq "$hook: pb6 packets" 100 "$(dev_stat b pb6 packets)"
		dup=$(dev_stat b pb6 duplicates)
		expect_near "$hook: pb6 duplicates" 50 "$dup" 2 0
		expect_eq "$hook: pb6 dropped" "$dup" "$(dev_stat b pb6 dropped)"
		expect_eq "$hook: pb6 dup_pct" \
			"$(awk -v d="$dup" 'BEGIN { printf "%d.%02d", d, 0 }')" \
			"$(dev_stat b pb6 dup_pct)"
		for c in packets duplicates dropped; do
			expect_eq "$hook: $c, the devices' sum" "$(stat_of b $c)" \
				$(($(dev_stat b pb1 $c) + $(dev_stat b pb6 $c)))
		done
		js=$(inns b dedupctl -j stats | grep -o '{"name":"pb6"[^}]*}')
		expect_eq "$hook: JSON pb6 dropped" "$dup" \
			"$(echo "$js" | json_num dropped)"
		expect_eq "$hook: JSON pb6 packets" 100 \
			"$(echo "$js" | json_num packets)"
		prom=$(inns b dedupctl stats -o prometheus)
		expect_eq "$hook: Prometheus pb6 dropped" "$dup" \
			"$(echo "$prom" | sed -n 's/^pktdedup_device_dropped_packets_total{netns="[0-9]*",dev="pb6"} //p')"
		expect_eq "$hook: Prometheus pb1 packets" 100 \
			"$(echo "$prom" | sed -n 's/^pktdedup_device_packets_total{netns="[0-9]*",dev="pb1"} //p')"
		expect_eq "$hook: text pb6 row" "pb6 100 $dup" \
			"$(inns b dedupctl stats | awk '$1 == "pb6" { print $1, $2, $3 }')"
		inns b dedupctl reset
		expect_eq "$hook: reset" "0 0" \
			"$(dev_stat b pb1 packets) $(dev_stat b pb6 packets)"
	done
	# a device that goes keeps its name's counts; one named anew starts at 0
	send_f 10 2
	inns b $IP link set pb6 netns "$(nspid dg)"
	expect_eq "pb6 gone: its counts kept" 20 "$(dev_stat b pb6 packets)"
	expect_ok "pb6 kept, pb1 replaced by px9" inns b dedupctl set dev pb6,px9
	expect_eq "pb6 kept across the change" 20 "$(dev_stat b pb6 packets)"
	expect_eq "px9 from zero" 0 "$(dev_stat b px9 packets)"
	inns dg $IP link set pb6 netns "$(nspid b)"
	dev_up b pb6 10.6.0.2/24
	# disabled with devices named: their counters' memory given back
	inns b dedupctl disable > /dev/null
	expect_eq "disabled: the budget holds what the allocator holds" \
		"$(inns b awk '$1 == "mem_total_allocated" { print $2 }' /proc/net/pktdedup/config)" \
		"$(inns b awk '$1 == "mem_total_held" { print $2 }' /proc/net/pktdedup/config)"
	inns b dedupctl enable > /dev/null
	expect_ok "back to any device" inns b dedupctl set hook prerouting \
		dev any action count
	expect_eq "no device named: no rows" 1 \
		"$(inns b cat /proc/net/pktdedup/devices | wc -l)"
	t_end
}
