# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# dedupctl's metrics: -o prometheus (stats, stats percpu, distinct,
# sources) against the traffic sent, and stats -w's rates while traffic
# flows. Each Prometheus output is printed between "pd-prom-begin NAME" and
# "pd-prom-end NAME" lines: the host (tests/vm/vm.sh boot) cuts them out of
# the console log and runs Debian's promtool check metrics on each.

# Print FILE between the marker lines the host looks for.
prom_show() {	# NAME FILE
	echo "pd-prom-begin $1"
	cat "$2"
	echo "pd-prom-end $1"
}

# The value of the series whose name and labels are exactly SERIES.
prom_val() {	# FILE SERIES
	awk -v s="$2" 'index($0, s " ") == 1 { print $2; exit }' "$1"
}

# The sum of a family's per-CPU series, and how many there are.
prom_cpu_sum() {	# FILE NAME
	awk -v n="$2" 'index($0, n "{") == 1 && /,cpu="/ { s += $2; c++ }
		END { printf "%d %d\n", s, c }' "$1"
}

t_prometheus() {
	t_begin "dedupctl -o prometheus: the counters sent, per-CPU rows adding up, a netns label (promtool on the host)"
	inns b dedupctl reset
	send -4 $A4 $B4 --count 400 --copies 3
	ns=$(inns b readlink /proc/self/ns/net | sed -n 's/^net:\[\([0-9]*\)\]$/\1/p')
	l="{netns=\"$ns\"}"
	P=/tmp/prom
	inns b dedupctl stats -o prometheus > $P-stats.txt ||
		t_fail "stats -o prometheus failed"
	inns b dedupctl stats percpu -o prometheus > $P-percpu.txt ||
		t_fail "stats percpu -o prometheus failed"
	dj1=$(inns b dedupctl -j distinct | json_num src)
	inns b dedupctl -o prometheus distinct > $P-distinct.txt ||
		t_fail "distinct -o prometheus failed"
	dj2=$(inns b dedupctl -j distinct | json_num src)
	inns b dedupctl sources -o prometheus > $P-sources.txt ||
		t_fail "sources -o prometheus failed"
	# as anyone may: GET is allowed without CAP_NET_ADMIN
	inns b pdnet asuser 65534 dedupctl stats -o prometheus > $P-nobody.txt ||
		t_fail "stats -o prometheus as nobody failed"

	# the traffic: 400 packets 3 times, as t_count checks it
	fp=$(tolerance 400 "$(fp_rate b)")
	fn=$(tolerance 800 "$(fn_rate b 1)")
	expect_eq "packets_total" 1200 "$(prom_val $P-stats.txt "pktdedup_packets_total$l")"
	expect_near "duplicate_packets_total" 800 \
		"$(prom_val $P-stats.txt "pktdedup_duplicate_packets_total$l")" "$fn" "$fp"
	expect_eq "duplicates as /proc counts them" "$(stat_of b duplicates)" \
		"$(prom_val $P-stats.txt "pktdedup_duplicate_packets_total$l")"
	expect_eq "dropped_packets_total (count mode)" 0 \
		"$(prom_val $P-stats.txt "pktdedup_dropped_packets_total$l")"
	expect_eq "unparsed_packets_total" 0 \
		"$(prom_val $P-stats.txt "pktdedup_unparsed_packets_total$l")"
	expect_eq "nonip_frames_total (hook prerouting)" 0 \
		"$(prom_val $P-stats.txt "pktdedup_nonip_frames_total$l")"
	# per CPU: one row per CPU of the guest, adding up to the totals
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	expect_eq "per-CPU packets: sum and rows" "1200 $ncpu" \
		"$(prom_cpu_sum $P-percpu.txt pktdedup_packets_total)"
	expect_eq "per-CPU duplicates: sum and rows" \
		"$(prom_val $P-stats.txt "pktdedup_duplicate_packets_total$l") $ncpu" \
		"$(prom_cpu_sum $P-percpu.txt pktdedup_duplicate_packets_total)"
	expect_eq "per-CPU output has no configuration gauges" 0 \
		"$(grep -c '^pktdedup_memory' $P-percpu.txt)"
	# the configuration's gauges, as dedupctl show has them
	j=$(inns b dedupctl -j show)
	held=$(echo "$j" | sed -n 's/.*"budget":{[^}]*"filters_bytes":\([0-9]*\).*/\1/p')
	expect_eq "memory_bytes of the filters" "$held" \
		"$(prom_val $P-stats.txt "pktdedup_memory_bytes{netns=\"$ns\",part=\"filters\"}")"
	expect_eq "filters (scope percpu: one per CPU)" "$ncpu" \
		"$(prom_val $P-stats.txt "pktdedup_filters$l")"
	expect_eq "info: count, packet key, prerouting" 1 "$(grep -c "^pktdedup_info{netns=\"$ns\",filter=\"sbf\",key=\"packet\",action=\"count\",scope=\"percpu\",hook=\"prerouting\",seed=\"random\"} 1$" $P-stats.txt)"
	expect_eq "active, apart from the info" 1 \
		"$(prom_val $P-stats.txt "pktdedup_active{netns=\"$ns\"}")"
	# every series of every output carries this namespace's netns label
	for f in stats percpu distinct sources nobody; do
		bad=$(grep -v '^#' $P-$f.txt | grep -vc "{netns=\"$ns\"[,}]")
		expect_eq "$f: series without netns=\"$ns\"" 0 "$bad"
	done
	ds=$(prom_val $P-distinct.txt "pktdedup_distinct_sources$l")
	if [ -n "$ds" ] && [ "$ds" -ge 1 ] &&
	   { [ "$ds" -ge "$dj1" ] || [ "$ds" -ge "$dj2" ]; } &&
	   { [ "$ds" -le "$dj1" ] || [ "$ds" -le "$dj2" ]; }; then
		echo "#   distinct_sources: $ds (-j before and after: $dj1, $dj2)"
	else
		t_fail "distinct_sources '$ds', -j distinct before and after: $dj1, $dj2"
	fi
	expect_eq "sources_enabled" 1 "$(prom_val $P-sources.txt "pktdedup_sources_enabled$l")"
	expect_eq "sources_window_seconds" \
		"$(inns b dedupctl -j sources | json_num window_ms | awk '{ print $1 / 1000 }')" \
		"$(prom_val $P-sources.txt "pktdedup_sources_window_seconds$l")"
	expect_eq "packets_total as nobody" 1200 \
		"$(prom_val $P-nobody.txt "pktdedup_packets_total$l")"
	# -o json is -j; a bad format is a usage error
	expect_eq "-o json = -j" "$(inns b dedupctl -j stats | stats_json_counts)" \
		"$(inns b dedupctl stats -o json | stats_json_counts)"
	expect_fail "-o xml" 2 "'xml' is not one of" inns b dedupctl -o xml stats
	expect_fail "-o prometheus show" 2 "only stats, distinct and sources" \
		inns b dedupctl -o prometheus show
	for f in stats percpu distinct sources nobody; do
		prom_show "$f" $P-$f.txt
	done
	t_end
}

# Field N (1: packets/s ... 5: marked/s; dup% without its %) of line L
# (1: the header) of FILE.
watch_field() {	# FILE L N
	sed -n "$2p" "$1" | awk -v n="$3" '{ gsub(/%/, "", $n); print $n }'
}

t_watch() {
	t_begin "dedupctl stats -w 1 count 3: a header and three lines of plausible rates"
	inns b dedupctl reset
	# copies 2: every other packet a copy; pdnet sleeps 1 ms after each
	# packet (--pause-every 1), so it sends at most 1000 per second; 10^5
	# distinct packets last the whole watch without repeating
	nsenter -t "$(nspid a)" -n pdnet send -4 $A4 $B4 --count 100000 \
		--copies 2 --pause-every 1 > /dev/null &
	tx=$!
	sleep 1
	# how late a sample may be: a read of the totals (the slowest of 3,
	# a whole dedupctl run: more than the watch's own read) and 100 ms
	# of wake-up; an interval after a late sample is that much shorter
	late=$(($(slowest_of 3 inns b pdnet time dedupctl stats) + 100))
	# a guest so slow (a debug kernel beside other guests on a loaded
	# host) that a sample may be a second late leaves the rates no upper
	# bound: then only their lower bound and the copies' share are checked
	bounded=1
	if [ "$late" -ge 900 ]; then
		echo "#   a read of the totals takes ${late} ms: no upper bound on the rates here"
		bounded=0
		late=0
	fi
	p0=$(stat_of b packets)
	inns b dedupctl stats -w 1 count 3 > /tmp/watch.txt
	rc=$?
	p1=$(stat_of b packets)
	expect_eq "exit status" 0 "$rc"
	sed 's/^/#     /' /tmp/watch.txt
	expect_eq "lines" 4 "$(wc -l < /tmp/watch.txt)"
	expect_eq "header" "packets/s dups/s dup% dropped/s marked/s" \
		"$(sed -n 1p /tmp/watch.txt | awk '{ $1 = $1; print }')"
	fpr=$(fp_rate b)
	fnr=$(fn_rate b 1)
	sum=0
	for n in 2 3 4; do
		p=$(watch_field /tmp/watch.txt $n 1 | cut -d. -f1)
		d=$(watch_field /tmp/watch.txt $n 2 | cut -d. -f1)
		# at most 1000/s sent, and the rate is over dedupctl's own
		# interval (as short as 1 s less a late sample's delay); a
		# packet sent before a sample may be counted after it (the
		# backlog between veth and the hook: a few packets): 1%
		hi=$((1010 * 1000 / (1000 - late)))
		[ "$bounded" = 1 ] || hi=$((p + 1))
		if [ -n "$p" ] && [ "$p" -ge 1 ] && [ "$p" -le "$hi" ]; then
			echo "#   line $n: packets/s: $p (1 to $hi)"
		else
			t_fail "line $n: packets/s '$p', want 1 to $hi"
		fi
		# half are copies: a pair split by a sample (1 each side), and
		# the filter's own errors on p/2 copies and p/2 originals
		tol=$((2 + $(tolerance $((p / 2)) "$fnr") + $(tolerance $((p / 2)) "$fpr")))
		expect_near "line $n: duplicates/s of $p packets/s" $((p / 2)) "$d" "$tol" "$tol"
		expect_eq "line $n: dropped/s, marked/s" "0.0 0.0" \
			"$(watch_field /tmp/watch.txt $n 4) $(watch_field /tmp/watch.txt $n 5)"
		sum=$((sum + p))
	done
	# the three intervals lie between the two reads of /proc: the sum of
	# the rates is at most what came in between, over intervals of at
	# least 1 s less a late sample's delay
	if [ "$bounded" = 0 ] ||
		[ "$sum" -le $(((p1 - p0) * 1000 / (1000 - late) + 3)) ]; then
		echo "#   rates sum to $sum/s; $((p1 - p0)) packets came in the whole watch; a sample up to $late ms late"
	else
		t_fail "rates sum to $sum/s over 3 s, but only $((p1 - p0)) packets came in the whole watch"
	fi
	# a reset between samples: the next rates start again from 0,
	# never negative
	inns b dedupctl stats -w 1 count 3 > /tmp/watch.txt &
	w=$!
	sleep 2
	inns b dedupctl reset
	wait $w
	expect_eq "exit status with a reset" 0 "$?"
	sed 's/^/#     /' /tmp/watch.txt
	expect_eq "negative rates" 0 "$(sed 1d /tmp/watch.txt | grep -c -- '-')"
	expect_eq "a line marked (reset)" 1 "$(grep -c '(reset)$' /tmp/watch.txt)"
	# on a terminal (pdnet pty: a pseudo-terminal, SIGINT 3.5 s after the
	# header, which dedupctl prints after its first sample): the header,
	# then one line rewritten in place (CR, no newline) at 1, 2 and 3 s,
	# and on SIGINT a newline after it and exit 0
	grep -q ' /dev/pts ' /proc/mounts || mount -t devpts devpts /dev/pts
	inns b pdnet pty 3500 dedupctl stats -w 1 > /tmp/watch-tty.txt
	expect_eq "exit status on SIGINT (a terminal)" 0 "$?"
	sed 's/^/#     /' /tmp/watch-tty.txt
	expect_eq "terminal: lines (the header's and the rewritten one's)" 2 \
		"$(wc -l < /tmp/watch-tty.txt)"
	expect_eq "terminal: header" "packets/s dups/s dup% dropped/s marked/s\\r" \
		"$(sed -n 1p /tmp/watch-tty.txt | awk '{ $1 = $1; print }')"
	# the second line: \r before each rate line, and the \r of the tty's
	# newline (ONLCR) at its end; a sample at 1, 2 and 3 s after the
	# first (each printed up to a read's time late, under 0.5 s)
	rewrites=$(sed -n 2p /tmp/watch-tty.txt | awk -F '\\\\r' '{
		n = 0; for (i = 2; i < NF; i++) if ($i ~ /[0-9]\.[0-9]/) n++; print n }')
	expect_eq "terminal: rate lines rewritten in place" 3 "$rewrites"
	expect_eq "terminal: the line ends in the newline after SIGINT" 1 \
		"$(sed -n 2p /tmp/watch-tty.txt | grep -c '\\r$')"
	kill $tx
	wait $tx 2>/dev/null
	# nothing of this scenario's left running for the next ones
	expect_eq "senders and watchers left" "" \
		"$(ps -o pid,args | grep -E 'pdnet (send|pty)|dedupctl stats' | grep -v grep)"
	expect_fail "-w with percpu" 2 "not with percpu" inns b dedupctl stats percpu -w 1
	expect_fail "count without -w" 2 "count N goes with -w" inns b dedupctl stats count 3
	t_end
}

t_memory() {
	t_begin "stats: the rate between two reads a second apart, and what a shared SBF remembers in packets (the planner's) and time"
	inns b dedupctl save > /tmp/memory-saved
	# new counters: the first read takes the first sample
	inns b dedupctl disable
	inns b dedupctl set mem 64K scope shared > /dev/null ||
		t_fail "set mem 64K scope shared"
	want=$(dedupctl -j plan mem 64K scope shared | json_num memory_packets)
	a0=$(uptime_ms)
	j0=$(inns b dedupctl -j stats)
	b0=$(uptime_ms)
	expect_eq "first read: no rate, no time" "" \
		"$(echo "$j0" | json_num rate_pps)$(echo "$j0" | json_num memory_ns)"
	expect_eq "memory_packets: the planner's" "$want" \
		"$(echo "$j0" | json_num memory_packets)"
	[ -n "$want" ] && [ "$want" -gt 0 ] || t_fail "plan gave no memory: '$want'"
	expect_eq "show: the model's memory, as plan says it" \
		"memory   copies up to $want packets apart are caught (99%)" \
		"$(inns b dedupctl show | grep '^memory ')"
	expect_eq "show -j: in the plan" "$want" \
		"$(inns b dedupctl -j show | sed 's/.*"plan"://' | json_num memory_packets)"
	send -4 $A4 $B4 --count 3000 --copies 1
	sleep 1
	a1=$(uptime_ms)
	j1=$(inns b dedupctl -j stats)
	b1=$(uptime_ms)
	n=$(($(echo "$j1" | json_num packets) - $(echo "$j0" | json_num packets)))
	expect_eq "packets between the reads" 3000 "$n"
	# the module's samples lie inside the reads, /proc/uptime in 10 ms
	# steps: its interval is between a1 - b0 and b1 - a0, 10 ms either way
	lo=$((n * 1000 / (b1 - a0 + 10)))
	hi=$((n * 1000 / (a1 - b0 - 10) + 1))
	rate=$(echo "$j1" | json_num rate_pps)
	if [ -n "$rate" ] && [ "$rate" -ge "$lo" ] && [ "$rate" -le "$hi" ]; then
		echo "#   rate_pps: $rate ($lo to $hi: $n packets in $((a1 - b0)) to $((b1 - a0)) ms)"
	else
		t_fail "rate_pps '$rate', want $lo to $hi"
	fi
	expect_eq "memory_packets" "$want" "$(echo "$j1" | json_num memory_packets)"
	# one filter every CPU steps: the total rate
	[ -n "$rate" ] && [ "$rate" -gt 0 ] &&
		expect_eq "memory_ns: memory_packets at rate_pps" \
			$((want * 1000000000 / rate)) \
			"$(echo "$j1" | json_num memory_ns)"
	# /proc and the text say the same memory (a read a second or more
	# after the last takes a new sample: the rate may be another)
	expect_eq "/proc" "rate_pps N memory_packets $want" \
		"$(inns b cat /proc/net/pktdedup/stats | awk '/^(rate_pps|memory_packets) / { printf "%s%s %s", s, $1, ($1 == "rate_pps" && $2 ~ /^[0-9]+$/) ? "N" : $2; s = " " }')"
	expect_eq "dedupctl stats' memory line" 1 \
		"$(inns b dedupctl stats | grep -c "^memory: copies up to $want packets apart are caught (99%)[,;] ")"
	# a window in shards: what each shard remembers, in the stream's
	# packets and time (a shard sees a share of the packets)
	inns b dedupctl set filter sliding window 20ms rate 100k shards 4 \
		> /dev/null || t_fail "set a sliding window in 4 shards"
	inns b dedupctl -j stats > /dev/null
	send -4 $A4 $B4 --first 7000 --count 3000 --copies 1
	sleep 1
	j2=$(inns b dedupctl -j stats)
	rate=$(echo "$j2" | json_num rate_pps)
	expect_eq "4 shards: memory_ns, the window" 20000000 \
		"$(echo "$j2" | json_num memory_ns)"
	[ -n "$rate" ] && expect_eq "4 shards: memory_packets, the window at the stream's rate" \
		$((rate * 20 / 1000)) "$(echo "$j2" | json_num memory_packets)"
	inns b dedupctl -f /tmp/memory-saved > /dev/null ||
		t_fail "restore the settings"
	t_end
}
