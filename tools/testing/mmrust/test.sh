#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every test: KUnit (parsed by the base's kunit.py) and the boot tests, in
# boots of one image per architecture (MMRUST_ARCHES, default the one of
# lib.sh; 'make test' passes "x86_64 arm64"), 'make shell' fed on standard
# input (x86_64), 'make bench QUICK=1', and the patch series ('make
# series') applied to the plain base.  Ends with one line "N passed, N failed".
#   test.sh [kunit|boot|all|debug|stress]   (debug: the x86_64 debug image
#   only; stress: 'make stress')
. "$(dirname "$0")/lib.sh"

what=${1:-all}
passed=0 failed=0

# kunit_results <log> <label>: kunit.py's own report, then our tally.
kunit_results() {
	local out p f
	out=$(cd "$SRC" && python3 tools/testing/kunit/kunit.py parse "$1" 2>&1) || true
	echo "$out" | sed "s|^|[$2] |"
	summary=$(echo "$out" | grep -o 'Ran [0-9]* tests:.*' | tail -1)
	if [ -z "$summary" ]; then
		echo "[$2] no KUnit results in $1"
		failed=$((failed + 1))
		return
	fi
	count() { echo "$summary" | grep -o "$1: [0-9]*" | grep -o '[0-9]*' || echo 0; }
	p=$(count passed)
	f=$(( $(count failed) + $(count crashed) + $(count errors) ))
	passed=$((passed + p)); failed=$((failed + f))
}

# boot_results <log> <label>: the verdicts /init printed.
boot_results() {
	local p f
	grep -E '^mmrust: (ok|not ok|skip|note|  )' "$1" | sed "s|^|[$2] |" || true
	p=$(grep -c '^mmrust: ok ' "$1" || true)
	f=$(grep -c '^mmrust: not ok ' "$1" || true)
	if ! grep -q '^mmrust: done' "$1"; then
		echo "[$2] the guest did not finish; last lines of $1:"
		tail -20 "$1" | sed "s|^|[$2]   |"
		f=$((f + 1))
	fi
	passed=$((passed + p)); failed=$((failed + f))
}

mkdir -p "$LOGS"

# verdict <label> <name> <ok?> [why]: one host-side check, counted.
verdict() {
	if [ "$3" = 0 ]; then
		echo "[$1] mmrust: ok $2"; passed=$((passed + 1))
	else
		echo "[$1] mmrust: not ok $2${4:+: $4}"; failed=$((failed + 1))
	fi
}

# 'make shell' without a terminal: commands on standard input, after
# blank lines (the UART drops what arrives before the console is open).
shell_check() {
	local log=$LOGS/boot-shell.log start=$(date +%s) ok
	say "booting the test kernel (shell): commands on standard input"
	{
		printf '\n%.0s' $(seq 32)
		# Each command twice: the emulated UART sometimes loses a
		# character of the input (seen in two runs in a row), and one
		# good copy of each is enough for the checks below.
		for c in 'echo shell-$((6 * 7))' \
			'insmod /samples/rust_mm_folio_list.ko && rmmod rust_mm_folio_list && echo module-ok' \
			'command -v huge_zero_page' 'command -v timed_write' \
			'cat /sys/kernel/debug/hugetlb_bulk_free/rust'; do
			printf '%s\n%s\n' "$c" "$c"
		done
		echo exit
	} | MMRUST_BOOT_TIMEOUT=180 "$TOP/tools/testing/mmrust/shell.sh" > "$log" 2>&1 || true
	say "  shell: $(( $(date +%s) - start ))s (console: $log)"
	ok=0; grep -q '^shell-42' "$log" || ok=$?
	verdict boot/shell shell_runs_commands $ok "no output of 'echo shell-\$((6 * 7))' in $log"
	ok=0; grep -q '^module-ok' "$log" || ok=$?
	verdict boot/shell shell_loads_sample_module $ok "insmod/rmmod of the sample failed, see $log"
	ok=0; grep -q '^/samples/huge_zero_page' "$log" && grep -q '^/bin/timed_write' "$log" || ok=$?
	verdict boot/shell shell_path $ok "samples and test programs not on PATH, see $log"
	ok=0; grep -q '^mmrust: done' "$log" || ok=$?
	verdict boot/shell shell_exit_powers_off $ok "the guest did not power off after 'exit'"
}

series_check() {
	local out ok
	ok=0; out=$("$TOP/tools/testing/mmrust/series.sh" --check 2>&1) || ok=$?
	echo "$out" | sed 's/^/[series] /'
	verdict series series_applies_to_plain_base $ok "$(echo "$out" | tail -1)"
}

# 'make bench QUICK=1' for one architecture (arm64: its contpte part):
# every step of the harness with the smallest sizes, so that a broken
# bench script fails here.  Checks the exit code, the report and its
# plots, and that the headline figures are numbers.
bench_check() {
	local label=${p}bench-quick out=$LOGS/bench-quick-$MMRUST_ARCH.log start=$(date +%s)
	local report=$CACHE/report/$MMRUST_ARCH-quick only=all ok png head
	local pngs="slub_push hackbench hugetlb_free_vs_n hugetlb_free_vs_vcpus clear_pages zero_page_rss"
	local heads="slub_partial_rust_over_c_insns hugetlb_free_rust_over_c_insns_hvo0_n64
		hugetlb_free_rust_over_c_insns_hvo1_n64 clear_pages_batched_over_per_page_2m
		hackbench_process_g1_rust_over_c_insns"
	if [ "$MMRUST_ARCH" = arm64 ]; then
		only=contpte pngs=contpte
		heads="contpte_fork_order0_on_over_off contpte_munmap_order9_on_over_off"
	fi
	say "make bench QUICK=1 ($MMRUST_ARCH$([ $only = all ] || echo ", $only")): every benchmark step, smallest sizes"
	ok=0; QUICK=1 MMRUST_BENCH_ONLY=$only "$TOP/tools/testing/mmrust/bench.sh" > "$out" 2>&1 || ok=$?
	say "  bench: $(( $(date +%s) - start ))s (output: $out)"
	verdict "$label" bench_quick_runs $ok "exit $ok, see $out"
	ok=0; tail -1 "$out" | grep -qx "report: $report/report.md" && [ -s "$report/report.md" ] || ok=1
	verdict "$label" bench_quick_report $ok "no 'report: $report/report.md' last, see $out"
	for png in $pngs; do
		ok=0; head -c 8 "$report/$png.png" 2>/dev/null | grep -q PNG || ok=1
		verdict "$label" "bench_quick_plot_$png" $ok "no plot $report/$png.png"
	done
	for head in $heads; do
		ok=0; grep -Eq "^bench: $head = [0-9.]+\$" "$out" || ok=1
		verdict "$label" "bench_quick_$head" $ok "$(grep "^bench: $head " "$out" || echo "no line 'bench: $head'")"
	done
}

# hugetlb_cma=1G: a CMA area for 1 GiB huge pages, so that the 1 GiB boot
# tests always find room (a plain 5 GiB guest has a free aligned GiB in some
# boots only).
run_boot() {  # run_boot <label> <mode> <params...>
	local label=$1 mode=$2; shift 2
	set -- hugetlb_cma=1G "$@"
	local log=$LOGS/boot-$label.log start=$(date +%s)
	[ "$NAME" = x86_64 ] || log=$LOGS/boot-$NAME-$label.log
	local pid t
	say "booting the test kernel ($label): mmrust.mode=$mode $*"
	"$TOP/tools/testing/mmrust/boot.sh" "$mode" "$log" "$@" &
	pid=$!
	# Progress every minute: the last verdict or stress line so far.
	while ! timeout 60 tail --pid=$pid -f /dev/null; do
		t=$(grep -E '^(mmrust: (ok|not ok|skip) |stress: )' "$log" 2> /dev/null | tail -1) || true
		say "  $label: $(( $(date +%s) - start ))s${t:+, last: $t}"
	done
	wait $pid || true
	say "  $label: $(( $(date +%s) - start ))s (console: $log)"
	LOG=$log
}

# init_on_free=1 also turns on the page allocator's free-time checks: a page
# freed with a leftover page type or mapcount is a "BUG: Bad page state",
# which fails the boot test dmesg_clean (this is how patches/0011 was
# found).  It costs ~10 s in the HVO boot.  It also zeroes freed pages, so
# the batched clearing's preempt=full faults are tested again without it,
# in the bad-param boot; preempt=voluntary is the c boot's.
# test_arch <arch>: the boots of one architecture's image; its labels are
# prefixed with the architecture but for x86_64 (the labels of before).
test_arch() {
	MMRUST_ARCH=$1
	. "$TOP/tools/testing/mmrust/lib.sh"
	local p="" off="" bad=""
	[ "$MMRUST_ARCH" = x86_64 ] || p="$MMRUST_ARCH/"
	# contpte, the arm64 switch: off in the c boot, bogus in bad-param.
	[ "$MMRUST_ARCH" != arm64 ] || off=contpte_impl=off bad=contpte_impl=bogus
	# the restore's grace period, an HVO (x86_64) switch: sync in the c boot.
	[ "$MMRUST_ARCH" != x86_64 ] || off=hugetlb_vmemmap_gp_impl=sync bad=hugetlb_vmemmap_gp_impl=bogus
	say "== $MMRUST_ARCH =="
	case "$what" in
	kunit)
		run_boot kunit-rust none hugetlb_free_vmemmap=on init_on_free=1 preempt=full
		kunit_results "$LOG" ${p}kunit/rust
		;;
	boot|all)
		run_boot rust test hugetlb_free_vmemmap=on init_on_free=1 preempt=full \
			$([ "$what" = boot ] && echo kunit.enable=0)
		[ "$what" = boot ] || kunit_results "$LOG" ${p}kunit/rust
		boot_results "$LOG" ${p}boot/rust
		run_boot c test slub_partial_impl=c hugetlb_bulk_free_impl=c clear_pages_impl=per_page \
			$off preempt=voluntary hugetlb_free_vmemmap=off \
			$([ "$what" = boot ] && echo kunit.enable=0)
		[ "$what" = boot ] || kunit_results "$LOG" ${p}kunit/c
		boot_results "$LOG" ${p}boot/c
		run_boot bad-param test slub_partial_impl=bogus hugetlb_bulk_free_impl=bogus \
			clear_pages_impl=bogus $bad preempt=full kunit.enable=0
		boot_results "$LOG" ${p}boot/bad-param
		[ "$MMRUST_ARCH" != x86_64 ] || shell_check
		[ "$what" != all ] || bench_check
		;;
	*) die "usage: test.sh [kunit|boot|all|debug|stress]" ;;
	esac
}

# The debug image's boots: freed pages unmapped and zeroed, and 4-level
# paging.  no5lvl: 6.12's identify_boot_cpu() zeroes boot_cpu_data's
# capabilities for a moment with interrupts on, and pgtable_l5_enabled()
# reads them until the alternatives are applied; under QEMU's -cpu max
# (LA57) an interrupt in that window made KASAN take every direct-map
# address for one without shadow ("BUG: KASAN: wild-memory-access in
# do_raw_spin_lock" from handle_edge_irq, interrupting identify_cpu, before
# any of our code runs: in 2 of 6 debug boots without no5lvl, 0 of 10 with).
DEBUG_PARAMS="debug_pagealloc=on init_on_free=1 no5lvl"

# test_debug: the x86_64 debug image (configs/debug.config: KASAN, lockdep,
# DEBUG_VM, DEBUG_LIST, DEBUG_PAGEALLOC, kmemleak, UBSAN): the KUnit suites
# and the boot tests, the new implementations and then the originals; any
# report fails dmesg_clean or kmemleak_clean.
test_debug() {
	export MMRUST_ARCH=x86_64 MMRUST_FLAVOR=debug
	. "$TOP/tools/testing/mmrust/lib.sh"
	local dbg=$DEBUG_PARAMS
	say "== x86_64 debug image (KASAN, lockdep, DEBUG_VM, DEBUG_PAGEALLOC, kmemleak, UBSAN) =="
	export MMRUST_BOOT_TIMEOUT=${MMRUST_DEBUG_BOOT_TIMEOUT:-2400}
	run_boot rust test hugetlb_free_vmemmap=on $dbg preempt=full
	kunit_results "$LOG" x86_64-debug/kunit/rust
	boot_results "$LOG" x86_64-debug/boot/rust
	run_boot c test slub_partial_impl=c hugetlb_bulk_free_impl=c clear_pages_impl=per_page \
		hugetlb_vmemmap_gp_impl=sync preempt=voluntary hugetlb_free_vmemmap=on $dbg
	kunit_results "$LOG" x86_64-debug/kunit/c
	boot_results "$LOG" x86_64-debug/boot/c
	unset MMRUST_BOOT_TIMEOUT MMRUST_FLAVOR
}

# test_stress: 'make stress': the stress of init/80-stress.sh for
# MMRUST_STRESS_MINUTES minutes (default 5) in one boot per vCPU count of
# MMRUST_STRESS_SMP (default "2 4"), followed by the splat checks; on the
# x86_64 debug image (checkers on, the kernel's fault injection armed), or
# on the test image for arm64 or with MMRUST_DEBUG=0.
test_stress() {
	local mins=${MMRUST_STRESS_MINUTES:-5} smp dbg="" label=stress
	case "$mins" in ''|*[!0-9]*|0) die "DURATION=$mins: a whole number of minutes, at least 1" ;; esac
	if [ "$MMRUST_ARCH" = x86_64 ] && [ "${MMRUST_DEBUG:-1}" = 1 ]; then
		export MMRUST_FLAVOR=debug
		dbg=$DEBUG_PARAMS
	fi
	. "$TOP/tools/testing/mmrust/lib.sh"
	[ "$NAME" = x86_64 ] || label=$NAME/stress
	export MMRUST_BOOT_TIMEOUT=$(( mins * 60 + 1200 ))
	for smp in ${MMRUST_STRESS_SMP:-2 4}; do
		say "== stress: $mins min on $smp vCPUs, $NAME image =="
		MMRUST_SMP=$smp run_boot "stress-smp$smp" stress mmrust.stress_secs=$(( mins * 60 )) \
			hugetlb_free_vmemmap=on preempt=full $dbg
		boot_results "$LOG" "$label/smp$smp"
	done
}

arches=" ${MMRUST_ARCHES:-$MMRUST_ARCH} "
if [ "$what" = stress ]; then
	test_stress
elif [ "$what" = debug ]; then
	test_debug
else
	for arch in $arches; do
		test_arch "$arch"
	done
	[ "$what" != all ] || series_check
	# 'make test' with x86_64: the debug image too (MMRUST_DEBUG=0: not).
	if [ "$what" = all ] && [ "${MMRUST_DEBUG:-1}" = 1 ] && [[ $arches == *" x86_64 "* ]]; then
		test_debug
	fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
