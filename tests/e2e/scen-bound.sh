# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# One packet's work is bounded whatever the settings (core/step.h): a
# user's own namespace (uid 65534, unshare -Urn: SET_CONFIG is open to a
# namespace's own admin) cannot make every packet walk its filter with
# bottom halves off. The report's settings are refused, naming p, with
# nothing changed; the largest allowed work, and pings go through.

# Run by t_step_bound as uid 65534, root of its own user and network
# namespace: prints "# ..." notes, "FAIL ..." lines, then "done".
bound_script() {
	cat <<-'EOF'
	fail() { echo "FAIL $*"; }
	cfg() { dedupctl -j show | sed 's/,"budget":{[^}]*}//'; }
	ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
	# 40 pings on lo, one as soon as the last is answered: "RECEIVED MS"
	pings() {
		t0=$(ms)
		n=$(ping -A -c 40 -w 20 127.0.0.1 2>&1 |
			sed -n 's/.* \([0-9]*\) packets received.*/\1/p')
		echo "${n:-0} $(($(ms) - t0))"
	}
	ip link set lo up
	before=$(cfg)
	out=$(dedupctl set max 1 k 1 p 100000000 mem 16M layout flat scope shared 2>&1)
	rc=$?
	echo "# the report's settings: exit $rc: $out"
	[ $rc = 1 ] || fail "set max 1 k 1 p 100000000 ...: exit $rc"
	case $out in
	"dedupctl: config.filter.sbf.p: one packet would touch more than 256 lines (16384 bytes) of the filter in its P decrements: lower p, or leave it auto (dedupctl plan with these settings gives the numbers)") ;;
	*) fail "the refusal's words: $out" ;;
	esac
	[ "$(cfg)" = "$before" ] || fail "the refusal changed the configuration: $(cfg)"
	dedupctl -j show | grep -q '"state":"idle"' || fail "no longer idle"
	dedupctl set mem 256K > /dev/null || fail "the defaults refused"
	set -- $(pings)
	echo "# defaults (256K, p auto): $1 of 40 pings in $2 ms"
	[ "$1" = 40 ] || fail "defaults: $1 of 40 pings"
	dedupctl set max 1 k 1 p auto mem 16M layout flat scope shared > /dev/null ||
		fail "the report's settings with p auto refused"
	set -- $(pings)
	echo "# the report's with p auto: $1 of 40 pings in $2 ms"
	[ "$1" = 40 ] || fail "p auto: $1 of 40 pings"
	# the largest allowed: 3 + 128000 / 512 + 3 = 256 lines
	out=$(dedupctl set filter sbf k 3 p 128000 action drop 2>&1) ||
		fail "p 128000 refused: $out"
	dedupctl -j show | grep -q '"plan":{[^}]*"p":128000,.*"step_lines":256' ||
		fail "p 128000 not in force, or not its 256 lines: $(dedupctl -j show)"
	set -- $(pings)
	echo "# the largest allowed (k 3, p 128000, 256 lines), dropping: $1 of 40 pings in $2 ms"
	[ "$1" = 40 ] || fail "p 128000: $1 of 40 pings"
	# one more cell per packet is refused, the settings in force kept
	before=$(cfg)
	out=$(dedupctl set p 128001 2>&1)
	rc=$?
	[ $rc = 1 ] || fail "p 128001: exit $rc"
	case $out in
	*"config.filter.sbf.p: one packet would touch more than 256 lines"*) ;;
	*) fail "p 128001: $out" ;;
	esac
	[ "$(cfg)" = "$before" ] || fail "p 128001 changed the configuration"
	echo done
	EOF
}

t_step_bound() {
	t_begin "one packet's work is bounded: a user's own namespace cannot make every packet walk its filter"
	bound_script > /tmp/bound.sh
	userns_run /tmp/bound.sh
	t_end
}
