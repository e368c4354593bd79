# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# make demo, inside the guest (pd.run=demo): a sender and a receiver
# namespace, traffic with 30% duplicates, statistics before and after
# switching from count to drop.
. /lib/pd/lib.sh

D=7000		# distinct packets
C=3000		# of which this many are sent twice: 30% of 10000 are copies

say() {
	echo
	echo "== $*"
}

mkns sender
mkns receiver
link sender receiver 1
inns sender ping -c 1 -W 2 10.1.0.2 > /dev/null

say "pktdedup is loaded and observing (action count) in every namespace:"
inns receiver dedupctl show

traffic() {
	inns receiver pdnet recv 9000 1500 > /tmp/recv.out &
	rp=$!
	sleep 0.5
	# C packets twice (back to back), then D - C once: 10000 packets
	inns sender pdnet send -4 10.1.0.1 10.1.0.2 --count $C --copies 2 > /dev/null
	inns sender pdnet send -4 10.1.0.1 10.1.0.2 --count $((D - C)) --port 9000 > /dev/null
	wait $rp
	echo "sent $((D + C)) packets: $D distinct, $C duplicates (30%)"
	echo "the receiving application got $(sed -n 's/^received //p' /tmp/recv.out) datagrams"
}

say "count mode: duplicates are counted, all packets pass"
traffic
inns receiver dedupctl stats

say "switching to drop: dedupctl set action drop (and a reset of the counters)"
inns receiver dedupctl set action drop
inns receiver dedupctl reset
traffic
inns receiver dedupctl stats
say "/proc/net/pktdedup/stats in the receiver's namespace:"
inns receiver cat /proc/net/pktdedup/stats
