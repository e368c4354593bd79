# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The packet key covers every byte (payload all, the default) on real
# traffic, wherever the kernel keeps a packet's bytes. Sourced by
# scenarios.sh.
#
# t_keyall_evasion: the evasion capture (tests/vm/evasion_capture.py,
# made on the host) replayed into an instance at each hook:
#
#   kr (pdnet replay) -- kra ~ krb [the capture's destination MAC] -- kb
#
# kr has no address and no IPv6; krb has none either (IPv6 on, or
# ipv6_rcv would drop the IPv6 frames before PREROUTING), and kb routes
# nothing: the frames end after PREROUTING, where an nftables chain after
# pktdedup's hook (-450) counts what it let through.
#
# t_keyall_large: datagrams of 8000 bytes from a UDP socket (pdnet dgram)
# over a veth pair of MTU 9000, ks (10.5.0.1, fd05::1) -- pa5 ~ pb5 -- kc
# (.2, ::2): skbs whose payload is in page fragments at PREROUTING (the
# socket's UDP_SEGMENT makes the kernel build them so), frames of three
# buffers at native XDP (veth copies a frame for XDP into pages: a first
# buffer of at most 3520 bytes, then fragments of a page), and trains of
# datagrams that GRO merges into one skb (a frag list, or page fragments)
# before PREROUTING. Each exact copy is dropped; a copy that differs only
# in its last byte is delivered, and with payload 64 dropped (the control:
# such a copy fools a partial key).

KA=/lib/pd/keyall

# The plan's NAME of NS's instance (k, p, cells; empty if it has none).
plan_num() {	# NS NAME
	inns "$1" dedupctl -j show | grep -o '"plan":{[^}]*}' | json_num "$2"
}

# How likely NS's filter is to err on N_NEW distinct packets each after at
# most N_PRIOR others, and on N_COPIES copies GAP packets after their
# originals, in a filter emptied by reset: a new packet is taken for a
# copy only if its first probe is among the at most k N_PRIOR cells the
# others set (probability k N_PRIOR / m) and, with TWO (the windows'
# double hashing: the second probe is the first plus an odd stride of h2,
# each cell at most 2 / m likely), its second one too; a copy is missed
# only if a decrement run emptied one of its k cells in between (k p GAP
# / m, SBF). The sum bounds the chance that an exact count is off.
keyall_chance() {	# NS N_NEW N_PRIOR N_COPIES GAP [TWO]
	awk -v k="$(plan_num "$1" k)" -v p="$(plan_num "$1" p)" \
		-v m="$(plan_num "$1" cells)" -v nn="$2" -v np="$3" \
		-v nc="$4" -v g="$5" -v two="${6:-0}" 'BEGIN {
		f = k * np / m
		if (two) f *= 2 * k * np / m
		printf "%.3g\n", nn * f + nc * k * (p + 0) * g / m }'
}

# Whether a chance (keyall_chance) is small enough for exact counts.
keyall_small() {	# CHANCE
	awk -v c="$1" 'BEGIN { exit !(c < 0.001) }'
}

keyall_link() {
	[ -n "${KEYALL_LINKED:-}" ] && return
	mkns kr
	mkns kb
	inns kr sh -c 'for c in all default; do echo 1 > /proc/sys/net/ipv6/conf/$c/disable_ipv6; done'
	veth_pair kr kra kb krb
	inns kb $IP link set krb address "$EVASION_DST_MAC"
	inns kb sh -c 'c=/proc/sys/net/ipv6/conf/krb; echo 0 > $c/router_solicitations; echo 0 > $c/accept_dad; echo 0 > $c/disable_ipv6'
	inns kr $IP link set kra up
	inns kb $IP link set krb up
	KEYALL_LINKED=1
}

# After pktdedup's hook at PREROUTING: the pairs' IPv4 and IPv6 segments
# (TTL, hop limit 64) and the router copy (TTL 63), counted from zero.
keyall_nft() {
	inns kb nft delete table inet keyall 2> /dev/null
	inns kb nft -f - <<-EOF
	table inet keyall {
		chain pre {
			type filter hook prerouting priority 0; policy accept;
			ip ttl $EVASION_TTL counter
			ip6 hoplimit $EVASION_TTL counter
			ip ttl $((EVASION_TTL - 1)) counter
		}
	}
	EOF
}

# The capture replayed from zero counts; then, once every frame was judged
# and every frame let through was counted after the hook (awaited, 30 s at
# most), "P packets, D dropped, V4 IPv4 + V6 IPv6 segments and C copies
# through, U unparsed", and in /tmp/keyall-gap how long after frame 8's
# send began frame 9's returned (us): the longest the module can have
# seen between them, unless ksoftirqd took the sender's softirqs.
keyall_replay() {
	keyall_nft
	inns kb dedupctl reset
	# (run in $(...): a failure is said on stderr and in the counts)
	inns kr pdnet replay $KA/evasion.pcap kra --times > /tmp/keyall-times ||
		echo "#   pdnet replay failed: $(cat /tmp/keyall-times)" >&2
	awk '$1 == "frame" { s[$2] = $3; e[$2] = $4 }
		END { print e[9] - s[8] }' /tmp/keyall-times > /tmp/keyall-gap
	_t=$(($(uptime_ms) + 30000))
	while :; do
		_p=$(stat_of kb packets)
		_d=$(stat_of kb dropped)
		_c=$(inns kb nft list chain inet keyall pre |
			sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
		_c4=$(echo "$_c" | sed -n 1p)
		_c6=$(echo "$_c" | sed -n 2p)
		_cc=$(echo "$_c" | sed -n 3p)
		[ "$_p" = "$EVASION_FRAMES" ] &&
			[ $((${_d:-0} + ${_c4:-0} + ${_c6:-0} + ${_cc:-0})) = "$_p" ] &&
			break
		[ "$(uptime_ms)" -ge $_t ] && break
		sleep 0.1
	done
	echo "$_p packets, $_d dropped, $_c4 IPv4 + $_c6 IPv6 segments and $_cc copies through, $(stat_of kb unparsed) unparsed"
}

t_keyall_evasion() {
	t_begin "the whole packet key on a capture: pairs equal in headers, checksums and 200 payload bytes delivered, their router copy dropped (prerouting, ingress, xdp; sbf, sliding 2 ms); payload 64 drops the pairs' seconds"
	if ! [ -f $KA/evasion.sh ] || ! [ -f $KA/evasion.pcap ]; then
		t_fail "no capture in $KA: tests/vm/evasion_capture.py runs on the host before the guest boots"
		t_end
		return
	fi
	. $KA/evasion.sh
	keyall_link
	_v6=$((EVASION_FRAMES - EVASION_V4))
	# every segment through, the copy dropped
	want="$EVASION_FRAMES packets, $EVASION_COPIES dropped, $((EVASION_V4 - EVASION_COPIES)) IPv4 + $_v6 IPv6 segments and 0 copies through, 0 unparsed"
	# a key of up to 200 payload bytes: each pair's second dropped too
	fooled="$EVASION_FRAMES packets, $EVASION_FOOLED dropped, $(((EVASION_V4 - EVASION_COPIES) / 2)) IPv4 + $((_v6 / 2)) IPv6 segments and 0 copies through, 0 unparsed"
	# the SBF at each hook; payload 64 at prerouting;
	# then the 2 ms sliding window, back through the hooks
	for run in "sbf prerouting" "64 prerouting" "sbf ingress" "sbf xdp" \
		"sliding xdp" "sliding ingress" "sliding prerouting"; do
		f=${run%% *}
		h=${run#* }
		dev=
		[ "$h" = prerouting ] || dev="dev krb"
		case $f in
		sbf) set -- filter sbf payload all ;;
		64) set -- filter sbf payload 64 ;;
		sliding) set -- filter sliding window 2ms rate 1M ;;
		esac
		# shellcheck disable=SC2086
		expect_ok "$h: $*" inns kb dedupctl set action drop \
			scope shared hook $h $dev "$@"
		if [ "$h" = xdp ]; then
			expect_eq "$run: attached" \
				"krb active (ifindex $(ifindex_of kb krb))" \
				"$(xdp_wait kb)"
			expect_eq "$run: native XDP" xdp "$(xdp_on kb krb)"
		fi
		# the pairs' seconds are new packets after 1, 3, 5, 7 others;
		# the copy comes 1 packet after its original
		c=$(keyall_chance kb 4 7 1 1 \
			"$([ "$f" = sliding ] && echo 1)")
		keyall_small "$c" ||
			t_fail "$run: the filter leaves exact counts to chance: $c"
		w=$want
		[ "$f" = 64 ] && w=$fooled
		got=$(keyall_replay)
		# a copy the module saw more than the window after its
		# original is not one (a vCPU descheduled between two sends
		# on a loaded host; the sender's softirqs left to
		# ksoftirqd): when only the copy went through, the window
		# is tried again on a new replay, 5 at most, each saying
		# how long after its original the sender sent the copy
		n=1
		while [ "$f" = sliding ] && [ $n -lt 5 ] &&
			[ "$got" = "$(echo "$w" | sed 's/ 1 dropped/ 0 dropped/; s/0 copies/1 copies/')" ]; do
			echo "#   $run: the copy went through, sent up to $(cat /tmp/keyall-gap) us after its original (window 2000 us); again"
			got=$(keyall_replay)
			n=$((n + 1))
		done
		expect_eq "$run (P(error) <= $c; frame 9 up to $(cat /tmp/keyall-gap) us after 8)" \
			"$w" "$got"
	done
	expect_ok "back to the defaults" inns kb dedupctl set filter sbf \
		mem 256K hook prerouting dev any
	expect_ok "disable" inns kb dedupctl disable
	t_end
}

# The large datagrams' link: MTU 9000 both ways, neighbours fixed (no ARP
# or ND during a count), and an nftables counter of the datagrams to port
# 9000 that reach INPUT (after PREROUTING and its hook).
keyall_large_link() {
	[ -n "${KEYALL_LARGE_LINKED:-}" ] && return
	mkns ks
	mkns kc
	link ks kc 5 1
	inns ks $IP link set pa5 mtu 9000
	inns kc $IP link set pb5 mtu 9000
	_ma=$(mac_of ks pa5)
	_mb=$(mac_of kc pb5)
	inns ks $IP neigh replace 10.5.0.2 lladdr "$_mb" dev pa5 nud permanent
	inns ks $IP neigh replace fd05::2 lladdr "$_mb" dev pa5 nud permanent
	inns kc $IP neigh replace 10.5.0.1 lladdr "$_ma" dev pb5 nud permanent
	inns kc $IP neigh replace fd05::1 lladdr "$_ma" dev pb5 nud permanent
	KEYALL_LARGE_LINKED=1
}

keyall_in_nft() {
	inns kc nft delete table inet keyall 2> /dev/null
	inns kc nft -f - <<-'EOF'
	table inet keyall {
		chain in {
			type filter hook input priority 0; policy accept;
			udp dport 9000 counter
		}
	}
	EOF
}

# pdnet dgram ARGS from ks to kc, counted from zero; once PACKETS were
# judged and each was dropped or reached INPUT (awaited, 30 s at most): "P
# packets, D dropped, N delivered, U unparsed" (UDP only: traffic
# selection leaves ND and MLD out).
keyall_dgram() {	# PACKETS -4|-6 pdnet-dgram-options...
	_want=$1
	_f=$2
	shift 2
	keyall_in_nft
	inns kc dedupctl reset
	if [ "$_f" = -6 ]; then
		_a="fd05::1 fd05::2"
	else
		_a="10.5.0.1 10.5.0.2"
	fi
	# shellcheck disable=SC2086
	_o=$(inns ks pdnet dgram "$_f" $_a "$@" 2>&1) ||
		echo "#   pdnet dgram $_f $_a $*: $_o" >&2
	_t=$(($(uptime_ms) + 30000))
	while :; do
		_p=$(stat_of kc packets)
		_d=$(stat_of kc dropped)
		_n=$(inns kc nft list chain inet keyall in |
			sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
		[ "$_p" = "$_want" ] && [ $((${_d:-0} + ${_n:-0})) = "$_p" ] &&
			break
		[ "$(uptime_ms)" -ge $_t ] && break
		sleep 0.1
	done
	echo "$_p packets, $_d dropped, $_n delivered, $(stat_of kc unparsed) unparsed"
}

# The skbs that entered pb5's receive path since keyall_trace on (veth
# hands them to __netif_rx: the tracepoint net:netif_rx_entry), and of
# them those with page fragments: "N paged of M"; nothing on a kernel
# without ftrace (the debug kernel's).
keyall_trace() {	# on|off
	[ -d $TRACEFS/events ] ||
		mount -t tracefs tracefs $TRACEFS 2> /dev/null
	_ev=$TRACEFS/events/net/netif_rx_entry
	[ -d $_ev ] || return 0
	if [ "$1" = on ]; then
		echo 'name == "pb5"' > $_ev/filter
		echo > $TRACEFS/trace
		echo 1 > $_ev/enable
		return 0
	fi
	echo 0 > $_ev/enable
	echo "$(grep -c 'netif_rx_entry:.*nr_frags=[1-9]' $TRACEFS/trace) paged of $(grep -c 'netif_rx_entry:' $TRACEFS/trace)"
}

t_keyall_large() {
	t_begin "the whole packet key on 8000-byte datagrams (MTU 9000): exact copies dropped, copies but for the last byte delivered, from page fragments at prerouting and three buffers at xdp; GRO trains at prerouting"
	keyall_large_link
	d=10
	# the debug kernel reads each kind of packet once (IPv6's tail is
	# read as IPv4's) and leaves out the controls, which read 64 bytes
	# as any small packet does: 8 runs of the 20, the run's time
	fams="4 6"
	[ "$PD_DEBUG" = 1 ] && fams=4
	for h in prerouting xdp; do
		dev=
		[ "$h" = xdp ] && dev="dev pb5"
		# shellcheck disable=SC2086
		expect_ok "hook $h" inns kc dedupctl set action drop \
			filter sbf scope shared mem 4M proto udp hook $h $dev
		if [ "$h" = xdp ]; then
			expect_eq "xdp: attached" \
				"pb5 active (ifindex $(ifindex_of kc pb5))" \
				"$(xdp_wait kc)"
			expect_eq "xdp: native" xdp "$(xdp_on kc pb5)"
		fi
		c=$(keyall_chance kc $((2 * d)) $((2 * d)) "$d" 1)
		keyall_small "$c" ||
			t_fail "$h: the filter leaves exact counts to chance: $c"
		echo "#   $h: P(an exact count off) <= $c a run"
		[ "$h" = prerouting ] && keyall_trace on
		for v in $fams; do
			# a payload of 8000 bytes: a frame of 8042 (8062) at
			# XDP, more than a page: one buffer and fragments
			expect_eq "$h, IPv$v: $d x 2 copies" \
				"$((2 * d)) packets, $d dropped, $d delivered, 0 unparsed" \
				"$(keyall_dgram $((2 * d)) "-$v" --size 8000 --count $d)"
			expect_eq "$h, IPv$v: $d x 2 differing in the last byte" \
				"$((2 * d)) packets, 0 dropped, $((2 * d)) delivered, 0 unparsed" \
				"$(keyall_dgram $((2 * d)) "-$v" --size 8000 --count $d --near)"
		done
		if [ "$h" = prerouting ]; then
			# all the datagrams (2 x 2 d a family); ND or MLD
			# (none expected) only in the second count
			_t=$(keyall_trace off)
			set -- $fams
			[ -z "$_t" ] || expect_eq \
				"prerouting: skbs into pb5 with page fragments (net:netif_rx_entry)" \
				"$((4 * d * $#)) paged" "${_t% of *}"
			echo "#   prerouting: $_t skbs into pb5"
		fi
		# the control: a key of 64 payload bytes takes them for copies
		[ "$PD_DEBUG" = 1 ] && continue
		expect_ok "$h: payload 64" inns kc dedupctl set payload 64
		expect_eq "$h, payload 64: $d x 2 differing in the last byte" \
			"$((2 * d)) packets, $d dropped, $d delivered, 0 unparsed" \
			"$(keyall_dgram $((2 * d)) -4 --size 8000 --count $d --near)"
		expect_ok "$h: payload all" inns kc dedupctl set payload all
	done
	# GRO: the sender segments its trains of 8 datagrams, 7 of 1000
	# bytes and one of 999 (no UDP segmentation offload, no TSO: veth
	# then hands them to the receiver's NAPI), which merges each into one
	# skb before PREROUTING (frag lists: rx-gro-list; page fragments:
	# rx-udp-gro-forwarding). The shorter last datagram completes the
	# merged packet: no two trains merge, however many one poll takes
	# (with 8 x 1000, the debug kernel's ksoftirqd once left two trains
	# to one poll, which merged them); and a poll takes 64 (the NAPI
	# weight) or all there are, whole trains of 8, which the sender puts
	# in veth's ring in one go.
	expect_ok "hook prerouting" inns kc dedupctl set hook prerouting dev any
	expect_eq "xdp: detached" none "$(xdp_on kc pb5)"
	expect_ok "sender: no TSO, no UDP segmentation offload" \
		inns ks ethtool -K pa5 tso off tx-udp-segmentation off
	for g in rx-gro-list rx-udp-gro-forwarding; do
		expect_ok "receiver: gro on, $g on" \
			inns kc ethtool -K pb5 gro on "$g" on
		for v in $fams; do
			expect_eq "GRO ($g), IPv$v: $d trains x 2 copies, a packet each" \
				"$((2 * d)) packets, $d dropped, $d delivered, 0 unparsed" \
				"$(keyall_dgram $((2 * d)) "-$v" --size 7999 --segment 1000 --count $d)"
			expect_eq "GRO ($g), IPv$v: $d trains x 2, the last byte differing" \
				"$((2 * d)) packets, 0 dropped, $((2 * d)) delivered, 0 unparsed" \
				"$(keyall_dgram $((2 * d)) "-$v" --size 7999 --segment 1000 --count $d --near)"
		done
		if [ "$PD_DEBUG" != 1 ]; then
			inns kc dedupctl set payload 64
			expect_eq "GRO ($g), payload 64: $d trains x 2, the last byte differing" \
				"$((2 * d)) packets, $d dropped, $d delivered, 0 unparsed" \
				"$(keyall_dgram $((2 * d)) -4 --size 7999 --segment 1000 --count $d --near)"
			inns kc dedupctl set payload all
		fi
		inns kc ethtool -K pb5 "$g" off
	done
	inns kc ethtool -K pb5 gro off
	expect_ok "back to the defaults" inns kc dedupctl set mem 256K \
		proto any
	expect_ok "disable" inns kc dedupctl disable
	t_end
}
