#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks of the batched clearing (seed 000) and the THP huge zero page
# (seed 001), called by bench.sh (Documentation/mm/mmrust/clear-pages.rst).
. "$(dirname "$0")/../mmrust/lib.sh"

rounds=${MMRUST_BENCH_CLEAR_ROUNDS:-3}   # rounds per boot (batched + per-page each)
loops=${MMRUST_BENCH_CLEAR_LOOPS:-5}     # demand_fault loops per figure
mkdir -p "$LOGS"

# Wall clock, then exact (-icount: one round repeats, so one is enough).
icount_rounds=${MMRUST_BENCH_CLEAR_ICOUNT_ROUNDS:-1}
for clock in wall icount; do
	qargs="" r=$rounds
	[ $clock = wall ] || qargs="-icount shift=0,sleep=off" r=$icount_rounds
	say "clearing huge pages ($clock clock): demand-fault GB/s, batched and per-page alternating;" \
		"one boot per preemption model ($r rounds of $loops loops; $MMRUST_ARCH QEMU TCG, 2 vCPUs)"
	for model in voluntary full; do
		log=$LOGS/bench-clear-$clock-$model.log
		start=$(date +%s)
		MMRUST_QEMU_ARGS=$qargs MMRUST_BOOT_TIMEOUT=${MMRUST_BENCH_CLEAR_TIMEOUT:-2400} \
			"$TOP/tools/testing/mmrust/boot.sh" bench "$log" \
			mmrust.bench=clear_pages preempt=$model hugetlb_cma=1G \
			mmrust.bench_rounds=$r mmrust.bench_loops=$loops \
			mmrust.bench_quick=${QUICK:-0} kunit.enable=0 || true
		say "  preempt=$model: $(( $(date +%s) - start ))s (console: $log)"
		grep -q '^clear_bench: .*gbs=' "$log" || say "  no results in $log"
		grep -h 'no room' "$log" | sort -u | sed 's/^/  /' || true
	done
done

# cstat <clock> <model> <impl> <kind>: median GB/s over the rounds.
cstat() {
	grep -h "^clear_bench: preempt=$2 impl=$3 kind=$4 " "$LOGS"/bench-clear-"$1"-*.log 2>/dev/null |
		grep -o 'gbs=[0-9.]*' | cut -d= -f2 | median || true
}
lines=()
for clock in wall icount; do
	unit="GB/s"
	[ $clock = wall ] || unit="GB/Gi"	# bytes per guest instruction
	echo "  $clock clock (${unit}):"
	printf '  %-10s %-11s %10s %10s %8s\n' preempt page batched per_page ratio
	for model in voluntary full; do
		for kind in hugetlb-2m hugetlb-1g thp; do
			b=$(cstat $clock $model batched $kind) p=$(cstat $clock $model per_page $kind)
			[ -n "$b" ] && [ -n "$p" ] || continue
			r=$(ratio "$b" "$p")
			printf '  %-10s %-11s %10s %10s %8s\n' $model $kind "$b" "$p" "$r"
			k=${kind#hugetlb-}
			[ "$kind" != thp ] || k=thp_2m
			sfx=""; [ $clock = wall ] || sfx=_icount
			lines+=("bench: clear_pages_batched_${k}_${model}${sfx} = $b $unit"
				"bench: clear_pages_per_page_${k}_${model}${sfx} = $p $unit"
				"bench: clear_pages_batched_over_per_page_${k}_${model}${sfx} = $r")
			eval "ratio_${k}_${model}_$clock=$r"
		done
	done
done
printf '%s\n' "${lines[@]}"
# Headlines: preempt=voluntary (a huge fault cleared in chunks), icount.
printf 'bench: clear_pages_batched_over_per_page_1g = %s\n' "${ratio_1g_voluntary_icount:-n/a}"
printf 'bench: clear_pages_batched_over_per_page_2m = %s\n' "${ratio_2m_voluntary_icount:-n/a}"

# zstat <use_zero_page> <field>: median over the rounds of both boots.
zstat() {
	grep -h "^zero_bench: use_zero_page=$1 " "$LOGS"/bench-clear-wall-*.log 2>/dev/null |
		grep -o " $2=[0-9.]*" | cut -d= -f2 | median || true
}
say "THP huge zero page: 2 x 100 MiB memcmp x 10 (seed 001, scaled) and the demo's RSS"
printf '  %-14s %12s %12s %12s %14s\n' use_zero_page first_ms rest_ms rss_kib demo_rss_kib
for z in 1 0; do
	printf '  %-14s %12s %12s %12s %14s\n' $z "$(zstat $z first_ms)" "$(zstat $z rest_ms)" \
		"$(zstat $z rss_kib)" "$(zstat $z demo_rss_kib)"
	printf 'bench: thp_zero_page_memcmp_first_ms_zp%s = %s ms\n' $z "$(zstat $z first_ms)"
	printf 'bench: thp_zero_page_memcmp_rest_ms_zp%s = %s ms\n' $z "$(zstat $z rest_ms)"
	printf 'bench: thp_zero_page_demo_rss_kib_zp%s = %s KiB\n' $z "$(zstat $z demo_rss_kib)"
done
printf 'bench: thp_zero_page_memcmp_zp1_over_zp0 = %s\n' \
	"$(ratio "$(zstat 1 first_ms)" "$(zstat 0 first_ms)")"
printf 'bench: thp_zero_page_rss_kib = %s KiB\n' "$(zstat 1 demo_rss_kib)"

# The host CPU: what the extent of one clearing call does where caches exist.
hc=$CACHE/host_clear
host_args=${MMRUST_BENCH_CLEAR_HOST:-1024 5}	# buffer MiB, passes
if [ ! "$hc" -nt "$TOP/tools/testing/mmrust-bench/host_clear.c" ]; then
	clang-19 -O2 -Wall -Werror -o "$hc" "$TOP/tools/testing/mmrust-bench/host_clear.c"
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
seq=unrolled
case " $flags " in *" rep_good "*) seq=stosq ;; esac
case " $flags " in *" erms "*) seq=stosb ;; esac
say "host CPU: $cpu; clear_pages() there would be the $seq variant;" \
	"$(echo "$host_args" | awk '{printf "%s MiB buffer, best of %s passes", $1, $2}') per extent" \
	"(another load on the host moves these)"
"$hc" $host_args | tee "$LOGS/bench-host-clear.log" | sed 's/^/  /'
hstat() { sed -n "s/^host_clear: $1 $2 KiB: \([0-9.]*\) GB\/s$/\1/p" "$LOGS/bench-host-clear.log"; }
for s in unrolled stosq stosb memset; do
	for kib in 4 2048 32768 1048576; do
		printf 'bench: host_clear_%s_%sk = %s GB/s\n' $s $kib "$(hstat $s $kib)"
	done
	printf 'bench: host_clear_%s_best_extent_kib = %s KiB\n' $s \
		"$(sed -n "s/^host_clear: $s best extent \([0-9]*\) KiB.*/\1/p" "$LOGS/bench-host-clear.log")"
done
printf 'bench: host_clear_1g_over_4k = %s\n' "$(ratio "$(hstat $seq 1048576)" "$(hstat $seq 4)")"
printf 'bench: host_clear_32m_over_4k = %s\n' "$(ratio "$(hstat $seq 32768)" "$(hstat $seq 4)")"
