# SPDX-License-Identifier: GPL-2.0
# Runs last (testing.rst, "Results: KTAP").  DMESG_BAD: the first line of
# every kernel report ("BUG <cache> (": SLUB's, which "BUG:" misses; "Kernel
# panic": the host's scan only).  test.sh reads it from here to scan each
# console log: keep it one line, in single quotes.  A failure prints the
# first report whole (40 lines), for CI logs that keep only the test output.
DMESG_BAD='WARNING:|BUG:|BUG [^ :]+ \(|kernel BUG at|Oops|Internal error:|general protection fault|Unable to handle kernel|Kernel panic|UBSAN:|list_(add|del) corruption|Bad page|INFO: rcu_[a-z_]+ (self-)?detected|rcu_[a-z_]+ self-detected stall|INFO: task .* blocked for more than|soft lockup|hard LOCKUP|INFO: trying to register non-static key'

# The letters of /proc/sys/kernel/tainted's bits 0-18 (panic.c taint_flags).
TAINT_LETTERS="P F S R M B U D A W C I O E L K X T N"
# Allowed: TAINT_TEST (bit 18, N: a KUnit suite ran) only: the debug image's
# checkers taint only when they report; no O or E (in-tree module, no signing).
TAINT_OK=$(( 1 << 18 ))

# taint_letters <value>: its flags' letters, e.g. "W N".
taint_letters() {
	local v=$1 i=0 l out=""
	for l in $TAINT_LETTERS; do
		[ $(( (v >> i) & 1 )) = 0 ] || out="$out $l"
		i=$((i + 1))
	done
	[ $(( v >> i )) = 0 ] || out="$out bit$i+"
	echo "${out# }"
}

test_dmesg_clean() {
	local bad taint rc=0
	taint=$(cat /proc/sys/kernel/tainted) || fail "cannot read /proc/sys/kernel/tainted" || return 1
	echo "note: tainted $taint (flags: $(taint_letters $taint))"
	if [ $(( taint & ~TAINT_OK )) != 0 ]; then
		echo "kernel tainted $taint: $(taint_letters $taint)" \
			"(allowed: $(taint_letters $TAINT_OK)); not allowed: $(taint_letters $(( taint & ~TAINT_OK )))"
		rc=1
	fi
	bad=$(dmesg | grep -E "$DMESG_BAD")
	[ -n "$bad" ] || return $rc
	echo "$bad"
	echo "the first report:"
	dmesg | grep -m1 -A40 -E "$DMESG_BAD"
	return 1
}
register dmesg_clean

# Debug image (CONFIG_DEBUG_KMEMLEAK): a scan finds no leak but the object
# slub_kunit's test_leak_destroy leaves on purpose in a cache it destroys.
KMEMLEAK=/sys/kernel/debug/kmemleak
test_kmemleak_clean() {
	[ -e $KMEMLEAK ] || { skip "no $KMEMLEAK (CONFIG_DEBUG_KMEMLEAK: the debug image only)"; return; }
	echo scan > $KMEMLEAK || fail "cannot start a kmemleak scan" || return 1
	leaks=$(awk '/^unreferenced object/ {if (r !~ /test_leak_destroy/) printf "%s", r; r = ""}
		{r = r $0 "\n"} END {if (r !~ /test_leak_destroy/) printf "%s", r}' $KMEMLEAK)
	[ -z "$leaks" ] || fail "$leaks"
}
register kmemleak_clean /sys/kernel/debug/kmemleak
