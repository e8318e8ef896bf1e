# SPDX-License-Identifier: GPL-2.0
# Faults from the kernel's own framework (CONFIG_FAIL_PAGE_ALLOC,
# CONFIG_FAILSLAB, debugfs fail_page_alloc and failslab: the debug image).
#
# fail_page_alloc, with task-filter on, fails page allocations of the
# tasks whose /proc/<pid>/make-it-fail is 1: here, the shell that writes
# 0 to nr_hugepages, in whose context the bulk free restores the vmemmap
# of each HVO-optimized folio (order-0 allocations, hence min-order 0;
# GFP_KERNEL ones, hence ignore-gfp-wait N).  Its stack filter
# (require-start/end) narrows that to allocations made under
# __hugetlb_vmemmap_restore_folio(): without it, the shell's own
# copy-on-write faults failed and were retried until the whole budget of
# failures was spent (seen: "Huh VM_FAULT_OOM leaked out to the #PF
# handler" a million times).  A folio whose restore fails must come back
# as a surplus page, freeable once the injection stops.
#
# failslab, with cache-filter on, fails the allocations of the caches
# marked in sysfs (/sys/kernel/slab/<cache>/failslab): the private caches
# of the churn driver
# (CONFIG_SLUB_CPU_PARTIAL_RUST_CHURN, $CHURN and its helpers in
# 10-slub-partial.sh), run on every CPU at once.
#
# Each test arms its fault_attr with times = FAULT_TIMES; what is left of
# it afterwards tells how many failures were injected (times decrements
# once per injection), which each test prints ("injected <n>") and checks
# against what it asked for: the exact count where the asked-for pattern
# fixes it, else at least one and at least one per folio it kept.
#
# The framework's probability draws from get_random_u32_below() (no seed
# to fix), so each test by probability makes enough allocation calls that
# it injects nothing with probability below 1e-6: a shrink of n 2 MiB
# folios makes at least n calls (one __alloc_pages_bulk() per restore, 7
# single-page ones when that falls short), a 1 GiB restore 4095.  An
# interval-based test (probability 100) is deterministic: any <interval>
# consecutive calls hold one multiple of it (attr->count is never reset,
# so which call that is depends on the tests before).

FPA=/sys/kernel/debug/fail_page_alloc
FSL=/sys/kernel/debug/failslab
FAULT_TIMES=1000000

# fault_arm <dir> <probability %> <interval>: failures from now on, quietly
# (verbose 0: no stack per failure), at most FAULT_TIMES of them.
fault_arm() {
	echo 0 > "$1/verbose" && echo 0 > "$1/space" && echo "$3" > "$1/interval" &&
		echo $FAULT_TIMES > "$1/times" && echo "$2" > "$1/probability"
}

# fault_disarm <dir>: no more failures; prints how many were injected.
fault_disarm() {
	echo 0 > "$1/probability"
	echo $(( FAULT_TIMES - $(cat "$1/times") ))
	echo 1 > "$1/interval"
}

# fpa_aim <function>: fail_page_alloc for the tasks marked make-it-fail,
# and only for allocations made under <function> (its address range from
# /proc/kallsyms: up to the next symbol), of any order.
fpa_aim() {
	local r
	r=$(sort /proc/kallsyms | awk -v f="$1" 's && !e && $1 > s {e = $1}
		$3 == f {s = $1} END {print s, e}')
	set -- "$1" $r
	[ -n "${3:-}" ] || fail "$1 not in /proc/kallsyms" || return 1
	echo "0x$2" > $FPA/require-start && echo "0x$3" > $FPA/require-end &&
		echo Y > $FPA/task-filter && echo N > $FPA/ignore-gfp-wait &&
		echo N > $FPA/ignore-gfp-highmem && echo 0 > $FPA/min-order
}
fpa_aim_restore() { fpa_aim __hugetlb_vmemmap_restore_folio; }

# write_failing <file> <value>: the write, from a task marked make-it-fail
# (a subshell) where the kernel has fail_page_alloc, plainly elsewhere.
write_failing() {
	if [ -d $FPA ]; then
		(echo 1 > /proc/self/make-it-fail && echo "$2" > "$1") 2> /dev/null
	else
		echo "$2" > "$1" 2> /dev/null
	fi
}

fault_present() {
	[ -d "$1" ] || { skip "no $1 (the kernel's fault injection: the debug image)"; return; }
}

# The pool of 2 MiB or 1 GiB pages with HVO, shrunk while the restores'
# page allocations fail: the kselftest hugetlb_pool
# (tools/testing/selftests/mm), one boot test per variant of its
# restore_fails fixture; why each variant injects at least one failure
# (or with what probability it might not) is there.  Each folio comes back
# freed or as a surplus page, freeable once the injection stops.  The
# exact number of restores tried is the KUnit case "every"'s.
for v in 2m_every_alloc 2m_probability_30 2m_probability_5 2m_interval_40 \
	1g_every_alloc 1g_probability_1 1g_interval_1000; do
	eval "test_fault_hugetlb_$v() { kselftest_program hugetlb_pool -v $v; }"
	register fault_hugetlb_$v /sys/kernel/debug/fail_page_alloc
done

# Seed 001 when memory is tight: the huge zero page cannot be allocated
# (fail_page_alloc aimed at mm_get_huge_zero_folio(), every allocation
# there failing, for the demo alone).  Each read fault that wanted it
# counts thp_zero_page_alloc_failed, one per injected failure, and falls
# back to the 4 KiB zero page: the 200 MiB still read as zeros and nothing
# is allocated.  Once the injection stops, the next reader allocates it.
# Starts from drop_caches, whose shrinker frees an unused huge zero page.
test_fault_huge_zero_page_alloc_failed() {
	local failed alloc out injected
	fault_present $FPA || return
	echo 2 > /proc/sys/vm/drop_caches
	failed=$(vmstat thp_zero_page_alloc_failed) alloc=$(vmstat thp_zero_page_alloc)
	fpa_aim mm_get_huge_zero_folio && fault_arm $FPA 100 1 || fail "cannot arm $FPA" || return 1
	thp always 1
	out=$( (echo 1 > /proc/self/make-it-fail && exec huge_zero_page) 2>&1)
	thp_defaults
	injected=$(fault_disarm $FPA)
	failed=$(( $(vmstat thp_zero_page_alloc_failed) - failed ))
	alloc=$(( $(vmstat thp_zero_page_alloc) - alloc ))
	echo "$out" | grep '^huge_zero_page: read'
	echo "note: injected $injected, thp_zero_page_alloc_failed +$failed, thp_zero_page_alloc +$alloc"
	echo "$out" | grep -q '^huge_zero_page: read 51200 pages of a 200 MiB buffer, 0 not zero$' ||
		fail "the reads under injection: $out" || return 1
	[ "$injected" -ge 1 ] && [ "$failed" = "$injected" ] && [ "$alloc" = 0 ] ||
		fail "want thp_zero_page_alloc_failed +injected (>= 1), thp_zero_page_alloc +0" || return 1
	hzp_quiet && [ "$ZP" = 1 ] || fail "after the injection: thp_zero_page_alloc +$ZP, want +1"
}
register fault_huge_zero_page_alloc_failed /sys/kernel/debug/fail_page_alloc

# failslab_aim_churn: failslab for the churn caches alone (marked, with
# cache-filter on), in any task, GFP_KERNEL allocations included.
failslab_aim_churn() {
	local c
	for c in /sys/kernel/slab/slub_partial_churn-*; do
		echo 1 > "$c/failslab" || return 1
	done
	echo Y > $FSL/cache-filter && echo N > $FSL/ignore-gfp-wait && echo N > $FSL/task-filter
}

# A shrink list holding optimized folios ahead of plain ones (HVO turned
# off between two grows), every restore failing: the optimized folios
# stay as surplus pages, the plain ones are freed, with no restore tried
# on them (6.12 warned there, C and Rust: patches/0025).
test_fault_hugetlb_mixed_list() {
	local warns injected
	fault_present $FPA || return
	[ -e $HVO ] || { skip "no HVO in this kernel (no $HVO)"; return; }
	empty_pool $HP || return 1
	echo 1 > $HVO && set_pool $HP 4 && echo 0 > $HVO && set_pool $HP 8 || return 1
	warns=$(dmesg | grep -c 'WARNING:')
	fpa_aim_restore && fault_arm $FPA 100 1 || fail "cannot arm $FPA" || return 1
	write_failing $HP/nr_hugepages 0
	injected=$(fault_disarm $FPA)
	echo 1 > $HVO
	echo "note: 4 optimized and 4 plain folios, every restore failing: injected $injected," \
		"$(cat $HP/surplus_hugepages) kept as surplus"
	[ "$(dmesg | grep -c 'WARNING:')" = "$warns" ] ||
		fail "$(dmesg | grep -A3 'WARNING:' | tail -4)" || return 1
	# Deterministic: the batch's restore fails at the first optimized
	# folio, then each of the 4 alone (the first plain one after them is
	# freed, ending the pass): 5 restores, 2 injections each (bulk call,
	# first single page).  12 would mean the plain folios came first and
	# the one-at-a-time pass never reached them.
	[ "$injected" = 10 ] || fail "injected $injected, want 10" || return 1
	check_pool $HP 4 4 && empty_pool && check_pool $HP 0 0
}
register fault_hugetlb_mixed_list /sys/kernel/debug/fail_page_alloc

# fault_churn <probability %> <interval>: the churn driver on every CPU
# with failslab failing its caches' allocations: each injected failure is
# one failed allocation the driver saw (no other cache may fail), no
# per-cpu partial list broke its bound, no object is left, and the frees
# match the allocations.
fault_churn() {
	local prob=$1 ival=$2 rounds=100 r a f fr v injected rc=0 cpus=$(nproc)
	fault_present $FSL || return
	[ -d $CHURN ] || { skip "no $CHURN"; return; }
	churn_mark
	failslab_aim_churn && fault_arm $FSL "$prob" "$ival" || fail "cannot arm $FSL" || return 1
	if [ "$ival" = 1 ]; then
		churn_all_cpus $rounds || rc=1
	else
		# One CPU: the fault attribute's call count is not atomic
		# (should_fail_ex()'s count++), so calls from several CPUs
		# at once could make the interval count inexact.
		cpus=1
		taskset -c 0 sh -c "echo $rounds > $CHURN/run" || rc=1
	fi
	injected=$(fault_disarm $FSL)
	[ $rc = 0 ] || fail "a write to $CHURN/run failed" || return 1
	r=$(churn_since rounds) a=$(churn_since allocs) f=$(churn_since alloc_failures)
	fr=$(churn_since frees) v=$(churn_since bound_violations)
	echo "note: churn, probability $prob% interval $ival: $r rounds, $a allocations," \
		"injected $injected, failed $f, $fr frees, $v bound violations"
	[ "$r" = $(( rounds * cpus )) ] || fail "rounds: $r" || return 1
	[ "$injected" -gt 0 ] && [ "$f" = "$injected" ] ||
		fail "failed allocations $f, injected failures $injected" || return 1
	# Every <ival>th of the a + f calls on the marked caches fails: the
	# count is (a + f) / ival, rounded down or up.
	[ "$ival" = 1 ] || { [ "$injected" -ge $(( (a + f) / ival )) ] &&
		[ "$injected" -le $(( (a + f + ival - 1) / ival )) ]; } ||
		fail "injected $injected, want $(( a + f )) / $ival" || return 1
	[ "$fr" = "$a" ] && [ "$(churn_stat outstanding)" = 0 ] ||
		fail "$a allocations, $fr frees, $(churn_stat outstanding) outstanding" || return 1
	[ "$v" = 0 ] || fail "per-cpu partial bound broken $v times"
}

# A run makes at least 100 rounds x 32 allocations (one CPU, one cache):
# P(nothing injected) <= 0.9^3200 < 1e-146.  The count is exact: each
# injection is one failed allocation the driver counted.
test_fault_failslab_churn_probability_10() { fault_churn 10 1; }
register fault_failslab_churn_probability_10 /sys/kernel/debug/failslab
# Deterministic (one CPU): 3200 calls at least, so 457 injections at least.
test_fault_failslab_churn_interval_7() { fault_churn 100 7; }
register fault_failslab_churn_interval_7 /sys/kernel/debug/failslab
