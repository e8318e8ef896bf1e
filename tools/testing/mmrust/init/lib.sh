# SPDX-License-Identifier: GPL-2.0
# Helpers of the boot tests (busybox sh).  A test is a shell function
# test_<name>; it passes by returning 0, is skipped by returning 2 (and
# saying why), and prints why when it fails.

TESTS=""
register() { TESTS="$TESTS $1"; }

run_tests() {
	for t in $TESTS; do
		out=$("test_$t" 2>&1)
		rc=$?
		if [ $rc = 0 ]; then
			echo "mmrust: ok $t"
		elif [ $rc = 2 ]; then
			echo "mmrust: skip $t: $out"
		else
			echo "mmrust: not ok $t"
			echo "$out" | sed 's/^/mmrust:   /'
		fi
	done
}

run_demo() {
	for d in $DEMOS; do "demo_$d"; done
}

DEMOS=""
demo() { DEMOS="$DEMOS $1"; }

# The value of a kernel command-line parameter, or $2 when absent.
cmdline_param() {
	v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -1)
	echo "${v:-$2}"
}

fail() { echo "$*"; return 1; }
