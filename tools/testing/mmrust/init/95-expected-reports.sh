# SPDX-License-Identifier: GPL-2.0
# Runs after dmesg_clean: tests whose point is a report (a WARN, which
# taints), each reporting step in an expecting_reports window (lib.sh).

# The debug image's folio_list_debug_test module (CONFIG_DEBUG_LIST,
# rust-mm.rst): four FolioList corruptions; it loads only if each refused.
test_folio_list_corruption_caught() {
	local ko=/samples/folio_list_debug_test.ko out want
	[ -f $ko ] || { skip "no $ko (CONFIG_DEBUG_LIST: the debug image only)"; return; }
	# Every case runs at load: the window is the insmod.
	expecting_reports folio_list_corruption_caught \
		'list_(add|del) corruption|FolioList [^ ]*: corrupted links' insmod $ko ||
		fail "insmod $ko failed: $(dmesg | grep 'folio_list_debug_test:' | tail -2)" || return 1
	rmmod folio_list_debug_test || fail "rmmod failed" || return 1
	out=$(dmesg | sed -n "/mmrust: expected reports: folio_list_corruption_caught begin/,\$p")
	for want in "list_add corruption" "list_del corruption" "FolioList .*: corrupted links" \
		"folio_list_debug_test: push onto a corrupted list: refused" \
		"folio_list_debug_test: pop from a corrupted list: refused, list ended" \
		"folio_list_debug_test: drain of a list that loops: 2 folios, list ended" \
		"folio_list_debug_test: drain of a list with a poisoned prev: refused, list ended"; do
		echo "$out" | grep -q "$want" || { fail "no '$want' from the window on:
$out"; return 1; }
	done
	echo "note: $(echo "$out" | grep -m1 'list_del corruption' | sed 's/^\[[^]]*\] *//')"
}
register folio_list_corruption_caught /samples/folio_list_debug_test.ko

# The debug option's leak check: its reports, every folio freed all the
# same (hugetlb-bulk-free.rst).
test_hugetlb_leaks_reported() {
	local out want before
	empty_pool || return 1
	set_pool $HP 2 || return 1
	before=$(free_pages)
	echo 1 > $DBG/leak_check || fail "cannot arm $DBG/leak_check" || return 1
	# The reports come from the bulk free: the window is the shrink.
	expecting_reports hugetlb_leaks_reported \
		'hugetlb bulk free: (no hstate|a folio taken off the pool was dropped)' \
		set_pool $HP 0 || return 1
	[ "$(cat $DBG/leak_check)" = 0 ] || fail "the bulk free did not run the leak check" || return 1
	free_pages_back $(( before + 1024 )) 512 || return 1
	out=$(dmesg | sed -n "/mmrust: expected reports: hugetlb_leaks_reported begin/,\$p")
	for want in "hugetlb bulk free: no hstate, the folios of the list are leaked" \
		"hugetlb_bulk_free: leak check: no hstate: 2 of 2 folios still on the list" \
		"hugetlb bulk free: a folio taken off the pool was dropped, its page leaked" \
		"hugetlb_bulk_free: leak check: a dropped folio: left as it was"; do
		echo "$out" | grep -q "$want" || { fail "no '$want' from the window on:
$(echo "$out" | grep -v '^ \|^\[ *[0-9.]*\]  ' | tail -20)"; return 1; }
	done
}
register hugetlb_leaks_reported /sys/kernel/debug/hugetlb_bulk_free/leak_check
