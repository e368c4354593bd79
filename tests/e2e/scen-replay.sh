# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# One verdict, offline and in the kernel: a capture made on the host
# (tests/vm/replay-capture.py: text2pcap, a fixed seed) is replayed frame by
# frame into a bridge whose instance drops copies with a fixed seed, and
# what comes out of the far port must be dedup-sim --write's output for the
# same capture, settings and seed: the same frames, byte for byte, in the
# same order. The filter is small enough to err both ways, so agreeing
# with dedup-sim is not agreeing with exact de-duplication.
#
#   rp (pdnet replay) -- rpa | rbp [br0, learning off] rbr | rra -- rr (pdnet record)
#
# Learning is off on both ports, so every frame is flooded to the other
# port whatever its MAC addresses; no namespace has an address or IPv6, so
# nothing but the capture crosses the bridge. pdnet replay sends from CPU
# 0 and veth hands a frame on on the sending CPU: one CPU, in order.

RP=/lib/pd/replay

replay_setup() {
	[ -n "${REPLAY_SET_UP:-}" ] && return
	for _n in rp rr rb; do
		mkns $_n
		inns $_n sh -c 'for c in all default; do echo 1 > /proc/sys/net/ipv6/conf/$c/disable_ipv6; done'
	done
	inns rb $IP link add br0 type bridge
	for _s in "rp rpa rbp" "rr rra rbr"; do
		set -- $_s
		veth_pair "$1" "$2" rb "$3"
		inns rb $IP link set "$3" master br0
		# flood every frame: no MAC is ever learnt
		inns rb $IP link set dev "$3" type bridge_slave learning off
		inns rb $IP link set "$3" up
		inns "$1" $IP link set "$2" up
	done
	inns rb $IP link set br0 up
	sleep 1
	REPLAY_SET_UP=1
}

# Replay the capture through rb; the frames rr receives go to FILE. The
# replay starts once the record says it listens, and ends with pdnet's
# end frame, which the record waits for: every frame before it has come
# (one CPU, in order), whatever the guest's clock does meanwhile.
replay_once() {	# FILE
	# the last run's log says "ready" too: gone before the next starts
	rm -f /tmp/rec.log
	inns rr pdnet record "$1" rra 3000 --max-seconds 300 --until-end \
		> /tmp/rec.log &
	_rp=$!
	_i=0
	while ! grep -q ready /tmp/rec.log 2>/dev/null && [ $_i -lt 300 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	# run as $(...): a failure is said on stderr and in the count
	_bad=
	grep -q ready /tmp/rec.log ||
		_bad="pdnet record not listening after 30 s"
	_sent=$(inns rp pdnet replay $RP/in.pcap rpa --end)
	wait $_rp || _bad="${_bad:+$_bad; }pdnet record: $(cat /tmp/rec.log)"
	echo "#   $_sent; $(grep recorded /tmp/rec.log)" >&2
	if [ -n "$_bad" ]; then
		echo "#   $_bad" >&2
		echo "failed: $_bad"
		return
	fi
	sed -n 's/^recorded \([0-9]*\).*/\1/p' /tmp/rec.log
}

t_replay() {
	t_begin "one verdict: a capture replayed through the module (drop, fixed seed) comes out as dedup-sim --write says"
	if ! [ -f $RP/settings.sh ] || ! [ -f $RP/in.pcap ] ||
		! [ -f $RP/expected.pcap ]; then
		t_fail "no capture in $RP: tests/vm/replay-capture.py runs on the host before the guest boots"
		t_end
		return
	fi
	. $RP/settings.sh
	echo "#   the capture: $REPLAY_FRAMES frames, $REPLAY_DISTINCT distinct IP packets; copies $REPLAY_EXACT exact, $REPLAY_TTL TTL, $REPLAY_CHECKSUM checksum; $REPLAY_ARP ARP, $REPLAY_NONIP other non-IP, $REPLAY_BAD unkeyable; $REPLAY_TUNNELS in tunnels ($REPLAY_DECAP)"
	echo "#   dedup-sim, seed $REPLAY_SEED: $REPLAY_PASSED pass (fp $REPLAY_FP, fn $REPLAY_FN); exact de-duplication: $REPLAY_EXACT_PASSED"
	replay_setup
	_bl=$(cat /proc/sys/net/core/netdev_max_backlog)
	echo 10000 > /proc/sys/net/core/netdev_max_backlog
	keyed=$((REPLAY_FRAMES - REPLAY_ARP - REPLAY_NONIP - REPLAY_BAD))
	# shared with automatic shards: the SBF lock-free (its layout auto
	# line), one filter that CPU 0 (pdnet replay runs there) steps
	# with the filter's own generator, as dedup-sim --shared; sharded: in
	# REPLAY_SHARDS shards, as dedup-sim --shards
	for scope in shared percpu sharded; do
		_set="scope $scope shards auto"
		_exp=$RP/expected.pcap
		_passed=$REPLAY_PASSED
		if [ $scope = shared ]; then
			_exp=$RP/expected-shared.pcap
			_passed=$REPLAY_SHARED_PASSED
		elif [ $scope = sharded ]; then
			_set="scope shared shards $REPLAY_SHARDS"
			_exp=$RP/expected-sharded.pcap
			_passed=$REPLAY_SHARDED_PASSED
		fi
		dropped=$((REPLAY_FRAMES - _passed))
		# shellcheck disable=SC2086
		expect_ok "$_set, drop, seed $REPLAY_SEED: $REPLAY_SET" \
			inns rb dedupctl set $REPLAY_SET action drop $_set \
			hook bridge-prerouting seed "$REPLAY_SEED"
		[ $scope = percpu ] ||
			expect_eq "$scope: shards" \
				"shards $([ $scope = sharded ] && echo "$REPLAY_SHARDS 0" || echo "1 1")" \
				"$(inns rb awk '$1 == "shards" { printf "shards %s", $2 } $1 == "lock_free" { printf " %s", $2 }' /proc/net/pktdedup/config)"
		inns rb dedupctl reset
		got=$(replay_once /tmp/replay-$scope.pcap)
		expect_eq "$scope: frames through, as dedup-sim's count" \
			"$_passed" "$got"
		expect_eq "$scope: dropped" "$dropped" "$(stat_of rb dropped)"
		expect_eq "$scope: IP packets looked at" "$((keyed))" \
			"$(stat_of rb packets)"
		expect_eq "$scope: unparsed, passed" "$REPLAY_BAD" \
			"$(stat_of rb unparsed)"
		expect_eq "$scope: non-IP, passed (and the end frame)" \
			"$((REPLAY_ARP + REPLAY_NONIP + 1))" \
			"$(inns rb sed -n 's/^nonip //p' /proc/net/pktdedup/stats)"
		# dedup-sim's verdicts are one CPU's: so must the module's be
		expect_eq "$scope: every IP packet judged on CPU 0" "$keyed" \
			"$(inns rb awk '$1 == "0" { print $2 }' /proc/net/pktdedup/stats)"
		# the tunnels looked into, frame for frame as dedup-sim did
		for _e in $REPLAY_DECAP; do
			expect_eq "$scope: ${_e%%:*} frames" "${_e#*:}" \
				"$(inns rb awk -v n="${_e%%:*}" '$1 == "decap" && $2 == n { print $3 }' /proc/net/pktdedup/stats)"
		done
		expect_eq "$scope: the frames of dedup-sim --write, byte for byte, in order" \
			"same $_passed" \
			"$(pdnet pcapcmp $_exp /tmp/replay-$scope.pcap)"
		# the control: another seed's output is another
		_o=$(pdnet pcapcmp $RP/other.pcap /tmp/replay-$scope.pcap)
		echo "#   against seed $REPLAY_OTHER_SEED's output: $_o"
		case "$_o" in
		same*) t_fail "seed $REPLAY_OTHER_SEED's output is the same" ;;
		esac
	done
	[ "$REPLAY_PASSED" != "$REPLAY_EXACT_PASSED" ] ||
		t_fail "the filter erred as often both ways: exact de-duplication passes as many"
	echo "$_bl" > /proc/sys/net/core/netdev_max_backlog
	expect_ok "disable" inns rb dedupctl disable
	t_end
}
