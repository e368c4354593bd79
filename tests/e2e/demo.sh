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

say "pktdedup is loaded: active in the initial namespace only; the receiver's is idle (nothing allocated, no hook)"
inns receiver dedupctl show | sed -n 's/^state/   state/p; /^         /s/^/   /p'
say "dedupctl enable in the receiver's namespace: it only observes (action count)"
inns receiver dedupctl enable
echo "   dedupctl show, in the receiver's namespace:"
inns receiver dedupctl show | sed 's/^/   /'

traffic() {
	inns receiver dedupctl reset
	inns receiver pdnet recv 9000 1500 > /tmp/recv.out &
	rp=$!
	sleep 0.5
	# C packets twice, back to back, then D - C other packets once
	inns sender pdnet send -4 10.1.0.1 10.1.0.2 --count $C --copies 2 > /dev/null
	inns sender pdnet send -4 10.1.0.1 10.1.0.2 --first $C --count $((D - C)) > /dev/null
	wait $rp
	got=$(sed -n 's/^received //p' /tmp/recv.out)
	echo "   sent $((D + C)) UDP packets: $D distinct + $C exact copies (30%)"
	echo "   the receiving application got $got of them"
	echo "   dedupctl stats:"
	inns receiver dedupctl stats | sed 's/^/   /'
}

say "count mode: duplicates are counted, every packet is delivered"
traffic

say "dedupctl set action drop: now duplicates are dropped before the stack sees them"
inns receiver dedupctl set action drop
traffic

say "each distinct packet arrived exactly once; /proc/net/pktdedup/stats has the per-CPU view:"
inns receiver cat /proc/net/pktdedup/stats | sed 's/^/   /'

say "the sources in the last minute: 200 more hosts send, one of them 500 packets"
echo "   (top talkers are off by default: dedupctl sources counters 128 turns them on)"
inns receiver dedupctl sources counters 128 > /dev/null
inns sender pdnet send -4 10.1.0.1 10.1.0.2 --src-first 100 --srcs 200 \
	--count 400 > /dev/null
inns sender pdnet send -4 10.1.0.1 10.1.0.2 --src-first 7 --count 500 > /dev/null
sleep 0.3
inns receiver dedupctl distinct | sed 's/^/   /'
echo "   dedupctl top 3:"
inns receiver dedupctl top 3 | sed 's/^/   /'
