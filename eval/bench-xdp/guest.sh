# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# make bench-xdp's job in the e2e guest (busybox sh; tests/e2e/init.sh runs
# it for pd.run=benchxdp; vm.sh initramfs BUILD bench puts it in
# /lib/pd/bench-xdp.sh with pdxb and the programs in /lib/pd/bench). Its
# parameters come on the kernel command line: pdx.repeat= pdx.runs=
# pdx.trrounds= (BPF_PROG_TEST_RUN), pdx.n= pdx.rounds= (frames).
# Everything it measures goes to the console as lines the host reads
# (eval/bench-xdp/report.py):
#
#   pdx tr CASE NS RETVAL          one BPF_PROG_TEST_RUN run: the kernel's
#                                  mean ns per frame over pdx.repeat frames
#   pdx fr ROUND CASE FRAMES MS BUSY SOFTIRQ
#                                  one send of FRAMES frames through veth:
#                                  the sender's time (ms) and the guest's
#                                  CPU ticks (/proc/stat, all CPUs): busy,
#                                  and in softirq (the receive side)
#   pdx vf ROUND CASE FRAMES MS BUSY SOFTIRQ RX IN
#                                  the same through virtio-net: the time
#                                  until the receiver had them all, the
#                                  frames it took in and those IP did
#   pdx check WHAT ok|fail DETAIL  a counter that shows what was measured
#                                  is what was meant
. /lib/pd/lib.sh

arg() {	# NAME DEFAULT
	_v=$(sed -n "s/.*pdx\.$1=\([0-9]*\).*/\1/p" /proc/cmdline)
	echo "${_v:-$2}"
}
REPEAT=$(arg repeat 100000)
RUNS=$(arg runs 3)
TRROUNDS=$(arg trrounds 3)
N=$(arg n 20000)
ROUNDS=$(arg rounds 7)
OBJ=/lib/pd/bench
BAD=0

check() {	# WHAT OK DETAIL
	if [ "$2" = 1 ]; then
		echo "pdx check $1 ok $3"
	else
		echo "pdx check $1 fail $3"
		BAD=1
	fi
}

stat_in() {	# NS COLUMN
	stat_of "$1" "$2"
}

# ---- BPF_PROG_TEST_RUN: the frame comes in on the namespace's lo ----
#
# pktdedup's program judges a frame only for an instance at an XDP hook
# on the frame's device: the instance of namespace tr is at
# xdp-generic on lo (native XDP cannot attach to lo); its own attachment
# sees no traffic (nothing else runs in tr).
testrun() {	# CASE OBJ
	inns tr pdxb testrun "$2" "$REPEAT" "$RUNS" > /tmp/tr.out ||
		{ check "testrun $1" 0 "pdxb failed: $(cat /tmp/tr.out)"; return; }
	while read -r _ _i _ _ns _ _rv; do
		echo "pdx tr $1 $_ns $_rv"
	done < /tmp/tr.out
}

tr_pd() {	# ACTION
	inns tr dedupctl set hook xdp-generic dev lo action "$1" filter sbf mem 1M \
		> /dev/null || check "tr set $1" 0 "dedupctl set failed"
	_m=$(inns tr $IP -d link show lo | grep -o 'xdp[a-z]*' | head -n 1)
	check "tr pd-$1 on lo" "$([ "$_m" = xdpgeneric ] && echo 1)" \
		"the kernel says: ${_m:-none}"
	_p0=$(stat_in tr packets)
	_d0=$(stat_in tr dropped)
	testrun "pd-$1" "$OBJ/pktdedup.bpf.o"
	_p=$(($(stat_in tr packets) - _p0))
	_d=$(($(stat_in tr dropped) - _d0))
	_want=$((REPEAT * RUNS))
	check "tr pd-$1 packets" "$([ "$_p" = "$_want" ] && echo 1)" \
		"packets +$_p (want $_want)"
	if [ "$1" = drop ]; then
		# every frame a copy but the first each CPU's filter sees (a
		# run stays on one CPU, the next may be on another) and what
		# the filter forgets between two steps of the same frame: at
		# most the model's FN rate for a gap of one (lib.sh)
		_tol=$(($(grep -c '^processor' /proc/cpuinfo) + \
			$(tolerance "$_want" "$(fn_rate tr 1)")))
		check "tr pd-drop dropped" \
			"$([ "$_d" -ge $((_want - _tol)) ] && echo 1)" \
			"dropped +$_d (want $_want, less at most $_tol)"
	else
		check "tr pd-count dropped" "$([ "$_d" = 0 ] && echo 1)" \
			"dropped +$_d (want 0)"
	fi
	inns tr dedupctl disable > /dev/null
}

mkns tr
echo "pdx start testrun repeat $REPEAT runs $RUNS rounds $TRROUNDS"
_r=0
while [ $_r -lt "$TRROUNDS" ]; do
	testrun pass "$OBJ/xdp-pass.bpf.o"
	testrun drop "$OBJ/xdp-drop.bpf.o"
	tr_pd count
	tr_pd drop
	_r=$((_r + 1))
done

# ---- frames through veth: pa9 (fs, the sender) -> pb9 (fr) ----
#
# The receiver's 10.99.0.0/16 is a blackhole route: a frame that is not
# dropped before crosses PREROUTING and the routing lookup and is
# dropped there (Ip InReceives counts it), the same path for every case.
# pdnet send sends N distinct UDP datagrams, each twice back to back,
# from CPU 0, without pauses; veth hands each to the receive path on the
# sending CPU (softirq at the end of the send), so the sender's time is
# the frame's whole way. Each run's frames are new (--first).
mkns fs
mkns fr
link fs fr 9
inns fr $IP route add blackhole 10.99.0.0/16
inns fs $IP route add 10.99.0.0/16 via 10.9.0.2
inns fs $IP neigh replace 10.9.0.2 dev pa9 nud permanent \
	lladdr "$(inns fr cat /sys/class/net/pb9/address)"

in_receives() {	# [NS]
	inns "${1:-fr}" awk '/^Ip: [0-9]/ { print $4 }' /proc/net/snmp
}

# the guest's CPU ticks (/proc/stat, all CPUs): busy, and in softirq
# context, where both paths receive (the receive side's share)
ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $8 }' /proc/stat
}

setup() {	# NS DEV CASE
	case $3 in
	none | none2) ;;
	ingress-*) inns "$1" dedupctl set hook ingress dev "$2" \
		action "${3#ingress-}" filter sbf mem 1M > /dev/null ;;
	xdp-*) inns "$1" dedupctl set hook xdp dev "$2" \
		action "${3#xdp-}" filter sbf mem 1M > /dev/null ;;
	generic-*) inns "$1" dedupctl set hook xdp-generic dev "$2" \
		action "${3#generic-}" filter sbf mem 1M > /dev/null ;;
	prog-*) inns "$1" $IP link set dev "$2" xdpdrv \
		obj "$OBJ/xdp-${3#prog-}.bpf.o" sec xdp ;;
	esac || check "setup $3 on $2" 0 "failed"
}

teardown() {	# NS DEV CASE
	case $3 in
	ingress-* | xdp-* | generic-*) inns "$1" dedupctl disable > /dev/null ;;
	prog-*) inns "$1" $IP link set dev "$2" xdpdrv off ;;
	esac
}

CASES="none ingress-count ingress-drop xdp-count xdp-drop generic-count generic-drop prog-pass prog-drop none2"
echo "pdx start frames n $N copies 2 rounds $ROUNDS"
# a warm-up send: caches, the neighbour, the route
inns fs pdnet send -4 10.9.0.1 10.99.0.1 --count "$N" --copies 2 \
	--first 0 --pause-every 1000000 > /dev/null
first=$N
_r=0
while [ $_r -lt "$ROUNDS" ]; do
	for c in $CASES; do
		setup fr pb9 "$c"
		_i0=$(in_receives)
		_p0=$(stat_in fr packets)
		_u0=$(stat_in fr duplicates)
		set -- $(ticks)
		_b0=$1
		_q0=$2
		_ms=$(inns fs pdnet time pdnet send -4 10.9.0.1 10.99.0.1 \
			--count "$N" --copies 2 --first "$first" \
			--pause-every 1000000)
		set -- $(ticks)
		_t="$(($1 - _b0)) $(($2 - _q0))"
		_i=$(($(in_receives) - _i0))
		first=$((first + N))
		echo "pdx fr $_r $c $((2 * N)) $_ms $_t"
		# what reached IP: every frame but those dropped before
		case $c in
		none | none2 | ingress-count | xdp-count | generic-count | prog-pass)
			_want=$((2 * N)) ;;
		prog-drop) _want=0 ;;
		*) _want=$N ;;
		esac
		case $c in
		*-drop) _lo=$((_want - _want / 100)) ;;
		*) _lo=$_want ;;
		esac
		check "fr $_r $c InReceives" \
			"$([ "$_i" -ge "$_lo" ] && [ "$_i" -le $((_want + _want / 100)) ] && echo 1)" \
			"+$_i (want $_want)"
		case $c in
		ingress-* | xdp-* | generic-*)
			_p=$(($(stat_in fr packets) - _p0))
			_u=$(($(stat_in fr duplicates) - _u0))
			check "fr $_r $c packets" \
				"$([ "$_p" = $((2 * N)) ] && echo 1)" \
				"packets +$_p duplicates +$_u (want $((2 * N)), $N)"
			# the filter's errors: a copy missed, a new frame taken
			# for a copy (well under 1% at 1 MiB)
			check "fr $_r $c duplicates" \
				"$([ "$_u" -ge $((N - N / 100)) ] && [ "$_u" -le $((N + N / 100)) ] && echo 1)" \
				"duplicates +$_u (want $N, within 1%)"
			;;
		esac
		teardown fr pb9 "$c"
	done
	_r=$((_r + 1))
done

# ---- frames through virtio-net: pdv1 (vs) -> pdv2 (vc) ----
#
# The guest's two virtio-net NICs (tests/vm/vm.sh boot), wired through a
# QEMU hub; the receiver's has no guest offloads (native XDP). Its frames
# reach the guest through the device's interrupt and NAPI, where native
# XDP runs before any skb exists; the sender's time says nothing of that,
# so each run is timed from the first frame sent until the receiver's
# rx_packets has grown by all of them (or stopped growing for a second),
# and the guest's busy CPU ticks over the same span. The same blackhole.
VCASES="none ingress-count ingress-drop xdp-count xdp-drop prog-pass prog-drop none2"
# frames the device took in, XDP's drops included (/proc/net/dev is the
# reader's namespace's; /sys/class/net is the one sysfs was mounted in)
rx_of() {
	inns vc sed -n 's/^ *pdv2: *[0-9]* *\([0-9]*\) .*/\1/p' /proc/net/dev
}
if vio_link; then
	inns vc $IP route add blackhole 10.99.0.0/16
	inns vs $IP route add 10.99.0.0/16 via 10.12.0.2
	inns vs $IP neigh replace 10.12.0.2 dev pdv1 nud permanent \
		lladdr $VIO_RCV
	echo "pdx start virtio n $N copies 2 rounds $ROUNDS"
	inns vs pdnet send -4 10.12.0.1 10.99.0.1 --count "$N" --copies 2 \
		--first 0 --pause-every 1000000 > /dev/null
	sleep 2
	_r=0
	while [ $_r -lt "$ROUNDS" ]; do
		for c in $VCASES; do
			setup vc pdv2 "$c"
			_x0=$(rx_of)
			_i0=$(in_receives vc)
			set -- $(ticks)
			_b0=$1
			_q0=$2
			_s0=$(cut -d' ' -f1 /proc/uptime)
			inns vs pdnet send -4 10.12.0.1 10.99.0.1 --count "$N" \
				--copies 2 --first "$first" --pause-every 1000000 \
				> /dev/null
			# until every frame is in, or none came for a second
			_last=-1
			_still=0
			while :; do
				_x=$(($(rx_of) - _x0))
				[ "$_x" -ge $((2 * N)) ] && break
				if [ "$_x" = "$_last" ]; then
					_still=$((_still + 1))
					[ $_still -ge 10 ] && break
				else
					_still=0
				fi
				_last=$_x
				sleep 0.1
			done
			set -- $(ticks)
			_t="$(($1 - _b0)) $(($2 - _q0))"
			_ms=$(awk -v a="$_s0" -v b="$(cut -d' ' -f1 /proc/uptime)" \
				'BEGIN { printf "%d", (b - a) * 1000 }')
			_i=$(($(in_receives vc) - _i0))
			first=$((first + N))
			echo "pdx vf $_r $c $((2 * N)) $_ms $_t $_x $_i"
			check "vf $_r $c rx_packets" \
				"$([ "$_x" = $((2 * N)) ] && echo 1)" "+$_x (want $((2 * N)))"
			teardown vc pdv2 "$c"
		done
		_r=$((_r + 1))
	done
else
	check "virtio NICs" 0 "none with the MACs of tests/vm/vm.sh: $VIO_SND, $VIO_RCV"
fi
echo "pdx end bad $BAD"
[ "$BAD" = 0 ]
