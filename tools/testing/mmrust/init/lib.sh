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

# check_impl <boot parameter> <log prefix> [<original> <new>]: the
# implementation in use (the log line "<prefix><impl>") is the one the
# parameter asked for, or the new one (default "rust"; the original
# defaults to "c") for an absent parameter, or the new one with a
# rejection message for a bad one.
check_impl() {
	orig=${3:-c} new=${4:-rust}
	want=$(cmdline_param "$1" "$new")
	if [ "$want" != "$orig" ] && [ "$want" != "$new" ]; then
		dmesg | grep -q "$1=$want: -EINVAL" ||
			fail "no rejection message for $1=$want" || return 1
		want=$new
	fi
	dmesg | grep -q "$2$want\$" ||
		fail "implementation in use is not '$want': $(dmesg | grep "$2")"
}

# check_switch <debugfs file>: the debugfs file of an mm_impl_switch takes
# 1 and 0, and refuses anything else with an error, keeping its value.
check_switch() {
	local f=$1 booted v
	booted=$(cat "$f")
	for v in 0 1 "$booted"; do
		echo "$v" > "$f" && [ "$(cat "$f")" = "$v" ] ||
			fail "writing $v to $f: reads $(cat "$f")" || return 1
	done
	for v in 2 -1 abc "" " 1x" 4294967297 18446744073709551617; do
		! echo "$v" 2> /dev/null > "$f" || fail "writing '$v' to $f succeeded" || return 1
		[ "$(cat "$f")" = "$booted" ] || fail "'$v' changed $f to $(cat "$f")" || return 1
	done
}
