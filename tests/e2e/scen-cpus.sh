# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# What a namespace holds for its CPUs, and what its memory cap lets it pin
# (sourced by scenarios.sh): t_cpus_defaults, t_budget_memavail.

# CPUs the kernel could ever bring up, and those up now.
cpus_possible() {
	echo $(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
}

cpus_online() {
	grep -c '^processor' /proc/cpuinfo
}

# A "name value" line of the initial namespace's /proc config.
root_cfg() {	# NAME
	awk -v k="$1" '$1 == k { print $2 }' /proc/net/pktdedup/config
}

# What a namespace holds with the defaults (Documentation/user/
# installing.md, "Memory"), P possible and N online CPUs, 4 KiB pages:
#   filters  slab(pd_filter_set) + (232 + 64) P + N x 256 KiB
#            (a filter's struct and action count's queue per possible CPU)
#   sources  slab(pd_srcs) + slab(8 P) + N x (slab(pd_src_cpu) + 12 x 32 KiB)
# where slab(x) is a kmalloc size class of at most 8 KiB, and
# pd_src_cpu is 4272 bytes (slab 8 KiB): checked within those bounds.
check_defaults_held() {	# WHAT FILTERS SOURCES P N
	_lo=$((296 * $4 + $5 * 262144))
	echo "#   $1: filters $2 (formula $_lo + at most 8 KiB), sources $3"
	[ "$2" -ge "$_lo" ] && [ "$2" -le $((_lo + 8192)) ] ||
		t_fail "$1: filters hold $2, not $_lo + [0, 8192]"
	_lo=$(($5 * (393216 + 4272)))
	_hi=$(($5 * (393216 + 8192) + 8192 + 8192))
	[ "$3" -ge "$_lo" ] && [ "$3" -le "$_hi" ] ||
		t_fail "$1: the source windows hold $3, not in [$_lo, $_hi]"
}

# Bring CPU N up (1) or down (0); false if the kernel will not.
cpu_set() {	# N 0|1
	echo "$2" > "/sys/devices/system/cpu/cpu$1/online" 2>/dev/null &&
		[ "$(cat "/sys/devices/system/cpu/cpu$1/online")" = "$2" ]
}

t_cpus_defaults() {
	t_begin "many possible CPUs: state for the online ones (CPU hotplug, within the caps), the analytics on, a second namespace fits, and show says what is not running"
	P=$(cpus_possible)
	N=$(cpus_online)
	echo "#   $P possible CPUs, $N online"
	# the module's own caps (a boot with many possible CPUs may give more)
	reload max_netns_mem=256M max_total_mem=auto
	enable_hosts
	check_defaults_held "the initial namespace" "$(root_cfg mem_filters)" \
		"$(root_cfg mem_sources)" "$P" "$N"
	expect_eq "one filter per online CPU" "$N" "$(root_cfg filters)"
	expect_eq "every online CPU has its filter" 0 \
		"$(root_cfg cpus_without_filters)"
	expect_eq "and its source windows" 0 "$(root_cfg cpus_without_sources)"
	check_defaults_held "namespace e" "$(cfg_val e mem_filters)" \
		"$(cfg_val e mem_sources)" "$P" "$N"
	expect_eq "the budget holds what the allocator holds" \
		"$(root_cfg mem_total_held)" "$(root_cfg mem_total_allocated)"
	# the analytics run: sources +0..+599 from CPU 0, +400..+999 from CPU 1
	resolve_e
	inns d pdnet send -4 10.2.0.1 10.2.0.2 --count 1200 --srcs 600 \
		--dsts 10 --cpu 0 > /dev/null
	inns d pdnet send -4 10.2.0.1 10.2.0.2 --count 1200 --srcs 600 \
		--src-first 400 --dsts 10 --cpu $((N - 1)) > /dev/null
	sleep 0.3
	# 4 standard errors of 2^14 registers: 3.25%, plus one
	expect_near "distinct sources" 1000 "$(distinct_of e src)" 33 33
	expect_near "distinct destinations" 10 "$(distinct_of e dst)" 1 1
	expect_ok "a second namespace: set mem 256K" \
		unshare -n dedupctl set mem 256K
	expect_ok "a new namespace with the defaults" unshare -n dedupctl enable

	# a cap with room for the filters, not the source windows: said
	f=$(root_cfg mem_filters)
	s=$(root_cfg mem_sources)
	reload max_total_mem=auto max_netns_mem=$((f + s / 2))
	out=$(dedupctl show)
	echo "$out" | grep '^sources ' | sed 's/^/#   /'
	echo "$out" | grep -q "^sources  off: no room: .* needed, cap .* (max_netns_mem)$" ||
		t_fail "dedupctl show does not say why the sources are off"
	expect_eq "/proc: refused by the cap, what they needed" "cap $s" \
		"$(awk '$1 == "sources_refused" { print $2, $3 }' /proc/net/pktdedup/config)"
	expect_eq "dedupctl -j show: sources_refused_by" '"max_netns_mem"' \
		"$(dedupctl -j show | sed -n 's/.*"sources_refused_by":\("[a-z_]*"\).*/\1/p')"
	expect_fail "distinct says so" 1 "no room" dedupctl distinct

	# CPU hotplug: a CPU that comes up gets its state, within the caps
	if [ "$N" -lt 2 ] || ! cpu_set 1 0; then
		t_fail "cannot take CPU 1 offline"
		reload
		enable_hosts
		t_end
		return
	fi
	reload
	f1=$(root_cfg mem_filters)
	s1=$(root_cfg mem_sources)
	expect_eq "CPU 1 offline: filters for one CPU" \
		$((f - 262144 * (N - 1))) "$f1"
	expect_ok "CPU 1 back" cpu_set 1 1
	expect_eq "it came up with its filter" "$f" "$(root_cfg mem_filters)"
	expect_eq "and its source windows" "$s" "$(root_cfg mem_sources)"
	expect_eq "none without" "0 0" \
		"$(root_cfg cpus_without_filters) $(root_cfg cpus_without_sources)"
	expect_eq "still what the allocator holds" \
		"$(root_cfg mem_total_held)" "$(root_cfg mem_total_allocated)"
	$IP link set lo up
	u0=$(awk '$1 == "1" { print $2 }' /proc/net/pktdedup/stats)
	pdnet send -4 127.0.0.1 127.0.0.1 --count 50 --copies 2 --cpu 1 \
		> /dev/null || t_fail "pdnet send on lo from CPU 1"
	sleep 0.3
	# 100 datagrams, and at most one ICMP port unreachable each
	expect_near "CPU 1 judges its packets" 100 \
		$(($(awk '$1 == "1" { print $2 }' /proc/net/pktdedup/stats) - u0)) 0 100
	# no room for another CPU's state: it comes up without, and says why
	cpu_set 1 0 || t_fail "CPU 1 offline again"
	reload max_netns_mem=$((f1 + s1 + 131072))
	expect_ok "CPU 1 back, beyond the cap" cpu_set 1 1
	expect_eq "without a filter or windows" "1 1" \
		"$(root_cfg cpus_without_filters) $(root_cfg cpus_without_sources)"
	expect_eq "what the namespace holds: one CPU's" "$f1 $s1" \
		"$(root_cfg mem_filters) $(root_cfg mem_sources)"
	awk '$1 == "cpu_refused" { print "#   /proc: " $0 }' /proc/net/pktdedup/config
	expect_eq "/proc: refused by the cap" cap \
		"$(awk '$1 == "cpu_refused" { print $2 }' /proc/net/pktdedup/config)"
	out=$(dedupctl show | grep '^cpus ')
	echo "#   $out"
	case $out in
	"cpus     of $N online: 1 without a filter (their packets pass unjudged), 1 without source windows: no room: "*" needed, cap "*" (max_netns_mem)") ;;
	*) t_fail "dedupctl show does not say which CPU state is missing, and why" ;;
	esac
	pdnet send -4 127.0.0.1 127.0.0.1 --count 50 --copies 2 --cpu 1 \
		> /dev/null || t_fail "pdnet send on lo from CPU 1"
	sleep 0.3
	un=$(awk '$1 == "unjudged" { print $2 }' /proc/net/pktdedup/stats)
	expect_near "its packets pass, counted unjudged" 100 "$un" 0 100
	expect_eq "dedupctl -j stats: unjudged" "$un" \
		"$(dedupctl -j stats | json_num unjudged)"
	st=$(cat /proc/net/pktdedup/stats)
	expect_eq "/proc: no occupancy for CPU 1" - \
		"$(echo "$st" | awk '$1 == "1" { print $7 }')"
	# the mean over the CPUs with a filter: CPU 0's alone
	expect_eq "the total's zero cells: CPU 0's" \
		"$(echo "$st" | awk '$1 == "0" { print $7 }')" \
		"$(echo "$st" | awk '$1 == "total" { print $7 }')"
	expect_eq "still what the allocator holds" \
		"$(root_cfg mem_total_held)" "$(root_cfg mem_total_allocated)"
	reload
	enable_hosts
	t_end
}

# Run by t_budget_memavail as uid 65534, root of its own user and network
# namespace (idle until its first dedupctl set): prints "# ..." notes,
# "FAIL ..." lines, then "done".
memavail_script() {
	cat <<-'EOF'
	. /lib/pd/lib.sh
	fail() { echo "FAIL $*"; }
	mi() { awk -v k="$1:" '$1 == k { print $2 * 1024 }' /proc/meminfo; }
	# MemAvailable with the free pages the per-CPU lists keep (the
	# tail of an exact allocation's block, given back page by page,
	# lands there, out of MemFree until they are drained)
	avail() {
		echo $(($(mi MemAvailable) + $(awk '$1 == "count:" { n += $2 }
			END { print n * 4096 }' /proc/zoneinfo)))
	}
	pc() { awk -v k="$1" '$1 == k { print $2 }' /proc/net/pktdedup/config; }
	P=$(($(sed 's/.*-//' /sys/devices/system/cpu/possible) + 1))
	N=$(grep -c '^processor' /proc/cpuinfo)
	cap=$(dedupctl -j show | json_num cap_bytes)
	a0=$(avail) p0=$(mi Percpu) s0=$(mi Slab) v0=$(mi VmallocUsed)
	# odd sizes: 17 sub-windows (544 KiB of sketches a CPU), top
	# talkers of 100, a 70000-byte new-source filter; filters of
	# 100000 bytes, then above 4 MiB and not a multiple of 2 MiB
	dedupctl sources subwindows 17 counters 100 new on new-mem 70000 \
		ring 512 > /dev/null || fail "sources settings refused"
	dedupctl set mem 100000 > /dev/null || fail "set mem 100000 refused"
	src=$(pc mem_sources)
	k=$(((cap - src - 65536) / (N * 2097152)))
	mem=$(((k - 1) * 2097152 + 4097))
	echo "# cap $cap, $P possible CPUs, $N online: sources hold $src; filters of $mem bytes a CPU"
	[ "$mem" -gt 4194304 ] || fail "no room for filters above 4 MiB"
	dedupctl set mem "$mem" > /dev/null || fail "set mem $mem refused"
	held=$(($(pc mem_filters) + $(pc mem_sources)))
	a1=$(avail) p1=$(mi Percpu) s1=$(mi Slab) v1=$(mi VmallocUsed)
	drop=$((a0 - a1)) dp=$((p1 - p0))
	echo "# held $held of the cap $cap ($((held * 100 / cap))%): MemAvailable (+ the per-CPU lists' free pages) -$drop, Percpu +$dp, Slab +$((s1 - s0)), VmallocUsed +$((v1 - v0)) bytes"
	[ "$held" -le "$cap" ] || fail "holds $held over the cap $cap"
	[ $((held * 4)) -ge $((cap * 3)) ] || fail "configured only $held of $cap"
	# the slack, bytes: percpu memory is charged at its size per
	# possible CPU, but populated a 4 KiB page per CPU at a time, for
	# the 3 percpu allocations of an instance (counters, their base,
	# the filters' structs); each vmalloc()ed filter's page tables
	# (a page per 2 MiB, one more) and area (256 bytes); a new slab of
	# 32 KiB (order 3) for each of the 6 + N slab objects (the sets, the
	# pointer array, the CPUs' windows, counters, hooks, owner); and
	# 512 KiB of the rest of the system's moves (the lifecycle scenario's
	# tolerance for Slab + Percpu + VmallocUsed)
	[ "$dp" -le $((3 * P * 4096)) ] ||
		fail "Percpu grew by $dp, over 3 pages per possible CPU"
	tables=$((N * ((mem / 2097152 + 2) * 4096 + 256)))
	slack=$((tables + (6 + N) * 32768 + 524288))
	over=$((drop - dp - held))
	echo "# MemAvailable fell $over bytes more than held + Percpu's growth (slack $slack)"
	# the debug kernel's KASAN gives every vmalloc() area a shadow (an
	# eighth of it) and keeps freed objects in quarantine: there what
	# memory costs is KASAN's, and the budget's own sums are the check
	[ "$PD_DEBUG" = 1 ] || [ "$over" -le "$slack" ] ||
		fail "MemAvailable fell by $drop: $over more than held ($held) and Percpu's growth ($dp), over the slack $slack"
	[ "$(pc mem_total_held)" = "$(pc mem_total_allocated)" ] ||
		fail "the module's budget holds $(pc mem_total_held), the allocator $(pc mem_total_allocated)"
	echo done
	EOF
}

t_budget_memavail() {
	t_begin "a user's namespace filled to its cap with odd sizes pins what its budget says: MemAvailable against the cap"
	{ echo "PD_DEBUG=$PD_DEBUG"; memavail_script; } > /tmp/memavail.sh
	sync
	echo 3 > /proc/sys/vm/drop_caches
	userns_run /tmp/memavail.sh
	t_end
}
