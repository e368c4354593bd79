# SPDX-License-Identifier: GPL-2.0
#
# bash completion for dedupctl: commands, settings and their fixed values
# (install as /usr/share/bash-completion/completions/dedupctl). The words
# are dedupctl's usage text's; tests/cli/test_completion.py checks that
# the two agree.

_dedupctl_set_settings='key payload ignore-tos nonip decap tunnel-id vxlan-port
geneve-port gtpu-port action force mark scope shards state filter mem fps max k p gap p-star
layout importance window rate warn-below subwindows landmark hook priority dev
proto match-mark seed'
_dedupctl_sources_settings='window subwindows counters new new-mem new-gap
event-rate ring key'

# COMPREPLY: the words of $1 that start with $2.
_dedupctl_offer() {
	mapfile -t COMPREPLY < <(compgen -W "$1" -- "$2")
}

# The alternatives of setting $1 in dedupctl's own usage text ("NAME a|b|c",
# a list that may go on over the next line): the filter families, the
# placements and the encapsulations, which dedupctl lists from its tables.
_dedupctl_usage_values() {
	dedupctl help 2>/dev/null | tr '\n' ' ' | sed 's/| */|/g' |
		grep -oE "(^| )$1 [a-z0-9-]+(\|[a-z0-9-]+)+" | head -n 1 |
		sed "s/^ *$1 //" | tr '|' ' '
}

# The fixed values of setting $1 (nothing for a number, size or duration).
_dedupctl_values() {
	case "$1" in
	key) echo "packet src dst pair flow" ;;
	action) echo "count mark drop" ;;
	scope) echo "percpu shared" ;;
	shards) echo "auto" ;;
	state) echo "idle active" ;;
	filter | hook | decap | layout) _dedupctl_usage_values "$1" ;;
	tunnel-id) echo "include ignore" ;;
	nonip) echo "pass dedup" ;;
	importance) echo "dscp mark" ;;
	# this host's devices (a list is typed with commas)
	dev) echo "any"; ls /sys/class/net 2>/dev/null ;;
	proto) echo "any tcp udp icmp icmpv6 sctp gre esp ah udplite" ;;
	match-mark) echo "any" ;;
	seed) echo "random" ;;
	payload) echo "all" ;;
	ignore-tos | new) echo "on off" ;;
	max | k | p | gap | new-gap | rate) echo "auto" ;;
	esac
}

# A decap list being typed, $1 ("vxlan,g"): the names it has not yet, after
# the names it has ("vxlan,geneve", "vxlan,gre"); none and all stand alone.
_dedupctl_decap_more() {
	local have=${1%,*} name names=''
	for name in $(_dedupctl_usage_values decap); do
		case ",$have," in
		*",$name,"* | *,none,* | *,all,*) ;;
		*) [ "$name" = none ] || [ "$name" = all ] ||
			names="$names $have,$name" ;;
		esac
	done
	_dedupctl_offer "$names" "$1"
}

# The formats of -o (--output).
_dedupctl_formats='text json prometheus'

_dedupctl() {
	local cur=${COMP_WORDS[COMP_CWORD]} i=1 cmd='' nargs j setting=''
	# a format after -o, before or after the command
	case "${COMP_WORDS[COMP_CWORD - 1]}" in
	-o | --output)
		_dedupctl_offer "$_dedupctl_formats" "$cur"
		return
		;;
	-n | --netns)
		_dedupctl_offer "$(ip netns list 2>/dev/null | cut -d' ' -f1)" "$cur"
		return
		;;
	esac
	while [ "$i" -lt "$COMP_CWORD" ]; do
		case "${COMP_WORDS[i]}" in
		-j | --json | -c | --check) ;;
		-f | --file) cmd=-f; break ;;
		-o | --output | -n | --netns) i=$((i + 1)) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
		i=$((i + 1))
	done
	if [ -z "$cmd" ]; then
		_dedupctl_offer "show enable disable set stats reset query
			distinct sources top rare monitor plan save batch -f --file
			-j --json -c --check -o --output -n --netns -V --version
			--help" "$cur"
		return
	fi
	# words after the command: settings and values alternate
	nargs=$((COMP_CWORD - i - 1))
	case "$cmd" in
	set | plan)
		# force stands alone: the setting whose value is being typed
		j=$((i + 1))
		while [ "$j" -lt "$COMP_CWORD" ]; do
			if [ "${COMP_WORDS[j]}" = force ]; then
				j=$((j + 1))
			elif [ $((j + 1)) = "$COMP_CWORD" ]; then
				setting=${COMP_WORDS[j]}
				break
			else
				j=$((j + 2))
			fi
		done
		if [ "$setting" = decap ] && [ "${cur#*,}" != "$cur" ]; then
			_dedupctl_decap_more "$cur"
		elif [ -n "$setting" ]; then
			_dedupctl_offer "$(_dedupctl_values "$setting")" "$cur"
		else
			_dedupctl_offer "$_dedupctl_set_settings" "$cur"
		fi
		;;
	sources)
		# an optional on|off first
		case "${COMP_WORDS[i + 1]}" in
		on | off) [ "$nargs" -gt 0 ] && nargs=$((nargs - 1)) ;;
		esac
		if [ $((nargs % 2)) = 1 ] && [ "${COMP_WORDS[COMP_CWORD - 1]}" = key ]; then
			# a key file, or random
			mapfile -t COMPREPLY < <(compgen -W random -- "$cur"; compgen -f -- "$cur")
		elif [ $((nargs % 2)) = 1 ]; then
			_dedupctl_offer "$(_dedupctl_values "${COMP_WORDS[COMP_CWORD - 1]}")" "$cur"
		elif [ "$COMP_CWORD" = $((i + 1)) ]; then
			_dedupctl_offer "on off $_dedupctl_sources_settings" "$cur"
		else
			_dedupctl_offer "$_dedupctl_sources_settings" "$cur"
		fi
		;;
	stats)
		# percpu, -o FORMAT, or -w DURATION [count N]; no value offered
		# for a duration or a count
		case "${COMP_WORDS[COMP_CWORD - 1]}" in
		-w | count) ;;
		*) _dedupctl_offer "percpu -w count -o" "$cur" ;;
		esac
		;;
	query) [ "$nargs" = 0 ] && _dedupctl_offer "src dst pair flow packet-hex" "$cur" ;;
	distinct) [ $((nargs % 2)) = 0 ] && _dedupctl_offer "window sketches -o" "$cur" ;;
	top) _dedupctl_offer "window" "$cur" ;;
	rare) [ $((nargs % 2)) = 0 ] && _dedupctl_offer "support window limit" "$cur" ;;
	monitor) [ "$nargs" = 0 ] && _dedupctl_offer "count" "$cur" ;;
	-f | batch)	# a file of lines for dedupctl -f
		[ "$nargs" = 0 ] && mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	esac
}
complete -F _dedupctl dedupctl
