# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Anyone may read the statistics (/proc, GET_STATS), and reading them scans
# the filters (their zero cells or set bits): a reader must cost its own
# CPU time, never stall the packet path. It once did for a shared filter,
# whose lock the scan held (for every possible CPU's row of /proc), so an
# unprivileged reader in a loop stopped every CPU's packets.

# Packets b counted in SECS seconds of a's background traffic.
packets_in() {	# SECS
	_p0=$(stat_of b packets)
	sleep "$1"
	echo $(($(stat_of b packets) - _p0))
}

t_stats_readers() {
	t_begin "unprivileged readers of the statistics do not stall the packet path (shared filter)"
	expect_ok "a large shared filter" inns b dedupctl set scope shared mem 32M
	nsenter -t "$(nspid a)" -n pdnet send -4 $A4 $B4 --count 5000 \
		--loop > /dev/null &
	tx=$!
	sleep 1
	base=$(packets_in 3)
	readers=
	for r in 1 2; do
		# nsenter and pdnet exec: $! is the reader's shell
		nsenter -t "$(nspid b)" -n pdnet asuser 65534 sh -c \
			'while :; do cat /proc/net/pktdedup/stats; dedupctl stats percpu; done > /dev/null 2>&1' &
		readers="$readers $!"
	done
	sleep 1
	busy=$(packets_in 3)
	# shellcheck disable=SC2086
	kill $readers $tx
	# shellcheck disable=SC2086
	wait $readers $tx 2>/dev/null
	echo "#   packets in 3 s: $base alone, $busy with two readers in a loop"
	# TCG emulates both vCPUs on one host thread: the readers' vCPU takes
	# about half of the time whatever the module does (measured: 41% and
	# 64% of the packets at 32 and 16 MiB). A scan under the lock left the
	# sender 14% and 25%.
	[ "$busy" -ge $((base / 4)) ] ||
		t_fail "the readers stalled the packets: $busy against $base"
	expect_ok "back to the defaults" inns b dedupctl set scope percpu mem 256K
	t_end
}
