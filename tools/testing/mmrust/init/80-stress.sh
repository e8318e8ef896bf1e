# SPDX-License-Identifier: GPL-2.0
# The concurrent stress of every component, for a bounded time (testing.rst,
# "Stress" and "Fault injection"); splats are dmesg_clean's, which runs after.
# The 1 GiB writer's CMA allocations migrate in-use 2 MiB hugetlb folios; a
# 2 MiB shrink meanwhile once left more surplus than pages (patches/0026),
# which the pool checks at the end catch.

STRESS_DIR=/tmp/stress
FPA=/sys/kernel/debug/fail_page_alloc
FSL=/sys/kernel/debug/failslab
FAIL_ALLOC=/selftests/fail_alloc
STRESS_FREE_TOLERANCE=8192
SWITCHES="/sys/kernel/debug/slub_partial/rust /sys/kernel/debug/hugetlb_bulk_free/rust
/sys/kernel/debug/hugetlb_vmemmap_gp/polled /sys/kernel/debug/clear_pages/batched
/sys/kernel/debug/contpte/on"

stress_running() { [ ! -e $STRESS_DIR/stop ]; }

# write_failing <file> <value>: the write, from a task marked make-it-fail
# (a subshell) where the kernel has fail_page_alloc, plainly elsewhere.
write_failing() {
	if [ -d $FPA ]; then
		(echo 1 > /proc/self/make-it-fail && echo "$2" > "$1") 2> /dev/null
	else
		echo "$2" > "$1" 2> /dev/null
	fi
}

# fail_alloc_start <page|slab> <probability %> <interval> <target>: fail_alloc
# in the background (output: $STRESS_DIR's dot files, not notes), its pid in
# FAIL_ALLOC_PID once it says "armed" (30 s); else fails, having stopped it.
fail_alloc_start() {
	local out=$STRESS_DIR/.fail_alloc-$1 i=0
	[ -x $FAIL_ALLOC ] || fail "no $FAIL_ALLOC" || return 1
	$FAIL_ALLOC "$@" > "$out" 2> "$out.err" &
	FAIL_ALLOC_PID=$!
	while ! grep -qx armed "$out" 2> /dev/null && kill -0 $FAIL_ALLOC_PID 2> /dev/null &&
		[ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	grep -qx armed "$out" && return 0
	fail_alloc_stop $FAIL_ALLOC_PID "$1" > /dev/null
	fail "$FAIL_ALLOC $* not armed: $(cat "$out.err")"
}

# fail_alloc_stop <pid> <page|slab>: SIGTERM, which disarms and restores;
# fails, saying why, unless it exits 0 with its count (fail_alloc_injected).
fail_alloc_stop() {
	local rc=0
	kill -TERM "$1" 2> /dev/null
	wait "$1" || rc=$?
	[ $rc = 0 ] && [ -n "$(fail_alloc_injected "$2")" ] ||
		fail "fail_alloc $2: exit status $rc: $(cat $STRESS_DIR/.fail_alloc-$2.err)"
}
fail_alloc_injected() { sed -n 's/^injected \([0-9][0-9]*\)$/\1/p' $STRESS_DIR/.fail_alloc-$1; }

# stress_pool <dir> <max pages> <name>: resizes the pool until stopped.
stress_pool() {
	local i=0
	while stress_running; do
		write_failing "$1/nr_hugepages" $(( RANDOM % ($2 + 1) ))
		i=$((i + 1))
	done
	echo "$3: $i resizes" > $STRESS_DIR/$3
}

stress_switches() {
	local i=0 f
	while stress_running; do
		for f in $SWITCHES $HVO; do
			[ ! -e "$f" ] || echo $((i % 2)) > "$f"
		done
		i=$((i + 1))
		sleep 0.3
	done
	echo "switches: $i flips of each" > $STRESS_DIR/switches
}

# stress_churn <cpu>: runs of 20 rounds, pinned to <cpu>.
stress_churn() {
	local i=0 bad=0
	while stress_running; do
		taskset -c "$1" sh -c "echo 20 > $CHURN/run" || bad=$((bad + 1))
		i=$((i + 1))
	done
	echo "churn cpu$1: $i runs, $bad failed" > $STRESS_DIR/churn$1
}

# stress_faults <kind> <MiB>: map, fault in, unmap; a hugetlb mapping is
# refused when the pool is short at that moment, a THP one never.
stress_faults() {
	local ok=0 no=0
	while stress_running; do
		if demand_fault "$1" "$2" 1 > /dev/null 2>&1; then ok=$((ok + 1)); else no=$((no + 1)); fi
	done
	echo "faults $1: $ok runs, $no refused" > $STRESS_DIR/faults-$1
}

# worker <command>...: the command in the background, one of stress_run's.
worker() { "$@" & workers="$workers $!"; }

# stress_run <seconds>: the stress and its checks (testing.rst, "Stress").
stress_run() {
	local secs=$1 mem booted="" f c t=0 injected_pa=- injected_slab=- sw frees
	local fa_page="" fa_slab="" fa_failed="" workers=""
	rm -rf $STRESS_DIR && mkdir -p $STRESS_DIR
	empty_pool $HP || return 1
	[ ! -d $HP1G ] || empty_pool $HP1G || return 1
	mem=$(free_pages)
	for f in $SWITCHES $HVO; do
		[ ! -e "$f" ] || booted="$booted $f=$(cat "$f")"
	done
	[ ! -d $CHURN ] || churn_mark
	frees=$(stat_of bulk_frees)
	# fail_page_alloc aimed, by its stack filter, at the vmemmap restores
	# (with HVO; 6.12's arm64 has none): unaimed, the shell's own
	# copy-on-write faults failed and were retried until the budget was
	# spent ("Huh VM_FAULT_OOM leaked out to the #PF handler" a million
	# times).  failslab at the churn caches.
	if [ -d $FPA ] && [ -e $HVO ]; then
		fail_alloc_start page 5 1 __hugetlb_vmemmap_restore_folio || return 1
		fa_page=$FAIL_ALLOC_PID
	fi
	if [ -d $FSL ] && [ -d $CHURN ]; then
		if ! fail_alloc_start slab 5 1 slub_partial_churn-; then
			[ -z "$fa_page" ] || fail_alloc_stop "$fa_page" page
			return 1
		fi
		fa_slab=$FAIL_ALLOC_PID
	fi
	# A shell error from here on ends the test's subshell (busybox ash): its
	# EXIT trap stops fail_alloc, disarmed for the next tests.  No pid, no
	# wait: a bare one would wait for the workers, which run until stopped.
	STRESS_FA_PIDS=$(echo $fa_page $fa_slab)
	trap '[ -z "$STRESS_FA_PIDS" ] || { kill -TERM $STRESS_FA_PIDS 2> /dev/null; wait $STRESS_FA_PIDS; }' EXIT

	# The workers' pids: fail_alloc runs until stopped, after them.
	worker stress_pool $HP 48 pool2m-a
	worker stress_pool $HP 48 pool2m-b
	[ ! -d $HP1G ] || worker stress_pool $HP1G 1 pool1g
	worker stress_switches
	[ ! -d $CHURN ] || for c in $(seq 0 $(( $(nproc) - 1 ))); do worker stress_churn "$c"; done
	worker stress_faults thp 32
	worker stress_faults hugetlb-2m 16
	while [ $t -lt "$secs" ]; do
		sleep 10
		t=$((t + 10))
		# Progress on the console, for the long runs of 'make stress'.
		[ $((t % 60)) != 0 ] || echo "stress: ${t}s of ${secs}s" > /dev/console
	done
	touch $STRESS_DIR/stop
	# shellcheck disable=SC2086 # the pids, one word each
	wait $workers

	if [ -n "$fa_page" ]; then
		fail_alloc_stop "$fa_page" page && injected_pa=$(fail_alloc_injected page) ||
			fa_failed=1
	fi
	if [ -n "$fa_slab" ]; then
		fail_alloc_stop "$fa_slab" slab && injected_slab=$(fail_alloc_injected slab) ||
			fa_failed=1
	fi
	trap - EXIT
	for sw in $booted; do echo "${sw#*=}" > "${sw%=*}"; done
	sed 's/^/note: /' $STRESS_DIR/[a-z]*
	# The pools as the workers left them, before the clean-up below.
	for d in $HP $HP1G; do
		[ ! -d "$d" ] || echo "note: ${d##*/} after the workers: nr $(cat "$d/nr_hugepages")" \
			"free $(cat "$d/free_hugepages") surplus $(cat "$d/surplus_hugepages")" \
			"resv $(cat "$d/resv_hugepages")"
	done
	echo "note: fault injection: $injected_pa page allocation failures, $injected_slab slab allocation failures"
	[ -z "$fa_failed" ] || return 1
	frees=$(( $(stat_of bulk_frees) - frees ))
	echo "note: $frees bulk frees"
	# What the run must have exercised, so that it cannot pass having
	# tested nothing; each a matter of chance, per 20 s run:
	# - a bulk free: each 2 MiB writer resizes about 45 times (debug image;
	#   make stress, 2 min: 261 and 269); k uniform sizes in 0..48 never
	#   decrease with probability C(48+k, k) / 49^k, 1.3e-17 for k = 20;
	# - a page allocation failure (HVO): none in n restore allocations at
	#   5 % is 0.95^n, below 1e-6 from n = 270; seen: 953 in the test image,
	#   12 to 58 in the debug image's boots (n about 240 to 1160: a rare
	#   miss is possible there, 0.95^240 = 4.6e-6);
	# - a slab allocation failure: 0.95^640 = 5.6e-15 for one 20-round
	#   churn run (640 allocations or more);
	# - with 2 CPUs or more, a remote free: every CPU's churn writer runs
	#   throughout, taking objects the others left (185196 in 2 minutes).
	[ "$frees" -gt 0 ] || fail "no bulk free in ${secs}s" || return 1
	[ "$injected_pa" = - ] || [ ! -e $HVO ] || [ "$injected_pa" -gt 0 ] ||
		fail "no page allocation failure injected in ${secs}s" || return 1
	[ "$injected_slab" = - ] || [ ! -d $CHURN ] || [ "$injected_slab" -gt 0 ] ||
		fail "no slab allocation failure injected in ${secs}s" || return 1
	[ ! -d $CHURN ] || [ "$(nproc)" = 1 ] || [ "$(churn_since remote_frees)" -gt 0 ] ||
		fail "no remote free in ${secs}s" || return 1
	empty_pool $HP && { [ ! -d $HP1G ] || empty_pool $HP1G; } || return 1
	check_pool $HP 0 0 && { [ ! -d $HP1G ] || check_pool $HP1G 0 0; } || return 1
	! grep -q ' [1-9][0-9]* failed$' $STRESS_DIR/churn* 2> /dev/null ||
		fail "a write to $CHURN/run failed" || return 1
	! grep -q '^faults thp: .* [1-9][0-9]* refused$' $STRESS_DIR/faults-thp ||
		fail "a THP mapping failed" || return 1
	if [ -d $CHURN ]; then
		echo "note: churn: $(churn_since remote_frees) remote frees," \
			"$(churn_since bound_violations) bound violations, $(churn_stat outstanding) objects left"
		[ "$(churn_since bound_violations)" = 0 ] && [ "$(churn_stat outstanding)" = 0 ] ||
			fail "per-cpu partial bound broken or objects left" || return 1
	fi
	free_pages_back "$mem" $STRESS_FREE_TOLERANCE
}

# test_stress [<seconds>]: default mmrust.stress_secs, else 20.
test_stress() {
	local secs
	secs=${1:-$(cmdline_param mmrust.stress_secs 20)}
	echo "note: ${secs}s on $(nproc) CPUs"
	stress_run "$secs"
}
test_stress_short() { test_stress 20; }
register stress_short /sys/kernel/debug/hugetlb_bulk_free
