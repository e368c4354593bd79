# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# t_nl_fuzz: what netlink fuzzing found, kept as cases.

t_nl_fuzz() {
	t_begin "netlink fuzzing: what it found stays fixed"
	mkns nf
	# its first finding: a filter whose init refuses the plan (ibf with
	# importance mark and no mask) freed twice, scope percpu
	inns nf dedupctl enable > /dev/null
	_c0=$(show_cfg nf)
	_out=$(inns nf pdnl send set-config config.scope=u8:0 \
		config.filter.kind=u32:6 config.filter.ibf-mc.importance=u8:1 \
		config.filter.ibf-mc.importance-mask=u32:0 2>&1)
	case "$_out" in
	"error -22: importance mark needs a mask"*) echo "#   ibf-mc, mark, no mask: $_out" ;;
	*) t_fail "ibf-mc, importance mark, no mask: '$_out'" ;;
	esac
	expect_eq "nf's configuration unchanged" "$_c0" "$(show_cfg nf)"
	kill "$(nspid nf)"
	t_end
}
