# SPDX-License-Identifier: GPL-2.0
# Which side ran, by the call counters calls_<original> and calls_<new> of a
# switch (mm/mm_impl_switch.c): a switch wired the wrong way round fails even
# where both sides give the same results.

# calls_mark <dir> <orig> <new>: notes both counters of the switch in <dir>.
calls_mark() {
	CALLS_DIR=$1 CALLS_ORIG=$2 CALLS_NEW=$3
	CALLS_O0=$(cat "$1/calls_$2") && CALLS_N0=$(cat "$1/calls_$3") ||
		fail "no call counters $1/calls_$2 and $1/calls_$3"
}

# calls_only <impl>: since calls_mark, calls_<impl> moved and the other not.
calls_only() {
	local o n moved still other
	o=$(cat "$CALLS_DIR/calls_$CALLS_ORIG") && n=$(cat "$CALLS_DIR/calls_$CALLS_NEW") ||
		fail "no call counters in $CALLS_DIR" || return 1
	o=$(( o - CALLS_O0 )) n=$(( n - CALLS_N0 ))
	if [ "$1" = "$CALLS_NEW" ]; then
		moved=$n still=$o other=$CALLS_ORIG
	else
		moved=$o still=$n other=$CALLS_NEW
	fi
	[ "$moved" -gt 0 ] && [ "$still" = 0 ] ||
		fail "$CALLS_DIR: '$1' selected, but calls_$1 moved by $moved and calls_$other by $still"
}

# impl_ran <dir> <orig> <new> <impl> <command...>: <impl> alone runs it.
impl_ran() {
	local i=$4
	calls_mark "$1" "$2" "$3" || return 1
	shift 4
	"$@" || return 1
	calls_only "$i"
}

# booted_ran <dir> <param> <orig> <new> <command...>: impl_ran with the side
# <param>= asked for (else the new one), before any test moves the switch.
booted_ran() {
	local d=$1 p=$2 o=$3 n=$4 want
	shift 4
	want=$(cmdline_param "$p" "$n")
	[ "$want" = "$o" ] || want=$n
	impl_ran "$d" "$o" "$n" "$want" "$@"
}

# switch_ran <dir> <orig> <new> <command...>: with the switch <dir>/<new> at
# 0 the original alone runs the command, at 1 the new one; then put back.
switch_ran() {
	local d=$1 o=$2 n=$3 was rc=0
	shift 3
	was=$(cat "$d/$n") || return 1
	echo 0 > "$d/$n" && impl_ran "$d" "$o" "$n" "$o" "$@" || rc=1
	echo 1 > "$d/$n" && impl_ran "$d" "$o" "$n" "$n" "$@" || rc=1
	echo "$was" > "$d/$n"
	return $rc
}

# The work each component's check runs: each reaches the component's
# dispatch point at least once, whichever implementation is selected.
# SLUB: a cpu_partial store (kmalloc-256's own value, always a call of the
# store) and slab churn (pushes onto per-cpu partial lists).
slub_calls_work() {
	local c=/sys/kernel/slab/kmalloc-256/cpu_partial v
	v=$(cat $c) && echo "$v" > $c || fail "cannot rewrite $c" || return 1
	slab_churn 100
}

# hugetlb bulk free: one 2 MiB page more, then back; every write of
# nr_hugepages ends in a bulk free (of an empty list when growing).
hugetlb_calls_work() {
	local n
	n=$(cat $HP/nr_hugepages) || return 1
	echo $(( n + 1 )) > $HP/nr_hugepages && echo "$n" > $HP/nr_hugepages ||
		fail "cannot resize $HP from $n pages"
}

# The vmemmap restore's grace period: two 2 MiB pages allocated with HVO
# on (optimized), freed from an empty pool: their restore, of free-list
# folios, decides the wait.  HVO is put back as it was (off in the c boot).
gp_calls_work() {
	local hvo n rc=0
	hvo=$(cat $HVO) && n=$(cat $HP/nr_hugepages) || return 1
	[ "$n" = 0 ] || fail "the 2 MiB pool holds $n pages; the check needs it empty" || return 1
	echo 1 > $HVO
	echo 2 > $HP/nr_hugepages
	[ "$(cat $HP/nr_hugepages)" = 2 ] || { fail "cannot grow the 2 MiB pool to 2 pages"; rc=1; }
	echo 0 > $HP/nr_hugepages
	echo "$hvo" > $HVO
	return $rc
}

# Huge folio clearing: one 2 MiB MAP_HUGETLB page faulted in twice
# (folio_zero_user() each time), from a pool of two, emptied again.
clear_calls_work() {
	local out rc=0
	set_pool $HP 2 || return 1
	out=$(demand_fault hugetlb-2m 2 2 2>&1) || { fail "demand_fault hugetlb-2m 2 2: $out"; rc=1; }
	set_pool $HP 0 || rc=1
	return $rc
}

# contpte: a 64 KiB mTHP per 2 MiB of 32 MiB faulted in (demand_fault's
# touches) and unmapped, the THP settings put back.
contpte_calls_work() {
	local out rc=0
	thp never 1 madvise
	out=$(demand_fault thp 32 1 2>&1) || { fail "demand_fault thp 32 1: $out"; rc=1; }
	thp_defaults
	return $rc
}
