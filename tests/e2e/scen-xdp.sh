# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The XDP placements: a capture host's packet sockets (tcpdump, a plain
# AF_PACKET reader) see each distinct frame once with hook xdp and every
# copy with hook ingress; what XDP cannot do is refused; the module's
# attachments follow the configuration, the devices and the namespace,
# and hold the module while they last. Sourced by scenarios.sh.
#
# xs -- pa8 ~ pb8 -- xc: the sender and the capture host (10.8.0.1, .2;
# fd08::1, ::2), and on it VLAN 5 (10.9.0.1, .2), tagged in the frames:
# the sender's VLAN offload is off, so XDP sees the tag as a driver would.
# t_xdp_virtio: the guest's two virtio-net NICs (tests/vm/vm.sh boot),
# wired to each other through QEMU, in namespaces vs and vc.

xdp_link() {
	[ -n "${XDP_LINKED:-}" ] && return
	mkns xs
	mkns xc
	link xs xc 8 1
	inns xs ethtool -K pa8 txvlan off > /dev/null
	inns xs $IP link add link pa8 name pa8.5 type vlan id 5
	inns xc $IP link add link pb8 name pb8.5 type vlan id 5
	for _e in "xs pa8.5 1" "xc pb8.5 2"; do
		set -- $_e
		inns "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$2/disable_ipv6"
		inns "$1" $IP addr add "10.9.0.$3/24" dev "$2"
		inns "$1" $IP link set "$2" up
	done
	# neighbours fixed both ways: no ARP or ND frame during a count
	_ma=$(mac_of xs pa8)
	_mb=$(mac_of xc pb8)
	inns xs $IP neigh replace 10.8.0.2 lladdr "$_mb" dev pa8 nud permanent
	inns xs $IP neigh replace 10.9.0.2 lladdr "$_mb" dev pa8.5 nud permanent
	inns xs $IP neigh replace fd08::2 lladdr "$_mb" dev pa8 nud permanent
	inns xc $IP neigh replace 10.8.0.1 lladdr "$_ma" dev pb8 nud permanent
	inns xc $IP neigh replace 10.9.0.1 lladdr "$_ma" dev pb8.5 nud permanent
	inns xc $IP neigh replace fd08::1 lladdr "$_ma" dev pb8 nud permanent
	inns xs ping -c 1 -W 2 10.8.0.2 > /dev/null
	inns xs ping -c 1 -W 2 10.9.0.2 > /dev/null
	inns xs ping -c 1 -W 2 fd08::2 > /dev/null
	XDP_LINKED=1
}

mac_of() {	# NS DEV
	inns "$1" $IP -o link show "$2" | sed 's|.*link/ether \([0-9a-f:]*\).*|\1|'
}

# What the capture host's readers got of D distinct datagrams sent C
# times each from SRC to DST: "tcpdump N packet-socket M", the UDP frames
# to port 9000 each saw on pb8 (the tagged ones included). The counters
# are reset once the readers listen; the frames pb8 was sent meanwhile
# (the sender's tcpdump on pa8: every frame, ARP and ND included) go to
# /tmp/xdp-frames.
xdp_readers() {	# V D C SRC DST
	rm -f /tmp/xdp-td.err /tmp/xdp-tx.err
	inns xc timeout 10 tcpdump -Z root -i pb8 -n -w /tmp/xdp-td.pcap -U \
		'udp port 9000 or (vlan and udp port 9000)' \
		> /dev/null 2> /tmp/xdp-td.err &
	_td=$!
	inns xs timeout 10 tcpdump -Z root -i pa8 -Q out -n -w /tmp/xdp-tx.pcap \
		-U > /dev/null 2> /tmp/xdp-tx.err &
	_tx=$!
	inns xc pdnet record /tmp/xdp-pk.pcap pb8 1000 --max-seconds 8 \
		> /tmp/xdp-pk.out &
	_pk=$!
	# both tcpdumps listening (they say so), then the count starts
	tcpdumps_listening /tmp/xdp-td.err /tmp/xdp-tx.err
	inns xc dedupctl reset
	inns xs pdnet send "-$1" "$4" "$5" --count "$2" --copies "$3" \
		> /dev/null 2>&1 || echo "pdnet send failed" >&2
	# the captures end by their time-out (a background job of a script
	# ignores SIGINT, and one stopped early loses what it has not yet
	# read off its socket)
	wait "$_pk" "$_td" "$_tx"
	_f='udp port 9000 or (vlan and udp port 9000)'
	_a=$(tcpdump -Z root -n -r /tmp/xdp-td.pcap 2> /dev/null | wc -l)
	_b=$(tcpdump -Z root -n -r /tmp/xdp-pk.pcap "$_f" 2> /dev/null | wc -l)
	tcpdump -Z root -n -r /tmp/xdp-tx.pcap 2> /dev/null | wc -l \
		> /tmp/xdp-frames
	echo "tcpdump $_a packet-socket $_b"
}

xdp_state() {
	inns "${1:-xc}" sed -n 's/^dev_state //p' /proc/net/pktdedup/config
}

# The devices' states in NS once none is waiting (the module attaches its
# program to a device that appears from its own work: a moment), or after
# 10 s.
xdp_wait() {	# NS
	_i=0
	while xdp_state "$1" | grep -q waiting && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	xdp_state "$1"
}

# Whether the kernel has an XDP program on DEV in namespace NS, and in
# which mode: "xdp" (native), "xdpgeneric" or "none".
xdp_on() {	# NS DEV
	_m=$(inns "$1" $IP -d link show "$2" | grep -o 'xdp[a-z]*' | head -n 1)
	echo "${_m:-none}"
}

nonip_of() {	# NS
	inns "$1" sed -n 's/^nonip //p' /proc/net/pktdedup/stats
}

# The counters add up: every frame pb8 was sent (xdp_readers) is a
# packet, a non-IP frame or an unparsed one; with action drop, every
# duplicate is dropped.
xdp_counts() {	# WHAT DUPLICATES
	_p=$(stat_of xc packets)
	_u=$(stat_of xc unparsed)
	_n=$(nonip_of xc)
	expect_eq "$1: frames = packets + nonip + unparsed" \
		"$(cat /tmp/xdp-frames)" "$((_p + _n + _u))"
	expect_eq "$1: duplicates" "$2" "$(stat_of xc duplicates)"
	expect_eq "$1: dropped = duplicates" "$2" "$(stat_of xc dropped)"
}

t_xdp_capture() {
	t_begin "a capture host's packet sockets see each frame once at hook xdp (native and generic; IPv4, IPv6, VLAN-tagged), every copy at hook ingress"
	xdp_link
	if [ -n "$(dedupctl show 2> /dev/null | grep '^xdp.*unavailable')" ]; then
		t_fail "the XDP hooks are unavailable: $(dedupctl show | grep '^xdp')"
		t_end
		return
	fi
	expect_ok "hook xdp dev pb8 action drop" inns xc dedupctl set \
		hook xdp dev pb8 action drop filter sbf key packet mem 1M
	expect_eq "attached: the device" "pb8 active (ifindex $(ifindex_of xc pb8))" \
		"$(xdp_state)"
	expect_eq "attached: the kernel says" xdp "$(xdp_on xc pb8)"
	expect_eq "IPv4, 50 x 2" "tcpdump 50 packet-socket 50" \
		"$(xdp_readers 4 50 2 10.8.0.1 10.8.0.2)"
	xdp_counts "IPv4" 50
	expect_eq "IPv6, 40 x 3" "tcpdump 40 packet-socket 40" \
		"$(xdp_readers 6 40 3 fd08::1 fd08::2)"
	xdp_counts "IPv6" 80
	expect_eq "VLAN-tagged IPv4, 30 x 2" "tcpdump 30 packet-socket 30" \
		"$(xdp_readers 4 30 2 10.9.0.1 10.9.0.2)"
	xdp_counts "tagged" 30

	expect_ok "hook xdp-generic" inns xc dedupctl set hook xdp-generic
	expect_eq "generic: the kernel says" xdpgeneric "$(xdp_on xc pb8)"
	expect_eq "generic: IPv4, 50 x 2" "tcpdump 50 packet-socket 50" \
		"$(xdp_readers 4 50 2 10.8.0.1 10.8.0.2)"
	xdp_counts "generic" 50

	# at ingress, the packet sockets have seen every copy before the hook
	expect_ok "hook ingress" inns xc dedupctl set hook ingress
	expect_eq "ingress: no XDP program left" none "$(xdp_on xc pb8)"
	expect_eq "ingress: IPv4, 50 x 2" "tcpdump 100 packet-socket 100" \
		"$(xdp_readers 4 50 2 10.8.0.1 10.8.0.2)"
	expect_eq "ingress: dropped, after the sockets" 50 \
		"$(stat_of xc dropped)"

	# what XDP cannot do: refused, nothing changed
	expect_fail "action mark at xdp" 1 "an XDP hook has no skb" \
		inns xc dedupctl set hook xdp action mark mark 0x1/0x1
	expect_fail "match-mark at xdp" 1 "no mark to match" \
		inns xc dedupctl set hook xdp match-mark 0x1/0x1
	expect_fail "native XDP on a device without it" 1 "hook xdp-generic works on any device" \
		inns xc dedupctl set hook xdp dev pb8.5
	expect_eq "refusals changed nothing" none "$(xdp_on xc pb8)"
	expect_eq "nor the VLAN device" none "$(xdp_on xc pb8.5)"
	expect_eq "still at ingress" "hook     ingress" \
		"$(inns xc dedupctl show | grep -o '^hook *[a-z-]*')"
	# the JIT off (where the kernel lets it be turned off): dedupctl says
	# so and what to do, and nothing changes
	if echo 0 2> /dev/null > /proc/sys/net/core/bpf_jit_enable; then
		# (the sysctl is the initial namespace's: show reads it there)
		expect_eq "JIT off: show says why" \
			"xdp      unavailable: the BPF JIT is off" \
			"$(dedupctl show | grep -o '^xdp .*JIT is off')"
		expect_fail "JIT off: hook xdp refused" 1 \
			"sysctl net.core.bpf_jit_enable=1" \
			inns xc dedupctl set hook xdp dev pb8
		echo 1 > /proc/sys/net/core/bpf_jit_enable
		expect_eq "JIT off: nothing changed" none "$(xdp_on xc pb8)"
	else
		echo "#   the JIT cannot be turned off on this kernel"
	fi
	inns xc dedupctl disable
	t_end
}

# What tcpdump on pb8 saw of N frames that are not IP, each sent twice
# (pdnet nonip: untagged, then tagged from other MACs); the counters are
# reset once it listens.
nonip_seen() {	# N
	rm -f /tmp/nonip-td.err
	# until stopped below; 30 s at most (under make check's load its
	# start alone took more than 3 s)
	inns xc timeout 30 tcpdump -Z root -i pb8 -n -w /tmp/nonip-td.pcap -U \
		'ether proto 0x88b5 or (vlan and ether proto 0x88b5)' \
		> /dev/null 2> /tmp/nonip-td.err &
	_td=$!
	tcpdumps_listening /tmp/nonip-td.err
	inns xc dedupctl reset
	inns xs pdnet nonip pa8 "$(mac_of xc pb8)" "$1" > /dev/null ||
		echo "pdnet nonip failed" >&2
	# the frames are through when sendto() returns (veth, xdp-generic);
	# then tcpdump writes what it has and exits on SIGINT
	sleep 0.5
	for _p in /proc/[0-9]*; do
		case "$(tr '\0' ' ' < "$_p/cmdline" 2> /dev/null)" in
		tcpdump*/tmp/nonip-td.pcap*) kill -INT "${_p#/proc/}" ;;
		esac
	done
	wait "$_td"
	# a line per frame, then its unknown EtherType's bytes in hex lines
	tcpdump -Z root -n -r /tmp/nonip-td.pcap 2> /dev/null | grep -c '^[0-9]'
}

t_nonip_dedup() {
	t_begin "nonip dedup: frames that are not IP, from two taps (one tags them, other MACs), are copies at hook xdp-generic; nonip pass passes them; refused at an inet hook"
	xdp_link
	expect_ok "nonip pass at xdp-generic" inns xc dedupctl set \
		hook xdp-generic dev pb8 action drop filter sbf key packet \
		mem 1M nonip pass
	expect_eq "pass: tcpdump sees every frame" 40 "$(nonip_seen 20)"
	expect_eq "pass: counted in nonip" 40 "$(nonip_of xc)"
	expect_eq "pass: none dropped" 0 "$(stat_of xc dropped)"
	expect_ok "nonip dedup" inns xc dedupctl set nonip dedup
	expect_eq "/proc says so" "nonip dedup" \
		"$(inns xc grep '^nonip' /proc/net/pktdedup/config)"
	expect_eq "dedup: tcpdump sees each frame once" 20 "$(nonip_seen 20)"
	expect_eq "dedup: still counted in nonip" 40 "$(nonip_of xc)"
	expect_eq "dedup: duplicates" 20 "$(stat_of xc duplicates)"
	expect_eq "dedup: dropped" 20 "$(stat_of xc dropped)"
	# where no such frame arrives, or no key takes one: refused, nothing
	# changed
	expect_fail "hook prerouting under nonip dedup" 1 \
		"nonip dedup: frames that are not IP reach only the L2 placements" \
		inns xc dedupctl set hook prerouting
	expect_fail "key flow under nonip dedup" 1 \
		"nonip dedup needs key packet" \
		inns xc dedupctl set key flow force
	expect_eq "refusals changed nothing" "hook     xdp-generic" \
		"$(inns xc dedupctl show | grep -o '^hook *[a-z-]*')"
	expect_eq "nor nonip" "nonip dedup" \
		"$(inns xc grep '^nonip' /proc/net/pktdedup/config)"
	expect_ok "nonip pass and hook prerouting" inns xc dedupctl set \
		nonip pass hook prerouting
	expect_fail "nonip dedup at prerouting" 1 "hook ingress, bridge-prerouting" \
		inns xc dedupctl set nonip dedup
	inns xc dedupctl disable
	t_end
}

t_xdp_lifecycle() {
	t_begin "the XDP attachments follow the configuration, the devices and the namespace, and hold the module while they last"
	xdp_link
	expect_ok "hook xdp dev pb8" inns xc dedupctl set hook xdp dev pb8 \
		action drop
	expect_eq "attached" xdp "$(xdp_on xc pb8)"
	# attach and detach under traffic
	inns xs pdnet send -4 10.8.0.1 10.8.0.2 --count 1000 --loop \
		> /dev/null 2>&1 &
	_bg=$!
	expect_ok "under traffic: to generic" inns xc dedupctl set \
		hook xdp-generic
	expect_ok "under traffic: back to native" inns xc dedupctl set \
		hook xdp
	expect_ok "under traffic: disable" inns xc dedupctl disable
	expect_eq "disabled: detached" none "$(xdp_on xc pb8)"
	expect_ok "under traffic: enable" inns xc dedupctl enable
	expect_eq "enabled: attached again" xdp "$(xdp_on xc pb8)"
	kill "$_bg"
	wait "$_bg" 2> /dev/null

	# the module is held while a program is attached
	expect_fail "rmmod while attached" 1 "pktdedup" rmmod pktdedup
	expect_eq "still attached" xdp "$(xdp_on xc pb8)"

	# moved to another namespace: the program comes off there
	mkns xm
	inns xc $IP link set pb8 netns "$(nspid xm)"
	sleep 0.5
	expect_eq "moved out: absent" "pb8 absent" "$(xdp_state)"
	expect_eq "moved out: the program came off" none "$(xdp_on xm pb8)"
	inns xm $IP link set pb8 netns "$(nspid xc)"
	inns xc $IP addr add 10.8.0.2/24 dev pb8
	inns xc $IP link set pb8 up
	expect_eq "moved back: attached again, by the module" \
		"pb8 active (ifindex $(ifindex_of xc pb8))" "$(xdp_wait xc)"
	expect_eq "the kernel says" xdp "$(xdp_on xc pb8)"
	expect_ok "enable: nothing to do" inns xc dedupctl enable
	expect_eq "still attached" xdp "$(xdp_on xc pb8)"

	# deleted while attached: the kernel takes the program off, the
	# module lets its link go (the module is free once that is done)
	inns xc $IP link del pb8
	expect_eq "deleted: absent" "pb8 absent" "$(xdp_state)"
	# the namespace goes while a program is attached
	link xs xm 8 1
	expect_ok "hook xdp in a namespace" inns xm dedupctl set hook xdp \
		dev pb8
	expect_eq "attached there" xdp "$(xdp_on xm pb8)"
	kill "$(nspid xm)"
	inns xc dedupctl disable
	XDP_LINKED=
	# the module is free once every program is let go (the last one's
	# release is deferred: a few tries)
	_ok=no
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		if rmmod pktdedup 2> /dev/null; then
			_ok=yes
			break
		fi
		sleep 0.5
	done
	expect_eq "rmmod once nothing is attached" yes "$_ok"
	insmod /lib/pd/pktdedup.ko
	expect_eq "loaded again" yes \
		"$([ -d /sys/module/pktdedup ] && echo yes)"
	t_end
}

# skbs the receive path made on device pdv2 (in namespace vc) while CMD
# ran: the tracepoint net:netif_receive_skb, which
# __netif_receive_skb_core() hits once per skb on its way up (GRO, the
# backlog and list receive alike); a frame dropped at native XDP never
# becomes an skb, a frame dropped at ingress does, before the hook.
# Device names are per namespace: no other has a pdv2.
TRACEFS=/sys/kernel/tracing
vio_skbs() {	# CMD...
	_ev=$TRACEFS/events/net/netif_receive_skb
	echo 'name == "pdv2"' > "$_ev/filter"
	echo > "$TRACEFS/trace"
	echo 1 > "$_ev/enable"
	"$@" > /dev/null 2>&1
	sleep 1
	echo 0 > "$_ev/enable"
	grep -c 'netif_receive_skb:' "$TRACEFS/trace"
}

# 50 distinct datagrams, each twice, vs -> vc, with the sender's tcpdump
# on pdv1 counting every frame it sent: "SKBS FRAMES TEST_FRAMES" (the
# frames that are not the test's are listed on stderr).
vio_send() {
	rm -f /tmp/vio-tx.err
	inns vs timeout 8 tcpdump -Z root -i pdv1 -Q out -n \
		-w /tmp/vio-tx.pcap -U > /dev/null 2> /tmp/vio-tx.err &
	_tx=$!
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		grep -q listening /tmp/vio-tx.err 2> /dev/null && break
		sleep 0.25
	done
	_s=$(vio_skbs inns vs pdnet send -4 10.12.0.1 10.12.0.2 \
		--count 50 --copies 2)
	# it ends by its time-out (a background job ignores SIGINT)
	wait "$_tx"
	_a=$(tcpdump -Z root -n -r /tmp/vio-tx.pcap 2> /dev/null | wc -l)
	_t=$(tcpdump -Z root -n -r /tmp/vio-tx.pcap 'udp port 9000' \
		2> /dev/null | wc -l)
	tcpdump -Z root -n -r /tmp/vio-tx.pcap 'not udp port 9000' \
		2> /dev/null | sed 's/^/#     not a test frame: /' >&2
	echo "$_s $_a $_t"
}

t_xdp_virtio() {
	t_begin "virtio-net at native XDP, set before its driver loads (the boot order): attached when the NIC appears; a dropped copy never becomes an skb (hook xdp: 50 skbs for 50 x 2 frames; hook ingress: 100)"
	# the boot order: pktdedup.service applies its configuration before
	# udev loads the NIC's driver (the initial namespace: where the NIC
	# appears)
	if [ -e /sys/bus/pci/drivers/virtio-pci ] || [ "$PD_DEBUG" = 1 ]; then
		echo "#   (the driver is there already: no boot order to try)"
	else
		dedupctl save > /tmp/init.conf
		expect_eq "hook xdp dev eth1, no NIC yet: set, with a note" \
			"dedupctl: note: dev eth1: not in this namespace now; hooked when it appears ('dedupctl show' says when)" \
			"$(dedupctl set hook xdp dev eth1 action drop 2>&1 |
			   grep -v 'note: action drop with')"
		expect_eq "eth1 absent" "eth1 absent" \
			"$(sed -n 's/^dev_state //p' /proc/net/pktdedup/config)"
		vio_load
		expect_eq "the driver loaded: eth1 is the receiver" eth1 \
			"$(vio_dev $VIO_RCV)"
		_i=0
		while sed -n 's/^dev_state //p' /proc/net/pktdedup/config |
			grep -q 'absent\|waiting' && [ $_i -lt 100 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		expect_eq "eth1 appeared: attached" \
			"eth1 active (ifindex $(cat /sys/class/net/eth1/ifindex))" \
			"$(sed -n 's/^dev_state //p' /proc/net/pktdedup/config)"
		expect_eq "the kernel says" xdp \
			"$($IP -d link show eth1 | grep -o 'xdp[a-z]*' | head -n 1)"
		expect_ok "the initial namespace as it was" dedupctl \
			-f /tmp/init.conf
	fi
	if ! vio_link; then
		if [ "$PD_DEBUG" = 1 ]; then
			echo "#   skipped: the debug guest has no virtio-net NICs"
		else
			t_fail "no virtio-net NICs ($VIO_SND, $VIO_RCV)"
		fi
		t_end
		return
	fi
	[ -d $TRACEFS/events ] || mount -t tracefs tracefs $TRACEFS
	# no ARP during the counts (the sender's tcpdump would count a frame
	# sent after the trace stopped)
	inns vs $IP neigh replace 10.12.0.2 dev pdv1 nud permanent \
		lladdr $VIO_RCV
	inns vc $IP neigh replace 10.12.0.1 dev pdv2 nud permanent \
		lladdr $VIO_SND
	expect_ok "the NICs reach each other" inns vs ping -c 1 -W 5 10.12.0.2

	expect_ok "hook xdp dev pdv2 action drop" inns vc dedupctl set \
		hook xdp dev pdv2 action drop filter sbf
	expect_eq "native XDP on virtio-net" xdp "$(xdp_on vc pdv2)"
	inns vc dedupctl reset
	set -- $(vio_send)
	echo "#   hook xdp: skbs $1, frames sent $2 (test frames $3)"
	expect_eq "xdp: test frames sent" 100 "$3"
	expect_eq "xdp: skbs = 50 + the non-test frames" $((50 + $2 - $3)) "$1"
	expect_eq "xdp: dropped" 50 "$(stat_of vc dropped)"

	expect_ok "hook ingress dev pdv2 action drop" inns vc dedupctl set \
		hook ingress dev pdv2 action drop filter sbf
	expect_eq "ingress: no XDP program left" none "$(xdp_on vc pdv2)"
	inns vc dedupctl reset
	set -- $(vio_send)
	echo "#   hook ingress: skbs $1, frames sent $2 (test frames $3)"
	expect_eq "ingress: test frames sent" 100 "$3"
	expect_eq "ingress: skbs = 100 + the non-test frames" $((100 + $2 - $3)) "$1"
	expect_eq "ingress: dropped" 50 "$(stat_of vc dropped)"
	inns vc dedupctl disable
	# the NICs go back to the initial namespace with their namespaces
	kill "$(nspid vs)" "$(nspid vc)"
	t_end
}
