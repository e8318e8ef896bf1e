# SPDX-License-Identifier: GPL-2.0
# The project's KUnit suites built as modules, loaded and unloaded here
# (testing.rst, "The debug image").  Messages below KERN_NOTICE are kept
# off the console meanwhile: the host parses the console for the built-in
# suites' KTAP.

KUNIT_MODULES="mm_impl_switch_kunit slub_partial_kunit hugetlb_bulk_free_kunit
hugetlb_vmemmap_gp_kunit clear_pages_batch_kunit contpte_kunit"

# User space mapping 64 KiB mTHP (contiguous) and unmapping it in a loop beside
# the suites (arm64): the contpte suite's exact counts fail if they count
# any thread but the test's own.  busy_end stops it, THP settings back.
busy_begin() {
	BUSY=""
	[ -d /sys/kernel/debug/contpte ] || return 0
	thp never 1 madvise
	rm -f /tmp/busy.stop
	( while [ ! -e /tmp/busy.stop ]; do demand_fault thp 32 1 > /dev/null 2>&1; done ) &
	BUSY=$!
}
busy_end() {
	[ -n "$BUSY" ] || return 0
	touch /tmp/busy.stop && wait "$BUSY"
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
