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
	for ns in b e; do
		expect_ok "$ns: the fleet's key, a 20 s window" inns $ns dedupctl \
			sources key /tmp/fleet.key window 20s subwindows 4
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
	expect_eq "the refusals changed nothing" "$fb" "$(key_fp b)"
	# e: sources +0..+2999 (d -> e is IPv4 only); b: +1500..+4499
	inns d pdnet send -4 10.2.0.1 10.2.0.2 --count 6000 --srcs 3000 \
		--dsts 10 > /dev/null
	inns a pdnet send -4 10.2.0.1 "$B4" --count 6000 --srcs 3000 \
		--src-first 1500 > /dev/null
	sleep 0.3
	eb=$(distinct_of b src) ee=$(distinct_of e src)
	echo "#   the module's estimates: b $eb, e $ee (3000 each)"
	for ns in b e; do
		echo "pd-sketch-begin $ns"
		inns $ns pdnet asuser 65534 dedupctl distinct sketches window host $ns ||
			t_fail "$ns: distinct sketches as uid 65534"
		echo "pd-sketch-end $ns"
	done
	echo "pd-sketch-truth union=4500 b=3000 e=3000 est_b=$eb est_e=$ee fingerprint=$fb"
	expect_eq "one row for the window" 1 \
		"$(inns b dedupctl distinct sketches window | wc -l)"
	expect_eq "a row per completed sub-window" 3 "$(rows_of b 3)"
	expect_eq "last 2: two rows" 2 "$(rows_of b 2 last 2)"
	rows=$(inns b dedupctl distinct sketches)
	expect_eq "every row carries the fingerprint" \
		"$(echo "$rows" | wc -l)" "$(echo "$rows" | cut -d, -f2 | grep -c "^$fb$")"
	expect_eq "JSON: the same row" \
		"$(inns b dedupctl distinct sketches window host b | cut -d, -f5 | sed 's/\\/\\\\/')" \
		"$(inns b dedupctl -j distinct sketches window host b | sed -n 's/.*"src":"\([^"]*\)".*/\1/p')"
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
