# SPDX-License-Identifier: GPL-2.0
# Runs last: nothing the tests did may have warned, oopsed or hit a BUG.
# The reports of the debug image's checkers too: KASAN and kmemleak print
# "BUG:", lockdep "WARNING:"; UBSAN, list and page-state reports have their
# own first lines.
# On a failure, the first report is printed whole (40 lines from its first
# line: the trace), so that the console log of a CI run that keeps only
# the test output still shows where it came from.
DMESG_BAD='WARNING:|BUG:|Oops|UBSAN:|list_(add|del) corruption|Bad page state'
test_dmesg_clean() {
	bad=$(dmesg | grep -E "$DMESG_BAD")
	[ -n "$bad" ] || return 0
	echo "$bad"
	echo "the first report:"
	dmesg | grep -m1 -A40 -E "$DMESG_BAD"
	return 1
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
