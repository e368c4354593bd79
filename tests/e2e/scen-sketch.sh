# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The distinct-count sketches for a fleet's database (dedupctl distinct
# sketches, GET_SKETCH) and the key they are hashed with (sources key):
# two namespaces, two "hosts" of one fleet, see overlapping sources; each
# exports its window's sketches as an unprivileged user, printed between
# "pd-sketch-begin NAME" and "pd-sketch-end NAME" lines with the module's
# own estimates and the exact counts on a "pd-sketch-truth" line: the host
# (tests/vm/vm.sh boot, tests/pg/guest_sketches.py) loads them into
# PostgreSQL's hll extension and checks the union against the exact count.

# The key's fingerprint of NS's sources (JSON), or "null"
key_fp() {	# NS
	inns "$1" dedupctl -j sources | sed -n 's/.*"key_fingerprint":"\{0,1\}\([0-9a-fnul]*\)"\{0,1\}[,}].*/\1/p'
}

# Two "hosts" that share sources: e sees sources 10.2.0.1 +0..+N-1 (d ->
# e is IPv4 only), b +FIRST..+FIRST+N-1, each twice; their estimates in
# eb and ee
two_hosts_traffic() {	# N FIRST
	inns d pdnet send -4 10.2.0.1 10.2.0.2 --count $((2 * $1)) --srcs "$1" \
		--dsts 10 > /dev/null
	inns a pdnet send -4 10.2.0.1 "$B4" --count $((2 * $1)) --srcs "$1" \
		--src-first "$2" > /dev/null
	sleep 0.3
	eb=$(distinct_of b src) ee=$(distinct_of e src)
}

# Rows of NS's dedupctl distinct sketches ARGS: WANT of them, or what the
# third read gave (a sub-window that begins while the others are read
# takes the oldest out of the window: one row fewer, so read again)
rows_of() {	# NS WANT ARGS...
	_ns=$1 _want=$2
	shift 2
	for _i in 1 2 3; do
		_n=$(inns "$_ns" dedupctl distinct sketches "$@" | wc -l)
		[ "$_n" = "$_want" ] && break
	done
	echo "$_n"
}

t_sketches() {
	t_begin "distinct sketches of two namespaces with one key merge in PostgreSQL's hll; the key is set, never read back, and resets the sketches"
	resolve_e
	head -c 40 /dev/urandom > /tmp/fleet.key
	head -c 39 /dev/urandom > /tmp/short.key
	# a window longer than the traffic takes to send: the debug kernel
	# sends 12,000 packets in tens of seconds, and the first host's
	# sources must still be in the window when both are read
	for ns in b e; do
		expect_ok "$ns: the fleet's key, a 10 min window" inns $ns dedupctl \
			sources key /tmp/fleet.key window 600s subwindows 4
	done
	fb=$(key_fp b) fe=$(key_fp e)
	echo "#   fingerprints: b $fb, e $fe"
	if [ -z "$fb" ] || [ "$fb" != "$fe" ]; then
		t_fail "one key, two fingerprints: $fb $fe"
	fi
	expect_eq "show says the key is set" 1 \
		"$(inns b dedupctl sources | grep -c "^key  *set (sketches of this fingerprint merge), fingerprint $fb")"
	expect_fail "a key of 39 bytes" 2 "a key is 40 random bytes" \
		inns b dedupctl sources key /tmp/short.key
	expect_fail "uid 65534 sets no key" 1 "Operation not permitted" \
		inns b pdnet asuser 65534 dedupctl sources key /tmp/fleet.key
	expect_fail "root of its own user namespace sets no key in b" 1 \
		"Operation not permitted" \
		inns b pdnet asuser 65534 unshare -Ur dedupctl sources key /tmp/fleet.key
	expect_eq "the refusals changed nothing" "$fb" "$(key_fp b)"
	expect_eq "root of its own user and network namespace sets its own" "$fb" \
		"$(pdnet asuser 65534 unshare -Urn sh -c \
			'dedupctl sources key /tmp/fleet.key > /dev/null && dedupctl -j sources' |
			sed -n 's/.*"key_fingerprint":"\([0-9a-f]*\)".*/\1/p')"
	two_hosts_traffic 3000 1500
	echo "#   the module's estimates: b $eb, e $ee (3000 each)"
	for ns in b e; do
		echo "pd-sketch-begin $ns"
		inns $ns pdnet asuser 65534 dedupctl distinct sketches window host $ns ||
			t_fail "$ns: distinct sketches as uid 65534"
		echo "pd-sketch-end $ns"
	done
	echo "pd-sketch-truth union=4500 b=3000 e=3000 est_b=$eb est_e=$ee fingerprint=$fb"
	# a read merges each sub-window over the CPUs with windows: bounded
	# whatever the possible CPUs (make check's e2e-cpus boots 256), as a
	# read of the statistics is (t_stats_bounded: 5 s, 20 s on the debug
	# kernel)
	ms=$(inns b pdnet time pdnet asuser 65534 dedupctl distinct sketches window)
	echo "#   $(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1)) possible CPUs: the window's sketches read in $ms ms as uid 65534"
	bound=5000
	[ "${PD_DEBUG:-0}" = 1 ] && bound=20000
	[ "$ms" -le $bound ] || t_fail "distinct sketches took $ms ms"
	# the rows of short sub-windows (the key stays; the sketches restart)
	expect_ok "b: a 20 s window" inns b dedupctl sources window 20s subwindows 4
	expect_eq "a new window keeps the key" "$fb" "$(key_fp b)"
	expect_eq "one row for the window" 1 \
		"$(inns b dedupctl distinct sketches window | wc -l)"
	expect_eq "a row per completed sub-window" 3 "$(rows_of b 3)"
	expect_eq "last 2: two rows" 2 "$(rows_of b 2 last 2)"
	# "2026-11-29T20:15:05.000000Z": seconds within a jiffy of 0, 5, ...
	expect_eq "sub-windows start at multiples of 5 s since the epoch" 0 \
		"$(inns b dedupctl distinct sketches | cut -d, -f3 | awk -F: '
			{ s = substr($3, 1, 9) + 0; r = s - 5 * int(s / 5 + 0.5)
			  if (r < -0.005 || r > 0.005) bad++ }
			END { print bad + 0 }')"
	rows=$(inns b dedupctl distinct sketches)
	expect_eq "every row carries the fingerprint" \
		"$(echo "$rows" | wc -l)" "$(echo "$rows" | cut -d, -f2 | grep -c "^$fb$")"
	# the traffic right before the two reads, so that it is still in the
	# window for both (a read takes over a second on the debug kernel)
	inns a pdnet send -4 10.2.0.1 "$B4" --count 200 --srcs 100 > /dev/null
	csv=$(inns b dedupctl distinct sketches window host b | cut -d, -f5)
	expect_eq "JSON: the same row" "$(echo "$csv" | sed 's/\\/\\\\/')" \
		"$(inns b dedupctl -j distinct sketches window host b | sed -n 's/.*"src":"\([^"]*\)".*/\1/p')"
	[ "$csv" != '\x118e7f' ] || t_fail "the row is EMPTY: the traffic is not in it"
	expect_fail "last 4 of 4 sub-windows" 2 "keeps 4 sub-windows" \
		inns b dedupctl distinct sketches last 4
	expect_fail "last and window" 2 "not both" \
		inns b dedupctl distinct sketches last 1 window
	expect_ok "b: back to a key of its own" inns b dedupctl sources key random
	[ "$(key_fp b)" != "$fb" ] || t_fail "key random kept the fleet's fingerprint"
	expect_eq "a new key empties the sketches" 0 "$(distinct_of b src)"
	expect_eq "show: a key of its own" 1 \
		"$(inns b dedupctl sources | grep -c '^key  *this instance.s own')"
	for ns in b e; do
		expect_ok "$ns: the default window" inns $ns dedupctl sources \
			key random window 60s subwindows 12
	done
	rm -f /tmp/fleet.key /tmp/short.key
	t_end
}

# The command of cron job NAME in PAGE: the line of the fenced block after
# "<!-- cron: NAME -->" without its schedule and user (six fields).
cron_command() {	# PAGE NAME
	awk -v m="<!-- cron: $2 -->" '
		$0 == m { f = 1; next }
		f == 1 && /^```/ { f = 2; next }
		f == 2 && /^```/ { exit }
		f == 2 && !/^[ \t]*(#|$)/ {
			for (i = 1; i <= 6; i++) sub(/^[^ ]+ +/, "")
			print }' "$DOCS/$1"
}

# Sleep into the next minute's second S.
to_second() {	# S
	_s=$(date +%S)
	sleep $((60 - ${_s#0} + $1))
}

# Documentation/user/fleet.md, run as it says on two "hosts" (b and e):
# the key copied to each, the host recipe, traffic whose sources overlap,
# then the cron job's command up to its psql, word for word, as root. What
# it prints goes to the host between "pd-fleet-begin NS" and
# "pd-fleet-end NS" lines: tests/pg/guest_sketches.py runs the page's SQL
# and the rest of the cron command (psql) word for word into a temporary
# PostgreSQL and checks the page's queries against the exact counts.
t_recipe_fleet() {
	t_begin "fleet.md: the recipe on two hosts, its cron job's rows for PostgreSQL"
	resolve_e
	mkdir -p /etc/pktdedup
	head -c 40 /dev/urandom > /etc/pktdedup/fleet.key
	chmod 600 /etc/pktdedup/fleet.key
	run_recipe b fleet.md fleet-host
	run_recipe e fleet.md fleet-host
	expect_eq "the saved file sets the key again" 1 \
		"$(grep -c '^sources key /etc/pktdedup/fleet.key$' /etc/pktdedup.conf)"
	fp=$(key_fp b)
	expect_eq "one fingerprint" "$fp" "$(key_fp e)"
	expect_eq "save says the key is not in the file" 1 \
		"$(grep -c "^# sources: the key set (fingerprint $fp) is not saved" /etc/pktdedup.conf)"
	# at boot: e's saved file (the last one written) on a key of its own
	inns e dedupctl sources key random > /dev/null
	expect_ok "e: the file applied (dedupctl -f)" \
		inns e dedupctl -f /etc/pktdedup.conf
	expect_eq "e: the fleet's key again" "$fp" "$(key_fp e)"
	cmd=$(cron_command fleet.md fleet-cron)
	export_cmd=${cmd%% | psql *}
	if [ -z "$export_cmd" ] || [ "$export_cmd" = "$cmd" ]; then
		t_fail "fleet.md: no cron job piping dedupctl into psql: '$cmd'"
	fi
	# the traffic within one minute, then that minute complete
	[ "$(date +%S)" -gt 45 ] && to_second 1
	two_hosts_traffic 2000 1000
	to_second 1
	for ns in b e; do
		echo "pd-fleet-begin $ns"
		# each host its own name: a UTS namespace named after it
		inns $ns unshare -u sh -c "hostname $ns && $export_cmd" ||
			t_fail "$ns: '$export_cmd' failed"
		echo "pd-fleet-end $ns"
	done
	echo "pd-fleet-truth union=3000 b=2000 e=2000 est_b=$eb est_e=$ee fingerprint=$fp"
	for ns in b e; do
		expect_ok "$ns: back to the defaults" inns $ns dedupctl sources \
			key random window 60s subwindows 12
	done
	rm -rf /etc/pktdedup /etc/pktdedup.conf
	t_end
}
