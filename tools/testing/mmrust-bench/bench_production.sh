#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What a production kernel pays for the series against the plain base,
# exactly: 'make bench MMRUST_BENCH_ONLY=production' (either architecture;
# Documentation/mm/mmrust/benchmarking.rst, "What a production kernel pays").
# The base has no contpte switch: "contpte=out" in its log.
. "$(dirname "$0")/../mmrust/lib.sh"

ICOUNT="-icount shift=0,sleep=off"
quick=${QUICK:-0}
mkdir -p "$LOGS"

for flavor in base production; do
	say "building the $MMRUST_ARCH $flavor image"
	MMRUST_FLAVOR=$flavor "$TOP/tools/testing/mmrust/build.sh" >&2
done

case $MMRUST_ARCH in
x86_64)
	groups=${MMRUST_BENCH_PRODUCTION_GROUPS:-1,2}
	# 1000 loops: runs of hundreds of millions of instructions, which
	# hackbench's millisecond clock resolves to about one in a thousand.
	loops=${MMRUST_BENCH_PRODUCTION_LOOPS:-1000}
	reps=${MMRUST_BENCH_PRODUCTION_REPS:-5}
	[ "$quick" = 0 ] || groups=1 loops=5 reps=1
	args=(mmrust.bench=hackbench mmrust.bench_groups="$groups" mmrust.bench_loops="$loops"
		mmrust.bench_reps="$reps")
	what="hackbench (pipes, $loops loops, groups $groups, $reps repetitions)" ;;
arm64)
	mib=${MMRUST_BENCH_CONTPTE_MIB:-128}
	rounds=${MMRUST_BENCH_CONTPTE_ICOUNT_ROUNDS:-5}
	[ "$quick" = 0 ] || rounds=1
	args=(mmrust.bench=contpte mmrust.bench_mib="$mib" mmrust.bench_rounds="$rounds")
	what="contpte fork and munmap ($mib MiB, order0 / 64k / order9, $rounds rounds)" ;;
*) die "no production benchmark for $MMRUST_ARCH" ;;
esac

# One vCPU: with two, how hackbench's tasks interleave moves its
# instruction count by up to a tenth between repetitions (seen: 989 and
# 858 M); with one, by half a percent.
smp=${MMRUST_BENCH_PRODUCTION_SMP:-1}
for flavor in base production; do
	log=$LOGS/bench-production-$flavor.log start=$(date +%s)
	say "$flavor image, exact (QEMU $ICOUNT, $smp vCPU): $what"
	MMRUST_SMP=$smp MMRUST_FLAVOR=$flavor MMRUST_QEMU_ARGS=$ICOUNT \
		MMRUST_BOOT_TIMEOUT=${MMRUST_BENCH_PRODUCTION_TIMEOUT:-2400} \
		"$TOP/tools/testing/mmrust/boot.sh" bench "$log" kunit.enable=0 "${args[@]}" || true
	say "  $(( $(date +%s) - start ))s (console: $log)"
	grep -Eq '^(hackbench_bench|contpte_bench): ' "$log" || die "no results in $log"
done

# values <flavor> <line prefix and key=value filter> <field>: <field> of
# every matching line of that image's boot, one a line.
values() {
	grep -h "^$2" "$LOGS/bench-production-$1.log" 2>/dev/null | grep -o " $3=[0-9]*" | cut -d= -f2
}
# field <flavor> <filter> <field>: their median; spread <flavor> <filter>
# <field>: (max - min) / median, in percent.
field() { values "$@" | median || true; }
spread() {
	values "$@" | sort -n | awk '{v[NR] = $1} END {if (NR) printf "%.1f",
		100 * (v[NR] - v[1]) / v[int((NR + 1) / 2)]}'
}
mi() { [ -z "$1" ] || awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }

if [ "$MMRUST_ARCH" = x86_64 ]; then
	echo "  hackbench, M insns (time under -icount), median of $reps; production over base;" \
		"spread: (max - min) / median over the repetitions, in percent:"
	printf '  %-7s %6s %10s %10s %10s %8s %8s   %s\n' mode groups base prod_rust prod_c rust c \
		"spread % (base, rust, c)"
	sum_b=0 sum_r=0 sum_c=0
	for mode in process thread; do
		for g in ${groups//,/ }; do
			b=$(field base "hackbench_bench: impl=base mode=$mode groups=$g " time_ms)
			r=$(field production "hackbench_bench: impl=rust mode=$mode groups=$g " time_ms)
			c=$(field production "hackbench_bench: impl=c mode=$mode groups=$g " time_ms)
			[ -n "$b" ] && [ -n "$r" ] && [ -n "$c" ] || die "hackbench $mode g$g: a result is missing"
			printf '  %-7s %6s %10s %10s %10s %8s %8s   %s %s %s\n' $mode "$g" "$b" "$r" "$c" \
				"$(ratio "$r" "$b")" "$(ratio "$c" "$b")" \
				"$(spread base "hackbench_bench: impl=base mode=$mode groups=$g " time_ms)" \
				"$(spread production "hackbench_bench: impl=rust mode=$mode groups=$g " time_ms)" \
				"$(spread production "hackbench_bench: impl=c mode=$mode groups=$g " time_ms)"
			printf 'bench: hackbench_%s_g%s_production_rust_over_base_insns = %s\n' $mode "$g" \
				"$(ratio "$r" "$b")"
			printf 'bench: hackbench_%s_g%s_production_c_over_base_insns = %s\n' $mode "$g" \
				"$(ratio "$c" "$b")"
			sum_b=$(awk -v s="$sum_b" -v v="$b" 'BEGIN {print s + v}')
			sum_r=$(awk -v s="$sum_r" -v v="$r" 'BEGIN {print s + v}')
			sum_c=$(awk -v s="$sum_c" -v v="$c" 'BEGIN {print s + v}')
		done
	done
	# Headlines: every mode and group count together (the sums of the medians).
	printf 'bench: slub_hackbench_production_rust_over_base_insns = %s\n' "$(ratio $sum_r $sum_b)"
	printf 'bench: slub_hackbench_production_c_over_base_insns = %s\n' "$(ratio $sum_c $sum_b)"
else
	echo "  contpte, k insns (time under -icount), median of $rounds rounds; production (on) over base;" \
		"spread of fork: (max - min) / median over the rounds, in percent:"
	printf '  %-7s %10s %10s %8s %10s %10s %8s   %s\n' kind fork_base fork_prod ratio munmap_base \
		munmap_prod ratio "fork spread % (base, prod)"
	for kind in order0 64k order9; do
		fb=$(field base "contpte_bench: kind=$kind contpte=out " fork_ns)
		fp=$(field production "contpte_bench: kind=$kind contpte=on " fork_ns)
		mb=$(field base "contpte_bench: kind=$kind contpte=out " munmap_ns)
		mp=$(field production "contpte_bench: kind=$kind contpte=on " munmap_ns)
		[ -n "$fb" ] && [ -n "$fp" ] || die "contpte $kind: a result is missing"
		printf '  %-7s %10s %10s %8s %10s %10s %8s   %s %s\n' $kind "$(mi "$fb")" "$(mi "$fp")" \
			"$(ratio "$fp" "$fb")" "$(mi "$mb")" "$(mi "$mp")" "$(ratio "$mp" "$mb")" \
			"$(spread base "contpte_bench: kind=$kind contpte=out " fork_ns)" \
			"$(spread production "contpte_bench: kind=$kind contpte=on " fork_ns)"
		printf 'bench: contpte_fork_%s_production_over_base_insns = %s\n' $kind "$(ratio "$fp" "$fb")"
		printf 'bench: contpte_munmap_%s_production_over_base_insns = %s\n' $kind \
			"$(ratio "$mp" "$mb")"
	done
fi
