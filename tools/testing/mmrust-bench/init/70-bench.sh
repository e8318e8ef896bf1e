# SPDX-License-Identifier: GPL-2.0
# The guest's side of 'make bench' (bench.sh), sourced by the initramfs'
# /init with tools/testing/mmrust/init/*.sh, in name order (70: after the
# variables and helpers of 10 to 60 that it uses); mmrust.mode=bench mmrust.bench=<name> runs bench_<name>.  Each
# prints the lines that bench.sh and report.py read.

# SLUB (10-slub-partial.sh's SP).
# The seed's slab workload: hackbench (x86_64 guests) over pipes (the test
# kernel has no CONFIG_NET), process and thread mode, per group count of
# mmrust.bench_groups=, mmrust.bench_loops= loops, mmrust.bench_reps=
# times, Rust and C alternating; after each run /proc/meminfo's Slab and
# the sum of every cache's slabs_cpu_partial:
#   hackbench_bench: impl=<rust|c> mode=<process|thread> groups=<g>
#     time_ms=<ms> slab_kib=<kB> cpu_partial_slabs=<n>
cpu_partial_slabs() {
	local d n total=0
	for d in /sys/kernel/slab/*; do
		[ ! -L "$d" ] || continue	# a merged cache: counted once
		n=$(sed 's/(.*//' "$d/slabs_cpu_partial" 2>/dev/null) || continue
		total=$((total + ${n:-0}))
	done
	echo $total
}
bench_hackbench() {
	local groups loops reps rep g mode impl order t was
	command -v hackbench > /dev/null || { echo "hackbench_bench: no hackbench in this guest"; return; }
	groups=$(sed -n 's/.*mmrust\.bench_groups=\([0-9,]*\).*/\1/p' /proc/cmdline | tr , ' ')
	loops=$(sed -n 's/.*mmrust\.bench_loops=\([0-9]*\).*/\1/p' /proc/cmdline)
	reps=$(sed -n 's/.*mmrust\.bench_reps=\([0-9]*\).*/\1/p' /proc/cmdline)
	# A kernel without the series (make bench MMRUST_BENCH_ONLY=production's
	# base) has no switch: its one implementation is "base".
	was=$(cat $SP/rust 2> /dev/null) || was=""
	for rep in $(seq 1 "${reps:-3}"); do
		order="rust c"; [ $((rep % 2)) = 1 ] || order="c rust"
		[ -n "$was" ] || order=base
		for g in ${groups:-1 2 4}; do
			for mode in process thread; do
				for impl in $order; do
					[ "$impl" = base ] ||
						echo $( [ "$impl" = rust ] && echo 1 || echo 0) > $SP/rust
					t=$(hackbench -p -s 100 -g "$g" -l "${loops:-100}" $( [ $mode = thread ] && echo -T) 2>&1 |
						sed -n 's/^Time: *\([0-9.]*\).*/\1/p')
					echo "hackbench_bench: impl=$impl mode=$mode groups=$g" \
						"time_ms=$(echo "${t:-0}" | awk '{printf "%d", $1 * 1000}')" \
						"slab_kib=$(meminfo Slab) cpu_partial_slabs=$(cpu_partial_slabs)"
				done
			done
		done
	done
	[ -z "$was" ] || echo "$was" > $SP/rust
}

# hugetlb bulk free (20-hugetlb.sh's HP, DBG, GP, HVO, stat_of).
# bench_hugetlb (mmrust.bench=hugetlb): per N of mmrust.bench_n=, HVO on
# and off, implementation of mmrust.bench_impls= (default: the booted one;
# order alternating per repetition) and setting of mmrust.bench_gp=,
# mmrust.bench_reps= times (3), one line
#   hugetlb_bench: impl=<rust|c> hvo=<0|1> n=<pages> grow_ns=<ns>
#     shrink_ns=<ns> free_ns=<ns> rcu_ns=<ns> lock_cycles=<n>
#     tlb_flushes=<n> rcu_waits=<n> gp=<polled|sync|->
# grow_ns, shrink_ns: the write(2) to nr_hugepages (timed_write); the rest
# from debugfs (hugetlb-bulk-free.rst).  The pool sits 0.1 s between grow
# and shrink (a pool is filled before it is used).
# mmrust.bench_breakdown=<N>: one free of N pages per implementation, its
# restores' parts timed, as a "hugetlb_breakdown:" line.
# bench_hugetlb_one [breakdown]: one grow, pause, shrink, with the
# caller's impl, gp, hvo and n.
bench_hugetlb_one() {
	local l t w g s tag=hugetlb_bench parts=""
	echo $( [ "$impl" = rust ] && echo 1 || echo 0) > $DBG/rust
	[ "$gp" = - ] || echo $( [ "$gp" = polled ] && echo 1 || echo 0) > $GP/polled
	echo $hvo > $HVO
	g=$(timed_write $HP/nr_hugepages "$n")
	[ "$(cat $HP/nr_hugepages)" = "$n" ] || {
		echo "hugetlb_bench: no room for $n"; empty_pool; return; }
	sleep 0.1
	l=$(stat_of lock_cycles) t=$(stat_of tlb_flushes) w=$(stat_of rcu_waits)
	[ "${1:-}" != breakdown ] || { tag=hugetlb_breakdown; echo 1 > $DBG/breakdown; }
	s=$(timed_write $HP/nr_hugepages 0)
	if [ $tag = hugetlb_breakdown ]; then
		echo 0 > $DBG/breakdown
		parts=" alloc_ns=$(stat_of last_alloc_ns) remap_ns=$(stat_of last_remap_ns)"
		parts="$parts fill_ns=$(stat_of last_fill_ns) flush_ns=$(stat_of last_flush_ns)"
	fi
	echo "$tag: impl=$impl hvo=$hvo n=$n grow_ns=$g shrink_ns=$s" \
		"free_ns=$(stat_of last_ns) rcu_ns=$(stat_of last_rcu_ns)" \
		"lock_cycles=$(( $(stat_of lock_cycles) - l ))" \
		"tlb_flushes=$(( $(stat_of tlb_flushes) - t ))" \
		"rcu_waits=$(( $(stat_of rcu_waits) - w )) gp=$gp$parts"
}

bench_hugetlb() {
	local hvo n rep sizes reps impls impl order gps gp
	sizes=$(sed -n 's/.*mmrust\.bench_n=\([0-9,]*\).*/\1/p' /proc/cmdline | tr , ' ')
	reps=$(sed -n 's/.*mmrust\.bench_reps=\([0-9]*\).*/\1/p' /proc/cmdline)
	impls=$(sed -n 's/.*mmrust\.bench_impls=\([a-z,]*\).*/\1/p' /proc/cmdline | tr , ' ')
	[ -n "$impls" ] || impls=$( [ "$(stat_of rust)" = 1 ] && echo rust || echo c)
	gps=$(sed -n 's/.*mmrust\.bench_gp=\([a-z,]*\).*/\1/p' /proc/cmdline | tr , ' ')
	[ -n "$gps" ] || gps=-
	for rep in $(seq 1 "${reps:-3}"); do
		order=$impls
		[ $((rep % 2)) = 1 ] || order=$(echo "$impls" | awk '{for (i = NF; i > 0; i--) printf "%s ", $i}')
		for hvo in 1 0; do
			for n in ${sizes:-64 512 1024}; do
				for impl in $order; do
					for gp in $gps; do
						bench_hugetlb_one
					done
				done
			done
		done
	done
	n=$(sed -n 's/.*mmrust\.bench_breakdown=\([0-9]*\).*/\1/p' /proc/cmdline)
	[ -n "$n" ] || return 0
	hvo=1 gp=-
	[ ! -e $GP/polled ] || gp=polled
	for impl in $impls; do
		bench_hugetlb_one breakdown
	done
}

# Batched clearing and the huge zero page (40-clear-pages.sh's CP, HP, HP1G).
# bench_clear_pages (mmrust.bench=clear_pages): demand-fault bandwidth of
# huge pages under this boot's preemption model, the batched and the
# per-page clearing alternating round by round (mmrust.bench_rounds,
# default 3; mmrust.bench_loops loops each, default 5); then the zero
# page's memcmp benchmark and demo RSS, use_zero_page 1 and 0 alternating.
bench_clear_pages() {
	local rounds=$(cmdline_param mmrust.bench_rounds 3) loops=$(cmdline_param mmrust.bench_loops 5)
	local model=$(preempt_model) r impl order spec out
	# mmrust.bench_quick=1 (make bench QUICK=1): 64 pages of 2 MiB, no
	# 1 GiB page, a 20 MiB memcmp twice; every step still runs.
	local specs="hugetlb-2m:512 thp:512 hugetlb-1g:1024" memcmp="100 10"
	[ "$(cmdline_param mmrust.bench_quick 0)" = 0 ] || specs="hugetlb-2m:64 thp:64" memcmp="20 2"
	set_pool $HP 256 > /dev/null || echo "clear_bench: no room for 256 pages of 2 MiB"
	for r in $(seq "$rounds"); do
		order="batched per_page"; [ $((r % 2)) = 0 ] && order="per_page batched"
		for impl in $order; do
			case $impl in batched) echo 1 ;; *) echo 0 ;; esac > $CP/batched
			for spec in $specs; do
				set -- ${spec%:*} ${spec#*:}
				if [ $1 = hugetlb-1g ] && ! set_pool $HP1G 1 > /dev/null; then
					echo "clear_bench: no room for a 1 GiB page"; continue
				fi
				out=$(demand_fault "$1" "$2" "$loops" | tail -1)
				echo "clear_bench: preempt=$model impl=$impl kind=$1 round=$r" \
					"$(echo "$out" | sed -n 's/.*: \([0-9.]*\) GB\/sec +- \([0-9.]*\)%$/gbs=\1 sd=\2/p')"
				[ $1 != hugetlb-1g ] || set_pool $HP1G 0 > /dev/null
			done
		done
	done
	set_pool $HP 0 > /dev/null
	echo 1 > $CP/batched
	for r in $(seq "$rounds"); do
		order="1 0"; [ $((r % 2)) = 0 ] && order="0 1"
		for z in $order; do
			thp always $z
			out=$(zero_memcmp $memcmp)
			echo "zero_bench: use_zero_page=$z round=$r" \
				"$(echo "$out" | sed -n 's/.*first \([0-9.]*\) ms, rest \([0-9.]*\) ms, RSS \([0-9]*\) KiB$/first_ms=\1 rest_ms=\2 rss_kib=\3/p')"
			out=$(huge_zero_page | sed -n 's/.*RSS before [0-9]* KiB, after \([0-9]*\) KiB$/\1/p')
			echo "zero_bench: use_zero_page=$z round=$r demo_rss_kib=$out"
		done
	done
	thp_defaults
}

# arm64 contpte.
# bench_contpte (mmrust.bench=contpte): the seed's fork and munmap
# microbenchmarks (contpte.rst, "Benchmark"); mmrust.bench_mib= (128),
# mmrust.bench_rounds= (5).  Without contpte: "contpte=out".
bench_contpte() {
	local mib=$(cmdline_param mmrust.bench_mib 128) rounds=$(cmdline_param mmrust.bench_rounds 5)
	local kind
	for kind in order0 64k order9; do
		contpte_fork bench $kind "$mib" "$rounds" || echo "contpte_bench: kind=$kind failed"
	done
	thp_defaults
}
