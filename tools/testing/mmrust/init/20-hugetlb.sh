# SPDX-License-Identifier: GPL-2.0
# Boot tests and demonstration of the Rust hugetlb bulk free.

HP=/sys/kernel/mm/hugepages/hugepages-2048kB
HP1G=/sys/kernel/mm/hugepages/hugepages-1048576kB
DBG=/sys/kernel/debug/hugetlb_bulk_free
HVO=/proc/sys/vm/hugetlb_optimize_vmemmap

meminfo() { awk -v k="$1:" '$1 == k {print $2}' /proc/meminfo; }

# Free base pages, in the buddy and on the per-cpu lists (where freed huge
# pages may sit a while; MemFree misses them), every slab cache shrunk
# first: its empty slabs, per-cpu objects and, in the debug image, KASAN's
# quarantine go back to the page allocator (else thousands come and go).
free_pages() {
	local c
	for c in /sys/kernel/slab/*/shrink; do echo 1 > "$c"; done 2> /dev/null
	awk '$1 == "nr_free_pages" {n += $2} $1 == "count:" {n += $2} END {print n}' /proc/zoneinfo
}

# free_pages_back <before> <tolerance>: the free pages are back within
# <tolerance> pages of <before> (a lost folio shows); prints both.
free_pages_back() {
	local now
	now=$(free_pages)
	echo "note: free pages: $1 before, $now after (tolerance $2)"
	[ $(( $1 - now )) -lt "$2" ] || fail "free pages not back"
}
stat_of() { cat "$DBG/$1"; }

# set_pool <dir> <count>: write nr_hugepages and check it took.
set_pool() {
	echo "$2" > "$1/nr_hugepages" || fail "writing $2 to $1/nr_hugepages failed" || return 1
	[ "$(cat "$1/nr_hugepages")" = "$2" ] ||
		fail "$1/nr_hugepages reads $(cat "$1/nr_hugepages") after writing $2"
}

# empty_pool [<dir>]: a pool (default $HP) emptied, surplus too; injection off.
empty_pool() {
	local d=${1:-$HP}
	echo 0 > $DBG/fail_first
	[ "$(cat "$d/surplus_hugepages")" = 0 ] || echo "$(cat "$d/nr_hugepages")" > "$d/nr_hugepages"
	set_pool "$d" 0
}

# check_pool <dir> <total> <surplus>: sysfs and /proc/meminfo agree, all free
# (meminfo's HugePages_ lines: 2 MiB only; Hugetlb: every pool, others empty).
check_pool() {
	local d=$1 kb=${1##*hugepages-}
	kb=${kb%kB}
	[ "$(cat "$d/nr_hugepages")" = "$2" ] && [ "$(cat "$d/free_hugepages")" = "$2" ] &&
		[ "$(cat "$d/surplus_hugepages")" = "$3" ] &&
		[ "$(meminfo Hugetlb)" = $(( $2 * kb )) ] &&
		{ [ "$d" != $HP ] || { [ "$(meminfo HugePages_Total)" = "$2" ] &&
			[ "$(meminfo HugePages_Free)" = "$2" ] &&
			[ "$(meminfo HugePages_Surp)" = "$3" ]; }; } ||
		fail "$d: want total $2 surplus $3; sysfs nr $(cat "$d/nr_hugepages")" \
			"free $(cat "$d/free_hugepages") surplus $(cat "$d/surplus_hugepages");" \
			"meminfo: $(grep -E 'HugePages_|Hugetlb' /proc/meminfo | tr -s ' \n' ' ')"
}

# The boot's choice is in use, and runs alone (calls_c, calls_rust).
test_hugetlb_impl() {
	check_impl hugetlb_bulk_free_impl "hugetlb_bulk_free: bulk free: " &&
		booted_ran $DBG hugetlb_bulk_free_impl c rust hugetlb_calls_work
}
register hugetlb_impl /sys/kernel/debug/hugetlb_bulk_free

# The debugfs switch: 1 (Rust) and 0 (C) take effect, the rest refused.
test_hugetlb_impl_switch() {
	check_switch $DBG/rust && switch_ran $DBG c rust hugetlb_calls_work
}
register hugetlb_impl_switch /sys/kernel/debug/hugetlb_bulk_free

# The vmemmap restore's grace period (HVO kernels only): boot choice, switch.
GP=/sys/kernel/debug/hugetlb_vmemmap_gp
gp_present() {
	[ -d $GP ] || { skip "no $GP (no HVO in this kernel: 6.12's arm64 has none)"; return; }
}
test_hugetlb_vmemmap_gp_impl() {
	gp_present || return
	check_impl hugetlb_vmemmap_gp_impl "hugetlb_vmemmap_gp: vmemmap restore grace period: " sync polled &&
		booted_ran $GP hugetlb_vmemmap_gp_impl sync polled gp_calls_work
}
register hugetlb_vmemmap_gp_impl /sys/kernel/debug/hugetlb_vmemmap_gp/calls_polled
test_hugetlb_vmemmap_gp_switch() {
	gp_present || return
	check_switch $GP/polled && switch_ran $GP sync polled gp_calls_work
}
register hugetlb_vmemmap_gp_switch /sys/kernel/debug/hugetlb_vmemmap_gp/calls_polled

# uptime_cs: the uptime in hundredths of a second.
uptime_cs() { local u; read -r u _ < /proc/uptime; echo "${u%.*}${u#*.}"; }

# gp_wait_passed: polls $GP/free_list_gp_passed (hugetlb-bulk-free.rst)
# every 10 ms until it reads 1, for at most 10 s; says how long it waited.
gp_wait_passed() {
	local t0 i=0
	t0=$(uptime_cs)
	until [ "$(cat $GP/free_list_gp_passed)" = 1 ]; do
		i=$(( i + 1 ))
		[ $(( $(uptime_cs) - t0 )) -le 1000 ] ||
			fail "no grace period in 10 s, $i polls ($GP/free_list_gp_passed)" || return 1
		sleep 0.01
	done
	echo "note: grace period passed after $i poll(s), $(( ($(uptime_cs) - t0) * 10 )) ms"
}

# A pool past its grace period (polled for: deterministic) shrinks with no
# RCU wait under "polled", one under "sync" (hugetlb-bulk-free.rst).
test_hugetlb_shrink_old_pool_rcu_wait() {
	local was polled w k
	gp_present || return
	[ -e $GP/free_list_gp_passed ] || fail "no $GP/free_list_gp_passed" || return 1
	was=$(cat $GP/polled)
	echo 1 > $HVO
	for polled in 1 0; do
		echo $polled > $GP/polled
		set_pool $HP 64 || return 1
		gp_wait_passed || { echo "$was" > $GP/polled; return 1; }
		calls_mark $GP sync polled || { echo "$was" > $GP/polled; return 1; }
		w=$(stat_of rcu_waits) k=$(stat_of rcu_waits_skipped)
		empty_pool || return 1
		w=$(( $(stat_of rcu_waits) - w )) k=$(( $(stat_of rcu_waits_skipped) - k ))
		[ "$w $k" = "$(( 1 - polled )) $polled" ] ||
			fail "polled=$polled: $w grace period waits, $k skipped; want $(( 1 - polled )) and $polled" ||
			{ echo "$was" > $GP/polled; return 1; }
		# The side selected decided the wait, alone (calls_sync, calls_polled).
		calls_only $( [ $polled = 1 ] && echo polled || echo sync ) ||
			{ echo "$was" > $GP/polled; return 1; }
	done
	echo "$was" > $GP/polled
}
register hugetlb_shrink_old_pool_rcu_wait /sys/kernel/debug/hugetlb_bulk_free

demo_hugetlb() {
	echo "== hugetlb bulk free =="
	dmesg | grep 'hugetlb_bulk_free:' | sed 's/^\[[^]]*\] /  /'
	for hvo in 1 0; do
		echo $hvo > $HVO
		echo 512 > $HP/nr_hugepages
		echo "-- HVO $( [ $hvo = 1 ] && echo on || echo off): pool of $(meminfo HugePages_Total) x 2 MiB, MemFree $(meminfo MemFree) kB"
		f=$(stat_of bulk_frees) l=$(stat_of lock_cycles) t=$(stat_of tlb_flushes)
		echo 0 > $HP/nr_hugepages
		echo "   freed in $(( $(stat_of bulk_frees) - f )) bulk free of $(( $(stat_of last_ns) / 1000 )) us:" \
			"$(( $(stat_of lock_cycles) - l )) hugetlb_lock cycle(s), $(( $(stat_of tlb_flushes) - t )) TLB flush(es);" \
			"MemFree $(meminfo MemFree) kB"
	done
	echo 1 > $HVO
	echo 16 > $HP/nr_hugepages
	echo 4294967295 > $DBG/fail_count
	echo 1 > $DBG/fail_first
	echo "-- every vmemmap restore failing (injected): shrinking 16 pages to 0"
	echo 0 > $HP/nr_hugepages
	echo 0 > $DBG/fail_first
	echo "   kept as surplus: $(meminfo HugePages_Surp) of $(meminfo HugePages_Total); none lost"
	empty_pool
	echo "   after injection off and a second shrink: HugePages_Total $(meminfo HugePages_Total)"
}
demo hugetlb
