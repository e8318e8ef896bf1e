# SPDX-License-Identifier: GPL-2.0
# The project's KUnit suites built as modules (the debug image:
# configs/debug.config), loaded into the running system from here: each
# module's suites run when it is loaded, and it is unloaded again
# (kmemleak_clean, later in the boot, checks what the unload left; this
# test, that the 2 MiB pool has the size it had).  kunit.filter_glob
# applies to the modules' suites as to the built-in ones.  Their
# KTAP, read from the kernel log from a marker on, goes to the KTAP console
# as "# kunit-module: <line>" lines, one KTAP document with a plan of the
# suites run; the host counts every case of it as it counts the built-in
# suites' (boot_results in test.sh, label .../kunit-modules/<boot>).  The
# console shows none of the KTAP (messages below KERN_NOTICE are kept off
# it meanwhile; a failed expectation's KERN_ERR lines still show): the host
# parses the console for the built-in suites' KTAP.

KUNIT_MODULES="mm_impl_switch_kunit slub_partial_kunit hugetlb_bulk_free_kunit
hugetlb_vmemmap_gp_kunit clear_pages_batch_kunit"

# kunit_module_log <module>: loads and unloads it; its kernel log from the
# load on (without timestamps) on stdout; fails if it cannot be loaded or
# unloaded.
kunit_module_log() {
	local mark="mmrust: loading $1.ko"
	echo "$mark" > /dev/kmsg
	insmod "/samples/$1.ko" || { echo "insmod /samples/$1.ko failed"; return 1; }
	rmmod "$1" || { echo "rmmod $1 failed"; return 1; }
	dmesg | sed -n "\|$mark|,\$p" | sed '1d; s/^\[[ 0-9.]*\] //'
}

test_kunit_suites_as_modules() {
	local m level all="" rc=0 out suites filter pool
	case "$(cmdline_param kunit.enable 1)" in
	0|n|N|false) skip "KUnit disabled in this boot (kunit.enable=0)"; return ;;
	esac
	# A filter applies to the modules' suites too: a module may run none.
	filter=$(cmdline_param kunit.filter_glob "")
	# The suites that empty the 2 MiB pool put its size back.
	pool=$(cat $HP/nr_hugepages)
	set_pool $HP 2 || return 1
	level=$(cut -f1 /proc/sys/kernel/printk)
	echo 5 > /proc/sys/kernel/printk
	for m in $KUNIT_MODULES; do
		[ -f "/samples/$m.ko" ] || { echo "no /samples/$m.ko"; rc=1; continue; }
		out=$(kunit_module_log "$m") || { echo "$out"; rc=1; }
		# Each module runs a suite at least (without a filter): its
		# result line.
		[ -n "$filter" ] || echo "$out" | grep -Eq '^(not )?ok [0-9]+ ' ||
			{ echo "$m.ko: no suite result in the kernel log"; rc=1; }
		all="$all$out
"
	done
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
	[ "$suites" -gt 0 ] || fail "no suite ran; the kernel log of the loads:
$(printf "%s" "$all" | head -40)" || return 1
	echo "note: $suites suites of $(echo $KUNIT_MODULES | wc -w) modules, loaded and unloaded"
	return $rc
}
register kunit_suites_as_modules /samples/slub_partial_kunit.ko
