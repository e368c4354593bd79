# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The malformed-packet fuzzer (pdnet fuzz, tests/e2e/pdnet_fuzz.c) against
# b's instance, action drop, under every key mode.
#
# a sends Ethernet frames to b's MAC through an AF_PACKET socket: bad
# versions, IHLs, lengths and checksums, odd fragments, IPv6 extension
# chains, truncated L4 headers, ICMP errors quoting garbage, no payload,
# unknown protocols, mutated packets; each twice, back to back. pdnet
# predicts, packet by packet, whether b's ip_rcv / ipv6_rcv passes it on
# to PREROUTING and what the core's own parser (module/core/key.c, linked
# into pdnet) makes of the bytes the module reads: for each class it
# prints the frames that reach the hook, those the key mode cannot parse,
# and those that repeat a key. In b, an nft chain counts what arrives
# before pktdedup's hook (priority -500) and one what leaves it (-440;
# pktdedup sits at -450, defragmentation at -400). For each class and key
# mode, with the filter reset:
#   nft before = what pdnet predicts reaches the hook, exactly;
#   before = packets + unparsed: every packet looked at once;
#   unparsed = the prediction, exactly: nothing unparsable is parsed;
#   unparsed = 0 under src, dst and pair: their addresses are always there;
#   after = before - dropped, dropped = duplicates;
#   dropped = the predicted repeats within the filter's FP/FN tolerance,
#   and 0 where nothing that reached the hook could be parsed.
# Packets per class: 24 * PD_SCALE (8 on the debug kernel), l4trunc six
# times as many (every header cut at every length), mutate twice. The
# debug kernel runs three of the seven key modes (packet 65535, pair,
# flow): every key path, in about 250 s under make check's load.

# "BEFORE AFTER": b's pdfuzz counters
fz_nft() {
	inns b nft list table inet pdfuzz |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p' | tr '\n' ' '
}

# "PACKETS DUPLICATES DROPPED UNPARSED" of b's instance (total row)
fz_stats() {
	inns b cat /proc/net/pktdedup/stats | awk '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
		$1 == "total" { print $c["packets"], $c["duplicates"],
				$c["dropped"], $c["unparsed"] }'
}

# A field of pdnet fuzz's "class" line: fz_field NAME < line
fz_field() {
	awk -v k="$1" '{ for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }'
}

# One class under the key set now: send, wait for b, check.
fz_round() {	# LABEL CLASS PDNET-KEY-ARGS...
	_lbl=$1
	_cls=$2
	shift 2
	inns b dedupctl reset
	_out=$(inns a pdnet fuzz pa1 "$FZ_MAC" --seed "$FZ_SEED" \
		--count "$FZ_COUNT" --class "$_cls" "$@" | grep "^class $_cls ")
	if [ -z "$_out" ]; then
		t_fail "$_lbl $_cls: pdnet fuzz failed"
		return
	fi
	_sent=$(echo "$_out" | fz_field sent)
	_reach=$(echo "$_out" | fz_field reach)
	_wu=$(echo "$_out" | fz_field unparsed)
	_wd=$(echo "$_out" | fz_field dups)
	# b's softirq has usually handled them when sendto() returns
	_i=0
	while :; do
		sleep 0.05
		# shellcheck disable=SC2046
		set -- $(fz_nft) $(fz_stats)
		[ $(($1 - FZ_B0)) -ge "$_reach" ] || [ $_i -ge 40 ] && break
		_i=$((_i + 1))
	done
	_bef=$(($1 - FZ_B0))
	_aft=$(($2 - FZ_A0))
	FZ_B0=$1
	FZ_A0=$2
	_pk=$3
	_dup=$4
	_drop=$5
	_unp=$6
	_parsed=$((_reach - _wu))
	_lo=$(tolerance "$_wd" "$FZ_FN")
	_hi=$(tolerance $((_parsed - _wd)) "$FZ_FP")
	echo "#   $_lbl $_cls: sent $_sent, reached hook $_bef (predicted $_reach), unparsed $_unp ($_wu), dropped $_drop ($_wd -$_lo/+$_hi), after $_aft"
	FZ_SENT=$((FZ_SENT + _sent))
	FZ_REACH=$((FZ_REACH + _bef))
	FZ_UNP=$((FZ_UNP + _unp))
	FZ_DROP=$((FZ_DROP + _drop))
	[ "$_bef" = "$_reach" ] ||
		t_fail "$_lbl $_cls: $_bef reached the hook, $_reach predicted"
	[ "$_bef" = $((_pk + _unp)) ] ||
		t_fail "$_lbl $_cls: before $_bef != packets $_pk + unparsed $_unp"
	[ "$_unp" = "$_wu" ] ||
		t_fail "$_lbl $_cls: unparsed $_unp, $_wu predicted"
	# what passes ip_rcv / ipv6_rcv has its addresses: the address keys
	# parse it all, whatever follows (IPv6 extension chains included)
	case $_lbl in
	src | dst | pair)
		[ "$_unp" = 0 ] ||
			t_fail "$_lbl $_cls: $_unp unparsed under an address key"
		;;
	esac
	[ "$_aft" = $((_bef - _drop)) ] ||
		t_fail "$_lbl $_cls: after $_aft != before $_bef - dropped $_drop"
	[ "$_drop" = "$_dup" ] ||
		t_fail "$_lbl $_cls: dropped $_drop != duplicates $_dup"
	if [ "$_parsed" -le 0 ]; then
		[ "$_drop" = 0 ] ||
			t_fail "$_lbl $_cls: $_drop dropped, none parsable"
	elif [ "$_drop" -lt $((_wd - _lo)) ] || [ "$_drop" -gt $((_wd + _hi)) ]; then
		t_fail "$_lbl $_cls: dropped $_drop, want $_wd -$_lo/+$_hi"
	fi
}

t_pkt_fuzz() {
	t_begin "packet fuzzer: malformed IPv4/IPv6 reach the hook, nothing unparsable dropped, copies dropped"
	_t0=$(cut -d. -f1 /proc/uptime)
	FZ_SEED=${PD_FUZZ_SEED:-1}
	FZ_COUNT=$((24 * PD_SCALE))
	[ "${PD_DEBUG:-0}" = 1 ] && FZ_COUNT=$((8 * PD_SCALE))
	FZ_MAC=$(inns b "$IP" -o link show pb1 | sed -n 's|.*link/ether \([0-9a-f:]*\).*|\1|p')
	FZ_SENT=0
	FZ_REACH=0
	FZ_UNP=0
	FZ_DROP=0
	# b's settings, restored at the end
	_key=$(cfg_val b key)
	_action=$(cfg_val b action)
	_hook=$(cfg_val b hook)
	_prio=$(cfg_val b priority)
	_payload=$(inns b dedupctl -j show |
		sed -n 's/.*"payload_bytes":"\{0,1\}\([0-9a-z]*\).*/\1/p')
	[ "$(cfg_val b filter)" = sbf ] ||
		echo "#   b's filter is $(cfg_val b filter), not sbf: tolerances assume sbf"
	inns b nft -f - <<-'EOF'
	table inet pdfuzz {
		chain before {
			type filter hook prerouting priority -500; policy accept;
			counter
		}
		chain after {
			type filter hook prerouting priority -440; policy accept;
			counter
		}
	}
	EOF
	FZ_B0=0
	FZ_A0=0
	expect_ok "action drop at prerouting -450" \
		inns b dedupctl set action drop filter sbf hook prerouting \
		priority -450
	echo "#   seed $FZ_SEED, $FZ_COUNT packets per class, each sent twice"
	# (65535: every byte, the default)
	_modes='"packet 64" "packet 0" "packet 65535" src dst pair flow'
	# the debug kernel: one of the address keys (the same path), and of
	# the payload's lengths only every byte (64 and 0 read less of it),
	# for time
	[ "${PD_DEBUG:-0}" = 1 ] && _modes='"packet 65535" pair flow'
	eval "set -- $_modes"
	for _m in "$@"; do
		# shellcheck disable=SC2086
		set -- $_m
		if [ "$1" = packet ]; then
			inns b dedupctl set key packet payload "$2" ||
				t_fail "set key packet payload $2"
			_lbl="packet/$2"
		else
			inns b dedupctl set key "$1" force ||
				t_fail "set key $1 force"
			_lbl=$1
		fi
		FZ_FP=$(fp_rate b)
		# the farthest apart two packets of one key can be: a class's frames
		FZ_FN=$(fn_rate b $((FZ_COUNT * 12)))
		for _c in $(inns a pdnet fuzz --list); do
			fz_round "$_lbl" "$_c" --key "$1" --payload "${2:-0}"
		done
	done
	echo "#   total: $FZ_SENT frames sent, $FZ_REACH reached the hook, $FZ_UNP unparsed, $FZ_DROP dropped, $(($(cut -d. -f1 /proc/uptime) - _t0)) s"
	inns b nft delete table inet pdfuzz
	# shellcheck disable=SC2086
	expect_ok "b's settings back" inns b dedupctl set key "$_key" \
		payload "${_payload:-64}" action "$_action" hook "$_hook" \
		priority "$_prio" filter auto
	inns b dedupctl reset
	t_end
}
