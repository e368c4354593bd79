# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Copies inside tunnels (config decap): the kernel's own tunnel devices
# carry the copies, as a mirror would send them to a capture host. The
# same packets (pdnet: raw IP, byte-identical) leave the mirror once bare
# and once through a tunnel (the route to them changed in between); with
# decap the capture host finds every copy by the packet inside, at
# prerouting, ingress and XDP; without decap none; with tunnel-id include
# only the copies of one session. Sourced by scenarios.sh.
#
# tm -- pa20 ~ pb20 -- tc: a mirror and the capture host (10.20.0.1, .2;
# fd20::1, ::2); tm2 -- pa21 ~ pb21 -- tc: a second mirror (10.21.0.1,
# .2). The mirrored packets go from 10.98.0.1 to 10.99.0.2 (fd98::1 to
# fd99::2), which the capture host does not answer for.

TUN_N=50

# The tunnel modules (copied, not loaded at boot: tests/vm/vm.sh; init.sh
# keeps their fallback devices out of the namespaces).
tun_modules() {
	while read -r _m; do
		insmod "/lib/pd/$_m" 2> /dev/null
	done < /lib/pd/order-tunnels
}

# Device DEV in NS: no IPv6 (no ND or MLD through it), up.
tun_up() {	# NS DEV
	inns "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$2/disable_ipv6"
	inns "$1" $IP link set "$2" up
}

# An L2 tunnel DEV in NS: the mirrored hosts' neighbour fixed (no ARP).
tun_l2() {	# NS DEV
	tun_up "$1" "$2"
	inns "$1" $IP neigh replace 10.99.0.2 lladdr 02:00:00:00:99:02 \
		dev "$2" nud permanent
}

tun_link() {
	[ -n "${TUN_LINKED:-}" ] && return
	tun_modules
	mkns tm
	mkns tm2
	mkns tc
	link tm tc 20
	link tm2 tc 21
	# IPv6 on the first (link's V6 names prefixes by one digit)
	for _e in "tm pa20 1" "tc pb20 2"; do
		set -- $_e
		inns "$1" sh -c "echo 0 > /proc/sys/net/ipv6/conf/$2/router_solicitations; echo 0 > /proc/sys/net/ipv6/conf/$2/accept_dad; echo 0 > /proc/sys/net/ipv6/conf/$2/disable_ipv6"
		inns "$1" $IP -6 addr add "fd20::$3/64" dev "$2" nodad
	done
	# neighbours fixed both ways: no ARP or ND during a count
	_ma=$(mac_of tm pa20)
	_mb=$(mac_of tc pb20)
	_ma2=$(mac_of tm2 pa21)
	_mb2=$(mac_of tc pb21)
	inns tm $IP neigh replace 10.20.0.2 lladdr "$_mb" dev pa20 nud permanent
	inns tm $IP neigh replace fd20::2 lladdr "$_mb" dev pa20 nud permanent
	inns tm2 $IP neigh replace 10.21.0.2 lladdr "$_mb2" dev pa21 nud permanent
	inns tc $IP neigh replace 10.20.0.1 lladdr "$_ma" dev pb20 nud permanent
	inns tc $IP neigh replace fd20::1 lladdr "$_ma" dev pb20 nud permanent
	inns tc $IP neigh replace 10.21.0.1 lladdr "$_ma2" dev pb21 nud permanent
	_l="local 10.20.0.1 remote 10.20.0.2"
	inns tm $IP link add vx42 type vxlan id 42 dstport 4789 $_l dev pa20
	inns tm $IP link add vx43 type vxlan id 43 dstport 4789 $_l dev pa20
	inns tm $IP link add vx8472 type vxlan id 42 dstport 8472 $_l dev pa20
	inns tm $IP link add gnv7 type geneve id 7 remote 10.20.0.2
	inns tm $IP link add gre5 type gre $_l key 5 csum seq
	inns tm $IP link add gtap type gretap $_l
	inns tm $IP link add g6tap type ip6gretap local fd20::1 remote fd20::2
	inns tm $IP link add ersp2 type erspan $_l seq key 10 erspan_ver 1 \
		erspan 123
	inns tm $IP link add ersp3 type erspan $_l seq key 11 erspan_ver 2 \
		erspan_dir egress erspan_hwid 7
	inns tm $IP link add ipip1 type ipip $_l
	inns tm $IP link add sit1 type sit $_l
	inns tm2 $IP link add vx42 type vxlan id 42 dstport 4789 \
		local 10.21.0.1 remote 10.21.0.2 dev pa21
	for _d in vx42 vx43 vx8472 gnv7 gtap g6tap ersp2 ersp3; do
		tun_l2 tm $_d
	done
	tun_l2 tm2 vx42
	for _d in gre5 ipip1; do
		tun_up tm $_d
	done
	# IPv6 inside: no router solicitation, no DAD
	inns tm sh -c "echo 0 > /proc/sys/net/ipv6/conf/sit1/router_solicitations; echo 0 > /proc/sys/net/ipv6/conf/sit1/accept_dad"
	inns tm $IP link set sit1 up
	inns tm $IP -6 route add fd99::/64 via fd20::2 dev pa20
	inns tm $IP route add 10.99.0.0/24 via 10.20.0.2 dev pa20
	inns tm2 $IP route add 10.99.0.0/24 via 10.21.0.2 dev pa21
	inns tm ping -c 1 -W 2 10.20.0.2 > /dev/null
	inns tm2 ping -c 1 -W 2 10.21.0.2 > /dev/null
	sleep 3		# MLD reports of the links' start pass
	TUN_LINKED=1
	TUN_FIRST=0
}

# Packets N distinct, numbered from a new first index each time, from
# mirror NS through DEV (bare: the underlay), IPv4 or IPv6 (V 4 or 6).
# The next send with the same KEEP=1 repeats the same packets.
tun_send() {	# NS DEV V
	_dev=$2
	if [ "$3" = 6 ]; then
		if [ "$_dev" = bare ]; then
			inns "$1" $IP -6 route replace fd99::/64 via fd20::2 dev pa20
		else
			inns "$1" $IP -6 route replace fd99::/64 dev "$_dev"
		fi
		inns "$1" pdnet send -6 fd98::1 fd99::2 --count $TUN_N \
			--first $TUN_FIRST > /dev/null
		return
	fi
	_gw="via 10.20.0.2 dev pa20"
	[ "$1" = tm2 ] && _gw="via 10.21.0.2 dev pa21"
	if [ "$_dev" = bare ]; then
		inns "$1" $IP route replace 10.99.0.0/24 $_gw
	else
		inns "$1" $IP route replace 10.99.0.0/24 dev "$_dev"
	fi
	inns "$1" pdnet send -4 10.98.0.1 10.99.0.2 --count $TUN_N \
		--first $TUN_FIRST > /dev/null
}

# The frames (or errors: E=errors) of encapsulation NAME in tc.
decap_of() {	# NAME [errors]
	inns tc cat /proc/net/pktdedup/stats | awk -v n="$1" -v e="${2:-}" '
		$1 == "decap" && $2 == n { print e == "" ? $3 : $5 }'
}

# One case: TUN_N packets bare from tm (or through FIRST), then through
# DEV of mirror NS; tc's duplicates, packets and NAME's frames grow by
# DUPS, 2 x TUN_N and TUN_N (or 0 when not looked into).
tun_case() {	# WHAT NS DEV NAME V DUPS [FIRST [FIRST_NS]]
	_p0=$(stat_of tc packets)
	_d0=$(stat_of tc duplicates)
	_f0=$(decap_of "$4")
	tun_send "${8:-tm}" "${7:-bare}" "$5"
	tun_send "$2" "$3" "$5"
	TUN_FIRST=$((TUN_FIRST + 1000))
	sleep 0.2
	_fp=$(tolerance $((2 * TUN_N)) "$(fp_rate tc)")
	_fn=0
	[ "$6" -gt 0 ] && _fn=$(tolerance "$6" "$(fn_rate tc $TUN_N)")
	expect_eq "$1: packets" $((2 * TUN_N)) $(($(stat_of tc packets) - _p0))
	expect_near "$1: duplicates" "$6" \
		$(($(stat_of tc duplicates) - _d0)) "$_fn" "$_fp"
	if [ -n "$_f0" ]; then
		_want=$TUN_N
		[ "${7:-bare}" != bare ] && _want=$((2 * TUN_N))
		expect_eq "$1: $4 frames" "$_want" $(($(decap_of "$4") - _f0))
	fi
}

# Every encapsulation through the kernel's devices, at hook HOOK (its
# devices: tc's underlay ends).
tun_each() {	# LABEL SETTINGS...
	_lab=$1
	shift
	expect_ok "$_lab" inns tc dedupctl set decap all tunnel-id ignore \
		mem 1M "$@"
	inns tc dedupctl reset
	tun_case "$_lab vxlan" tm vx42 vxlan 4 $TUN_N
	tun_case "$_lab geneve" tm gnv7 geneve 4 $TUN_N
	tun_case "$_lab gre (key, checksum, sequence)" tm gre5 gre 4 $TUN_N
	tun_case "$_lab gretap" tm gtap gre 4 $TUN_N
	tun_case "$_lab ip6gretap" tm g6tap gre 4 $TUN_N
	tun_case "$_lab erspan II" tm ersp2 erspan 4 $TUN_N
	tun_case "$_lab erspan III" tm ersp3 erspan 4 $TUN_N
	tun_case "$_lab ipip" tm ipip1 ip 4 $TUN_N
	tun_case "$_lab sit" tm sit1 ip 6 $TUN_N
	expect_eq "$_lab: unparsed" 0 "$(stat_of tc unparsed)"
}

t_tunnels() {
	t_begin "copies inside VXLAN, GENEVE, GRE, gretap, ip6gretap, ERSPAN II and III, IPIP and SIT are found by the packet they carry at prerouting, ingress and XDP"
	tun_link
	inns tc dedupctl enable > /dev/null
	tun_each "prerouting" hook prerouting
	tun_each "ingress" hook ingress dev pb20
	tun_each "xdp" hook xdp dev pb20
	# GTP-U: no kernel device sends it; pdnet wraps the packets
	expect_ok "GTP-U looked into" inns tc dedupctl set decap gtpu hook \
		prerouting dev any
	_p0=$(stat_of tc packets)
	_d0=$(stat_of tc duplicates)
	tun_send tm bare 4
	inns tm pdnet send -4 10.98.0.1 10.99.0.2 --count $TUN_N \
		--first $TUN_FIRST --gtpu 10.20.0.1 10.20.0.2 0x1234 > /dev/null
	TUN_FIRST=$((TUN_FIRST + 1000))
	sleep 0.2
	expect_eq "gtpu: packets" $((2 * TUN_N)) $(($(stat_of tc packets) - _p0))
	expect_eq "gtpu: duplicates" $TUN_N $(($(stat_of tc duplicates) - _d0))
	expect_eq "gtpu: frames" $TUN_N "$(decap_of gtpu)"
	# not looked into: the tunnels' packets are their own
	expect_ok "decap none" inns tc dedupctl set decap none
	tun_case "none: vxlan" tm vx42 vxlan 4 0
	tun_case "none: erspan III" tm ersp3 erspan 4 0
	# only what is named
	expect_ok "decap gre" inns tc dedupctl set decap gre
	tun_case "gre only: gretap" tm gtap gre 4 $TUN_N
	tun_case "gre only: erspan II" tm ersp2 erspan 4 0
	# a port of one's own (Linux's VXLAN default, 8472): only once named;
	# two UDP tunnels on one port are refused, and nothing changes
	expect_ok "decap vxlan" inns tc dedupctl set decap vxlan
	tun_case "vxlan on 8472, not named" tm vx8472 - 4 0
	expect_ok "vxlan-port 8472" inns tc dedupctl set vxlan-port 8472
	tun_case "vxlan on 8472, named" tm vx8472 vxlan 4 $TUN_N
	expect_fail "geneve on vxlan's port" 1 "must differ" \
		inns tc dedupctl set decap vxlan,geneve geneve-port 8472
	expect_eq "decap unchanged" "decap vxlan" \
		"$(inns tc grep '^decap' /proc/net/pktdedup/config)"
	expect_ok "back to the defaults" inns tc dedupctl set decap none \
		vxlan-port 4789 mem 256K
	t_end
}

t_tunnel_sessions() {
	t_begin "tunnel-id include: only copies of one session (VNI 42 from two mirrors) are copies; ignore: all"
	tun_link
	inns tc dedupctl enable > /dev/null
	expect_ok "tunnel-id include" inns tc dedupctl set decap vxlan \
		tunnel-id include mem 1M
	tun_case "VNI 42 from tm and tm2" tm2 vx42 vxlan 4 $TUN_N vx42
	tun_case "VNI 42 and VNI 43" tm vx43 vxlan 4 0 vx42
	tun_case "bare and VNI 42" tm vx42 vxlan 4 0
	expect_ok "tunnel-id ignore" inns tc dedupctl set tunnel-id ignore
	tun_case "VNI 42 and VNI 43, ignored" tm vx43 vxlan 4 $TUN_N vx42
	# the source analytics count the mirrored hosts, not the mirrors
	expect_ok "sources on" inns tc dedupctl sources on window 10s \
		counters 64
	tun_send tm vx42 4
	tun_send tm2 vx42 4
	TUN_FIRST=$((TUN_FIRST + 1000))
	_top=$(inns tc dedupctl -j top 5)
	echo "#   $_top"
	echo "$_top" | grep -q '"addr":"10.98.0.1"' ||
		t_fail "the inner source is not among the top talkers"
	echo "$_top" | grep -q '"addr":"10.2[01].0.1"' &&
		t_fail "a mirror's address is counted as a source"
	expect_ok "sources off" inns tc dedupctl sources off counters 0
	expect_ok "back to the defaults" inns tc dedupctl set decap none \
		tunnel-id ignore mem 256K
	t_end
}

# A malformed tunnel header is counted (unparsed, and against its
# encapsulation) and the packet passed: pdnet's datagrams to the VXLAN
# port, whose first payload byte (the packet's number, 0-7) lacks the
# VXLAN I flag (0x08).
t_tunnel_malformed() {
	t_begin "a malformed tunnel header: unparsed, counted against its encapsulation, passed"
	tun_link
	inns tc dedupctl enable > /dev/null
	expect_ok "decap all, drop" inns tc dedupctl set decap all action drop
	inns tc dedupctl reset
	_u0=$(stat_of tc unparsed)
	# VXLAN without its I flag: UDP to 4789 from pdnet's raw sender
	inns tm pdnet send -4 10.20.0.1 10.20.0.2 --count 8 --port 4789 \
		--copies 2 > /dev/null
	sleep 0.2
	expect_eq "unparsed" 16 $(($(stat_of tc unparsed) - _u0))
	expect_eq "vxlan errors" 16 "$(decap_of vxlan errors)"
	expect_eq "dropped" 0 "$(stat_of tc dropped)"
	expect_ok "back to the defaults" inns tc dedupctl set decap none \
		action count
	t_end
}
