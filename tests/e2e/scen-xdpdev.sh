# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The XDP placements' devices and programs: a refused change leaves the
# attachments in force as they were; names set before their devices
# exist, and devices that come back, get the program when they appear; a
# device moved between namespaces is judged by the one it is in; only the
# module's own program is taken and judges; a container's root never gets
# the program or a link in its descriptor table; devices without a link
# layer, and bonds. Sourced by scenarios.sh, after scen-xdp.sh (its
# namespaces xs, xc, the link pa8 ~ pb8 and its helpers).

# D distinct datagrams from xs to xc, C times each (pa8 ~ pb8 by default)
xdp_send() {	# D C [SRC DST]
	inns xs pdnet send -4 "${3:-10.8.0.1}" "${4:-10.8.0.2}" --count "$1" \
		--copies "$2" > /dev/null || t_fail "pdnet send from xs"
	sleep 0.3
}

# "packets P dropped D" of namespace NS
xdp_judged() {	# NS
	echo "packets $(stat_of "$1" packets) dropped $(stat_of "$1" dropped)"
}

# Run CMD... in a memory cgroup limited to LIMIT (cgroup v2).
in_memcg() {	# LIMIT CMD...
	_cg=/sys/fs/cgroup
	[ -f $_cg/cgroup.controllers ] || mount -t cgroup2 none $_cg
	echo +memory > $_cg/cgroup.subtree_control 2> /dev/null
	mkdir -p $_cg/pdlim
	echo "$1" > $_cg/pdlim/memory.max
	shift
	sh -c 'echo $$ > /sys/fs/cgroup/pdlim/cgroup.procs && exec "$@"' sh "$@"
}

t_xdp_refused() {
	t_begin "a refused change leaves the XDP programs in force as they were, and says so truly: a switch to native refused on one device of two, a change whose filters cannot be had"
	xdp_link
	dev_modules
	inns xc $IP link add d0 type dummy
	inns xc $IP link set d0 up
	expect_ok "hook xdp-generic dev pb8,d0" inns xc dedupctl set \
		hook xdp-generic dev pb8,d0 action drop filter sbf key packet mem 1M
	expect_eq "both generic" "xdpgeneric xdpgeneric" \
		"$(xdp_on xc pb8) $(xdp_on xc d0)"
	before=$(show_cfg xc)
	expect_fail "native on both: refused on the dummy" 1 \
		"dev d0: its driver has no native XDP" \
		inns xc dedupctl set hook xdp dev pb8,d0
	expect_eq "refused: the programs as they were" "xdpgeneric xdpgeneric" \
		"$(xdp_on xc pb8) $(xdp_on xc d0)"
	expect_eq "refused: the configuration as it was" "$before" \
		"$(show_cfg xc)"
	expect_eq "refused: /proc" "xdp_programs attached" \
		"$(inns xc grep '^xdp_programs' /proc/net/pktdedup/config)"
	inns xc dedupctl reset
	xdp_send 40 2
	expect_eq "refused: still judged" "packets 80 dropped 40" \
		"$(xdp_judged xc)"
	# two admins refused at once, each told its own reason
	rm -f /tmp/msg-a /tmp/msg-b
	_pids=
	for _w in a b; do
		(
			_i=0
			while [ $_i -lt 15 ]; do
				if [ $_w = a ]; then
					inns xc dedupctl set hook ingress \
						dev pb8,pb8.5 2>&1 |
						grep -c "dev pb8.5: stacked on another" \
						>> /tmp/msg-a
				else
					inns xc dedupctl set hook xdp \
						dev pb8,d0 2>&1 |
						grep -c "dev d0: its driver has no native" \
						>> /tmp/msg-b
				fi
				_i=$((_i + 1))
			done
		) &
		_pids="$_pids $!"
	done
	# shellcheck disable=SC2086
	wait $_pids
	expect_eq "each refusal its own reason" "15 15" \
		"$(grep -c '^1$' /tmp/msg-a) $(grep -c '^1$' /tmp/msg-b)"

	# a change whose filters the memory cgroup of its requester cannot
	# hold (native, 12 MiB per CPU): refused before any program moves
	# (the debug kernel has no memory cgroups)
	if ! grep -q '^memory' /proc/cgroups 2> /dev/null; then
		echo "#   no memory cgroups in this kernel: the refusal for memory not tried"
		inns xc $IP link del d0
		inns xc dedupctl disable
		t_end
		return
	fi
	expect_ok "hook xdp-generic dev pb8" inns xc dedupctl set dev pb8
	inns xc $IP link del d0
	before=$(show_cfg xc)
	expect_fail "native with filters over the cgroup's limit: refused" 1 \
		"out of memory" in_memcg 8M nsenter -t "$(nspid xc)" -n \
		pdnl send set-config config.hook=u8:8 \
		config.filter.mem=u64:12582912
	expect_eq "no memory: the program as it was" xdpgeneric \
		"$(xdp_on xc pb8)"
	expect_eq "no memory: the configuration as it was" "$before" \
		"$(show_cfg xc)"
	inns xc dedupctl reset
	xdp_send 40 2
	expect_eq "no memory: still judged" "packets 80 dropped 40" \
		"$(xdp_judged xc)"
	rmdir /sys/fs/cgroup/pdlim 2> /dev/null
	inns xc dedupctl disable
	t_end
}

t_xdp_late() {
	t_begin "hook xdp on a device not there yet, and on devices that come back (deleted and made again, moved out and back, renamed away and back in one line): the module attaches its program when they appear, and their copies are dropped"
	xdp_link
	mkns xm
	expect_eq "pb13 not there: set, with a note" \
		"dedupctl: note: dev pb13: not in this namespace now; hooked when it appears ('dedupctl show' says when)" \
		"$(inns xc dedupctl set hook xdp dev pb13 action drop key packet \
			mem 1M 2>&1 | grep -v 'note: action drop with')"
	expect_eq "absent" "pb13 absent" "$(xdp_state xc)"
	link xs xc 13
	expect_eq "made: attached" "pb13 active (ifindex $(ifindex_of xc pb13))" \
		"$(xdp_wait xc)"
	expect_eq "made: the kernel says" xdp "$(xdp_on xc pb13)"
	inns xc dedupctl reset
	xdp_send 40 2 10.13.0.1 10.13.0.2
	expect_eq "made: judged" "packets 80 dropped 40" "$(xdp_judged xc)"

	inns xc $IP link del pb13
	expect_eq "deleted: absent" "pb13 absent" "$(xdp_state xc)"
	link xs xc 13
	expect_eq "made again: attached" \
		"pb13 active (ifindex $(ifindex_of xc pb13))" "$(xdp_wait xc)"
	inns xc dedupctl reset
	xdp_send 40 2 10.13.0.1 10.13.0.2
	expect_eq "made again: judged" "packets 80 dropped 40" "$(xdp_judged xc)"

	inns xc $IP link set pb13 netns "$(nspid xm)"
	expect_eq "moved out: absent" "pb13 absent" "$(xdp_state xc)"
	inns xm $IP link set pb13 netns "$(nspid xc)"
	dev_up xc pb13 10.13.0.2/24
	expect_eq "moved back: attached" \
		"pb13 active (ifindex $(ifindex_of xc pb13))" "$(xdp_wait xc)"
	inns xc dedupctl reset
	xdp_send 40 2 10.13.0.1 10.13.0.2
	expect_eq "moved back: judged" "packets 80 dropped 40" \
		"$(xdp_judged xc)"

	inns xc sh -c "$IP link set pb13 down && $IP link set pb13 name pq13 &&
		$IP link set pq13 name pb13 && $IP link set pb13 up"
	expect_eq "renamed away and back: attached" \
		"pb13 active (ifindex $(ifindex_of xc pb13))" "$(xdp_wait xc)"
	expect_eq "renamed away and back: the kernel says" xdp \
		"$(xdp_on xc pb13)"
	inns xc dedupctl reset
	xdp_send 40 2 10.13.0.1 10.13.0.2
	expect_eq "renamed away and back: judged" "packets 80 dropped 40" \
		"$(xdp_judged xc)"
	inns xc $IP link del pb13
	inns xc dedupctl disable
	kill "$(nspid xm)"
	t_end
}

t_xdp_moved() {
	t_begin "a device two namespaces name, moved from one to the other: judged by the one it is in, once"
	xdp_link
	mkns xa
	mkns xb
	link xs xa 14
	expect_ok "xa: hook xdp dev pb14" inns xa dedupctl set hook xdp \
		dev pb14 action drop filter sbf key packet mem 1M
	expect_ok "xb: hook xdp dev pb14 (not there)" inns xb dedupctl set \
		hook xdp dev pb14 action drop filter sbf key packet mem 1M
	inns xa $IP link set pb14 netns "$(nspid xb)"
	dev_up xb pb14 10.14.0.2/24
	expect_eq "xa: gone" "pb14 absent" "$(xdp_state xa)"
	expect_eq "xb: attached" "pb14 active (ifindex $(ifindex_of xb pb14))" \
		"$(xdp_wait xb)"
	inns xa dedupctl reset
	inns xb dedupctl reset
	xdp_send 40 2 10.14.0.1 10.14.0.2
	expect_eq "xb judged it" "packets 80 dropped 40" "$(xdp_judged xb)"
	expect_eq "xa judged nothing" "packets 0 dropped 0" "$(xdp_judged xa)"
	kill "$(nspid xa)" "$(nspid xb)"
	t_end
}

t_xdp_foreign() {
	t_begin "only the module's own XDP program is taken and judges: others are refused as xdp-prog, and root's own on a named device judges nothing, however it calls the kfunc (then through a devmap, each frame judged twice)"
	xdp_link
	_o=/lib/pd/xdp-foreign.bpf.o
	expect_ok "hook ingress dev pb8" inns xc dedupctl set hook ingress \
		dev pb8 action drop filter sbf key packet mem 1M
	for _p in drop_all devmap_pass judge_then_drop; do
		expect_fail "xdp-prog $_p: refused" 1 \
			"not the module's own XDP program" \
			inns xc pdxdp hand $_o $_p 50 pdnl send set-config \
			config.hook=u8:8 config.devs.name=str:pb8 xdp-prog=u32:50
	done
	expect_eq "nothing attached" none "$(xdp_on xc pb8)"
	expect_eq "still at ingress" "hook     ingress" \
		"$(inns xc dedupctl show | grep -o '^hook *[a-z-]*')"

	# root's program on pb8, which the configuration names: the module
	# cannot attach its own (failed), and root's judges nothing, neither
	# its call of the kfunc nor its devmap's
	expect_ok "hook xdp dev pb8" inns xc dedupctl set hook xdp dev pb8
	inns xc $IP link set pb8 down
	inns xc $IP link set pb8 name px8
	_i=0
	while [ "$(xdp_on xc px8)" != none ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	expect_eq "renamed away: the module's program came off" none \
		"$(xdp_on xc px8)"
	expect_ok "root attaches its own" inns xc pdxdp attach $_o \
		judge_redirect px8 drv px8 devmap_judge
	inns xc $IP link set px8 name pb8
	inns xc $IP link set pb8 up
	expect_eq "renamed back: failed" \
		"pb8 failed (ifindex $(ifindex_of xc pb8)) (another XDP program is attached to it (ip link show says which); detach it first)" \
		"$(xdp_wait xc)"
	# a request that would attach names root's program (dedupctl asks
	# the device: the kernel's message is static), checked or made
	_busy="pb8 already has XDP program $(inns xc $IP -d link show pb8 |
		sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1) \"judge_redirect\" attached (driver mode); detach it or choose another hook"
	expect_fail "hook xdp-generic: refused, naming root's program" 1 \
		"$_busy" inns xc dedupctl set hook xdp-generic dev pb8
	expect_fail "-c: the same refusal" 1 "$_busy" \
		inns xc dedupctl -c set hook xdp-generic dev pb8
	inns xc dedupctl reset
	xdp_send 40 2
	expect_eq "root's program: nothing judged" "packets 0 dropped 0" \
		"$(xdp_judged xc)"
	inns xc $IP link set dev pb8 xdpdrv off
	expect_ok "enable: attached now" inns xc dedupctl enable
	expect_eq "active" "pb8 active (ifindex $(ifindex_of xc pb8))" \
		"$(xdp_state xc)"
	inns xc dedupctl reset
	xdp_send 40 2
	expect_eq "the module's own: judged" "packets 80 dropped 40" \
		"$(xdp_judged xc)"
	inns xc dedupctl disable
	t_end
}

# Run by t_xdp_container as uid 65534, root of its own user and network
# namespace: waits for the host's root to set hook xdp-generic there,
# then races (pdnl xdp-race), then asks for hook xdp as dedupctl would.
container_script() {
	cat <<-'EOF'
	echo $$ > /tmp/cx.pid
	while [ ! -e /tmp/cx.go ]; do sleep 0.1; done
	pdnl xdp-race 40 > /tmp/cx.race 2>&1
	dedupctl set hook xdp-generic dev cx0 > /tmp/cx.set 2>&1
	echo "exit $?" >> /tmp/cx.set
	unshare -n sh -c '/usr/sbin/ip link add d9 type dummy; dedupctl set hook xdp-generic dev d9' > /tmp/cx.new 2>&1
	echo "exit $?" >> /tmp/cx.new
	touch /tmp/cx.done
	while [ ! -e /tmp/cx.end ]; do sleep 0.1; done
	EOF
}

t_xdp_container() {
	t_begin "a container's root (its own user namespace, no CAP_BPF) switching its namespace between hook xdp and xdp-generic never gets the module's program or a link in its descriptor table; with no program held, it is told what it lacks"
	rm -f /tmp/cx.*
	dev_modules
	container_script > /tmp/cx.sh
	pdnet asuser 65534 unshare -Urn sh /tmp/cx.sh &
	_bg=$!
	_i=0
	while [ ! -s /tmp/cx.pid ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	_pid=$(cat /tmp/cx.pid)
	$IP link add cx0 type veth peer name cx1
	$IP link set cx0 netns "$_pid"
	nsenter -t "$_pid" -n $IP link set cx0 up
	expect_ok "the host's root: hook xdp-generic there" nsenter -t "$_pid" \
		-n dedupctl set hook xdp-generic dev cx0 action count mem 1M
	touch /tmp/cx.go
	_i=0
	while [ ! -e /tmp/cx.done ] && [ $_i -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	expect_eq "40 switches, nothing seen" \
		"requests 40 refused 0 seen 0 taken 0" "$(cat /tmp/cx.race)"
	expect_eq "attached in the mode last asked for" xdpgeneric \
		"$(nsenter -t "$_pid" -n $IP -d link show cx0 | grep -o 'xdp[a-z]*' | head -n 1)"
	expect_eq "its dedupctl: the program held serves" "exit 0" \
		"$(tail -n 1 /tmp/cx.set)"
	expect_eq "a namespace holding none: refused" "exit 1" \
		"$(tail -n 1 /tmp/cx.new)"
	grep -q "CAP_BPF" /tmp/cx.new &&
		grep -q "initial user namespace" /tmp/cx.new ||
		t_fail "no word of the privilege it lacks: $(cat /tmp/cx.new)"
	echo "#   $(head -n 1 /tmp/cx.new)"
	touch /tmp/cx.end
	wait "$_bg"
	$IP link del cx1 2> /dev/null
	t_end
}

t_xdp_l3() {
	t_begin "XDP on devices without a link layer: frames read from the IP header (ipip at xdp-generic: copies dropped, nothing unparsed); a link layer the XDP hooks cannot read is refused (gre with its header)"
	xdp_link
	tun_modules
	for _e in "xs 1 2" "xc 2 1"; do
		set -- $_e
		inns "$1" $IP link add ipx0 type ipip local "10.8.0.$2" \
			remote "10.8.0.$3"
		inns "$1" $IP addr add "10.15.0.$2/24" dev ipx0
		tun_up "$1" ipx0
	done
	expect_ok "hook xdp-generic dev ipx0" inns xc dedupctl set \
		hook xdp-generic dev ipx0 action drop filter sbf key packet mem 1M
	expect_eq "attached" "ipx0 active (ifindex $(ifindex_of xc ipx0))" \
		"$(xdp_state xc)"
	inns xc dedupctl reset
	xdp_send 40 2 10.15.0.1 10.15.0.2
	expect_eq "judged from the IP header" "packets 80 dropped 40" \
		"$(xdp_judged xc)"
	expect_eq "nothing unparsed, nothing taken for non-IP" "0 0" \
		"$(stat_of xc unparsed) $(nonip_of xc)"
	inns xc $IP link add grx0 type gre local 10.8.0.2
	expect_fail "gre with its header: refused" 1 \
		"dev grx0: hook xdp: its link layer is neither Ethernet nor none" \
		inns xc dedupctl set hook xdp-generic dev ipx0,grx0
	inns xc $IP link del grx0
	inns xc $IP link del ipx0
	inns xs $IP link del ipx0
	inns xc dedupctl disable
	t_end
}

t_xdp_bond() {
	t_begin "hook xdp on a bond: its program runs on its slaves' queues, and their frames are judged as the bond's"
	dev_modules
	mkns ys
	mkns yc
	veth_pair ys pq1 yc pr1
	veth_pair ys pq2 yc pr2
	inns yc $IP link add bx0 type bond mode balance-rr
	inns yc sh -c "echo 1 > /proc/sys/net/ipv6/conf/bx0/disable_ipv6"
	inns yc $IP link set pr1 master bx0
	inns yc $IP link set pr2 master bx0
	inns yc $IP addr add 10.16.0.2/24 dev bx0
	inns yc $IP link set bx0 up
	inns ys $IP addr add 10.16.0.1/24 dev pq1
	inns ys $IP link set pq1 up
	inns ys $IP link set pq2 up
	inns ys $IP neigh replace 10.16.0.2 lladdr "$(mac_of yc bx0)" dev pq1 \
		nud permanent
	inns yc $IP neigh replace 10.16.0.1 lladdr "$(mac_of ys pq1)" dev bx0 \
		nud permanent
	expect_ok "hook xdp dev bx0" inns yc dedupctl set hook xdp dev bx0 \
		action drop filter sbf key packet mem 1M
	expect_eq "the bond's program, native" xdp "$(xdp_on yc bx0)"
	inns yc dedupctl reset
	inns ys pdnet send -4 10.16.0.1 10.16.0.2 --count 40 --copies 2 \
		> /dev/null || t_fail "pdnet send from ys"
	sleep 0.3
	expect_eq "a slave's frames: judged" "packets 80 dropped 40" \
		"$(xdp_judged yc)"
	kill "$(nspid ys)" "$(nspid yc)"
	t_end
}

# Run in a namespace (sh -s UNDO PDNL-SEND-ARGS...): send the request,
# failing its Nth allocation, for N = 1, 2, ... until one is never
# reached. A refused request must leave /proc's configuration (but the
# peak and the last refusal's need, which record what was tried) and the
# kernel's XDP program on pb8 as they were; one that goes through (a
# failure it could take) is undone by UNDO. Prints "points P refused R
# through G bad B", then what went wrong.
nth_script() {
	cat <<-'EOF'
	state() {
		grep -v '^mem_peak\|^mem_refused' /proc/net/pktdedup/config
		/usr/sbin/ip -d link show pb8 | grep -o 'xdp[a-z]*' | head -n 1
	}
	undo=$1
	shift
	before=$(state)
	n=1 ref=0 thr=0 bad=0
	while [ $n -le 400 ]; do
		out=$(pdnl -F $n send "$@" 2>&1)
		left=$(echo "$out" | sed -n 's/^fail-nth [0-9]* left //p')
		if [ -z "$left" ]; then
			echo "pdnl -F $n: $out"
			break
		fi
		if echo "$out" | grep -q '^error'; then
			ref=$((ref + 1))
		elif echo "$out" | grep -q '^lost'; then
			# the ack's allocation failed: applied or not, undone
			sh -c "$undo" > /dev/null 2>&1
		else
			thr=$((thr + 1))
			sh -c "$undo" > /dev/null 2>&1
		fi
		if [ "$(state)" != "$before" ]; then
			bad=$((bad + 1))
			echo "bad: allocation $n: $(echo "$out" | head -n 1)"
			sh -c "$undo" > /dev/null 2>&1
		fi
		[ "$left" = 0 ] || break
		n=$((n + 1))
	done
	echo "points $((n - 1)) refused $ref through $thr bad $bad"
	EOF
}

# nth_script for request PDNL-SEND-ARGS in xc, with the module's program
# at descriptor 50 when PROG is "prog".
nth_walk() {	# WHAT PROG UNDO PDNL-SEND-ARGS...
	_what=$1
	_pre=
	[ "$2" = prog ] && _pre="pdxdp hand /lib/pd/pktdedup.bpf.o pktdedup 50"
	shift 2
	nth_script > /tmp/nth.sh
	# shellcheck disable=SC2086
	_out=$(inns xc $_pre sh /tmp/nth.sh "$@" 2>&1)
	echo "$_out" | sed 's/^/#   /' | head -n 20
	case $(echo "$_out" | tail -n 1) in
	"points 0 "*) t_fail "$_what: no allocation reached" ;;
	"points "*" bad 0") echo "#   $_what: every refusal left the state as it was" ;;
	*) t_fail "$_what: a refusal changed the state" ;;
	esac
}

t_fail_nth() {
	t_begin "every allocation of a change failed in turn (fault injection): each refused change leaves the configuration, the budget and the XDP programs as they were"
	if [ ! -e /proc/self/fail-nth ]; then
		echo "#   skipped: this kernel has no fault injection (the debug kernel has)"
		t_end
		return
	fi
	_dbg=/sys/kernel/debug
	[ -d $_dbg/failslab ] || mount -t debugfs none $_dbg
	# fail what fail-nth points at, GFP_KERNEL too, silently
	for _f in failslab fail_page_alloc; do
		echo N > $_dbg/$_f/ignore-gfp-wait
		echo 0 > $_dbg/$_f/verbose
	done
	echo 0 > $_dbg/fail_page_alloc/min-order
	xdp_link
	expect_ok "hook ingress dev pb8" inns xc dedupctl set hook ingress \
		dev pb8 action drop filter sbf key packet mem 64K
	# to xdp-generic (a program handed over, filters, hooks, a link)
	nth_walk "to hook xdp-generic" prog \
		"dedupctl set hook ingress dev pb8" \
		set-config config.hook=u8:9 xdp-prog=u32:50
	# from idle (counters, filters, hooks, the source windows): with
	# pd.scale above 1 (make check's debug run fits its hour without it)
	if [ "${PD_SCALE:-1}" -gt 1 ]; then
		expect_ok "disable" inns xc dedupctl disable
		nth_walk "enable" - "dedupctl disable" \
			set-config config.state=u8:1
		expect_ok "enable" inns xc dedupctl enable
	fi
	expect_ok "and it still works" inns xc dedupctl set hook xdp-generic \
		dev pb8
	inns xc dedupctl reset
	xdp_send 40 2
	expect_eq "judged" "packets 80 dropped 40" "$(xdp_judged xc)"
	inns xc dedupctl disable
	t_end
}
