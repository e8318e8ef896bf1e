# SPDX-License-Identifier: GPL-2.0
# Runs last: nothing the tests did may have warned, oopsed or hit a BUG.
test_dmesg_clean() {
	bad=$(dmesg | grep -E 'WARNING:|BUG:|Oops')
	[ -z "$bad" ] || fail "$bad"
}
register dmesg_clean
