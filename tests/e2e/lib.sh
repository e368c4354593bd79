# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers for the guest's scenarios (busybox sh): namespaces as hosts,
# veth links, counters, and assertions with tolerances derived from the
# filter's parameters.

# Debian's busybox runs its own applets before anything on PATH: name
# Debian's ip (which can name a veth peer) by its path.
IP=/usr/sbin/ip
PASS=0
FAIL=0
T_NAME=
T_BAD=0

# Network namespaces: a namespace is a sleeping process's; inns runs in it.
mkns() {	# NAME
	unshare -n sleep 100000 &
	eval "NS_$1=$!"
	sleep 0.1
	inns "$1" $IP link set lo up
}

nspid() {
	eval "echo \$NS_$1"
}

inns() {	# NAME CMD...
	_p=$(nspid "$1")
	shift
	nsenter -t "$_p" -n -- "$@"
}

# A veth link between namespaces A (10.N.0.1, fd0N::1) and B (.2, ::2).
# IPv6 stays off unless V6=1: no ND or MLD noise in IPv4 counts.
link() {	# A B N [V6]
	_n=$3
	_v6=${4:-0}
	$IP link add "pa$_n" type veth peer name "pb$_n"
	$IP link set "pa$_n" netns "$(nspid "$1")"
	$IP link set "pb$_n" netns "$(nspid "$2")"
	for _s in "$1 pa$_n 1" "$2 pb$_n 2"; do
		set -- $_s
		if [ "$_v6" = 1 ]; then
			inns "$1" sh -c "echo 0 > /proc/sys/net/ipv6/conf/$2/router_solicitations; echo 0 > /proc/sys/net/ipv6/conf/$2/accept_dad"
			inns "$1" $IP -6 addr add "fd0$_n::$3/64" dev "$2" nodad
		else
			inns "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$2/disable_ipv6"
		fi
		inns "$1" $IP addr add "10.$_n.0.$3/24" dev "$2"
		inns "$1" $IP link set "$2" up
	done
}

# A veth pair without addresses (a bridge's port and its host): end E1 in
# namespace A, E2 in B, IPv6 off on both (no ND or MLD frames).
veth_pair() {	# A E1 B E2
	$IP link add "$2" type veth peer name "$4"
	$IP link set "$2" netns "$(nspid "$1")"
	$IP link set "$4" netns "$(nspid "$3")"
	inns "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$2/disable_ipv6"
	inns "$3" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$4/disable_ipv6"
}

# Until the tcpdumps whose standard errors are FILE... all say they listen
# (10 s at most), then 0.2 s more: nothing sent before is missed.
tcpdumps_listening() {	# FILE...
	for _i in $(seq 1 40); do
		[ "$(cat "$@" 2> /dev/null | grep -c listening)" = $# ] && break
		sleep 0.25
	done
	sleep 0.2
}

# An nftables counter of UDP to port 9000 at PREROUTING, before
# pktdedup's hook (priority -500), in namespace NS, table inet TABLE; and
# what it counted.
pre_counter() {	# NS TABLE
	inns "$1" nft -f - <<-EOF
	table inet $2 {
		chain pre {
			type filter hook prerouting priority -500; policy accept;
			udp dport 9000 counter
		}
	}
	EOF
}

pre_count() {	# NS TABLE
	inns "$1" nft list chain inet "$2" pre |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p'
}

# Counters of the instance in namespace NS, from /proc (total row).
# Columns: cpu packets duplicates marked dropped unparsed zero_cells
stat_of() {	# NS COLUMN-NAME
	inns "$1" cat /proc/net/pktdedup/stats | awk -v c="$2" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) col = i }
		$1 == "total" { print $col }'
}

# Run FILE, a script, as uid 65534, root of its own user and network
# namespace (made in b's), and judge what it printed: its "# ..." notes
# shown, a failure for each "FAIL ..." line, one if it did not end with
# "done", and one if the kernel invoked the OOM killer.
userns_run() {	# FILE
	_out=$(inns b pdnet asuser 65534 unshare -Urn sh "$1" 2>&1)
	echo "$_out" | grep '^#' | sed 's/^/  /'
	echo "$_out" | grep '^FAIL' | while read -r _ _msg; do
		echo "#   FAIL: $_msg"
	done
	echo "$_out" | grep -q '^FAIL' && t_fail "see above"
	echo "$_out" | grep -q '^done$' || t_fail "the script did not finish: $_out"
	if dmesg | grep -q 'invoked oom-killer'; then
		t_fail "the OOM killer ran"
	fi
}

# The configuration of NS's instance (dedupctl -j show without the budget,
# whose peak and last refusal are status, not configuration).
show_cfg() {	# NS
	inns "$1" dedupctl -j show | sed 's/,"budget":{[^}]*}//'
}

# dedupctl -j stats without what the reads themselves measure (the rate
# and the memory in time: a read a second after the last samples again)
stats_json_counts() {
	sed 's/,"rate_pps":[0-9]*//; s/,"memory_ns":[0-9]*//'
}

# A JSON number from dedupctl -j output: json_num KEY < json
json_num() {
	sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" | head -n 1
}

# Errors allowed among N events that each go wrong with probability RATE:
# the mean plus 4 standard deviations (Poisson), plus one.
tolerance() {	# N RATE
	awk -v n="$1" -v p="$2" 'BEGIN {
		m = n * p; r = m + 1	# sqrt by Newton: busybox awk has no sqrt()
		for (i = 0; i < 40; i++) r = (r + m / r) / 2
		printf "%d\n", m + 4 * r + 1 }'
}

# The FP bound and an FN rate bound for copies GAP packets apart, from the
# instance's own parameters: a copy is missed only if one of its K cells
# was decremented to zero in between, at most K * P * GAP / m for Max = 1
# (and less for larger Max).
fp_rate() {	# NS
	inns "$1" dedupctl -j show | json_num fp_bound
}

fn_rate() {	# NS GAP
	_j=$(inns "$1" dedupctl -j show)
	echo "$_j" | awk -v g="$2" '{
		match($0, /"plan":\{[^}]*\}/); s = substr($0, RSTART, RLENGTH)
		split(s, kv, /[,{}]/)
		for (i in kv) { split(kv[i], a, ":"); gsub(/"/, "", a[1]); v[a[1]] = a[2] }
		r = v["k"] * v["p"] * g / v["cells"]; if (r > 1) r = 1; print r }'
}

uptime_s() {
	cut -d. -f1 /proc/uptime
}

uptime_ms() {	# (10 ms steps)
	awk '{ print int($1 * 1000) }' /proc/uptime
}

# The module reloaded with the boot's parameters and ARGS (the last of a
# name wins); every namespace's instance starts again, idle but the
# initial one's.
reload() {	# [ARGS]
	rmmod pktdedup || t_fail "rmmod"
	# shellcheck disable=SC2086
	insmod /lib/pd/pktdedup.ko $PD_MODPARAMS "$@" ||
		t_fail "insmod $PD_MODPARAMS $*"
}

t_begin() {
	T_NAME=$1
	T_BAD=0
	T_T0=$(uptime_s)
	echo "# $T_NAME"
}

t_fail() {
	echo "#   FAIL: $*"
	T_BAD=1
}

t_end() {
	echo "#   time: $(($(uptime_s) - T_T0)) s"
	if [ "$T_BAD" = 0 ]; then
		PASS=$((PASS + 1))
		echo "ok $((PASS + FAIL)) $T_NAME"
	else
		FAIL=$((FAIL + 1))
		echo "not ok $((PASS + FAIL)) $T_NAME"
	fi
}

expect_eq() {	# WHAT WANT GOT
	if [ "$2" = "$3" ]; then
		echo "#   $1: $3"
	else
		t_fail "$1: want $2, got $3"
	fi
}

# GOT within [WANT - LO, WANT + HI]
expect_near() {	# WHAT WANT GOT LO HI
	if [ -n "$3" ] && [ "$3" -ge $(($2 - $4)) ] && [ "$3" -le $(($2 + $5)) ]; then
		echo "#   $1: $3 (want $2, -$4/+$5)"
	else
		t_fail "$1: want $2 (-$4/+$5), got '$3'"
	fi
}

expect_ok() {	# WHAT CMD...
	_w=$1
	shift
	if _out=$("$@" 2>&1); then
		echo "#   $_w: ok"
	else
		t_fail "$_w: '$*' failed: $_out"
	fi
}

# Run CMD, which must fail with STATUS and print something containing TEXT.
expect_fail() {	# WHAT STATUS TEXT CMD...
	_w=$1
	_s=$2
	_t=$3
	shift 3
	_out=$("$@" 2>&1)
	_rc=$?
	if [ "$_rc" = "$_s" ] && echo "$_out" | grep -qF -- "$_t"; then
		echo "#   $_w: exit $_rc, \"$_out\""
	else
		t_fail "$_w: '$*' gave exit $_rc and \"$_out\" (want $_s and \"$_t\")"
	fi
}

# The guest's two virtio-net NICs (tests/vm/vm.sh boot: wired to each
# other through a QEMU hub; the receiver's without guest offloads, so
# native XDP), by their MAC addresses. Their driver is loaded by those
# that use them (/lib/pd/order-late), not at boot.
VIO_SND=52:54:00:0d:00:01
VIO_RCV=52:54:00:0d:00:02

vio_dev() {	# MAC
	for _d in /sys/class/net/*; do
		[ "$(cat "$_d/address" 2> /dev/null)" = "$1" ] &&
			basename "$_d"
	done
}

# vio_load: the NICs' driver loaded, as udev would at boot. vio_link: that,
# then the NICs found; the sender's in namespace vs as
# pdv1 (10.12.0.1), the receiver's in vc as pdv2 (.2), IPv6 off, up. Exit
# status 1 (nothing done) if the guest has no such NICs.
# The drivers of bonds and dummy devices, loaded once, making no device
# of their own.
dev_modules() {
	while read -r _m; do
		case $_m in
		bonding.ko) insmod "/lib/pd/$_m" max_bonds=0 2> /dev/null ;;
		dummy.ko) insmod "/lib/pd/$_m" numdummies=0 2> /dev/null ;;
		*) insmod "/lib/pd/$_m" 2> /dev/null ;;
		esac
	done < /lib/pd/order-devs
}

vio_load() {
	while read -r _m; do
		insmod "/lib/pd/$_m" 2> /dev/null
	done < /lib/pd/order-late
	sleep 1
}

vio_link() {
	vio_load
	_snd=$(vio_dev $VIO_SND)
	_rcv=$(vio_dev $VIO_RCV)
	[ -n "$_snd" ] && [ -n "$_rcv" ] || return 1
	mkns vs
	mkns vc
	$IP link set "$_snd" netns "$(nspid vs)"
	$IP link set "$_rcv" netns "$(nspid vc)"
	for _e in "vs $_snd pdv1 1" "vc $_rcv pdv2 2"; do
		set -- $_e
		inns "$1" $IP link set "$2" name "$3"
		inns "$1" sh -c "echo 1 > /proc/sys/net/ipv6/conf/$3/disable_ipv6"
		inns "$1" $IP addr add "10.12.0.$4/24" dev "$3"
		inns "$1" $IP link set "$3" up
	done
}
