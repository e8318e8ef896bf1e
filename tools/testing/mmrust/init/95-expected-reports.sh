# SPDX-License-Identifier: GPL-2.0
# Runs after dmesg_clean: tests whose point is a report the kernel prints
# (a WARN, which taints the kernel).  Each first writes the marker line
# EXPECTED_REPORTS_MARK to the kernel log; dmesg_clean has run already,
# and the host's check of the console (console_clean in test.sh) leaves
# out, after that line, only the reports of EXPECTED_REPORTS.  What those
# say is checked by the test that made them.

EXPECTED_REPORTS_MARK="mmrust: expected reports from here on"
# The reports these tests make, and no others: the host's console_clean
# drops the WARN blocks after the marker that name one of them, and
# counts every other report, during rmmod and reboot too.
EXPECTED_REPORTS='list_(add|del) corruption|FolioList [^ ]*: corrupted links|hugetlb bulk free: (no hstate|a folio taken off the pool was dropped)'

# The debug image (CONFIG_DEBUG_LIST): corrupted links of a kernel::mm
# list of folios (mm/folio_list_debug_test.rs).  A push onto a broken list
# is refused by list_add_tail(); a pop whose unlink list_del_init()
# refuses hands out nothing, now or later, and FolioList gives the list up
# with a WARN of its own.  The module loads only if both held.
test_folio_list_corruption_caught() {
	local ko=/samples/folio_list_debug_test.ko out want
	[ -f $ko ] || { skip "no $ko (CONFIG_DEBUG_LIST: the debug image only)"; return; }
	echo "$EXPECTED_REPORTS_MARK" > /dev/kmsg
	insmod $ko || fail "insmod $ko failed: $(dmesg | grep 'folio_list_debug_test:' | tail -2)" || return 1
	rmmod folio_list_debug_test || fail "rmmod failed" || return 1
	out=$(dmesg | sed -n "/$EXPECTED_REPORTS_MARK/,\$p")
	for want in "list_add corruption" "list_del corruption" "FolioList .*: corrupted links" \
		"folio_list_debug_test: push onto a corrupted list: refused" \
		"folio_list_debug_test: pop from a corrupted list: refused, list ended"; do
		echo "$out" | grep -q "$want" || { fail "no '$want' after the marker:
$out"; return 1; }
	done
	echo "note: $(echo "$out" | grep -m1 'list_del corruption' | sed 's/^\[[^]]*\] *//')"
}
register folio_list_corruption_caught /samples/folio_list_debug_test.ko

# Rust's hugetlb bulk free loses no pool folio silently: the debug
# option's leak check (debugfs hugetlb_bulk_free/leak_check) runs before
# the next bulk free, on its folios.  The Rust entry point called with a
# null hstate leaves the list whole and WARNs; a folio dropped as an
# UnlinkedFolio (what a path that forgot it would do) is reported with a
# WARN and left as it was: its hugetlb flag and reference count
# unchanged, on no list.  The bulk free then frees every folio: the pool
# empties and the buddy gets its pages back.
test_hugetlb_leaks_reported() {
	local out want before
	empty_pool || return 1
	set_pool $HP 2 || return 1
	before=$(free_pages)
	echo "$EXPECTED_REPORTS_MARK" > /dev/kmsg
	echo 1 > $DBG/leak_check || fail "cannot arm $DBG/leak_check" || return 1
	set_pool $HP 0 || return 1
	[ "$(cat $DBG/leak_check)" = 0 ] || fail "the bulk free did not run the leak check" || return 1
	free_pages_back $(( before + 1024 )) 512 || return 1
	out=$(dmesg | sed -n "/$EXPECTED_REPORTS_MARK/,\$p")
	for want in "hugetlb bulk free: no hstate, the folios of the list are leaked" \
		"hugetlb_bulk_free: leak check: no hstate: 2 of 2 folios still on the list" \
		"hugetlb bulk free: a folio taken off the pool was dropped, its page leaked" \
		"hugetlb_bulk_free: leak check: a dropped folio: left as it was"; do
		echo "$out" | grep -q "$want" || { fail "no '$want' after the marker:
$(echo "$out" | grep -v '^ \|^\[ *[0-9.]*\]  ' | tail -20)"; return 1; }
	done
}
register hugetlb_leaks_reported /sys/kernel/debug/hugetlb_bulk_free/leak_check
