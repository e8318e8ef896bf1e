#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The fork and munmap microbenchmarks of seed 002 (arm64 contpte), called
# by bench.sh for ARCH=arm64 (Documentation/mm/mmrust/contpte.rst, "Benchmark").
. "$(dirname "$0")/../mmrust/lib.sh"

[ "$MMRUST_ARCH" = arm64 ] || die "contpte is arm64's: make bench ARCH=arm64"
mib=${MMRUST_BENCH_CONTPTE_MIB:-128}           # MiB mapped per measurement
rounds=${MMRUST_BENCH_CONTPTE_ROUNDS:-9}       # wall clock: rounds (on + off each)
icount_rounds=${MMRUST_BENCH_CONTPTE_ICOUNT_ROUNDS:-5}
mkdir -p "$LOGS"

for clock in wall icount; do
	qargs="" r=$rounds
	[ $clock = wall ] || qargs="-icount shift=0,sleep=off" r=$icount_rounds
	log=$LOGS/bench-contpte-$clock.log
	say "contpte fork/munmap ($clock clock): $mib MiB, order0 / 64k / order9," \
		"$r rounds of on and off alternating (arm64 QEMU TCG, 2 vCPUs)"
	start=$(date +%s)
	MMRUST_QEMU_ARGS=$qargs MMRUST_BOOT_TIMEOUT=${MMRUST_BENCH_CONTPTE_TIMEOUT:-2400} \
		"$TOP/tools/testing/mmrust/boot.sh" bench "$log" mmrust.bench=contpte \
		mmrust.bench_mib="$mib" mmrust.bench_rounds="$r" kunit.enable=0 || true
	say "  $(( $(date +%s) - start ))s (console: $log)"
	grep -q '^contpte_bench: .*fork_ns=' "$log" || say "  no results in $log"
	grep -h 'failed' "$log" | grep '^contpte' | sed 's/^/  /' || true
done

# cstat <clock> <kind> <on|off> <field>: median over the rounds.
cstat() {
	grep -h "^contpte_bench: kind=$2 contpte=$3 " "$LOGS/bench-contpte-$1.log" 2>/dev/null |
		grep -o " $4=[0-9]*" | cut -d= -f2 | median || true
}
us() { [ -z "$1" ] || awk -v v="$1" 'BEGIN {printf "%.1f", v / 1000}'; }
lines=()
for clock in wall icount; do
	unit=us
	[ $clock = wall ] || unit="k insns"	# guest ns under -icount shift=0
	echo "  $clock clock ($unit; map, fold: contpte events of the set-up, contpte on):"
	printf '  %-7s %10s %10s %8s %10s %10s %8s %6s %6s\n' kind fork_on fork_off ratio \
		munmap_on munmap_off ratio map fold
	for kind in order0 64k order9; do
		fo=$(cstat $clock $kind on fork_ns) ff=$(cstat $clock $kind off fork_ns)
		mo=$(cstat $clock $kind on munmap_ns) mf=$(cstat $clock $kind off munmap_ns)
		[ -n "$fo" ] && [ -n "$ff" ] || continue
		rf=$(ratio "$fo" "$ff") rm=$(ratio "$mo" "$mf")
		printf '  %-7s %10s %10s %8s %10s %10s %8s %6s %6s\n' $kind "$(us "$fo")" "$(us "$ff")" \
			"$rf" "$(us "$mo")" "$(us "$mf")" "$rm" "$(cstat $clock $kind on map)" \
			"$(cstat $clock $kind on fold)"
		sfx=_$clock
		lines+=("bench: contpte_fork_${kind}_on${sfx} = $(us "$fo") $unit"
			"bench: contpte_fork_${kind}_off${sfx} = $(us "$ff") $unit"
			"bench: contpte_munmap_${kind}_on${sfx} = $(us "$mo") $unit"
			"bench: contpte_munmap_${kind}_off${sfx} = $(us "$mf") $unit"
			"bench: contpte_fork_${kind}_on_over_off${sfx} = $rf"
			"bench: contpte_munmap_${kind}_on_over_off${sfx} = $rm"
			"bench: contpte_map_${kind}_on${sfx} = $(cstat $clock $kind on map)"
			"bench: contpte_map_${kind}_off${sfx} = $(cstat $clock $kind off map)")
		eval "fork_${kind}_$clock=$rf munmap_${kind}_$clock=$rm"
	done
done
printf '%s\n' "${lines[@]}"
# Seed 002's own comparison, built in against compiled out (nocontpte): the
# switch cannot show what the wrappers cost finding nothing to fold.  Not in
# QUICK=1 (make test), which would build a fifth image for it.
if [ "${MMRUST_BENCH_CONTPTE_BUILTIN:-$([ "${QUICK:-0}" = 1 ] && echo 0 || echo 1)}" = 1 ]; then
	say "contpte built in against compiled out: building the arm64 image without contpte"
	MMRUST_FLAVOR=nocontpte "$TOP/tools/testing/mmrust/build.sh" >&2
	log=$LOGS/bench-contpte-out-icount.log start=$(date +%s)
	say "contpte compiled out (icount): $mib MiB, order0 / 64k / order9, $icount_rounds rounds"
	MMRUST_FLAVOR=nocontpte MMRUST_QEMU_ARGS="-icount shift=0,sleep=off" \
		MMRUST_BOOT_TIMEOUT=${MMRUST_BENCH_CONTPTE_TIMEOUT:-2400} \
		"$TOP/tools/testing/mmrust/boot.sh" bench "$log" mmrust.bench=contpte \
		mmrust.bench_mib="$mib" mmrust.bench_rounds="$icount_rounds" kunit.enable=0 || true
	say "  $(( $(date +%s) - start ))s (console: $log)"
	grep -q '^contpte_bench: .*contpte=out .*fork_ns=' "$log" || say "  no results in $log"
	ptes=$(( mib * 256 ))
	per_pte() { awk -v v="$1" -v n=$ptes 'BEGIN {if (v != "") printf "%.2f", v / n}'; }
	echo "  built in (contpte on) against compiled out, exact (k insns; per PTE: insns / $ptes PTEs):"
	printf '  %-7s %10s %10s %8s %10s %10s %8s\n' kind fork_in fork_out ratio munmap_in munmap_out ratio
	for kind in order0 64k order9; do
		fin=$(cstat icount $kind on fork_ns) fout=$(cstat out-icount $kind out fork_ns)
		min=$(cstat icount $kind on munmap_ns) mout=$(cstat out-icount $kind out munmap_ns)
		[ -n "$fin" ] && [ -n "$fout" ] || continue
		printf '  %-7s %10s %10s %8s %10s %10s %8s\n' $kind "$(us "$fin")" "$(us "$fout")" \
			"$(ratio "$fin" "$fout")" "$(us "$min")" "$(us "$mout")" "$(ratio "$min" "$mout")"
		printf 'bench: contpte_fork_%s_built_in_over_out = %s\n' $kind "$(ratio "$fin" "$fout")"
		printf 'bench: contpte_munmap_%s_built_in_over_out = %s\n' $kind "$(ratio "$min" "$mout")"
		printf 'bench: contpte_fork_%s_insns_per_pte_%s = %s\n' $kind in "$(per_pte "$fin")" \
			$kind out "$(per_pte "$fout")"
		printf 'bench: contpte_munmap_%s_insns_per_pte_%s = %s\n' $kind in "$(per_pte "$min")" \
			$kind out "$(per_pte "$mout")"
	done
fi
# Headlines: the exact measure (icount); the wall-clock ratios are above.
for kind in order0 order9; do
	eval "f=\${fork_${kind}_icount:-n/a} m=\${munmap_${kind}_icount:-n/a}"
	printf 'bench: contpte_fork_%s_on_over_off = %s\n' $kind "$f"
	printf 'bench: contpte_munmap_%s_on_over_off = %s\n' $kind "$m"
done
