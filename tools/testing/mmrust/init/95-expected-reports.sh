# SPDX-License-Identifier: GPL-2.0
# Runs after dmesg_clean: tests whose point is a report the kernel prints
# (a WARN, which taints the kernel).  Each first writes the marker line
# EXPECTED_REPORTS_MARK to the kernel log; the host's check of the console
# (console_clean in test.sh) reads the log up to that line only, and
# dmesg_clean has run already.  What comes after the marker is checked by
# the test that made it.

EXPECTED_REPORTS_MARK="mmrust: expected reports from here on"

# The debug image (CONFIG_DEBUG_LIST): a corrupted link of a kernel::mm
# list of folios is caught by list_add_tail(), which FolioList pushes
# with: the kernel reports it and refuses the add, the sample module sees
# the list unchanged and loads.
test_folio_list_corruption_caught() {
	local ko=/samples/rust_mm_folio_list_debug.ko out
	[ -f $ko ] || { skip "no $ko (CONFIG_DEBUG_LIST: the debug image only)"; return; }
	echo "$EXPECTED_REPORTS_MARK" > /dev/kmsg
	insmod $ko || fail "insmod $ko failed: the corrupted list was not caught" || return 1
	rmmod rust_mm_folio_list_debug || fail "rmmod failed" || return 1
	out=$(dmesg | sed -n "/$EXPECTED_REPORTS_MARK/,\$p")
	case "$out" in
	*"list_add corruption"*) ;;
	*) fail "no 'list_add corruption' report after the marker:
$out"; return 1 ;;
	esac
	case "$out" in
	*"rust_mm_folio_list_debug: list_add_tail() refused the push onto a corrupted list: caught"*) ;;
	*) fail "the module did not report the refused push:
$out"; return 1 ;;
	esac
	echo "note: $(echo "$out" | grep -m1 'list_add corruption' | sed 's/^\[[^]]*\] *//')"
}
register folio_list_corruption_caught
