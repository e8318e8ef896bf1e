# SPDX-License-Identifier: GPL-2.0
# Boot tests, demonstration and benchmark of arm64 contpte for user
# mappings (contpte.rst), where the kernel has the switch (arm64).  Uses
# thp and thp_defaults of 40-clear-pages.sh.

CT=/sys/kernel/debug/contpte

# contpte_check <switch> <command>...: the command (a check of 64 KiB mTHP
# memory) with the switch at 0 or 1 and the 64 KiB mTHP size on madvise
# (the program advises its region alone); STEPS gets its output.  The
# switch and the THP settings are put back.
contpte_check() {
	local old rc=0 calls on=$1
	shift
	old=$(cat $CT/on)
	echo "$on" > $CT/on || fail "cannot set $CT/on to $on" || return 1
	thp never 1 madvise
	calls_mark $CT off on || rc=1
	STEPS=$("$@" 2>&1) || rc=1
	# The side of the switch selected ran, alone (calls_off, calls_on).
	calls=$(calls_only $( [ "$on" = 1 ] && echo on || echo off )) ||
		{ rc=1; STEPS="$STEPS
$calls"; }
	thp_defaults
	echo "$old" > $CT/on
	[ $rc = 0 ] || fail "$STEPS"
}

# steps_are <want> [<step>]: the events of every step but <step>,
# "<step> map fold unfold tlbi" per line, are these.
steps_are() {
	local got
	got=$(echo "$STEPS" | sed -n 's/^contpte_fork: step=\([a-z_]*\) map=\([0-9-]*\) fold=\([0-9-]*\) unfold=\([0-9-]*\) tlbi=\([0-9-]*\)$/\1 \2 \3 \4 \5/p' |
		grep -v "^${2:-none} ")
	[ "$got" = "$1" ] || fail "contpte events by step (step map fold unfold tlbi):" \
		"$(printf '\n%s' "$got")" "$(printf '\nwanted:\n%s' "$1")" "$(printf '\nprogram:\n%s' "$STEPS")"
}

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

# The same with the switch off: the same bytes, and no contpte event.
test_contpte_switch_off_counts_nothing() {
	contpte_present || return
	contpte_check 0 contpte_fork check 1024 || return 1
	steps_are "fork_rest 0 0 0 0
touch 0 0 0 0
mprotect_ro 0 0 0 0
mprotect_rw 0 0 0 0
fork 0 0 0 0
munmap 0 0 0 0"
}
register contpte_switch_off_counts_nothing /sys/kernel/debug/contpte

# The demonstration only where the kernel has contpte.
if [ -d $CT ]; then

demo_contpte() {
	local on
	echo "== arm64 contpte for user mappings (arch/arm64/mm/contpte.c; switch and events: mm/contpte_switch.c)"
	echo "   /proc/vmstat now:"
	grep '^contpte_' /proc/vmstat | sed 's/^/     /'
	for on in 1 0; do
		echo "   contpte_fork check 2048 (2 MiB of 64 KiB mTHP), switch $CT/on = $on:"
		contpte_check $on contpte_fork check 2048 || true
		echo "$STEPS" | sed 's/^/     /'
	done
	echo "   /proc/vmstat after:"
	grep '^contpte_' /proc/vmstat | sed 's/^/     /'
}
demo contpte

fi

