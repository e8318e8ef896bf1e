# SPDX-License-Identifier: GPL-2.0
# The project's KUnit suites built as modules (the debug image:
# configs/debug.config; arm64's contpte suite in the arm64 test image),
# loaded into the running system from here, those the image has: each
# module's suites run when it is loaded, and it is unloaded again
# (kmemleak_clean, later in the boot, checks what the unload left; this
# test, that the 2 MiB pool has the size it had).  kunit.filter_glob
# applies to the modules' suites as to the built-in ones.  Their
# results, as KUnit keeps them in debugfs (module_kunit_results, lib.sh),
# go to the KTAP console as "# kunit-module: <line>" lines, one KTAP
# document with a plan of the suites run; the host parses it with kunit.py
# and counts every case of it as it counts the built-in suites' (boot_results
# in test.sh, label .../kunit-modules/<boot>).  The console shows none of
# the KTAP (messages below KERN_NOTICE are kept off it meanwhile; a failed
# expectation's KERN_ERR lines still show): the host parses the console for
# the built-in suites' KTAP.

KUNIT_MODULES="mm_impl_switch_kunit slub_partial_kunit hugetlb_bulk_free_kunit
hugetlb_vmemmap_gp_kunit clear_pages_batch_kunit contpte_kunit"

# User space at work beside the suites, where contpte is (arm64): a loop
# that maps 64 KiB mTHP memory, folds and unfolds its blocks and unmaps
# it (contpte_fork check), so that the contpte suite's exact event counts
# fail if they count any thread but the test's own.  busy_end stops it
# and puts the THP settings back.
busy_begin() {
	BUSY=""
	[ -d /sys/kernel/debug/contpte ] && command -v contpte_fork > /dev/null || return 0
	thp never 1 madvise
	( while :; do contpte_fork check 1024 > /dev/null 2>&1; done ) &
	BUSY=$!
}
busy_end() {
	[ -n "$BUSY" ] || return 0
	kill "$BUSY" && wait "$BUSY" 2> /dev/null
	thp_defaults
	echo "note: user space mapped 64 KiB mTHP memory in a loop meanwhile"
}

test_kunit_suites_as_modules() {
	local m level all="" rc=0 out suites filter pool present=""
	case "$(cmdline_param kunit.enable 1)" in
	0|n|N|false) skip "KUnit disabled in this boot (kunit.enable=0)"; return ;;
	esac
	for m in $KUNIT_MODULES; do
		[ ! -f "/samples/$m.ko" ] || present="$present $m"
	done
	[ -n "$present" ] || { skip "the suites are built in: no KUnit module in this image"; return; }
	# A filter applies to the modules' suites too: a module may run none.
	filter=$(cmdline_param kunit.filter_glob "")
	# The suites that empty the 2 MiB pool put its size back.
	pool=$(cat $HP/nr_hugepages)
	set_pool $HP 2 || return 1
	level=$(cut -f1 /proc/sys/kernel/printk)
	echo 5 > /proc/sys/kernel/printk
	busy_begin
	for m in $present; do
		out=$(module_kunit_results "/samples/$m.ko") || { echo "$out"; rc=1; }
		# Each module runs a suite at least (without a filter): its
		# result line.
		[ -n "$filter" ] || echo "$out" | grep -Eq '^(not )?ok [0-9]+ ' ||
			{ echo "$m.ko: no suite results in /sys/kernel/debug/kunit"; rc=1; }
		all="$all$out
"
	done
	busy_end
	echo "$level" > /proc/sys/kernel/printk
	[ "$(cat $HP/nr_hugepages)" = 2 ] ||
		{ echo "the 2 MiB pool: $(cat $HP/nr_hugepages) pages after the loads, 2 before"; rc=1; }
	echo "$pool" > $HP/nr_hugepages
	# One KTAP document: a header with the plan, then every module's
	# suites (without each module's own header and totals), each suite's
	# result line (the one unindented "ok"/"not ok") numbered in turn.
	suites=$(printf '%s' "$all" | grep -Ec '^(not )?ok [0-9]+ ') || true
	{
		echo "KTAP version 1"
		echo "1..$suites"
		printf '%s' "$all" | grep -Ev '^($|KTAP version |1\.\.[0-9]+$|# Totals: )' |
			awk '/^(not )?ok [0-9]+ / { n++; sub(/ok [0-9]+ /, "ok " n " ") } { print }'
	} | sed 's/^/# kunit-module: /' > /tmp/kunit-modules.ktap
	if [ "$suites" = 0 ] && [ -n "$filter" ] && [ $rc = 0 ]; then
		skip "kunit.filter_glob=$filter matches no suite of the modules"
		return
	fi
	[ -z "$KTAP_DEV" ] || cat /tmp/kunit-modules.ktap >> "$KTAP_DEV"
	[ "$suites" -gt 0 ] || fail "no suite ran; what the loads gave:
$(printf "%s" "$all" | head -40)" || return 1
	echo "note: $suites suites of $(echo $present | wc -w) modules ($(echo $present)), loaded and unloaded"
	return $rc
}
register kunit_suites_as_modules
