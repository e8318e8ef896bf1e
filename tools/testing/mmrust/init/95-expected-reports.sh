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
EXPECTED_REPORTS='list_(add|del) corruption|FolioList [^ ]*: corrupted links'

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
