# SPDX-License-Identifier: GPL-2.0
# Runs last: nothing the tests did may have warned, oopsed or hit a BUG.
# The reports of the debug image's checkers too: KASAN and kmemleak print
# "BUG:", lockdep "WARNING:"; UBSAN, list and page-state reports have their
# own first lines.
test_dmesg_clean() {
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops|UBSAN:|list_(add|del) corruption|Bad page state')
	[ -z "$bad" ] || fail "$bad"
}
register dmesg_clean

# Debug image (CONFIG_DEBUG_KMEMLEAK): a scan now finds no leak but the
# one the base's slub_kunit makes on purpose (test_leak_destroy leaves an
# object in a cache it destroys, to see the destroy report it).
KMEMLEAK=/sys/kernel/debug/kmemleak
test_kmemleak_clean() {
	echo scan > $KMEMLEAK || fail "cannot start a kmemleak scan" || return 1
	leaks=$(awk '/^unreferenced object/ {if (r !~ /test_leak_destroy/) printf "%s", r; r = ""}
		{r = r $0 "\n"} END {if (r !~ /test_leak_destroy/) printf "%s", r}' $KMEMLEAK)
	[ -z "$leaks" ] || fail "$leaks"
}
[ ! -e $KMEMLEAK ] || register kmemleak_clean
