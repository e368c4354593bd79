#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-kernel's guest: /init of the UML kernel that
# eval/bench-kernel/run.sh boots with the host's root through hostfs
# (read-only), so Debian's ip, nft, iptables-legacy and the work tree's
# dedupctl run here unchanged. Its arguments are on the kernel command
# line: pdb.out= (a folder it mounts writable and writes raw.txt into),
# pdb.mode= (run.sh's modes), pdb.ko= and pdb.ctl= (pktdedup.ko built
# against this kernel, and dedupctl), pdb.rounds= and pdb.pairs= (full),
# pdb.prof= (profile: which configuration).
#
# Namespaces: "snd" runs pktgen; it sends UDP over a veth pair into each
# of the others: "ra" and "rb", which take turns (a round each) as CFG,
# the namespace of the configuration under test, and REF, the one with no
# hook it is compared with, and "rx" for xt_recent (an iptables-legacy
# table, once used, stays hooked into its namespace until the namespace
# goes, and must not slow the others). In each, 10.99.0.0/16 is a
# blackhole route: every packet crosses PREROUTING and the routing lookup
# and is dropped there (Ip InAddrErrors counts it), the same path for
# every configuration.
#
# UML's timings move by a factor of two from one run to the next with the
# host's load (no-hook runs of one boot took 400 to 1700 ns per packet),
# more than most configurations change them, and one boot's two
# namespaces may differ by several percent for no reason of theirs. So
# each configuration is measured in pairs of runs, one into REF and one
# into CFG, back to back and in alternating order, and the host takes the
# ratio of each pair (eval/bench-kernel/report.py); "no-hook" itself is such a
# pair with nothing configured on either side.
#
# raw.txt gets a "CFG" line per configuration and round (its memory, its
# parameters), a "RUN" line per timed run: the packets pktgen sent and its
# time, and the counters around the run (the receiver's Ip MIB, softnet
# backlog drops, pktdedup's stats, xt_recent's rule counter), and for nft
# a "TOTAL" line of its rule counters over the round. The host makes the
# table, the JSON and the checks from them.
#
# A process costs about 45 ms to start under UML (ptrace, hostfs): the
# counters and pktgen's control files are read and written with bash
# builtins through /proc/PID/net of one resident process per namespace,
# and functions return in variables rather than through $(...) forks.
set -uo pipefail
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t tmpfs run /run
# not a tmpfs on /tmp: it would hide a work tree under the host's /tmp
# (a CI's fresh clone), whose scripts, module and output folder the guest
# uses; what needs a temporary file (bash's here-documents) gets /run/tmp
mkdir -p /run/tmp
export TMPDIR=/run/tmp

arg() { sed -n "s/.*pdb\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
OUT=$(arg out)
MODE=$(arg mode)
KO=$(arg ko)
CTL=$(arg ctl)
ROUNDS=$(arg rounds)
PAIRS=$(arg pairs)
PROF=$(arg prof)
mount -t hostfs hostfs "$OUT" -o "$OUT" || echo "guest: cannot mount $OUT"
RAW=$OUT/raw.txt
: >"$RAW"

# a line on the console and in raw.txt; CFG and END lines get the guest's
# uptime
say() {
	local up rest
	if [ "${1%% *}" = CFG ] || [ "$1" = END ]; then
		read -r up rest </proc/uptime
		set -- "$* t=$up"
	fi
	echo "$*"
	echo "$*" >>"$RAW"
}
fail() {
	say "ERROR $*"
}

# a command in namespace NS (nsenter: the mount namespace is kept)
N() {
	local ns=$1
	shift
	nsenter --net="/run/netns/$ns" "$@"
}

# /proc/net of namespace NS: that of its resident process (setup())
declare -A NSPID
pnet() {	# NS
	PNET=/proc/${NSPID[$1]}/net
}

# ---- counters (into variables) ----

# IPM="InReceives InAddrErrors" of NS: what entered IP, and what the
# blackhole route dropped (what reached the routing lookup)
ipmib() {	# NS
	local -a fld h=()
	local i rx=0 ad=0
	pnet "$1"
	while read -r -a fld; do
		[ "${fld[0]}" = Ip: ] || continue
		if [ ${#h[@]} = 0 ]; then
			h=("${fld[@]}")
			continue
		fi
		for i in "${!h[@]}"; do
			case "${h[$i]}" in
			InReceives) rx=${fld[$i]} ;;
			InAddrErrors) ad=${fld[$i]} ;;
			esac
		done
		break
	done <"$PNET/snmp"
	IPM="$rx $ad"
}

# SN="drops squeezes": backlog drops (column 2) and time squeezes (3)
softnet() {
	local d=0 s=0 a b c rest
	while read -r a b c rest; do
		d=$((d + 0x$b))
		s=$((s + 0x$c))
	done </proc/net/softnet_stat
	SN="$d $s"
}

# PDS="packets duplicates dropped unparsed" of pktdedup in NS (0s if idle)
pdstats() {	# NS
	local n p d m x u rest
	PDS="0 0 0 0"
	pnet "$1"
	while read -r n p d m x u rest; do
		[ "$n" = total ] && PDS="$p $d $x $u"
	done <"$PNET/pktdedup/stats"
}

# PDC[name]=value from /proc/net/pktdedup/config of NS
declare -A PDC
pdconf() {	# NS
	local k v
	PDC=()
	pnet "$1"
	while read -r k v; do
		[ -n "$k" ] && PDC[$k]=${v%% *}
	done <"$PNET/pktdedup/config"
}

# KMEM: what a set or list can take, Slab + Percpu + VmallocUsed (kB)
kmem() {
	local k v rest
	KMEM=0
	while read -r k v rest; do
		case "$k" in
		Slab: | Percpu: | VmallocUsed:) KMEM=$((KMEM + v)) ;;
		esac
	done </proc/meminfo
}

# ---- pktgen in snd ----

pg() {	# FILE COMMAND...: one pktgen command
	local f=/proc/${NSPID[snd]}/net/pktgen/$1
	shift
	echo "$*" >"$f" || fail "pktgen: '$*' > $f"
}

# IPADD: the dotted quad BASE + I
ipadd() {	# BASE I
	local IFS=.
	# shellcheck disable=SC2086
	set -- $1 "$2"
	local n=$((($1 << 24) + ($2 << 16) + ($3 << 8) + $4 + $5))
	IPADD="$((n >> 24 & 255)).$((n >> 16 & 255)).$((n >> 8 & 255)).$((n & 255))"
}

# The traffic: IPS source addresses and PORTS source ports, both stepped
# by one each packet (pktgen.c's mod_cur_headers(): the port wraps at
# udp_src_max, exclusive; the address after src_max, inclusive), so with
# IPS and PORTS coprime the (address, port) pairs cycle through
# IPS x PORTS distinct flows. pktgen starts the cycle afresh at every
# run, so every run is a whole number of cycles: a run then continues
# the cycle exactly where the last one left it.
traffic() {	# IPS PORTS
	TR_IPS=$1
	TR_PORTS=$2
	TR_FLOWS=$((TR_IPS * TR_PORTS))
	[ $((RUN_N % TR_FLOWS)) = 0 ] || fail "runs of $RUN_N packets are not whole cycles of $TR_FLOWS flows"
}

# Every packet of the boot distinct (DISTINCT=1: the size rows), or not.
# Under the packet key two packets of one run already differ (pktgen's
# sequence number in the payload, the IP ID), but pktgen numbers them
# afresh, and a device added anew counts its IP IDs from 0, at every
# send: each run would repeat the last one into its namespace packet for
# packet. So each send gets a UDP destination port of its own,
# DPORT_BASE + its number in the boot (the flow rows keep port 9, their
# flows the same in every run).
DISTINCT=0
DPORT_BASE=20000
SENDS=0

# Point pktgen at namespace NS (its veth peer in snd, the receiver's MAC).
pg_to() {	# NS
	local dev=${DEV[$1]} d=/proc/${NSPID[snd]}/net/pktgen i
	# the thread removes devices when it next runs (rem_device_all waits
	# 125 ms for it, not always long enough): wait for their files to go
	pg kpktgend_0 rem_device_all
	for i in $(seq 100); do
		[ -e "$d/v0" ] || [ -e "$d/v2" ] || [ -e "$d/v4" ] || break
		sleep 0.05
	done
	pg kpktgend_0 "add_device $dev"
	[ -e "$d/$dev" ] || fail "pktgen: $dev was not added"
	pg "$dev" "clone_skb 0"	# veth has no IFF_TX_SKB_SHARING
	pg "$dev" "pkt_size $PKT_SIZE"
	pg "$dev" "delay 0"
	pg "$dev" "burst 1"
	pg "$dev" "flag NO_TIMESTAMP"
	pg "$dev" "dst $DST"
	pg "$dev" "dst_mac ${MAC[$1]}"
	pg "$dev" "src_min $SRC_BASE"
	ipadd "$SRC_BASE" $((TR_IPS - 1))
	pg "$dev" "src_max $IPADD"
	pg "$dev" "udp_src_min $PORT_BASE"
	pg "$dev" "udp_src_max $((PORT_BASE + (TR_PORTS > 1 ? TR_PORTS : 0)))"
	pg "$dev" "udp_dst_min $DPORT"
	pg "$dev" "udp_dst_max $DPORT"
	TR_DEV=$dev
}

# Send COUNT packets into namespace NS; the write to pgctrl returns when
# pktgen is done. Sets PG_SENT, PG_USEC, PG_PPS, PG_ERR from the device's
# "Result: OK: USEC(...) usec, SENT (...)" and "PPSpps ... errors: ERR".
pg_send() {	# NS COUNT
	local f=/proc/${NSPID[snd]}/net/pktgen line res=
	SENDS=$((SENDS + 1))
	DPORT=9
	if [ "$DISTINCT" = 1 ]; then
		DPORT=$((DPORT_BASE + SENDS))
		[ "$DPORT" -le 65535 ] || fail "more sends than distinct ports"
	fi
	pg_to "$1"
	pg "$TR_DEV" "count $2"
	# pgctrl acts on the writer's namespace, not the file's
	N snd sh -c 'echo start > /proc/net/pktgen/pgctrl' || fail "pktgen: start"
	PG_USEC=0 PG_SENT=0 PG_PPS=0 PG_ERR=0
	while read -r line; do
		if [[ $line =~ ^Result:\ OK:\ ([0-9]+)\(.*usec,\ ([0-9]+)\  ]]; then
			PG_USEC=${BASH_REMATCH[1]}
			PG_SENT=${BASH_REMATCH[2]}
			res=1
		elif [ -n "$res" ] && [[ $line =~ ^([0-9]+)pps.*errors:\ ([0-9]+) ]]; then
			PG_PPS=${BASH_REMATCH[1]}
			PG_ERR=${BASH_REMATCH[2]}
		fi
	done <"$f/$TR_DEV"
	[ -n "$res" ] || fail "pktgen gave no result: $(tail -n 3 "$f/$TR_DEV")"
}

# ---- timed runs ----

# xt_recent's DROP rule counter in NS as "xt_dropped=PACKETS" in CNT (a
# read does not reset it: run() reports what each run added). nft's rule
# counters are read once per configuration instead (nft_totals()).
CNT_KIND=
counters() {	# NS
	CNT=
	[ "$CNT_KIND" = xt ] &&
		CNT=$(N "$1" iptables-legacy -w -t raw -L PREROUTING -v -x -n |
			awk '$3 == "DROP" { print "xt_dropped=" $1 }')
}

# One timed run of RUN_N packets into NS, for configuration NAME in ROLE
# base (REF, no hook) or cfg (the one under test): its RUN line in
# RUN_LINE, its softnet backlog drops in RUN_DROPS.
run() {	# NAME ROLE NS PAIR
	local name=$1 role=$2 ns=$3 pair=$4 ip0 sn0 pd0 cnt0 w k v row
	local -a a b
	local -A before
	ipmib "$ns"
	ip0=$IPM
	softnet
	sn0=$SN
	pdstats "$ns"
	pd0=$PDS
	cnt0=
	if [ "$role" = cfg ] && [ -n "$CNT_KIND" ]; then
		counters "$ns"
		cnt0=$CNT
	fi
	pg_send "$ns" "$RUN_N"
	ipmib "$ns"
	softnet
	pdstats "$ns"
	row="RUN name=$name role=$role ns=$ns round=$ROUND pair=$pair flows=$TR_FLOWS count=$RUN_N"
	row+=" size=$PKT_SIZE distinct=$DISTINCT"
	row+=" sent=$PG_SENT usec=$PG_USEC pps=$PG_PPS errors=$PG_ERR"
	# words of numbers, split on purpose (no fork, no temporary file)
	# shellcheck disable=SC2206
	a=($ip0) b=($IPM)
	row+=" rx=$((b[0] - a[0])) routed=$((b[1] - a[1]))"
	# shellcheck disable=SC2206
	a=($sn0) b=($SN)
	RUN_DROPS=$((b[0] - a[0]))
	row+=" backlog_drops=$RUN_DROPS squeezed=$((b[1] - a[1]))"
	# shellcheck disable=SC2206
	a=($pd0) b=($PDS)
	row+=" pd_packets=$((b[0] - a[0])) pd_duplicates=$((b[1] - a[1])) pd_dropped=$((b[2] - a[2])) pd_unparsed=$((b[3] - a[3]))"
	if [ "$role" = cfg ] && [ -n "$CNT_KIND" ]; then
		counters "$ns"
		for w in $cnt0; do
			before[${w%%=*}]=${w#*=}
		done
		for w in $CNT; do
			k=${w%%=*}
			v=${w#*=}
			row+=" $k=$((v - ${before[$k]:-0}))"
		done
	fi
	RUN_LINE=$row
}

# PAIRS pairs of runs, one into the no-hook namespace REF and one into
# NS, the order alternating; the host takes each configuration's ratio
# from its pairs. pktgen's packets are received within its own
# local_bh_enable() only while the softirqs keep up: when a pass of them
# ends past its limit (2 ms, one jiffy at UML's HZ 100: the host
# preempting UML in the middle of one does it) with more pending, the rest
# is left to ksoftirqd; local_bh_enable() then leaves softirqs alone until
# ksoftirqd has run, which may be when pktgen yields at the next tick, and
# meanwhile the backlog (1000 packets) overflows: packets dropped
# unprocessed (softnet_stat counts them). Such a
# pair is said as DISCARD lines and run again after a second, four times
# at most (the hiccups come with the host's load); the host checks the
# pairs it keeps.
pairs() {	# NAME NS
	local i try first second drops
	for i in $(seq "$PAIRS"); do
		for try in 1 2 3 4 5; do
			if [ $((i % 2)) = 1 ]; then
				run "$1" base "$REF" "$i"
				first=$RUN_LINE drops=$RUN_DROPS
				run "$1" cfg "$2" "$i"
			else
				run "$1" cfg "$2" "$i"
				first=$RUN_LINE drops=$RUN_DROPS
				run "$1" base "$REF" "$i"
			fi
			second=$RUN_LINE
			drops=$((drops + RUN_DROPS))
			[ "$drops" = 0 ] || [ "$try" = 5 ] && break
			say "DISCARD${first#RUN}"
			say "DISCARD${second#RUN}"
			sleep 1
		done
		say "$first"
		say "$second"
	done
}

# ---- the configurations ----

# The counters of table dd's rules in CFG (by their comments), once the
# timed runs are done: a "TOTAL" line. nft 1.0.6 dumps a set's elements
# for any command on its table, which takes about 2 minutes for 10^6
# elements under UML (long enough for all of them to time out), so the set
# is flushed first (a second).
nft_totals() {	# NAME
	N "$CFG" nft flush set ip dd seen 2>/dev/null
	say "TOTAL name=$1 round=$ROUND $(N "$CFG" nft list chain ip dd pre |
		sed -n 's/.*counter packets \([0-9]*\) bytes [0-9]*.* comment "\([a-z]*\)".*/nft_\2=\1/p' |
		tr '\n' ' ')"
}

# no hook in CFG either: the pairs' ratio is the resolution of the method
nohook_cfg() {	# [NAME]
	say "CFG name=${1:-no-hook} round=$ROUND flows=$TR_FLOWS size=$PKT_SIZE distinct=$DISTINCT"
	pairs "${1:-no-hook}" "$CFG"
}

# pktdedup in CFG: SETTINGS for dedupctl set, with the source analytics
# SRC: "defaults" (the distinct sketches), "all" (also the top talkers,
# 128 counters, and the new-source filter, both off by default) or "off"
# (none: dedupctl sources off); one cycle of the flows before the timed
# runs
pd_cfg() {	# NAME SRC SETTING...
	local name=$1 src=$2
	shift 2
	case "$src" in
	all) N "$CFG" "$CTL" sources counters 128 new on >/dev/null ||
		fail "dedupctl sources counters 128 new on" ;;
	off) N "$CFG" "$CTL" sources off >/dev/null ||
		fail "dedupctl sources off" ;;
	esac
	N "$CFG" "$CTL" set "$@" >/dev/null || { fail "dedupctl set $*"; return; }
	pg_send "$CFG" "$TR_FLOWS"
	pdconf "$CFG"
	say "CFG name=$name round=$ROUND flows=$TR_FLOWS" \
		"bytes=$((PDC[mem_filters] + PDC[mem_sources]))" \
		"src=$src src_bytes=${PDC[mem_sources]}" \
		"filter=${PDC[filter]} layout=${PDC[layout]:-} key=${PDC[key]}" \
		"payload=${PDC[payload]:-} action=${PDC[action]}" \
		"k=${PDC[k]:-} p=${PDC[p]:-} cells=${PDC[cells]:-} shards=${PDC[shards]:-}" \
		"fp_bound=${PDC[fp_bound]:-} size=$PKT_SIZE distinct=$DISTINCT" \
		"hooks=${PDC[netfilter_hooks]}"
	pairs "$name" "$CFG"
	N "$CFG" "$CTL" sources on counters 0 new off >/dev/null ||
		fail "dedupctl sources on counters 0 new off"
	N "$CFG" "$CTL" disable >/dev/null || fail "dedupctl disable"
	# disable keeps the settings: back to the defaults the rows assume
	N "$CFG" "$CTL" set state idle hook prerouting dev any proto any \
		match-mark any filter sbf layout auto max auto scope percpu \
		shards auto payload all >/dev/null ||
		fail "dedupctl set (back to the defaults)"
	pdconf "$CFG"
	[ "${PDC[netfilter_hooks]}" = none ] || fail "$name: hooks left after dedupctl disable"
}

# nftables de-duplication as a user writes it: a set of the flows seen in
# the last minute; a packet whose flow is in it is dropped (ACTION drop)
# or only counted (count), any other adds its flow. The set is filled by
# one cycle of the flows before the timed runs; its memory is the growth
# of Slab + Percpu + VmallocUsed across that fill, measured after the same
# number of packets without the table.
NFT_KEY='ip saddr . ip daddr . meta l4proto . th sport . th dport'
nft_cfg() {	# NAME ACTION SIZE
	local name=$1 action=$2 size=$3 m0 elems='' verdict=
	[ "$action" = drop ] && verdict=drop
	pg_send "$CFG" "$TR_FLOWS"
	kmem
	m0=$KMEM
	N "$CFG" nft -f - <<-EOF || { fail "nft: cannot make table dd"; return; }
	table ip dd {
		set seen {
			type ipv4_addr . ipv4_addr . inet_proto . inet_service . inet_service
			flags dynamic,timeout
			timeout 60s
			size $size
		}
		chain pre {
			type filter hook prerouting priority -450; policy accept;
			$NFT_KEY @seen counter $verdict comment "hit"
			add @seen { $NFT_KEY } counter comment "added"
		}
	}
	EOF
	pg_send "$CFG" "$TR_FLOWS"
	kmem
	# listing the set takes a second per 10^4 elements under UML, and its
	# entries expire after a minute: larger sets are judged by the runs
	# (every packet of a run must hit, none may add)
	if [ "$TR_FLOWS" -le "$LIST_MAX" ]; then
		elems=$(N "$CFG" nft list set ip dd seen | grep -o ' expires ' | wc -l)
	fi
	say "CFG name=$name round=$ROUND flows=$TR_FLOWS bytes=$(((KMEM - m0) * 1024))" \
		"${elems:+elements=$elems}"
	pairs "$name" "$CFG"
	nft_totals "$name"
	N "$CFG" nft delete table ip dd || fail "nft: cannot delete table dd"
}

# every packet dropped at prerouting by one rule (VERDICT drop): the path
# of a configuration that drops every packet (no routing lookup after
# it); or (accept) counted and passed: what any hook costs
nft_drop_cfg() {	# NAME [VERDICT]
	N "$CFG" nft -f - <<-EOF || { fail "nft: cannot make table dd"; return; }
	table ip dd {
		chain pre {
			type filter hook prerouting priority -450; policy accept;
			counter ${2:-drop} comment "hit"
		}
	}
	EOF
	say "CFG name=$1 round=$ROUND flows=$TR_FLOWS"
	pairs "$1" "$CFG"
	nft_totals "$1"
	N "$CFG" nft delete table ip dd || fail "nft: cannot delete table dd"
}

# xt_recent in rx: drop a source seen in the last minute, remember any
# other (ip_list_tot is on the kernel command line); filled like the set
xt_cfg() {	# NAME
	local name=$1 m0 entries ipt="iptables-legacy -w -t raw"
	pg_send rx "$TR_FLOWS"
	kmem
	m0=$KMEM
	# shellcheck disable=SC2086
	if ! N rx $ipt -A PREROUTING -m recent --name seen --rcheck --seconds 60 -j DROP ||
		! N rx $ipt -A PREROUTING -m recent --name seen --set; then
		fail "iptables: cannot add the rules"
		return
	fi
	pg_send rx "$TR_FLOWS"
	kmem
	# the list as /proc shows it, up to LIST_MAX: each read() of that file
	# walks the table from its start, quadratic in its entries; larger
	# lists are judged by the runs (every packet must be dropped)
	entries=
	if [ "$TR_FLOWS" -le "$LIST_MAX" ]; then
		pnet rx
		entries=$(wc -l <"$PNET/xt_recent/seen")
	fi
	say "CFG name=$name round=$ROUND flows=$TR_FLOWS bytes=$(((KMEM - m0) * 1024))" \
		"${entries:+elements=$entries}"
	CNT_KIND=xt
	pairs "$name" rx
	CNT_KIND=
	# shellcheck disable=SC2086
	N rx $ipt -F PREROUTING || fail "iptables: cannot flush"
}

# ---- set-up ----

# namespace: its veth peer in snd
declare -A DEV=([ra]=v0 [rb]=v4 [rx]=v2) MAC
setup() {
	local ns i=0
	busybox insmod "$KO" max_total_mem=512M || fail "insmod $KO"
	say "MODULE text=$(cat /sys/module/pktdedup/sections/.text 2>/dev/null)"
	for ns in snd ra rb rx; do
		ip netns add $ns || fail "ip netns add $ns"
		# nsenter execs sleep: $! is the process in the namespace
		nsenter --net="/run/netns/$ns" sleep 1000000 &
		NSPID[$ns]=$!
		# no IPv6: neighbour discovery and MLD would reach the hooks too
		N $ns sh -c 'echo 1 > /proc/sys/net/ipv6/conf/all/disable_ipv6;
			echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6; ip link set lo up'
	done
	for ns in ra rb rx; do
		i=$((i + 1))
		ip link add "${DEV[$ns]}" netns snd type veth peer name in netns $ns ||
			fail "cannot make the veth pair into $ns"
		N snd ip addr add "10.0.$i.1/24" dev "${DEV[$ns]}"
		N $ns ip addr add "10.0.$i.2/24" dev in
		N snd ip link set "${DEV[$ns]}" up
		N $ns ip link set in up
		N $ns ip route add blackhole 10.99.0.0/16
		MAC[$ns]=$(N $ns ip -o link show in | sed -n 's/.*link\/ether \([0-9a-f:]*\) .*/\1/p')
		pdconf $ns
		say "SETUP ns=$ns dev=${DEV[$ns]} mac=${MAC[$ns]} state=${PDC[state]} hooks=${PDC[netfilter_hooks]}"
		[ "${PDC[netfilter_hooks]}" = none ] || fail "pktdedup is hooked into $ns before it is configured"
	done
}

DST=10.99.0.1
SRC_BASE=10.64.0.1
PORT_BASE=1024
PKT_SIZE_DEFAULT=128
PKT_SIZE=$PKT_SIZE_DEFAULT
# an nft set or an xt_recent list is counted by listing it, up to this size
LIST_MAX=10000

# The namespaces' roles in round ROUND: ra is CFG in odd rounds, rb in
# even ones
roles() {
	if [ $((ROUND % 2)) = 1 ]; then
		CFG=ra REF=rb
	else
		CFG=rb REF=ra
	fi
}

# The key by packet size: for each pktgen pkt_size SIZE (the Ethernet
# frame without its FCS: the IP packet is SIZE - 14 bytes, the UDP payload
# SIZE - 42, the packet key's tail, UDP header and payload, SIZE - 34), a
# no-hook row, then pktdedup count and drop at prerouting, 1 MiB, with the
# packet key over every byte (payload all, the default) and over the
# headers and 64 payload bytes (payload 64, the key before every byte was
# covered), each in pairs with no-hook runs of the same size. Every
# packet of the boot is distinct (DISTINCT): a copy is only ever a false
# positive, so count and drop both pass all but the filter's FP share
# (at most its stable point's fp_bound). The two keys take turns going
# first (payload all first in odd rounds).
size_rows() {	# SIZE...
	local size act key keys=(all 64)
	[ $((ROUND % 2)) = 1 ] || keys=(64 all)
	DISTINCT=1
	for size in "$@"; do
		PKT_SIZE=$size
		nohook_cfg "no-hook-${size}b"
		for act in count drop; do
			for key in "${keys[@]}"; do
				pd_cfg "pktdedup-$act-packet$key-1m-${size}b" defaults \
					key packet payload "$key" action "$act" filter sbf mem 1M
			done
		done
	done
	PKT_SIZE=$PKT_SIZE_DEFAULT
	DISTINCT=0
}

# make check: proves the harness in well under a minute
short() {
	RUN_N=200000
	PAIRS=2
	ROUND=1
	roles
	# 200 flows (8 addresses x 25 ports): every packet after the first
	# cycle repeats one sent 200 packets before (the planner's default gap)
	traffic 8 25
	nohook_cfg
	pd_cfg pktdedup-count-flow-1m defaults key flow action count filter sbf mem 1M
	pd_cfg pktdedup-drop-flow-1m defaults key flow action drop force filter sbf mem 1M
	pd_cfg pktdedup-count-flow-1m-nosources off key flow action count filter sbf mem 1M
	pd_cfg pktdedup-unselected-flow-1m defaults key flow action count filter sbf mem 1M match-mark 0x1/0x1
	pd_cfg pktdedup-ingress-drop-flow-1m defaults key flow action drop force filter sbf mem 1M hook ingress dev in
	pd_cfg pktdedup-count-flow-1m-shared defaults key flow action count filter sbf mem 1M scope shared
	# the largest packets, keyed over every byte (NH over the tail),
	# every packet distinct: only the filter's false positives dropped
	DISTINCT=1 PKT_SIZE=1500
	pd_cfg pktdedup-drop-packetall-1m-1500b defaults key packet payload all action drop filter sbf mem 1M
	DISTINCT=0 PKT_SIZE=$PKT_SIZE_DEFAULT
	# 10^3 flows: 8 addresses x 125 ports
	traffic 8 125
	nft_cfg nft-set-flow-1e3 drop 65536
}

# make bench-kernel: every configuration, each in PAIRS pairs with no-hook
# runs, in ROUNDS rounds (each configured afresh: new seeds, new
# allocations; the namespaces swap roles)
full() {
	local m fam
	RUN_N=1000000
	for ROUND in $(seq "${ROUNDS:-2}"); do
		roles
		# 10^6 flows: 64 addresses x 15625 ports
		traffic 64 15625
		nohook_cfg
		for m in 64k 1m 64m; do
			pd_cfg pktdedup-count-flow-$m defaults key flow action count filter sbf mem "${m^^}"
			pd_cfg pktdedup-drop-flow-$m defaults key flow action drop force filter sbf mem "${m^^}"
			pd_cfg pktdedup-count-flow-$m-allsources all key flow action count filter sbf mem "${m^^}"
			pd_cfg pktdedup-count-flow-$m-nosources off key flow action count filter sbf mem "${m^^}"
		done
		for m in 1m 64m; do
			pd_cfg pktdedup-count-flow-$m-flat defaults key flow action count filter sbf layout flat mem "${m^^}"
		done
		pd_cfg pktdedup-count-packet64-1m defaults key packet payload 64 action count filter sbf mem 1M
		size_rows 64 512 1500
		# traffic selection: nothing selected (the mark does not match)
		pd_cfg pktdedup-unselected-flow-1m defaults key flow action count filter sbf mem 1M match-mark 0x1/0x1
		# hook ingress on the receiving veth: before the IP stack
		pd_cfg pktdedup-ingress-count-flow-1m defaults key flow action count filter sbf mem 1M hook ingress dev in
		pd_cfg pktdedup-ingress-drop-flow-1m defaults key flow action drop force filter sbf mem 1M hook ingress dev in
		for fam in rsbf bsbf bsbfsd rlbsbf ibf-2c ibf-mc; do
			pd_cfg pktdedup-count-flow-1m-$fam defaults key flow action count filter $fam mem 1M
		done
		for fam in sliding jumping landmark; do
			pd_cfg pktdedup-count-flow-1m-$fam defaults key flow action count filter $fam window 2ms mem 1M
		done
		# scope shared: lock-free (the SBF's), and in one shard behind
		# one lock
		for m in 1m 64m; do
			pd_cfg pktdedup-count-flow-$m-shared defaults key flow action count filter sbf mem "${m^^}" scope shared
		done
		pd_cfg pktdedup-drop-flow-1m-shared defaults key flow action drop force filter sbf mem 1M scope shared
		pd_cfg pktdedup-count-flow-1m-onelock defaults key flow action count filter sbf mem 1M scope shared shards 1
		nft_drop_cfg nft-drop-all
		# what any hook costs: a base chain with one counter, accepting
		nft_drop_cfg nft-count-all accept
		# 10^3 flows: 8 x 125; 10^5: 32 x 3125; 10^6: 64 x 15625
		traffic 8 125
		nft_cfg nft-set-flow-1e3 drop 65536
		traffic 32 3125
		nft_cfg nft-set-flow-1e5 drop 262144
		traffic 64 15625
		nft_cfg nft-set-flow-1e6 drop 2097152
		nft_cfg nft-set-count-flow-1e6 count 2097152
		# sources only, one port: 10^3 and 10^6 addresses
		traffic 1000 1
		xt_cfg xt-recent-src-1e3
		traffic 1000000 1
		xt_cfg xt-recent-src-1e6
	done
}

# A round's start for the targets and placement modes: 64-byte packets over
# 15625 flows, then the two rows every pktdedup row is set against: no
# hook, and what any hook costs (an nft base chain with one counter)
baselines() {
	roles
	traffic 64 15625
	nohook_cfg
	nft_drop_cfg nft-count-all accept
}

# the packet path's cost targets, with more pairs than full
# (BENCH_KERNEL_PAIRS, 8):
# no hook, what any hook costs, pktdedup count at 1 MiB with the source
# analytics off and at their defaults, drop, and the nft sets at 10^6
targets() {
	RUN_N=1000000
	for ROUND in $(seq "${ROUNDS:-2}"); do
		baselines
		pd_cfg pktdedup-count-flow-1m-nosources off key flow action count filter sbf mem 1M
		pd_cfg pktdedup-count-flow-1m defaults key flow action count filter sbf mem 1M
		pd_cfg pktdedup-drop-flow-1m defaults key flow action drop force filter sbf mem 1M
		nft_cfg nft-set-flow-1e6 drop 2097152
		nft_cfg nft-set-count-flow-1e6 count 2097152
	done
}

# hook placement and traffic selection: what an unselected packet costs
# (against any hook, nft-count-all), and ingress against prerouting
placement() {
	RUN_N=1000000
	for ROUND in $(seq "${ROUNDS:-2}"); do
		baselines
		pd_cfg pktdedup-unselected-flow-1m defaults key flow action count filter sbf mem 1M match-mark 0x1/0x1
		pd_cfg pktdedup-count-flow-1m defaults key flow action count filter sbf mem 1M
		pd_cfg pktdedup-ingress-count-flow-1m defaults key flow action count filter sbf mem 1M hook ingress dev in
		pd_cfg pktdedup-drop-flow-1m defaults key flow action drop force filter sbf mem 1M
		pd_cfg pktdedup-ingress-drop-flow-1m defaults key flow action drop force filter sbf mem 1M hook ingress dev in
	done
}

# scope shared against percpu on UML's one CPU: what the lock-free step's
# atomics, and the shards' lock and choice, cost a packet when no other
# CPU contends (the contended case is make bench's thread table)
scope() {
	RUN_N=1000000
	for ROUND in $(seq "${ROUNDS:-2}"); do
		baselines
		pd_cfg pktdedup-count-flow-1m defaults key flow action count filter sbf mem 1M
		pd_cfg pktdedup-count-flow-1m-shared defaults key flow action count filter sbf mem 1M scope shared
		pd_cfg pktdedup-count-flow-1m-sharded defaults key flow action count filter sbf mem 1M scope shared shards 16
		pd_cfg pktdedup-count-flow-1m-onelock defaults key flow action count filter sbf mem 1M scope shared shards 1
		pd_cfg pktdedup-drop-flow-1m defaults key flow action drop force filter sbf mem 1M
		pd_cfg pktdedup-drop-flow-1m-shared defaults key flow action drop force filter sbf mem 1M scope shared
	done
}

# the key by packet size alone (size_rows), with more pairs than full
# (BENCH_KERNEL_PAIRS, 8): 10^6 packets a run over 10^6 flows
sizes() {
	RUN_N=1000000
	for ROUND in $(seq "${ROUNDS:-2}"); do
		roles
		traffic 64 15625
		size_rows 64 512 1500
	done
}

# one configuration, under the host's perf: its module's CPU time;
# pdb.prof= flow (pktdedup count, flow key, 1 MiB, defaults), flow-flat
# flow-blocked or flow-line (the same in that layout), flow-mark (action
# mark: each step taken at once), flow-64k (count, 64 KiB), or
# packetKEY-SIZE: the packet key with payload KEY (all or 64) over
# SIZE-byte frames, every packet distinct, as size_rows() measures it
profile() {
	local key size
	RUN_N=1000000
	PAIRS=4
	ROUND=1
	roles
	traffic 64 15625
	case "$PROF" in
	flow | "")
		pd_cfg pktdedup-count-flow-1m defaults key flow action count filter sbf mem 1M ;;
	flow-flat | flow-blocked | flow-line)
		pd_cfg "pktdedup-count-flow-1m-${PROF#flow-}" defaults key flow \
			action count filter sbf mem 1M layout "${PROF#flow-}" ;;
	flow-mark)
		pd_cfg pktdedup-mark-flow-1m defaults key flow action mark \
			mark 0x1/0x1 filter sbf mem 1M ;;
	flow-64k)
		pd_cfg pktdedup-count-flow-64k defaults key flow action count \
			filter sbf mem 64K ;;
	packetall-[0-9]* | packet64-[0-9]*)
		key=${PROF#packet} size=${PROF#*-}
		key=${key%%-*} size=${size%b}
		DISTINCT=1 PKT_SIZE=$size
		pd_cfg "pktdedup-count-packet$key-1m-${size}b" defaults \
			key packet payload "$key" action count filter sbf mem 1M
		DISTINCT=0 PKT_SIZE=$PKT_SIZE_DEFAULT ;;
	*) fail "unknown profile '$PROF'" ;;
	esac
}

# the method's resolution: many pairs with no hook on either side
aa() {
	RUN_N=1000000
	PAIRS=6
	for ROUND in 1 2; do
		roles
		traffic 64 15625
		nohook_cfg
	done
}

main() {
	setup
	say "MODE mode=$MODE pkt_size=$PKT_SIZE"
	case "$MODE" in
	short) short ;;
	full) full ;;
	targets) targets ;;
	placement) placement ;;
	scope) scope ;;
	sizes) sizes ;;
	profile) profile ;;
	aa) aa ;;
	*) fail "unknown mode '$MODE'" ;;
	esac
	say "END"
}

(main)
sync
umount "$OUT"
busybox poweroff -f
