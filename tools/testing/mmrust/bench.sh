#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks, measured side by side in boots of one image.  Every figure is
# also printed as one line "bench: <name> = <value> [unit]".
. "$(dirname "$0")/lib.sh"

rounds=${MMRUST_BENCH_ROUNDS:-7}       # boots per implementation
inner=${MMRUST_BENCH_INNER:-31}        # benchmark rounds inside one boot
only=${MMRUST_BENCH_ONLY:-all}         # all, contpte (arm64), clear, slub or hugetlb
mkdir -p "$LOGS"

if [ "$MMRUST_ARCH" = arm64 ] && { [ "$only" = all ] || [ "$only" = contpte ]; }; then
	"$TOP/tools/testing/mmrust/bench_contpte.sh"
	[ "$only" = all ] || exit 0
fi
[ "$only" != contpte ] || die "contpte is arm64's: make bench ARCH=arm64 MMRUST_BENCH_ONLY=contpte"

if [ "$only" = all ] || [ "$only" = clear ]; then
	"$TOP/tools/testing/mmrust/bench_clear.sh"
	[ "$only" = all ] || exit 0
fi


if [ "$only" != hugetlb ]; then
	say "SLUB per-cpu partial push: $rounds rounds, Rust and C alternating, $inner runs per boot ($MMRUST_ARCH QEMU TCG, 2 vCPUs)"
	ratios=() rust_all=() c_all=()
	for r in $(seq 1 "$rounds"); do
		order="rust c"; [ $((r % 2)) = 0 ] && order="c rust"
		for impl in $order; do
			log=$LOGS/bench-slub-$impl-$r.log
			v=
			for try in 1 2 3; do
				"$TOP/tools/testing/mmrust/boot.sh" bench "$log" \
					slub_partial_impl=$impl slub_partial_bench=$inner kunit.enable=0 || true
				v=$(sed -n "s/.*slub_partial_bench: impl=$impl median ns_per_op=\([0-9.]*\).*/\1/p" "$log")
				[ -z "$v" ] || break
				say "  no result in $log (try $try of 3): $(grep 'slub_partial_bench' "$log" | tail -1)"
			done
			[ -n "$v" ] || die "no benchmark result in $log"
			eval "ns_$impl=$v"
		done
		ratio=$(awk -v a="$ns_rust" -v b="$ns_c" 'BEGIN {printf "%.4f", a / b}')
		ratios+=("$ratio"); rust_all+=("$ns_rust"); c_all+=("$ns_c")
		printf '  round %d: rust %8s ns/op   c %8s ns/op   rust/c %s\n' "$r" "$ns_rust" "$ns_c" "$ratio"
	done
	printf 'bench: slub_partial_rust_ns_per_op = %s ns\n' "$(printf '%s\n' "${rust_all[@]}" | median)"
	printf 'bench: slub_partial_c_ns_per_op = %s ns\n' "$(printf '%s\n' "${c_all[@]}" | median)"
	printf 'bench: slub_partial_rust_over_c = %s\n' "$(printf '%s\n' "${ratios[@]}" | median)"
fi
[ "$only" != slub ] || exit 0

# hugetlb bulk free, in boots of one image with a guest big enough for
# 4096 pages of 2 MiB: grow to N and shrink to 0, HVO on and off, Rust and
# C; the wall time of both sysfs writes, the bulk free's own time (debugfs
# last_ns) and its lock-cycle and TLB-flush counts.
hmem=${MMRUST_BENCH_HUGETLB_MEM:-10G}
hsizes=${MMRUST_BENCH_HUGETLB_N:-64,512,1024,2048,4096}
hboots=${MMRUST_BENCH_HUGETLB_BOOTS:-3}   # boots
hreps=${MMRUST_BENCH_HUGETLB_REPS:-5}     # repetitions inside one boot
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
done
# hstat <logs> <impl> <hvo> <n> <field>: median of the field over every
# repetition in the logs bench-hugetlb-<logs>-*.log.
hstat() {
	cat "$LOGS"/bench-hugetlb-"$1"-*.log 2>/dev/null |
		grep "hugetlb_bench: impl=$2 hvo=$3 n=$4 " |
		grep -o " $5=[0-9]*" | cut -d= -f2 | median
}
us() { awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }
lines=()
printf '  %-5s %-4s %6s %12s %12s %12s %12s %12s\n' \
	impl hvo N grow_us shrink_us free_us lock_cycles tlb_flushes
for impl in rust c; do
	for hvo in 1 0; do
		for n in ${hsizes//,/ }; do
			f=$(hstat both $impl $hvo $n free_ns)
			[ -n "$f" ] || continue
			g=$(hstat both $impl $hvo $n grow_ns)
			sh=$(hstat both $impl $hvo $n shrink_ns)
			printf '  %-5s %-4s %6s %12s %12s %12s %12s %12s\n' $impl $hvo $n \
				"$(us "$g")" "$(us "$sh")" "$(us "$f")" \
				"$(hstat both $impl $hvo $n lock_cycles)" \
				"$(hstat both $impl $hvo $n tlb_flushes)"
			lines+=("bench: hugetlb_grow_${impl}_hvo${hvo}_n${n}_us = $(us "$g") us"
				"bench: hugetlb_shrink_${impl}_hvo${hvo}_n${n}_us = $(us "$sh") us"
				"bench: hugetlb_free_${impl}_hvo${hvo}_n${n}_us = $(us "$f") us")
		done
	done
done
printf '%s\n' "${lines[@]}"
printf 'bench: hugetlb_free_lock_cycles = %s\n' "$(hstat both rust 1 512 lock_cycles)"
printf 'bench: hugetlb_free_tlb_flushes = %s\n' "$(hstat both rust 1 512 tlb_flushes)"
printf 'bench: hugetlb_free_hvo_on_over_off = %s\n' \
	"$(ratio "$(hstat both rust 1 512 free_ns)" "$(hstat both rust 0 512 free_ns)")"
printf 'bench: hugetlb_free_rust_over_c = %s\n' \
	"$(ratio "$(hstat both rust 1 512 free_ns)" "$(hstat both c 1 512 free_ns)")"
nmax=${hsizes##*,}
printf 'bench: hugetlb_free_hvo_on_over_off_n%s = %s\n' "$nmax" \
	"$(ratio "$(hstat both rust 1 "$nmax" free_ns)" "$(hstat both rust 0 "$nmax" free_ns)")"
printf 'bench: hugetlb_shrink_hvo_on_over_off_n%s = %s\n' "$nmax" \
	"$(ratio "$(hstat both rust 1 "$nmax" shrink_ns)" "$(hstat both rust 0 "$nmax" shrink_ns)")"
printf 'bench: hugetlb_free_rust_over_c_n%s = %s\n' "$nmax" \
	"$(ratio "$(hstat both rust 1 "$nmax" free_ns)" "$(hstat both c 1 "$nmax" free_ns)")"
# With HVO on, the guest's free times come in whole timer ticks (the RCU
# grace period the restore waits for); without HVO they do not, and the
# Rust / C comparison is finer there.
for n in 512 "$nmax"; do
	printf 'bench: hugetlb_free_rust_over_c_hvo_off_n%s = %s\n' "$n" \
		"$(ratio "$(hstat both rust 0 "$n" free_ns)" "$(hstat both c 0 "$n" free_ns)")"
done

# How much of the HVO cost is the RCU grace period the vmemmap restore
# waits for: the same, Rust, 512 pages, with expedited grace periods.
say "hugetlb bulk free with rcupdate.rcu_expedited=1: Rust, 512 pages"
"$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-expedited-1.log" \
	mmrust.bench=hugetlb mmrust.bench_n=512 mmrust.bench_reps=$hreps \
	rcupdate.rcu_expedited=1 kunit.enable=0 || true
for hvo in 1 0; do
	printf 'bench: hugetlb_free_rust_hvo%s_n512_rcu_expedited_us = %s us\n' $hvo \
		"$(us "$(hstat expedited rust $hvo 512 free_ns)")"
done
printf 'bench: hugetlb_free_hvo_on_over_off_rcu_expedited = %s\n' \
	"$(ratio "$(hstat expedited rust 1 512 free_ns)" "$(hstat expedited rust 0 512 free_ns)")"

# Scaling with the guest's vCPU count (the seed's flush cost grew with CPUs):
# Rust, HVO on, 512 pages.
say "hugetlb bulk free against vCPUs: Rust, HVO on, 512 pages"
for smp in 1 2 4; do
	MMRUST_SMP=$smp "$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-smp$smp-1.log" \
		mmrust.bench=hugetlb mmrust.bench_n=512 mmrust.bench_reps=$hreps kunit.enable=0 || true
	v=$(hstat smp$smp rust 1 512 free_ns)
	[ -n "$v" ] || { say "  no result for $smp vCPUs"; continue; }
	printf 'bench: hugetlb_free_rust_hvo1_n512_smp%s_us = %s us\n' "$smp" "$(us "$v")"
done
