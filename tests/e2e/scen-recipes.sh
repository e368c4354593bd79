# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The task pages' recipes, run as the pages give them: the commands of
# the fenced block after "<!-- recipe: NAME -->" in
# Documentation/user/capture-host.md and router.md (vm.sh copies the
# pages to /lib/pd/docs), each line through sh -c in the namespace of the
# host the page is about, word for word. Then what the page promises,
# measured: each packet through once, every retransmission through,
# copies from the second tap, the second link and the mirror removed.
# Sourced by scenarios.sh.

DOCS=/lib/pd/docs

# The commands of recipe NAME in PAGE, one a line (comments and blank
# lines left out).
recipe() {	# PAGE NAME
	awk -v m="<!-- recipe: $2 -->" '
		$0 == m { f = 1; next }
		f == 1 && /^```/ { f = 2; next }
		f == 2 && /^```/ { exit }
		f == 2 && !/^[ \t]*(#|$)/ { print }' "$DOCS/$1"
}

# Run recipe NAME of PAGE in namespace NS, a test for each line; what the
# lines print goes to /tmp/recipe-NAME.out.
run_recipe() {	# NS PAGE NAME
	recipe "$2" "$3" > /tmp/recipe-$3.sh
	if ! [ -s /tmp/recipe-$3.sh ]; then
		t_fail "$2: no recipe $3"
		return
	fi
	: > /tmp/recipe-$3.out
	while IFS= read -r _l; do
		if inns "$1" sh -c "$_l" >> /tmp/recipe-$3.out 2>&1 < /dev/null; then
			echo "#   $3: $_l"
		else
			t_fail "$2: '$_l' failed: $(tail -n 3 /tmp/recipe-$3.out)"
		fi
	done < /tmp/recipe-$3.sh
}

# A device's counter from /proc/net/pktdedup/devices
dev_stat() {	# NS DEV COLUMN-NAME
	inns "$1" cat /proc/net/pktdedup/devices | awk -v d="$2" -v c="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i }
		$1 == d { print $col }'
}

# The boot unit's way: what the recipe saved, applied to an instance
# disabled meanwhile, gives back the configuration the recipe made.
recipe_boot() {	# NS
	_want=$(inns "$1" dedupctl save | grep -v '^#')
	expect_eq "/etc/pktdedup.conf holds the configuration" "$_want" \
		"$(grep -v '^#' /etc/pktdedup.conf)"
	inns "$1" dedupctl disable > /dev/null
	expect_ok "applied at boot (dedupctl -f)" \
		inns "$1" dedupctl -f /etc/pktdedup.conf
	expect_eq "the same configuration" "$_want" \
		"$(inns "$1" dedupctl save | grep -v '^#')"
}

# capture-host.md: taps on eth1 and eth2 (veths whose other ends, t1 and
# t2, are the taps' wires, in namespace tap), a VXLAN mirror on eth2.
# Every datagram on both taps microseconds apart (the second one hop
# later) and every third through the mirror too, all of it again 300 ms
# later (a retransmission of each). tcpdump on each device, as a capture
# tool reads it, must see each datagram once and each retransmission.
t_recipe_capture() {
	t_begin "capture-host.md's recipe, word for word: two taps and a VXLAN mirror; each packet and each retransmission seen once"
	mkns cap
	mkns tap
	veth_pair cap eth1 tap t1
	veth_pair cap eth2 tap t2
	for _e in "cap eth1" "cap eth2" "tap t1" "tap t2"; do
		set -- $_e
		inns "$1" $IP link set "$2" up
	done
	run_recipe cap capture-host.md capture-host
	cfg=$(inns cap cat /proc/net/pktdedup/config)
	expect_eq "xdp on both taps, one filter, drop, the window, vxlan" \
		"action drop|decap vxlan|filter sliding|hook xdp|scope shared" \
		"$(echo "$cfg" | grep -E '^(hook|scope|action|filter|decap) ' | sort | tr '\n' '|' | sed 's/|$//')"
	expect_eq "both attached" \
		"eth1 active (ifindex $(ifindex_of cap eth1)), eth2 active (ifindex $(ifindex_of cap eth2))" \
		"$(xdp_wait cap)"
	expect_eq "promiscuous" "2" \
		"$(inns cap $IP link show | grep -c 'PROMISC')"
	recipe_boot cap
	xdp_wait cap > /dev/null
	# the capture tools: tcpdump on each device, what comes in
	rm -f /tmp/cap-eth1.err /tmp/cap-eth2.err
	_tds=
	for _d in eth1 eth2; do
		inns cap timeout 10 tcpdump -Z root -i $_d -Q in -n -U \
			-w /tmp/cap-$_d.pcap 'udp port 9000 or udp port 4789' \
			> /dev/null 2> /tmp/cap-$_d.err &
		_tds="$_tds $!"
	done
	tcpdumps_listening /tmp/cap-eth1.err /tmp/cap-eth2.err
	inns cap dedupctl reset
	n=300
	inns tap pdnet taps 192.0.2.1 198.51.100.2 $n \
		t1=02:00:00:00:09:02 t2=02:00:00:00:09:02 \
		--mirror "t2=$(mac_of cap eth2),203.0.113.1,203.0.113.2" \
		--mirror-every 3 --again-after 300 > /tmp/taps.out ||
		t_fail "pdnet taps"
	# the captures end by their time-out (a background job of a script
	# ignores SIGINT, and one stopped early loses what it has not read)
	wait $_tds
	late=$(sed -n 's/.* late //p' /tmp/taps.out)
	echo "#   $(cat /tmp/taps.out)"
	m=$(( (n + 2) / 3 ))
	frames=$((2 * (2 * n + m)))
	copies=$((2 * (n + m)))
	fp=$(fp_rate cap)
	tol=$(tolerance $((2 * n)) "$fp")
	seen1=$(tcpdump -Z root -n -r /tmp/cap-eth1.pcap 2> /dev/null | wc -l)
	seen2=$(tcpdump -Z root -n -r /tmp/cap-eth2.pcap 2> /dev/null | wc -l)
	echo "#   tcpdump: eth1 $seen1, eth2 $seen2; copies sent late $late"
	expect_near "tcpdump on eth1: each datagram and each retransmission" \
		$((2 * n)) "$seen1" "$tol" 0
	expect_near "tcpdump on eth2: the copies removed (but those sent late)" \
		0 "$seen2" 0 "$late"
	expect_eq "every frame a packet" "$frames" "$(stat_of cap packets)"
	expect_near "copies dropped" "$copies" "$(stat_of cap dropped)" \
		"$late" "$tol"
	expect_eq "the mirror's frames decapsulated" "$((2 * m))" \
		"$(inns cap awk '$1 == "decap" && $2 == "vxlan" { print $3 }' /proc/net/pktdedup/stats)"
	expect_eq "eth1: its packets" "$((2 * n))" "$(dev_stat cap eth1 packets)"
	expect_near "eth1: no duplicates" 0 "$(dev_stat cap eth1 duplicates)" \
		0 "$tol"
	expect_eq "eth2: its packets" "$((2 * (n + m)))" \
		"$(dev_stat cap eth2 packets)"
	expect_near "eth2: all duplicates" "$copies" \
		"$(dev_stat cap eth2 duplicates)" "$late" "$tol"
	run_recipe cap capture-host.md capture-host-watch
	sed 's/^/#   | /' /tmp/recipe-capture-host-watch.out
	expect_eq "stats: a row per tap" 2 \
		"$(grep -cE '^eth[12] ' /tmp/recipe-capture-host-watch.out)"
	inns cap dedupctl disable > /dev/null
	rm -f /etc/pktdedup.conf
	t_end
}

# router.md: a router r forwarding from eth1 and eth2 (two links from
# the sender's side, whose ends t1 and t2 are in namespace rs) to eth3
# (the receiver rb): every datagram over both links, the second one hop
# later, all of it again 300 ms later. rb must receive each datagram
# and each retransmission once.
t_recipe_router() {
	t_begin "router.md's recipe, word for word: copies over a second link not forwarded, retransmissions forwarded"
	mkns rs
	mkns r
	mkns rb
	veth_pair r eth1 rs t1
	veth_pair r eth2 rs t2
	veth_pair r eth3 rb b3
	inns r $IP addr add 10.71.1.1/24 dev eth1
	inns r $IP addr add 10.71.2.1/24 dev eth2
	inns r $IP addr add 10.71.3.1/24 dev eth3
	inns rb $IP addr add 10.71.3.2/24 dev b3
	for _e in "r eth1" "r eth2" "r eth3" "rs t1" "rs t2" "rb b3"; do
		set -- $_e
		inns "$1" $IP link set "$2" up
	done
	inns rb $IP route add default via 10.71.3.1
	inns r sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward; echo 2 > /proc/sys/net/ipv4/conf/all/rp_filter'
	inns r ping -c 1 -W 2 10.71.3.2 > /dev/null || t_fail "r cannot reach rb"
	run_recipe r router.md router
	cfg=$(inns r cat /proc/net/pktdedup/config)
	expect_eq "prerouting, one filter, drop, the window" \
		"action drop|filter sliding|hook prerouting|scope shared" \
		"$(echo "$cfg" | grep -E '^(hook|scope|action|filter) ' | sort | tr '\n' '|' | sed 's/|$//')"
	recipe_boot r
	inns rb pdnet recv 9000 1500 > /tmp/rb.out &
	_rp=$!
	sleep 0.5
	inns r dedupctl reset
	n=300
	inns rs pdnet taps 10.71.1.2 10.71.3.2 $n "t1=$(mac_of r eth1)" \
		"t2=$(mac_of r eth2)" --again-after 300 > /tmp/taps.out ||
		t_fail "pdnet taps"
	wait $_rp
	late=$(sed -n 's/.* late //p' /tmp/taps.out)
	got=$(sed -n 's/^received //p' /tmp/rb.out)
	echo "#   $(cat /tmp/taps.out); forwarded $got"
	fp=$(fp_rate r)
	tol=$(tolerance $((2 * n)) "$fp")
	expect_near "forwarded: each datagram and each retransmission once" \
		$((2 * n)) "$got" "$tol" "$late"
	expect_near "copies dropped" $((2 * n)) "$(stat_of r dropped)" \
		"$late" "$tol"
	run_recipe r router.md router-watch
	expect_eq "stats says what was dropped" yes \
		"$(grep -q 'dropped' /tmp/recipe-router-watch.out && echo yes)"
	inns r dedupctl disable > /dev/null
	rm -f /etc/pktdedup.conf
	t_end
}

# The commands of a man page's EXAMPLES (its .nf block), in order, as
# the reader sees them: "\-" is "-", a line ending in "&&" goes on on the
# next; comments left out.
man_examples() {	# FILE (gzip or not)
	{ zcat "$1" 2> /dev/null || cat "$1"; } | awk '
		/^\.SH EXAMPLES/ { f = 1; next }
		f && /^\.SH / { exit }
		f && /^\.nf/ { n = 1; next }
		f && /^\.fi/ { n = 0; next }
		f && n {
			gsub(/\\-/, "-")
			if ($0 ~ /^[ \t]*(#|$)/) next
			sub(/^[ \t]+/, "")
			line = line (line == "" ? "" : " ") $0
			if ($0 ~ /&&$/) next
			print line
			line = ""
		}'
}

# Run the EXAMPLES of FILE in namespace NS, a test each: a line that sets
# a shell variable (d=...) is kept for the lines after it; one that runs
# until interrupted (stats -w) runs 3 s and must have printed its rows.
run_examples() {	# NS FILE
	man_examples "$2" > /tmp/examples.sh
	if ! [ -s /tmp/examples.sh ]; then
		t_fail "$2: no EXAMPLES"
		return
	fi
	_vars=
	while IFS= read -r _l; do
		case $_l in
		[a-z]*=*)
			case ${_l%%=*} in *" "*) ;; *)
				_vars="$_vars$_l; "
				echo "#   $_l"
				continue ;;
			esac ;;
		esac
		case $_l in
		*"stats -w"*)
			inns "$1" timeout 3 sh -c "$_vars$_l" > /tmp/example.out 2>&1 < /dev/null
			_n=$(grep -c . /tmp/example.out)
			if [ "$_n" -ge 2 ]; then
				echo "#   $_l: $_n lines in 3 s"
			else
				t_fail "$_l: $(cat /tmp/example.out)"
			fi ;;
		*)
			if inns "$1" sh -c "$_vars$_l" > /tmp/example.out 2>&1 < /dev/null; then
				echo "#   $_l"
			else
				t_fail "'$_l' failed: $(tail -n 3 /tmp/example.out)"
			fi ;;
		esac
	done < /tmp/examples.sh
}

# dedupctl(8)'s EXAMPLES as the package installs the page, in order, on a
# host with the table and the devices they name; pktdedup(7)'s with its
# modprobe line loading the guest's module (insmod, the same parameters).
t_man_examples() {
	t_begin "the man pages' EXAMPLES, word for word, in order"
	mkns mx
	mkns mxp
	veth_pair mx eth1 mxp p1
	veth_pair mx eth2 mxp p2
	inns mx $IP link set eth1 up
	inns mx $IP link set eth2 up
	inns mx nft add table inet filter
	inns mx nft add chain inet filter input \
		'{ type filter hook input priority 0; }'
	mkdir -p /var/lib/prometheus/node-exporter
	run_examples mx /usr/share/man/man8/dedupctl.8.gz
	expect_eq "the textfile collector's file" yes \
		"$(grep -q '^pktdedup_packets_total' /var/lib/prometheus/node-exporter/pktdedup.prom && echo yes)"
	expect_eq "the file applied is in force" "$(cat /etc/pktdedup.conf | grep -v '^#')" \
		"$(inns mx dedupctl save | grep -v '^#')"
	inns mx dedupctl disable > /dev/null
	rm -f /etc/pktdedup.conf
	man_examples $DOCS/pktdedup.7 > /tmp/examples7.sh
	_mp=$(sed -n 's/^modprobe pktdedup//p' /tmp/examples7.sh)
	expect_eq "pktdedup(7): a modprobe line" yes \
		"$(grep -q '^modprobe pktdedup' /tmp/examples7.sh && echo yes)"
	# shellcheck disable=SC2086
	reload $_mp
	grep -v '^modprobe pktdedup' /tmp/examples7.sh > /tmp/examples7.run
	while IFS= read -r _l; do
		if sh -c "$_l" > /tmp/example.out 2>&1 < /dev/null; then
			echo "#   $_l"
		else
			t_fail "'$_l' failed: $(tail -n 3 /tmp/example.out)"
		fi
	done < /tmp/examples7.run
	expect_eq "netns=all: another namespace is active too" yes \
		"$(inns mxp grep -q '^state active' /proc/net/pktdedup/config && echo yes)"
	# the module as the scenarios after this one want it
	reload
	enable_hosts
	t_end
}
