# SPDX-License-Identifier: GPL-2.0
# Boot tests and demonstration of the batched clearing of huge folios (seed
# 000, mm/clear_pages_batch.c).  Uses HP, HP1G and set_pool of 20-hugetlb.sh.

CP=/sys/kernel/debug/clear_pages
THP=/sys/kernel/mm/transparent_hugepage

cp_stat() { awk -v k="$1" '$1 == k {print $2}' $CP/stats; }
# The preemption model this boot runs under, as PREEMPT_DYNAMIC logged it.
preempt_model() {
	local m=$(dmesg | sed -n 's/.*Dynamic Preempt: \([a-z]*\).*/\1/p' | tail -1)
	echo "${m:-$(cmdline_param preempt none)}"
}

# The boot's choice is in use, and runs alone (calls_per_page, calls_batched).
test_clear_pages_impl_boot_param() {
	check_impl clear_pages_impl "clear_pages: huge folio clearing: " per_page batched &&
		booted_ran $CP clear_pages_impl per_page batched clear_calls_work
}
register clear_pages_impl_boot_param /sys/kernel/debug/clear_pages/calls_batched

# thp <enabled> <use_zero_page> [<64kB enabled>]: THP settings for a case.
thp() {
	echo "$1" > $THP/enabled && echo "$2" > $THP/use_zero_page &&
		echo "${3:-never}" > $THP/hugepages-64kB/enabled
}
thp_defaults() { thp always 1 never; }

# A 1 GiB hugetlb fault at its first page: 33 calls, 2 under preempt=full
# (clear-pages.rst); two faults.  Zeroes: clear_pages_zero's.
test_clear_pages_1g_chunks_follow_preempt_model() {
	local model=$(preempt_model) want f0 c0 folios calls old=$(cat $CP/batched)
	case $model in full) want=2 ;; *) want=33 ;; esac
	set_pool $HP1G 1 > /dev/null || { skip "no room for a 1 GiB page"; return; }
	echo 1 > $CP/batched
	f0=$(cp_stat folios) c0=$(cp_stat calls)
	demand_fault hugetlb-1g 1024 2 || return 1
	folios=$(( $(cp_stat folios) - f0 ))
	calls=$(( $(cp_stat calls) - c0 ))
	echo "$old" > $CP/batched
	set_pool $HP1G 0 || return 1
	# The calls only: the loop bumps the reschedule counter too (the KUnit
	# case test_clearing_yields_to_a_thread_on_its_cpu observes the yield).
	[ "$folios" = 2 ] && [ "$calls" = $((2 * want)) ] ||
		fail "preempt=$model: $folios folios, $calls calls; want 2 folios and $want calls each"
}
register clear_pages_1g_chunks_follow_preempt_model

# The debugfs files refuse bad input with an error and keep their value.
test_clear_pages_debugfs_rejects_bad_input() {
	local v
	for v in 8193 99999999999 -1 abc ""; do
		! echo "$v" > $CP/unit_pages 2> /dev/null || fail "unit_pages accepted '$v'" || return 1
		[ "$(cat $CP/unit_pages)" = 0 ] || fail "unit_pages changed to $(cat $CP/unit_pages) by '$v'" || return 1
	done
	check_switch $CP/batched || return 1
	echo 64 > $CP/unit_pages && [ "$(cat $CP/unit_pages)" = 64 ] &&
		grep -q '^unit_pages 64$' $CP/stats || fail "unit_pages 64 not taken" || return 1
	echo 0 > $CP/unit_pages
}
register clear_pages_debugfs_rejects_bad_input

demo_clear_pages() {
	local f0 c0 r0 unit model=$(preempt_model) old=$(cat $CP/batched)
	echo "== batched clearing of huge folios (mm/clear_pages_batch.c), preempt=$model"
	echo 1 > $CP/batched
	unit="$(cp_stat unit_pages) pages"
	[ "$unit" != "4294967295 pages" ] || unit="a whole range"
	for spec in "hugetlb-1g 1024" "hugetlb-2m 8" "thp 8"; do
		set -- $spec
		[ $1 != hugetlb-1g ] || set_pool $HP1G 1 > /dev/null || continue
		[ $1 != hugetlb-2m ] || set_pool $HP 4 > /dev/null
		f0=$(cp_stat folios) c0=$(cp_stat calls) r0=$(cp_stat resched)
		demand_fault "$1" "$2" 1 | sed -n 's/^demand_fault: .*x 1: /   /p'
		echo "   $1: $(( $(cp_stat folios) - f0 )) folios cleared in $(( $(cp_stat calls) - c0 ))" \
			"calls of at most $unit, $(( $(cp_stat resched) - r0 )) reschedule points"
		set_pool $HP1G 0 > /dev/null; set_pool $HP 0 > /dev/null
	done
	echo "$old" > $CP/batched
	echo "   (a 1 GiB folio at its first page: under none/voluntary 32 calls of 8192 pages"
	echo "    plus the hot window; under full the rest in one call, then the window)"
}
demo clear_pages
