#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make bench': the benchmarks and their report (clocks, "bench:" lines,
# QUICK=1: Documentation/mm/mmrust/benchmarking.rst).  A tool of its own:
# it measures and checks nothing; it builds and boots the test kernels of
# tools/testing/mmrust (lib.sh, build.sh, boot.sh), whose initramfs holds
# the guest's side (init/*.sh: bench_*, contpte_fork, timed_write,
# zero_memcmp).
. "$(dirname "$0")/../mmrust/lib.sh"

quick=${QUICK:-0}
[ "$quick" = 0 ] || [ "$quick" = 1 ] || die "QUICK=$quick: expected 0 or 1"
report=${MMRUST_REPORT:-$CACHE/report/$MMRUST_ARCH$([ "$quick" = 0 ] || echo -quick)}
mkdir -p "$LOGS" "$report"

# Run again as a child, its output teed to bench.log; then the report.
if [ -z "${MMRUST_BENCH_CHILD:-}" ]; then
	start=$(date +%s)
	rm -f "$report"/*.png "$report"/report.md
	set +e
	MMRUST_BENCH_CHILD=1 bash "$0" "$@" 2>&1 | tee "$report/bench.log"
	rc=${PIPESTATUS[0]}
	set -e
	say "benchmarks: $(( $(date +%s) - start ))s; writing the report"
	/usr/bin/python3 "$TOP/tools/testing/mmrust-bench/report.py" "$report/bench.log" "$report" \
		"$MMRUST_ARCH" "$quick" || rc=1
	[ "$rc" = 0 ] || say "the benchmarks or the report failed (exit $rc): see $report/bench.log"
	echo "report: $report/report.md"
	exit "$rc"
fi

if [ "$quick" = 1 ]; then
	# The smallest sizes: every step runs once, end to end.
	: "${MMRUST_BENCH_ROUNDS:=1}" "${MMRUST_BENCH_INNER:=3}"
	: "${MMRUST_BENCH_HUGETLB_N:=64}" "${MMRUST_BENCH_HUGETLB_BOOTS:=1}"
	: "${MMRUST_BENCH_HUGETLB_REPS:=1}" "${MMRUST_BENCH_HUGETLB_MEM:=2G}"
	: "${MMRUST_BENCH_SMP:=1 2}"
	export MMRUST_BENCH_CLEAR_ROUNDS=${MMRUST_BENCH_CLEAR_ROUNDS:-1}
	export MMRUST_BENCH_CLEAR_LOOPS=${MMRUST_BENCH_CLEAR_LOOPS:-1}
	export MMRUST_BENCH_CLEAR_HOST=${MMRUST_BENCH_CLEAR_HOST:-"64 1"}
	export MMRUST_BENCH_CONTPTE_ROUNDS=${MMRUST_BENCH_CONTPTE_ROUNDS:-1}
	export MMRUST_BENCH_CONTPTE_ICOUNT_ROUNDS=${MMRUST_BENCH_CONTPTE_ICOUNT_ROUNDS:-1}
fi
rounds=${MMRUST_BENCH_ROUNDS:-5}       # wall-clock boots (Rust and C in each)
inner=${MMRUST_BENCH_INNER:-31}        # benchmark rounds per implementation in one boot
only=${MMRUST_BENCH_ONLY:-all}         # all, contpte (arm64), clear, slub, hugetlb or lto (x86_64), production
ICOUNT="-icount shift=0,sleep=off"
# TCG unless MMRUST_ACCEL=kvm: the figures, their labels and the guest clock
# settings (tsc=reliable, tsc_early_khz) are TCG's; -icount is TCG anyway.
export MMRUST_ACCEL=${MMRUST_ACCEL:-tcg}
say "make bench$([ "$quick" = 0 ] || echo ' QUICK=1'): $MMRUST_ARCH, report in $report"
bench_start=$(date +%s)
# progress <what>: one line of progress, with the time since the start.
progress() { say "  $* ($(( $(date +%s) - bench_start ))s into make bench)"; }

# Production against the plain base: two images of its own, so only when asked.
if [ "$only" = production ]; then
	"$TOP/tools/testing/mmrust-bench/bench_production.sh"
	exit
fi

if [ "$MMRUST_ARCH" = arm64 ] && { [ "$only" = all ] || [ "$only" = contpte ]; }; then
	"$TOP/tools/testing/mmrust-bench/bench_contpte.sh"
	[ "$only" = all ] || exit 0
fi
[ "$only" != contpte ] || die "contpte is arm64's: make bench ARCH=arm64 MMRUST_BENCH_ONLY=contpte"

if [ "$only" = all ] || [ "$only" = clear ]; then
	"$TOP/tools/testing/mmrust-bench/bench_clear.sh"
	[ "$only" = all ] || exit 0
fi


# slub_boot <log> <qemu options> [kernel parameters]: one boot running the
# in-kernel SLUB push benchmark, Rust and C alternating (and whatever else
# the parameters ask /init for); sets ns_rust and ns_c (medians).
slub_boot() {
	local log=$1 qargs=$2 try impl v
	shift 2
	for try in 1 2 3; do
		MMRUST_QEMU_ARGS=$qargs "$TOP/tools/testing/mmrust/boot.sh" bench "$log" \
			slub_partial_bench=$inner kunit.enable=0 "$@" || true
		ns_rust=$(sed -n "s/.*slub_partial_bench: impl=rust median ns_per_op=\([0-9.]*\).*/\1/p" "$log")
		ns_c=$(sed -n "s/.*slub_partial_bench: impl=c median ns_per_op=\([0-9.]*\).*/\1/p" "$log")
		[ -z "$ns_rust" ] || [ -z "$ns_c" ] || return 0
		say "  no result in $log (try $try of 3): $(grep 'slub_partial_bench' "$log" | tail -1)"
	done
	die "no benchmark result in $log"
}

# agree <a> <b>: the relative difference of two runs, in percent.
agree() { awk -v a="$1" -v b="$2" 'BEGIN {d = a - b; if (d < 0) d = -d; printf "%.3f", a ? 100 * d / a : 0}'; }

# hackbench, x86_64 only, in the first wall-clock and both exact SLUB boots
# (Documentation/mm/mmrust/slub-partial.rst, "Benchmark").
hbg=${MMRUST_BENCH_HACKBENCH_GROUPS:-1,2,4}
hbl=${MMRUST_BENCH_HACKBENCH_LOOPS:-100}
hbr=${MMRUST_BENCH_HACKBENCH_REPS:-3}
[ "$quick" = 0 ] || hbg=1 hbl=5 hbr=1
hackbench_args=()
[ "$MMRUST_ARCH" != x86_64 ] || hackbench_args=(mmrust.bench=hackbench mmrust.bench_groups=$hbg
	mmrust.bench_loops=$hbl mmrust.bench_reps=$hbr)

if [ "$only" = all ] || [ "$only" = slub ]; then
	say "SLUB per-cpu partial push, wall clock: $rounds boots, $inner rounds of Rust and C alternating in each ($MMRUST_ARCH QEMU TCG, 2 vCPUs)"
	ratios=() rust_all=() c_all=()
	for r in $(seq 1 "$rounds"); do
		if [ "$r" = 1 ]; then
			slub_boot "$LOGS/bench-slub-wall-$r.log" "" "${hackbench_args[@]}"
		else
			slub_boot "$LOGS/bench-slub-wall-$r.log" ""
		fi
		ratio=$(awk -v a="$ns_rust" -v b="$ns_c" 'BEGIN {printf "%.4f", a / b}')
		ratios+=("$ratio"); rust_all+=("$ns_rust"); c_all+=("$ns_c")
		progress "SLUB wall-clock boot $r of $rounds done"
		printf '  boot %d: rust %8s ns/op   c %8s ns/op   rust/c %s\n' "$r" "$ns_rust" "$ns_c" "$ratio"
		printf 'bench: slub_partial_rust_ns_per_op_boot%d = %s ns\n' "$r" "$ns_rust"
		printf 'bench: slub_partial_c_ns_per_op_boot%d = %s ns\n' "$r" "$ns_c"
	done
	printf 'bench: slub_partial_rust_ns_per_op = %s ns\n' "$(printf '%s\n' "${rust_all[@]}" | median)"
	printf 'bench: slub_partial_c_ns_per_op = %s ns\n' "$(printf '%s\n' "${c_all[@]}" | median)"
	printf 'bench: slub_partial_rust_over_c = %s\n' "$(printf '%s\n' "${ratios[@]}" | median)"

	say "SLUB per-cpu partial push, exact (instructions, QEMU $ICOUNT): two boots, Rust and C in each"
	for run in 1 2; do
		slub_boot "$LOGS/bench-slub-icount-$run.log" "$ICOUNT" "${hackbench_args[@]}"
		progress "SLUB exact boot $run of 2 done"
		eval "ir$run=$ns_rust ic$run=$ns_c"
		printf '  run %d: rust %8s insns/op   c %8s insns/op   rust/c %s\n' "$run" "$ns_rust" "$ns_c" \
			"$(ratio "$ns_rust" "$ns_c")"
		printf 'bench: slub_partial_rust_insns_per_op_run%d = %s insns\n' "$run" "$ns_rust"
		printf 'bench: slub_partial_c_insns_per_op_run%d = %s insns\n' "$run" "$ns_c"
		printf 'bench: slub_partial_rust_over_c_insns_run%d = %s\n' "$run" "$(ratio "$ns_rust" "$ns_c")"
	done
	printf 'bench: slub_partial_rust_over_c_insns = %s\n' "$(ratio "$ir1" "$ic1")"
	printf 'bench: slub_partial_rust_insns_run1_run2_diff_pct = %s %%\n' "$(agree "$ir1" "$ir2")"
	printf 'bench: slub_partial_c_insns_run1_run2_diff_pct = %s %%\n' "$(agree "$ic1" "$ic2")"
fi
# hackbench's figures, from the boots above.
# hb <clock> <impl> <mode> <groups> <field>: median over the repetitions.
hb() {
	grep -h "^hackbench_bench: impl=$2 mode=$3 groups=$4 " "$LOGS/bench-slub-$1.log" 2>/dev/null |
		grep -o " $5=[0-9]*" | cut -d= -f2 | median || true
}
if { [ "$only" = all ] || [ "$only" = slub ]; } && [ "$MMRUST_ARCH" = x86_64 ]; then
	say "hackbench (rt-tests; pipes, $hbl loops, groups $hbg, $hbr repetitions): Rust and C" \
		"alternating, in the first wall-clock boot and in both exact ones"
	printf '  %-7s %6s %-5s %10s %14s %14s %10s %12s\n' mode groups impl wall_ms \
		"M insns run 1" "M insns run 2" slab_kib cpu_partial
	for mode in process thread; do
		for g in ${hbg//,/ }; do
			for impl in rust c; do
				w=$(hb wall-1 $impl $mode $g time_ms)
				i1=$(hb icount-1 $impl $mode $g time_ms) i2=$(hb icount-2 $impl $mode $g time_ms)
				printf '  %-7s %6s %-5s %10s %14s %14s %10s %12s\n' $mode $g $impl "$w" "$i1" "$i2" \
					"$(hb wall-1 $impl $mode $g slab_kib)" "$(hb wall-1 $impl $mode $g cpu_partial_slabs)"
				printf 'bench: hackbench_%s_g%s_%s_ms = %s ms\n' $mode $g $impl "$w"
				printf 'bench: hackbench_%s_g%s_%s_minsns_run1 = %s M insns\n' $mode $g $impl "$i1"
				printf 'bench: hackbench_%s_g%s_%s_minsns_run2 = %s M insns\n' $mode $g $impl "$i2"
				printf 'bench: hackbench_%s_g%s_%s_slab_kib = %s KiB\n' $mode $g $impl \
					"$(hb wall-1 $impl $mode $g slab_kib)"
				printf 'bench: hackbench_%s_g%s_%s_cpu_partial_slabs = %s\n' $mode $g $impl \
					"$(hb wall-1 $impl $mode $g cpu_partial_slabs)"
			done
			printf 'bench: hackbench_%s_g%s_rust_over_c = %s\n' $mode $g \
				"$(ratio "$(hb wall-1 rust $mode $g time_ms)" "$(hb wall-1 c $mode $g time_ms)")"
			printf 'bench: hackbench_%s_g%s_rust_over_c_insns = %s\n' $mode $g \
				"$(ratio "$(hb icount-1 rust $mode $g time_ms)" "$(hb icount-1 c $mode $g time_ms)")"
		done
	done
fi
[ "$only" != slub ] || exit 0

# hstat <logs> <impl> <hvo> <n> <field> [<gp>]: median of the field in
# bench-hugetlb-<logs>-*.log (grace period <gp> only, if given);
# "outside_ns" is free_ns - rcu_ns (the free outside its grace period waits).
hstat() {
	cat "$LOGS"/bench-hugetlb-"$1"-*.log 2>/dev/null |
		grep "hugetlb_bench: impl=$2 hvo=$3 n=$4 " | grep -- " gp=${6:-}" |
		awk -v f="$5" '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (f == "outside_ns") print v["free_ns"] - v["rcu_ns"]; else if (f in v) print v[f]
		}' | median || true
}
us() { [ -z "$1" ] || awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }

# Rust in ThinLTO (Documentation/mm/mmrust/lto.rst, "Figures"); with
# MMRUST_BENCH_ONLY=lto the test image's two boots too (_nolto), in one run.
# bench_exact <flavour> <suffix>: the two exact boots on one image
# (MMRUST_BENCH_LTO_PARTS: "slub hugetlb", or one of them).
bench_exact() {
	local log parts=" ${MMRUST_BENCH_LTO_PARTS:-slub hugetlb} "
	[[ $parts == *" slub "* ]] || { bench_exact_hugetlb "$@"; return; }
	say "SLUB push and hackbench, ${1:-test} image, exact (QEMU $ICOUNT)"
	MMRUST_FLAVOR=$1 slub_boot "$LOGS/bench-slub-$1icount.log" "$ICOUNT" "${hackbench_args[@]}"
	printf '  %s: rust %s insns/op   c %s insns/op   rust/c %s\n' "${1:-test}" "$ns_rust" "$ns_c" \
		"$(ratio "$ns_rust" "$ns_c")"
	printf 'bench: slub_partial_rust_insns_per_op_%s = %s insns\n' "$2" "$ns_rust"
	printf 'bench: slub_partial_c_insns_per_op_%s = %s insns\n' "$2" "$ns_c"
	printf 'bench: slub_partial_rust_over_c_insns_%s = %s\n' "$2" "$(ratio "$ns_rust" "$ns_c")"
	for mode in process thread; do
		for g in ${hbg//,/ }; do
			printf 'bench: hackbench_%s_g%s_rust_over_c_insns_%s = %s\n' $mode $g "$2" \
				"$(ratio "$(hb "$1icount" rust $mode $g time_ms)" "$(hb "$1icount" c $mode $g time_ms)")"
		done
	done
	[[ $parts != *" hugetlb "* ]] || bench_exact_hugetlb "$@"
}
bench_exact_hugetlb() {
	local log=$LOGS/bench-hugetlb-$1icount-1.log
	say "hugetlb bulk free, ${1:-test} image, exact: N = $hmid, HVO on and off, $ismp vCPU(s)"
	hugetlb_icount_boot "$log" "$1" $hmid polled "${MMRUST_BENCH_HUGETLB_ICOUNT_REPS:-4}"
	for hvo in 1 0; do
		printf 'bench: hugetlb_free_rust_over_c_insns_hvo%s_n%s_%s = %s\n' $hvo $hmid "$2" \
			"$(ratio "$(hstat "$1icount" rust $hvo $hmid outside_ns polled)" \
				"$(hstat "$1icount" c $hvo $hmid outside_ns polled)")"
	done
}
bench_lto() {
	say "Rust in ThinLTO: building the LTO image (x86_64, rustc-web 1.85 on LLVM 19)"
	MMRUST_FLAVOR=lto "$TOP/tools/testing/mmrust/build.sh" >&2
	"$TOP/tools/testing/mmrust/lto-check.sh" | sed 's/^/  /' || true
	[ "$only" != lto ] || bench_exact "" nolto
	bench_exact lto lto
}
# hugetlb bulk free (Documentation/mm/mmrust/hugetlb-bulk-free.rst).
hmem=${MMRUST_BENCH_HUGETLB_MEM:-10G}
hsizes=${MMRUST_BENCH_HUGETLB_N:-64,512,1024,2048,4096}
hboots=${MMRUST_BENCH_HUGETLB_BOOTS:-3}   # boots
hreps=${MMRUST_BENCH_HUGETLB_REPS:-5}     # repetitions inside one boot
hmid=${MMRUST_BENCH_HUGETLB_MID:-512}     # N of the headlines, the RCU and vCPU runs
[ "$quick" = 0 ] || hmid=${hsizes%%,*}
# The exact boots (below, and the LTO part's): guest size and vCPUs.
imem=${MMRUST_BENCH_HUGETLB_ICOUNT_MEM:-$hmem}
ismp=${MMRUST_BENCH_HUGETLB_ICOUNT_SMP:-1}
# hugetlb_icount_boot <log> <flavour> <sizes> <gp> <reps> [param...]: one
# boot of the hugetlb benchmark under icount, Rust and C alternating.
hugetlb_icount_boot() {
	local log=$1 flavour=$2 sizes=$3 gp=$4 reps=$5
	shift 5
	MMRUST_FLAVOR=$flavour MMRUST_QEMU_ARGS=$ICOUNT MMRUST_MEM=$imem MMRUST_SMP=$ismp \
		MMRUST_BOOT_TIMEOUT=${MMRUST_BENCH_ICOUNT_TIMEOUT:-1800} \
		"$TOP/tools/testing/mmrust/boot.sh" bench "$log" \
		mmrust.bench=hugetlb mmrust.bench_n="$sizes" mmrust.bench_impls=rust,c \
		mmrust.bench_gp="$gp" mmrust.bench_reps="$reps" "$@" kunit.enable=0 || true
	grep -q 'hugetlb_bench: impl=' "$log" || say "  no hugetlb results in $log"
}
[ "$only" != lto ] || { bench_lto; exit 0; }
say "hugetlb bulk free: grow to N 2 MiB pages, shrink to 0, HVO on/off, Rust and C" \
	"alternating in each boot ($hmem guest; $hboots boots, $hreps repetitions each)"
rm -f "$LOGS"/bench-hugetlb-*.log
for r in $(seq 1 "$hboots"); do
	log=$LOGS/bench-hugetlb-both-$r.log
	MMRUST_MEM=$hmem "$TOP/tools/testing/mmrust/boot.sh" bench "$log" \
		mmrust.bench=hugetlb mmrust.bench_n=$hsizes mmrust.bench_impls=rust,c \
		mmrust.bench_reps=$hreps kunit.enable=0 || true
	grep -q 'hugetlb_bench: impl=' "$log" || say "  no hugetlb results in $log"
	grep 'hugetlb_bench: no room' "$log" | sort -u | sed 's/^/  /' || true
	progress "hugetlb wall-clock boot $r of $hboots done"
done
lines=()
printf '  wall clock (us):\n  %-5s %-4s %6s %12s %12s %12s %12s %12s %12s\n' \
	impl hvo N grow_us shrink_us free_us rcu_wait_us lock_cycles tlb_flushes
for impl in rust c; do
	for hvo in 1 0; do
		for n in ${hsizes//,/ }; do
			f=$(hstat both $impl $hvo $n free_ns)
			[ -n "$f" ] || continue
			g=$(hstat both $impl $hvo $n grow_ns)
			sh=$(hstat both $impl $hvo $n shrink_ns)
			printf '  %-5s %-4s %6s %12s %12s %12s %12s %12s %12s\n' $impl $hvo $n \
				"$(us "$g")" "$(us "$sh")" "$(us "$f")" "$(us "$(hstat both $impl $hvo $n rcu_ns)")" \
				"$(hstat both $impl $hvo $n lock_cycles)" \
				"$(hstat both $impl $hvo $n tlb_flushes)"
			lines+=("bench: hugetlb_grow_${impl}_hvo${hvo}_n${n}_us = $(us "$g") us"
				"bench: hugetlb_shrink_${impl}_hvo${hvo}_n${n}_us = $(us "$sh") us"
				"bench: hugetlb_free_${impl}_hvo${hvo}_n${n}_us = $(us "$f") us"
				"bench: hugetlb_free_rcu_wait_${impl}_hvo${hvo}_n${n}_us = $(us "$(hstat both $impl $hvo $n rcu_ns)") us")
		done
	done
done
printf '%s\n' "${lines[@]}"
printf 'bench: hugetlb_free_lock_cycles = %s\n' "$(hstat both rust 1 $hmid lock_cycles)"
printf 'bench: hugetlb_free_tlb_flushes = %s\n' "$(hstat both rust 1 $hmid tlb_flushes)"
printf 'bench: hugetlb_free_rcu_waits = %s\n' "$(hstat both rust 1 $hmid rcu_waits)"
printf 'bench: hugetlb_free_hvo_on_over_off = %s\n' \
	"$(ratio "$(hstat both rust 1 $hmid free_ns)" "$(hstat both rust 0 $hmid free_ns)")"
printf 'bench: hugetlb_free_hvo_on_over_off_outside_rcu_wait = %s\n' \
	"$(ratio "$(hstat both rust 1 $hmid outside_ns)" "$(hstat both rust 0 $hmid outside_ns)")"
printf 'bench: hugetlb_free_rust_over_c = %s\n' \
	"$(ratio "$(hstat both rust 1 $hmid free_ns)" "$(hstat both c 1 $hmid free_ns)")"
nmax=${hsizes##*,}
printf 'bench: hugetlb_free_hvo_on_over_off_n%s = %s\n' "$nmax" \
	"$(ratio "$(hstat both rust 1 "$nmax" free_ns)" "$(hstat both rust 0 "$nmax" free_ns)")"
printf 'bench: hugetlb_shrink_hvo_on_over_off_n%s = %s\n' "$nmax" \
	"$(ratio "$(hstat both rust 1 "$nmax" shrink_ns)" "$(hstat both rust 0 "$nmax" shrink_ns)")"
printf 'bench: hugetlb_free_rust_over_c_n%s = %s\n' "$nmax" \
	"$(ratio "$(hstat both rust 1 "$nmax" free_ns)" "$(hstat both c 1 "$nmax" free_ns)")"
for n in $hmid "$nmax"; do
	printf 'bench: hugetlb_free_rust_over_c_hvo_off_n%s = %s\n' "$n" \
		"$(ratio "$(hstat both rust 0 "$n" free_ns)" "$(hstat both c 0 "$n" free_ns)")"
done

# Exact: the same under -icount, twice, grace period polled and sync; Rust/C
# outside the wait (free_ns - rcu_ns).  One vCPU (benchmarking.rst, "Two
# clocks"): with 2 the two boots differed by up to 0.23 %; with one the
# HVO-off free repeats to a few instructions.
isizes=${MMRUST_BENCH_HUGETLB_ICOUNT_N:-64,512,4096}
ireps=${MMRUST_BENCH_HUGETLB_ICOUNT_REPS:-4}
[ "$quick" = 0 ] || isizes=$hsizes ireps=1 imem=$hmem
say "hugetlb bulk free, exact (instructions, QEMU $ICOUNT): N = $isizes, two boots," \
	"$ireps repetitions each, $ismp vCPU(s), Rust and C alternating, grace period polled and sync"
for run in 1 2; do
	log=$LOGS/bench-hugetlb-icount$run-1.log start=$(date +%s)
	hugetlb_icount_boot "$log" "" "$isizes" polled,sync "$ireps" mmrust.bench_breakdown=$hmid
	say "  run $run: $(( $(date +%s) - start ))s (console: $log)"
done
ki() { [ -z "$1" ] || awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }
printf '  exact (k instructions; run 1 | run 2):\n  %-5s %-4s %6s %-6s %21s %21s %21s\n' \
	impl hvo N gp free rcu_wait free_outside_wait
for impl in rust c; do
	for hvo in 1 0; do
		for n in ${isizes//,/ }; do
			for gp in polled sync; do
				for run in 1 2; do
					for f in free rcu outside; do
						printf -v "${f}_$run" '%s' "$(hstat icount$run $impl $hvo $n ${f}_ns $gp)"
					done
				done
				[ -n "$free_1" ] || continue
				printf '  %-5s %-4s %6s %-6s %10s %10s %10s %10s %10s %10s\n' $impl $hvo $n $gp \
					"$(ki "$free_1")" "$(ki "$free_2")" "$(ki "$rcu_1")" "$(ki "$rcu_2")" \
					"$(ki "$outside_1")" "$(ki "$outside_2")"
				for run in 1 2; do
					fv=free_$run ov=outside_$run
					printf 'bench: hugetlb_free_%s_hvo%s_n%s_%s_kinsns_run%s = %s k insns\n' \
						$impl $hvo $n $gp $run "$(ki "${!fv}")"
					printf 'bench: hugetlb_free_outside_rcu_wait_%s_hvo%s_n%s_%s_kinsns_run%s = %s k insns\n' \
						$impl $hvo $n $gp $run "$(ki "${!ov}")"
				done
			done
		done
	done
done
# Headlines: polled (the default); Rust / C outside the grace period wait.
for run in 1 2; do
	for hvo in 1 0; do
		printf 'bench: hugetlb_free_rust_over_c_insns_hvo%s_n%s_run%s = %s\n' $hvo $hmid $run \
			"$(ratio "$(hstat icount$run rust $hvo $hmid outside_ns polled)" "$(hstat icount$run c $hvo $hmid outside_ns polled)")"
	done
	for gp in polled sync; do
		printf 'bench: hugetlb_free_hvo_on_over_off_insns_%s_n%s_run%s = %s\n' $gp $hmid $run \
			"$(ratio "$(hstat icount$run rust 1 $hmid free_ns $gp)" "$(hstat icount$run rust 0 $hmid free_ns $gp)")"
	done
done
for hvo in 1 0; do
	printf 'bench: hugetlb_free_rust_over_c_insns_hvo%s_n%s = %s\n' $hvo $hmid \
		"$(ratio "$(hstat icount1 rust $hvo $hmid outside_ns polled)" "$(hstat icount1 c $hvo $hmid outside_ns polled)")"
done
for gp in polled sync; do
	printf 'bench: hugetlb_free_hvo_on_over_off_insns_%s_n%s = %s\n' $gp $hmid \
		"$(ratio "$(hstat icount1 rust 1 $hmid free_ns $gp)" "$(hstat icount1 rust 0 $hmid free_ns $gp)")"
done
printf 'bench: hugetlb_free_hvo_on_over_off_insns_outside_rcu_wait_n%s = %s\n' $hmid \
	"$(ratio "$(hstat icount1 rust 1 $hmid outside_ns sync)" "$(hstat icount1 rust 0 $hmid outside_ns sync)")"
for impl in rust c; do
	printf 'bench: hugetlb_free_%s_hvo0_n%s_insns_run1_run2_diff_pct = %s %%\n' $impl $hmid \
		"$(agree "$(hstat icount1 $impl 0 $hmid free_ns polled)" "$(hstat icount2 $impl 0 $hmid free_ns polled)")"
	printf 'bench: hugetlb_free_outside_rcu_wait_%s_hvo1_n%s_insns_run1_run2_diff_pct = %s %%\n' $impl $hmid \
		"$(agree "$(hstat icount1 $impl 1 $hmid outside_ns polled)" "$(hstat icount2 $impl 1 $hmid outside_ns polled)")"
done

# Where the HVO free goes (breakdown on, each exact boot); "other": the free
# outside the timed parts.
# bd <run> <impl> <field>: that field of the breakdown line.
bd() {
	grep -h "hugetlb_breakdown: impl=$2 " "$LOGS/bench-hugetlb-icount$1-1.log" 2>/dev/null |
		awk -v f="$3" '{
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			if (f == "other_ns") print v["free_ns"] - v["rcu_ns"] - v["alloc_ns"] - v["remap_ns"] - v["flush_ns"]
			else if (f in v) print v[f]
		}' | head -1 || true
}
printf '  breakdown of the HVO free of %s pages, polled, breakdown on (k instructions; run 1 | run 2):\n' $hmid
printf '  %-5s %-6s %21s\n' impl part "run 1 | run 2"
for impl in rust c; do
	for part in free rcu alloc remap fill flush other; do
		v1=$(bd 1 $impl ${part}_ns) v2=$(bd 2 $impl ${part}_ns)
		[ -n "$v1" ] || continue
		printf '  %-5s %-6s %10s %10s\n' $impl $part "$(ki "$v1")" "$(ki "$v2")"
		for run in 1 2; do
			v=v$run
			printf 'bench: hugetlb_free_breakdown_%s_n%s_%s_kinsns_run%s = %s k insns\n' \
				$impl $hmid $part $run "$(ki "${!v}")"
		done
	done
done

# The restore's grace period, sync (6.12) against polled, wall clock.
say "hugetlb bulk free, restore grace period sync vs polled (wall clock): Rust, $hmid pages"
MMRUST_MEM=$hmem "$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-gp-1.log" \
	mmrust.bench=hugetlb mmrust.bench_n=$hmid mmrust.bench_gp=polled,sync \
	mmrust.bench_reps=$hreps kunit.enable=0 || true
for gp in polled sync; do
	for hvo in 1 0; do
		printf 'bench: hugetlb_free_rust_hvo%s_n%s_%s_us = %s us\n' $hvo $hmid $gp \
			"$(us "$(hstat gp rust $hvo $hmid free_ns $gp)")"
		printf 'bench: hugetlb_free_rcu_wait_rust_hvo%s_n%s_%s_us = %s us\n' $hvo $hmid $gp \
			"$(us "$(hstat gp rust $hvo $hmid rcu_ns $gp)")"
	done
	printf 'bench: hugetlb_free_hvo_on_over_off_%s = %s\n' $gp \
		"$(ratio "$(hstat gp rust 1 $hmid free_ns $gp)" "$(hstat gp rust 0 $hmid free_ns $gp)")"
done

# How much of the HVO cost is the restore's RCU grace period: expedited.
say "hugetlb bulk free with rcupdate.rcu_expedited=1: Rust, $hmid pages"
"$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-expedited-1.log" \
	mmrust.bench=hugetlb mmrust.bench_n=$hmid mmrust.bench_reps=$hreps \
	rcupdate.rcu_expedited=1 kunit.enable=0 || true
for hvo in 1 0; do
	printf 'bench: hugetlb_free_rust_hvo%s_n%s_rcu_expedited_us = %s us\n' $hvo $hmid \
		"$(us "$(hstat expedited rust $hvo $hmid free_ns)")"
done
printf 'bench: hugetlb_free_hvo_on_over_off_rcu_expedited = %s\n' \
	"$(ratio "$(hstat expedited rust 1 $hmid free_ns)" "$(hstat expedited rust 0 $hmid free_ns)")"

# Against the vCPU count (the seed's flush cost grew with CPUs): Rust, HVO on.
say "hugetlb bulk free against vCPUs: Rust, HVO on, $hmid pages"
for smp in ${MMRUST_BENCH_SMP:-1 2 4}; do
	MMRUST_SMP=$smp "$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-smp$smp-1.log" \
		mmrust.bench=hugetlb mmrust.bench_n=$hmid mmrust.bench_reps=$hreps kunit.enable=0 || true
	progress "hugetlb boot with $smp vCPUs done"
	v=$(hstat smp$smp rust 1 $hmid free_ns)
	[ -n "$v" ] || { say "  no result for $smp vCPUs"; continue; }
	printf 'bench: hugetlb_free_rust_hvo1_n%s_smp%s_us = %s us\n' $hmid "$smp" "$(us "$v")"
	printf 'bench: hugetlb_free_rcu_wait_rust_hvo1_n%s_smp%s_us = %s us\n' $hmid "$smp" \
		"$(us "$(hstat smp$smp rust 1 $hmid rcu_ns)")"
done

[ "$only" != all ] || [ "$MMRUST_ARCH" != x86_64 ] || [ "${MMRUST_BENCH_LTO:-$((1 - quick))}" = 0 ] || bench_lto
