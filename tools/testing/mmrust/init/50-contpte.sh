# SPDX-License-Identifier: GPL-2.0
# Boot tests and demonstration of arm64 contpte for user mappings
# (contpte.rst), where the kernel has the switch (arm64); what a process
# sees is the kselftest contpte_mthp's.  Uses thp and thp_defaults of
# 40-clear-pages.sh.

CT=/sys/kernel/debug/contpte

# contpte_present: the tests are registered everywhere and skip, saying
# so, where the kernel has no contpte switch (x86_64).
contpte_present() {
	[ -d $CT ] || { skip "no $CT: contpte is arm64's (6.12 has none on x86_64)"; return; }
}

test_contpte_impl_boot_param() {
	contpte_present || return
	check_impl contpte_impl "contpte: contiguous PTEs for user mappings: " off on &&
		booted_ran $CT contpte_impl off on contpte_calls_work
}
register contpte_impl_boot_param /sys/kernel/debug/contpte

test_contpte_switch_debugfs() { contpte_present || return; check_switch $CT/on; }
register contpte_switch_debugfs /sys/kernel/debug/contpte

# The demonstration only where the kernel has contpte.
if [ -d $CT ]; then

demo_contpte() {
	local on old
	echo "== arm64 contpte for user mappings (arch/arm64/mm/contpte.c; switch and events: mm/contpte_switch.c)"
	old=$(cat $CT/on)
	thp never 1 madvise
	for on in 1 0; do
		echo "$on" > $CT/on
		grep '^contpte_' /proc/vmstat > /tmp/contpte.before
		demand_fault thp 32 1 > /dev/null
		echo "   a 64 KiB mTHP per 2 MiB of 32 MiB faulted in and unmapped, switch $CT/on = $on:"
		awk 'NR == FNR { b[$1] = $2; next } /^contpte_/ { printf "     %s +%d\n", $1, $2 - b[$1] }' \
			/tmp/contpte.before /proc/vmstat
	done
	thp_defaults
	echo "$old" > $CT/on
	echo "   each step's events, checked: the kselftest contpte_mthp (contpte.rst)"
}
demo contpte

fi

