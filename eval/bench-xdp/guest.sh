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
#   pdx fr ROUND CASE FRAMES MS CPU_TICKS
#                                  one send of FRAMES frames: the sender's
#                                  time (ms) and the guest's busy CPU
#                                  ticks (/proc/stat, all CPUs)
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
N=$(arg n 10000)
ROUNDS=$(arg rounds 5)
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
	inns tr dedupctl set hook xdp-generic dev lo action "$1" mem 1M \
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
		# the first frame of the first run may be new; every other a copy
		check "tr pd-drop dropped" \
			"$([ "$_d" -ge $((_want - 1)) ] && echo 1)" \
			"dropped +$_d (want $_want or one less)"
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

in_receives() {
	inns fr awk '/^Ip: [0-9]/ { print $4 }' /proc/net/snmp
}

busy_ticks() {
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

setup() {	# CASE
	case $1 in
	none | none2) ;;
	ingress-*) inns fr dedupctl set hook ingress dev pb9 \
		action "${1#ingress-}" mem 1M > /dev/null ;;
	xdp-*) inns fr dedupctl set hook xdp dev pb9 \
		action "${1#xdp-}" mem 1M > /dev/null ;;
	generic-*) inns fr dedupctl set hook xdp-generic dev pb9 \
		action "${1#generic-}" mem 1M > /dev/null ;;
	prog-*) inns fr $IP link set dev pb9 xdpdrv \
		obj "$OBJ/xdp-${1#prog-}.bpf.o" sec xdp ;;
	esac || check "setup $1" 0 "failed"
}

teardown() {	# CASE
	case $1 in
	ingress-* | xdp-* | generic-*) inns fr dedupctl disable > /dev/null ;;
	prog-*) inns fr $IP link set dev pb9 xdpdrv off ;;
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
		setup "$c"
		_i0=$(in_receives)
		_p0=$(stat_in fr packets)
		_u0=$(stat_in fr duplicates)
		_t0=$(busy_ticks)
		_ms=$(inns fs pdnet time pdnet send -4 10.9.0.1 10.99.0.1 \
			--count "$N" --copies 2 --first "$first" \
			--pause-every 1000000)
		_t=$(($(busy_ticks) - _t0))
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
			check "fr $_r $c duplicates" \
				"$([ "$_u" -ge "$N" ] && [ "$_u" -le $((N + N / 100)) ] && echo 1)" \
				"duplicates +$_u (want $N)"
			;;
		esac
		teardown "$c"
	done
	_r=$((_r + 1))
done
echo "pdx end bad $BAD"
[ "$BAD" = 0 ]
