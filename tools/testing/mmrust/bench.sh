#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks, measured side by side in boots of one image.  Every figure is
# also printed as one line "bench: <name> = <value> [unit]".
. "$(dirname "$0")/lib.sh"

rounds=${MMRUST_BENCH_ROUNDS:-7}       # boots per implementation
inner=${MMRUST_BENCH_INNER:-31}        # benchmark rounds inside one boot
mkdir -p "$LOGS"

median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}'; }

say "SLUB per-cpu partial push: $rounds rounds, Rust and C alternating, $inner runs per boot (x86_64 QEMU TCG, 2 vCPUs)"
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

# hugetlb bulk free: time of the bulk free of "echo 0 > nr_hugepages"
# (debugfs last_ns), HVO on and off, Rust and C, in boots of one image.
say "hugetlb bulk free: shrink of N 2 MiB pages to 0, HVO on/off, Rust and C (3 repetitions per boot)"
for impl in rust c; do
	"$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-$impl.log" \
		hugetlb_bulk_free_impl=$impl mmrust.bench=hugetlb kunit.enable=0 || true
done
# hstat <impl> <hvo> <n> <field>: median of the field over the repetitions.
hstat() {
	grep "hugetlb_bench: hvo=$2 n=$3 " "$LOGS/bench-hugetlb-$1.log" |
		grep -o "$4=[0-9]*" | cut -d= -f2 | median
}
printf '  %-5s %-4s %6s %14s %12s %12s\n' impl hvo N free_us lock_cycles tlb_flushes
for impl in rust c; do
	for hvo in 1 0; do
		for n in 64 512 1024; do
			ns=$(hstat $impl $hvo $n free_ns)
			[ -n "$ns" ] || continue
			printf '  %-5s %-4s %6s %14s %12s %12s\n' $impl $hvo $n \
				"$(awk -v v="$ns" 'BEGIN {printf "%.1f", v / 1000}')" \
				"$(hstat $impl $hvo $n lock_cycles)" "$(hstat $impl $hvo $n tlb_flushes)"
			printf 'bench: hugetlb_free_%s_hvo%s_n%s_us = %s us\n' $impl $hvo $n \
				"$(awk -v v="$ns" 'BEGIN {printf "%.1f", v / 1000}')" >> "$LOGS/bench-hugetlb.lines"
		done
	done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }
[ ! -f "$LOGS/bench-hugetlb.lines" ] || { cat "$LOGS/bench-hugetlb.lines"; rm -f "$LOGS/bench-hugetlb.lines"; }
printf 'bench: hugetlb_free_lock_cycles = %s\n' "$(hstat rust 1 512 lock_cycles)"
printf 'bench: hugetlb_free_tlb_flushes = %s\n' "$(hstat rust 1 512 tlb_flushes)"
printf 'bench: hugetlb_free_hvo_on_over_off = %s\n' \
	"$(ratio "$(hstat rust 1 512 free_ns)" "$(hstat rust 0 512 free_ns)")"
printf 'bench: hugetlb_free_rust_over_c = %s\n' \
	"$(ratio "$(hstat rust 1 512 free_ns)" "$(hstat c 1 512 free_ns)")"

# Scaling with the guest's vCPU count (the seed's flush cost grew with CPUs):
# Rust, HVO on, 512 pages.
say "hugetlb bulk free against vCPUs: Rust, HVO on, 512 pages"
for smp in 1 2 4; do
	MMRUST_SMP=$smp "$TOP/tools/testing/mmrust/boot.sh" bench "$LOGS/bench-hugetlb-smp$smp.log" \
		mmrust.bench=hugetlb kunit.enable=0 || true
	v=$(grep "hugetlb_bench: hvo=1 n=512 " "$LOGS/bench-hugetlb-smp$smp.log" |
		grep -o "free_ns=[0-9]*" | cut -d= -f2 | median)
	[ -n "$v" ] || { say "  no result for $smp vCPUs"; continue; }
	printf 'bench: hugetlb_free_rust_hvo1_n512_smp%s_us = %s us\n' "$smp" \
		"$(awk -v v="$v" 'BEGIN {printf "%.1f", v / 1000}')"
done
