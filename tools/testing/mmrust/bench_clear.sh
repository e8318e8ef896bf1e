#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Benchmarks of the batched clearing of huge folios (seed 000) and of the
# THP huge zero page (seed 001), called by bench.sh:
# - in the guest (one image, one boot per preemption model, batched and
#   per-page alternating inside each boot): demand-fault bandwidth of
#   hugetlb 2 MiB, hugetlb 1 GiB and THP 2 MiB pages (demand_fault.c);
#   the seed 001 memcmp benchmark and demo RSS, use_zero_page 1 and 0;
# - on the host CPU: the three clear_pages() sequences and memset() over
#   extents from 4 KiB to 1 GiB (host_clear.c), which is where cache
#   effects can show at all (QEMU TCG models no caches).
# Every figure is also a line "bench: <name> = <value> [unit]".
. "$(dirname "$0")/lib.sh"

rounds=${MMRUST_BENCH_CLEAR_ROUNDS:-3}   # rounds per boot (batched + per-page each)
loops=${MMRUST_BENCH_CLEAR_LOOPS:-5}     # demand_fault loops per figure
mkdir -p "$LOGS"
median() { sort -g | awk '{v[NR]=$1} END {if (NR%2) print v[(NR+1)/2]; else printf "%.4f\n", (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }

say "clearing huge pages: demand-fault GB/s, batched and per-page alternating;" \
	"one boot per preemption model ($rounds rounds of $loops loops; x86_64 QEMU TCG, 2 vCPUs)"
for model in voluntary full; do
	log=$LOGS/bench-clear-$model.log
	start=$(date +%s)
	MMRUST_BOOT_TIMEOUT=${MMRUST_BENCH_CLEAR_TIMEOUT:-1800} "$TOP/tools/testing/mmrust/boot.sh" bench "$log" \
		mmrust.bench=clear_pages preempt=$model hugetlb_cma=1G \
		mmrust.bench_rounds=$rounds mmrust.bench_loops=$loops kunit.enable=0 || true
	say "  preempt=$model: $(( $(date +%s) - start ))s (console: $log)"
	grep -q '^clear_bench: .*gbs=' "$log" || say "  no results in $log"
	grep -h 'no room' "$log" | sort -u | sed 's/^/  /' || true
done

# cstat <model> <impl> <kind>: median GB/s over the rounds.
cstat() {
	grep -h "^clear_bench: preempt=$1 impl=$2 kind=$3 " "$LOGS"/bench-clear-*.log 2>/dev/null |
		grep -o 'gbs=[0-9.]*' | cut -d= -f2 | median
}
printf '  %-10s %-11s %12s %12s %8s\n' preempt page batched per_page ratio
lines=()
for model in voluntary full; do
	for kind in hugetlb-2m hugetlb-1g thp; do
		b=$(cstat $model batched $kind) p=$(cstat $model per_page $kind)
		[ -n "$b" ] && [ -n "$p" ] || continue
		r=$(ratio "$b" "$p")
		printf '  %-10s %-11s %9s GB/s %9s GB/s %8s\n' $model $kind "$b" "$p" "$r"
		k=${kind#hugetlb-}
		[ "$kind" != thp ] || k=thp_2m
		lines+=("bench: clear_pages_batched_${k}_${model}_gbs = $b GB/s"
			"bench: clear_pages_per_page_${k}_${model}_gbs = $p GB/s"
			"bench: clear_pages_batched_over_per_page_${k}_${model} = $r")
		eval "ratio_${k}_$model=$r"
	done
done
printf '%s\n' "${lines[@]}"
# Headlines: preempt=voluntary, where a huge fault is cleared in chunks.
printf 'bench: clear_pages_batched_over_per_page_1g = %s\n' "${ratio_1g_voluntary:-n/a}"
printf 'bench: clear_pages_batched_over_per_page_2m = %s\n' "${ratio_2m_voluntary:-n/a}"

# zstat <use_zero_page> <field>: median over the rounds of both boots.
zstat() {
	grep -h "^zero_bench: use_zero_page=$1 " "$LOGS"/bench-clear-*.log 2>/dev/null |
		grep -o " $2=[0-9.]*" | cut -d= -f2 | median
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
if [ ! "$hc" -nt "$TOP/tools/testing/mmrust/host_clear.c" ]; then
	clang-19 -O2 -Wall -Werror -o "$hc" "$TOP/tools/testing/mmrust/host_clear.c"
fi
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
flags=$(grep -m1 '^flags' /proc/cpuinfo)
seq=unrolled
case " $flags " in *" rep_good "*) seq=stosq ;; esac
case " $flags " in *" erms "*) seq=stosb ;; esac
say "host CPU: $cpu; clear_pages() there would be the $seq variant;" \
	"1 GiB buffer, best of 5 passes per extent (another load on the host moves these)"
"$hc" 1024 5 | tee "$LOGS/bench-host-clear.log" | sed 's/^/  /'
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
