# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# t_nl_fuzz: pdnl fuzz (tests/e2e/pdnl_fuzz.c) against the "pktdedup"
# family, as root of a fresh namespace, as uid 65534 without capabilities
# (--unpriv) and as root of its own user and network namespace; each run
# checks its replies, that refusals change nothing and the budget's caps
# hold, then processes race; before them, the requests it found bugs with.
# Sizes: PD_SCALE (make fuzz: 20) times a base that is smaller on the debug
# kernel (PD_DEBUG=1, KASAN). About 60 s at PD_SCALE=1 on the plain guest.

# Run the fuzzer (CMD...): its summaries become notes, a finding a failure.
nl_fuzz_run() {	# WHAT CMD...
	_w=$1
	shift
	_t0=$(cut -d. -f1 /proc/uptime)
	_out=$("$@" 2>&1)
	_rc=$?
	_t1=$(cut -d. -f1 /proc/uptime)
	echo "$_out" | grep '^pdnl fuzz: ' | sed "s/^pdnl fuzz: /#   $_w: /"
	echo "#   $_w: $((_t1 - _t0)) s"
	if [ "$_rc" != 0 ] ||
	   ! echo "$_out" | tail -n 1 | grep -q ', 0 findings$'; then
		echo "$_out" | grep -v '^pdnl fuzz: ' | head -n 100 |
			sed 's/^/#   /'
		t_fail "$_w: exit $_rc: $(echo "$_out" | tail -n 1)"
	fi
}

# nf's instance refuses an ibf-mc whose importance is a mark with no mask
# bits (sent with ATTRS), and its configuration stays as it was.
nl_fuzz_no_mask() {	# WHAT ATTR...
	_w=$1
	shift
	_c0=$(show_cfg nf)
	_out=$(inns nf pdnl send set-config "$@" config.filter.kind=u32:6 \
		config.filter.ibf-mc.importance=u8:1 \
		config.filter.ibf-mc.importance-mask=u32:0 2>&1)
	case "$_out" in
	"error -22: importance mark needs a mask"*) echo "#   $_w, ibf-mc, mark, no mask: $_out" ;;
	*) t_fail "$_w, ibf-mc, importance mark, no mask: '$_out'" ;;
	esac
	expect_eq "$_w nf's configuration unchanged" "$_c0" "$(show_cfg nf)"
}

t_nl_fuzz() {
	t_begin "netlink fuzzing: malformed and extreme requests are refused and change nothing; the module keeps working"
	_n=1000
	[ "${PD_DEBUG:-0}" = 1 ] && _n=200
	_n=$((_n * ${PD_SCALE:-1}))
	# a fresh namespace (idle at first), three racing processes after
	mkns nf
	# its first finding: a filter whose init refuses the plan (ibf with
	# importance mark and no mask) freed twice, scope percpu
	inns nf dedupctl enable > /dev/null
	nl_fuzz_no_mask "active" config.scope=u8:0
	inns nf dedupctl disable > /dev/null
	# an idle instance keeps settings without building filters: the
	# planner refuses what the filter would (it was kept, then every
	# enable failed)
	nl_fuzz_no_mask "idle" config.state=u8:0
	nl_fuzz_run "root, new namespace" \
		inns nf pdnl fuzz --seed 1 --messages "$_n" --procs 3
	kill "$(nspid nf)"
	# no capabilities: every change refused (EPERM), b's settings kept
	_b0=$(show_cfg b)
	nl_fuzz_run "uid 65534 in b" inns b pdnet asuser 65534 \
		pdnl fuzz --unpriv --seed 2 --messages $((_n / 2)) --procs 2
	expect_eq "b's configuration unchanged" "$_b0" "$(show_cfg b)"
	# root of its own user and network namespace: max_userns_mem's cap
	nl_fuzz_run "root of a user namespace" inns b pdnet asuser 65534 \
		unshare -Urn pdnl fuzz --seed 3 --messages "$_n" --procs 2
	# the module still works
	check_copies 4 50 2
	t_end
}
