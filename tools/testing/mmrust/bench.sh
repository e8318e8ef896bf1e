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
