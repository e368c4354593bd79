# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Traffic selection (dev, proto, match-mark: packets not selected are not
# counted) and the hooks beyond inet: netdev ingress on named devices
# (copies dropped before PREROUTING sees them) and the bridge family's
# hooks (a bridge between two veths forwards each distinct frame once).
# Sourced by scenarios.sh: uses its namespaces a, b, c and send().

# c reaches b over a second link (pa3 in c, pb3 in b): b's traffic then
# arrives on two devices.
sel_link() {
	[ -n "${SEL_LINKED:-}" ] && return
	link c b 3
	inns c ping -c 1 -W 2 10.3.0.2 > /dev/null
	_m=$(inns b $IP -o link show pb3 | sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p')
	inns c $IP neigh replace 10.3.0.2 lladdr "$_m" dev pa3 nud permanent
	SEL_LINKED=1
}

# D distinct datagrams C times each from c to b over pb3
send_c() {	# D C [pdnet options]
	_d=$1
	_c=$2
	shift 2
	inns c pdnet send -4 10.3.0.1 10.3.0.2 --count "$_d" --copies "$_c" "$@" \
		> /dev/null || t_fail "pdnet send from c"
	sleep 0.3
}

# The duplicates of D distinct packets sent C times, within b's bounds
expect_dups() {	# WHAT D C
	_fp=$(tolerance "$2" "$(fp_rate b)")
	_fn=$(tolerance $(($2 * ($3 - 1))) "$(fn_rate b 1)")
	expect_near "$1" $(($2 * ($3 - 1))) "$(stat_of b duplicates)" "$_fn" "$_fp"
}

t_select_dev() {
	t_begin "select dev: only the named devices' packets are counted"
	sel_link
	expect_ok "dev pb1" inns b dedupctl set mem 4M dev pb1
	inns b dedupctl reset
	send -4 $A4 $B4 --count 100 --copies 2
	send_c 150 2
	expect_eq "packets (pb1's only)" 200 "$(stat_of b packets)"
	expect_dups "duplicates (pb1's only)" 100 2
	expect_eq "show" "select   dev pb1, proto any, match-mark any" \
		"$(inns b dedupctl show | grep '^select')"
	expect_eq "/proc config" "dev pb1" \
		"$(inns b grep '^dev ' /proc/net/pktdedup/config)"
	expect_eq "JSON" '"pb1"' \
		"$(inns b dedupctl -j show | sed -n 's/.*"dev":\("[^"]*"\).*/\1/p')"
	expect_ok "dev pb1,pb3" inns b dedupctl set dev pb1,pb3
	inns b dedupctl reset
	send -4 $A4 $B4 --count 100 --copies 2
	send_c 150 2
	expect_eq "packets (both)" 500 "$(stat_of b packets)"
	# a name not there (yet): set, said to be absent, selecting nothing
	expect_eq "a device not there: a note" \
		"dedupctl: note: dev nosuch0: not in this namespace now; hooked when it appears ('dedupctl show' says when)" \
		"$(inns b dedupctl set dev pb1,nosuch0 2>&1 |
		   grep -v 'note: dev pb1,nosuch0 with scope percpu')"
	expect_eq "/proc: absent" "pb1 active (ifindex $(ifindex_of b pb1)), nosuch0 absent" \
		"$(inns b sed -n 's/^dev_state //p' /proc/net/pktdedup/config)"
	expect_fail "not a device name (dedupctl)" 2 "'a/b' is not a device name" \
		inns b dedupctl set dev pb1,a/b
	expect_fail "not a device name (the module)" 1 "dev: not a device name" \
		inns b pdnl send set-config config.devs.name=str:a/b
	expect_eq "refused: the selection kept" "dev pb1,nosuch0" \
		"$(inns b grep '^dev ' /proc/net/pktdedup/config)"
	expect_fail "nine devices" 2 "at most 8" \
		inns b dedupctl set dev lo,lo,lo,lo,lo,lo,lo,lo,lo
	expect_ok "dev any" inns b dedupctl set dev any
	inns b dedupctl reset
	send_c 150 2
	expect_eq "packets (any device)" 300 "$(stat_of b packets)"
	expect_eq "/proc config" "dev any" \
		"$(inns b grep '^dev ' /proc/net/pktdedup/config)"
	t_end
}

t_select_proto() {
	t_begin "select proto: other protocols are not counted"
	expect_ok "proto udp" inns b dedupctl set mem 4M proto udp
	inns b dedupctl reset
	send -4 $A4 $B4 --count 100 --copies 2
	send -4 $A4 $B4 --count 70 --copies 2 --first 1000 --proto 253
	inns a ping -c 4 -i 0.2 -W 1 $B4 > /dev/null
	expect_eq "packets (UDP only)" 200 "$(stat_of b packets)"
	expect_dups "duplicates (UDP only)" 100 2
	expect_ok "proto icmp,253" inns b dedupctl set proto icmp,253
	expect_eq "/proc config" "protos 1,253" \
		"$(inns b grep '^protos ' /proc/net/pktdedup/config)"
	expect_eq "show" "select   dev any, proto icmp,253, match-mark any" \
		"$(inns b dedupctl show | grep '^select')"
	inns b dedupctl reset
	send -4 $A4 $B4 --count 100 --copies 2
	send -4 $A4 $B4 --count 70 --copies 2 --first 1000 --proto 253
	inns a ping -c 4 -i 0.2 -W 1 $B4 > /dev/null
	# ICMP: the 4 echo requests (b's replies leave by output)
	expect_eq "packets (protocol 253 and ICMP)" 144 "$(stat_of b packets)"
	expect_fail "an unknown protocol" 2 "not a protocol" \
		inns b dedupctl set proto tcp,nosuch
	expect_ok "proto any" inns b dedupctl set proto any
	t_end
}

t_select_mark() {
	t_begin "select match-mark: an nft rule decides what pktdedup looks at"
	# marks UDP to port 9001 before pktdedup's hook (priority -450)
	inns b nft -f - <<-'EOF'
	table inet pdsel {
		chain pre {
			type filter hook prerouting priority -500; policy accept;
			udp dport 9001 meta mark set meta mark | 0x4
		}
	}
	EOF
	expect_ok "match-mark 0x4/0x4" inns b dedupctl set mem 4M match-mark 0x4/0x4
	inns b dedupctl reset
	send -4 $A4 $B4 --count 100 --copies 2 --port 9000
	send -4 $A4 $B4 --count 120 --copies 3 --first 500 --port 9001
	expect_eq "packets (marked only)" 360 "$(stat_of b packets)"
	expect_dups "duplicates (marked only)" 120 3
	expect_eq "/proc config" "match_mark 0x4/0x4" \
		"$(inns b grep '^match_mark ' /proc/net/pktdedup/config)"
	expect_fail "value outside the mask" 1 "outside the mask" \
		pdnl_mark_outside
	expect_ok "match-mark any" inns b dedupctl set match-mark any
	inns b dedupctl reset
	send -4 $A4 $B4 --count 100 --copies 2 --port 9000
	expect_eq "packets (any mark)" 200 "$(stat_of b packets)"
	inns b nft delete table inet pdsel
	t_end
}

# A match-mark value outside its mask, past dedupctl's own check: the
# kernel's refusal (extack) through pdnl.
pdnl_mark_outside() {
	inns b pdnl send set-config config.match-mark-value=u32:3 \
		config.match-mark-mask=u32:1
}

t_ingress() {
	t_begin "hook ingress: copies dropped before PREROUTING sees them"
	sel_link
	expect_fail "ingress without a device" 1 "name the devices" \
		inns b dedupctl set hook ingress dev any
	pre_counter b pding
	expect_ok "hook ingress dev pb1 action drop" \
		inns b dedupctl set mem 4M hook ingress dev pb1 action drop \
		filter sbf key flow force
	expect_ok "key packet" inns b dedupctl set key packet
	inns b dedupctl reset
	got=$(received_of -4 $A4 $B4 --count 300 --copies 3)
	fp=$(tolerance 300 "$(fp_rate b)")
	fn=$(tolerance 600 "$(fn_rate b 1)")
	pre=$(pre_count b pding)
	expect_near "PREROUTING saw (nft counter)" 300 "$pre" "$fp" "$fn"
	expect_near "datagrams received" 300 "$got" "$fp" "$fn"
	expect_eq "dropped + PREROUTING = sent" 900 $(($(stat_of b dropped) + pre))
	# pb3 is not hooked: c's copies all reach PREROUTING
	send_c 50 2
	pre2=$(pre_count b pding)
	expect_eq "pb3 not hooked" $((pre + 100)) "$pre2"
	# ARP is not IP: counted, passed (b answers every request)
	inns b dedupctl reset
	inns a arping -c 3 -w 5 -I pa1 $B4 > /tmp/arping.out 2>&1
	expect_eq "non-IP frames (ARP requests)" 3 \
		"$(inns b sed -n 's/^nonip //p' /proc/net/pktdedup/stats)"
	expect_eq "ARP replies" 3 "$(grep -c 'reply from' /tmp/arping.out)"
	expect_eq "non-IP frames are not packets" 0 "$(stat_of b packets)"
	expect_eq "JSON nonip" 3 "$(inns b dedupctl -j stats | json_num nonip)"
	# IPv6 at ingress: copies dropped as well
	inns b dedupctl reset
	send -6 $A6 $B6 --count 100 --copies 2
	expect_eq "IPv6 at ingress: packets" 200 "$(stat_of b packets)"
	expect_dups "IPv6 at ingress: duplicates" 100 2
	expect_eq "IPv6 at ingress: dropped = duplicates" \
		"$(stat_of b duplicates)" "$(stat_of b dropped)"
	# every key and action at ingress: flow key, mark
	expect_ok "key flow action mark" \
		inns b dedupctl set key flow action mark mark 0x20/0x20
	inns b dedupctl reset
	send -4 $A4 $B4 --count 40 --copies 2 --flows 10
	expect_eq "flow key: packets" 80 "$(stat_of b packets)"
	expect_eq "flow key: marked = duplicates" "$(stat_of b duplicates)" \
		"$(stat_of b marked)"
	# a flow's packets come 20 packets apart
	expect_near "flow key: duplicates" 70 "$(stat_of b duplicates)" \
		"$(tolerance 70 "$(fn_rate b 20)")" "$(tolerance 10 "$(fp_rate b)")"
	# the hooked device goes away while hooked, then comes back
	inns b $IP link add pdx0 type veth peer name pdx1
	expect_ok "hook pdx0" inns b dedupctl set dev pb1,pdx0 action count key packet
	expect_eq "two ingress hooks" "dev pb1,pdx0" \
		"$(inns b grep '^dev ' /proc/net/pktdedup/config)"
	inns b $IP link del pdx0
	expect_ok "show after the device went" inns b dedupctl show
	inns b dedupctl reset
	send -4 $A4 $B4 --count 50 --copies 2
	expect_eq "pb1 still hooked" 100 "$(stat_of b packets)"
	expect_eq "a gone device: set, absent" "pb1 active (ifindex $(ifindex_of b pb1)), pdx0 absent" \
		"$(inns b dedupctl set dev pb1,pdx0 2> /dev/null &&
		   inns b sed -n 's/^dev_state //p' /proc/net/pktdedup/config)"
	expect_ok "back to prerouting" \
		inns b dedupctl set hook prerouting dev any action count key packet
	inns b nft delete table inet pding
	t_end
}

# x -- [p5 br0 p6] -- y: namespace br bridges x (10.9.0.1) and y
# (10.9.0.2); its instance is the one under test.
bridge_setup() {
	[ -n "${BR_SET:-}" ] && return
	mkns x
	mkns y
	mkns br
	inns br $IP link add br0 type bridge
	inns br sh -c "echo 1 > /proc/sys/net/ipv6/conf/br0/disable_ipv6"
	for _s in "x 5" "y 6"; do
		set -- $_s
		veth_pair "$1" "pa$2" br "pb$2"
		inns br $IP link set "pb$2" master br0 up
		inns "$1" $IP link set "pa$2" up
	done
	inns x $IP addr add 10.9.0.1/24 dev pa5
	inns y $IP addr add 10.9.0.2/24 dev pa6
	inns br $IP link set br0 up
	inns x ping -c 1 -W 2 10.9.0.2 > /dev/null
	_mx=$(inns x $IP -o link show pa5 | sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p')
	_my=$(inns y $IP -o link show pa6 | sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p')
	inns x $IP neigh replace 10.9.0.2 lladdr "$_my" dev pa5 nud permanent
	inns y $IP neigh replace 10.9.0.1 lladdr "$_mx" dev pa6 nud permanent
	BR_SET=1
}

# Datagrams y receives of D distinct packets C times each from x
bridged() {	# D C
	inns y pdnet recv 9000 1500 > /tmp/brrecv.out &
	_rp=$!
	sleep 0.5
	inns x pdnet send -4 10.9.0.1 10.9.0.2 --count "$1" --copies "$2" \
		> /dev/null || t_fail "pdnet send from x"
	wait $_rp
	sed -n 's/^received //p' /tmp/brrecv.out
}

t_bridge() {
	t_begin "hook bridge-*: a bridge between two veths forwards each distinct frame once"
	bridge_setup
	expect_ok "bridge-prerouting, drop" \
		inns br dedupctl set mem 4M hook bridge-prerouting action drop \
		filter sbf
	inns br dedupctl reset
	got=$(bridged 250 3)
	fp=$(tolerance 250 "$(fp_rate br)")
	fn=$(tolerance 500 "$(fn_rate br 1)")
	expect_near "y received" 250 "$got" "$fp" "$fn"
	expect_eq "packets" 750 "$(stat_of br packets)"
	expect_near "dropped" 500 "$(stat_of br dropped)" "$fn" "$fp"
	# bridge-forward, flow key, counting; selected by the ingress port
	expect_ok "bridge-forward, flow key, dev pb5" \
		inns br dedupctl set hook bridge-forward action count key flow dev pb5
	inns br dedupctl reset
	got=$(bridged 100 2)
	expect_eq "y received all (count)" 200 "$got"
	expect_eq "packets" 200 "$(stat_of br packets)"
	expect_near "duplicates (one flow per packet)" 100 \
		"$(stat_of br duplicates)" "$(tolerance 100 "$(fn_rate br 1)")" \
		"$(tolerance 100 "$(fp_rate br)")"
	expect_ok "dev pb6 (the other port)" inns br dedupctl set dev pb6
	inns br dedupctl reset
	got=$(bridged 100 2)
	expect_eq "nothing from pb6" 0 "$(stat_of br packets)"
	# ARP through the bridge: not IP
	inns br dedupctl set dev any
	inns br dedupctl reset
	inns x arping -c 2 -w 4 -I pa5 10.9.0.2 > /dev/null 2>&1
	expect_eq "non-IP frames (requests and replies)" 4 \
		"$(inns br sed -n 's/^nonip //p' /proc/net/pktdedup/stats)"
	expect_ok "disable" inns br dedupctl disable
	t_end
}
