# SPDX-License-Identifier: GPL-2.0
# Boot tests and demonstration of arm64 contpte for user mappings
# (contpte.rst), where the kernel has the switch (arm64); what a process
# sees is the kselftest contpte_mthp's.

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
	echo "== arm64 contpte for user mappings (arch/arm64/mm/contpte.c; switch and events: mm/contpte_switch.c)"
	echo "   /proc/vmstat now:"
	grep '^contpte_' /proc/vmstat | sed 's/^/     /'
	echo "   the kselftest contpte_mthp: each step's events, switch on, then off:"
	(cd /selftests && ./contpte_mthp -t contpte_events -t switched_off_counts_nothing 2>&1) |
		sed -n 's/^# \(run 1: \)/     /p; s/^\(ok\|not ok\) /     &/p'
	echo "   /proc/vmstat after:"
	grep '^contpte_' /proc/vmstat | sed 's/^/     /'
}
demo contpte

fi

