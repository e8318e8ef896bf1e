# SPDX-License-Identifier: GPL-2.0
# Faults from the kernel's own framework (Documentation/fault-injection/)
# in the boot tests: failslab (CONFIG_FAILSLAB, the debug image) under the
# churn driver, and fail_page_alloc under the stress's pool resizes
# (80-stress.sh).  The kselftests inject theirs with
# tools/testing/selftests/mm/fault_inject.c (hugetlb_pool,
# thp_huge_zero_page).
#
# fail_page_alloc, with task-filter on, fails page allocations of the
# tasks whose /proc/<pid>/make-it-fail is 1, and its stack filter
# (require-start/end) narrows that to allocations made under
# __hugetlb_vmemmap_restore_folio(): without it, the shell's own
# copy-on-write faults failed and were retried until the whole budget of
# failures was spent (seen: "Huh VM_FAULT_OOM leaked out to the #PF
# handler" a million times).
#
# failslab, with cache-filter on, fails the allocations of the caches
# marked in sysfs (/sys/kernel/slab/<cache>/failslab): the private caches
# of the churn driver (CONFIG_SLUB_CPU_PARTIAL_RUST_CHURN, $CHURN and its
# helpers in 10-slub-partial.sh), run on every CPU at once.
#
# Each test arms its fault_attr with times = FAULT_TIMES; what is left of
# it afterwards tells how many failures were injected (times decrements
# once per injection), which each test prints ("injected <n>") and checks
# against what it asked for.  The framework's probability draws from
# get_random_u32_below() (no seed to fix), so a test by probability makes
# enough calls that it injects nothing with probability below 1e-6; an
# interval-based one (probability 100) is deterministic: any <interval>
# consecutive calls hold one multiple of it.

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

# failslab_aim_churn: failslab for the churn caches alone (marked, with
# cache-filter on), in any task, GFP_KERNEL allocations included.
failslab_aim_churn() {
	local c
	for c in /sys/kernel/slab/slub_partial_churn-*; do
		echo 1 > "$c/failslab" || return 1
	done
	echo Y > $FSL/cache-filter && echo N > $FSL/ignore-gfp-wait && echo N > $FSL/task-filter
}

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
