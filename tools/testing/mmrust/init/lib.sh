# SPDX-License-Identifier: GPL-2.0
# Helpers of the boot tests (busybox sh; testing.rst, "Results: KTAP").  A
# test's "note: ..." lines show when it passes too (figures the docs quote).

TESTS=""
# register <name> [<path>]: test_<name>, skipped (mmrust.only_present=1:
# left out) where the kernel lacks <path> (testing.rst, "Results: KTAP").
register() {
	TESTS="$TESTS $1"
	[ -z "${2:-}" ] || NEEDS="${NEEDS:-}$1 $2
"
}

# skip <reason>: records the reason in SKIP_FILE and returns SKIP_RC (77),
# which the test must pass on: '[ -d $X ] || { skip "no $X"; return; }' or
# 'helper || return'.  A skip needs both file and status, else it fails.
SKIP_RC=77
SKIP_FILE=${MMRUST_SKIP_FILE:-/tmp/mmrust-skip}
skip() {
	printf '%s\n' "${*:-(no reason given)}" > "$SKIP_FILE"
	return $SKIP_RC
}

# ktap <line>...: to KTAP_DEV, opened per call (no descriptor left to the
# tests' children; each close drains the tty), a copy on the console.
KTAP_DEV=${KTAP_DEV:-}
ktap() {
	[ -z "$KTAP_DEV" ] || printf '%s\n' "$@" >> "$KTAP_DEV"
	printf '%s\n' "$@" | sed '/^KTAP version/d; s/^/mmrust: /'
}

# run_tests: the registered tests, or mmrust.tests= (comma-separated), in KTAP.
run_tests() {
	local only n=0 t out rc reason block t0 need left_out=""
	only=$(cmdline_param mmrust.tests "")
	[ -z "$only" ] || TESTS=$(echo "$only" | tr , ' ')
	if [ "$(cmdline_param mmrust.only_present 0)" = 1 ]; then
		for t in $TESTS; do
			need=$(printf '%s' "${NEEDS:-}" | awk -v t="$t" '$1 == t {print $2}')
			[ -z "$need" ] || [ -e "$need" ] || left_out="$left_out $t"
		done
		TESTS=$(for t in $TESTS; do case " $left_out " in *" $t "*) ;; *) echo "$t" ;; esac; done)
	fi
	# shellcheck disable=SC2086
	TESTS=$(echo $TESTS)
	# shellcheck disable=SC2086
	ktap "KTAP version 1" "1..$(set -- $TESTS; echo $#)" "# mmrust tests: $TESTS"
	[ -z "$left_out" ] || ktap "# not in this kernel, left out:$left_out"
	for t in $TESTS; do
		n=$((n + 1))
		rm -f "$SKIP_FILE"
		t0=$(cut -d' ' -f1 /proc/uptime)
		need=$(printf '%s' "${NEEDS:-}" | awk -v t="$t" '$1 == t {print $2}')
		if [ -n "$need" ] && [ ! -e "$need" ]; then
			out="" rc=$SKIP_RC
			skip "no $need in this kernel"
		else
			# A subshell of its own: a shell error ends it, with its message.
			out=$( ("test_$t") 2>&1)
			rc=$?
		fi
		ktap "$(awk -v t0="$t0" -v t="$t" '{printf "# time %s: %.1f s\n", t, $1 - t0}' /proc/uptime)"
		reason=""
		[ ! -e "$SKIP_FILE" ] || reason=$(head -1 "$SKIP_FILE")
		if [ $rc = 0 ] && [ ! -e "$SKIP_FILE" ]; then
			block=$(echo "$out" | sed -n "s/^note: /# note $t: /p")
			block="${block:+$block
}ok $n $t"
		elif [ $rc = $SKIP_RC ] && [ -e "$SKIP_FILE" ]; then
			block="ok $n $t # SKIP $reason"
		else
			block=$(echo "$out" | sed 's/^/#   /'
				echo "# $t: exit status $rc$(ktap_why $rc "$reason")")
			block="$block
not ok $n $t"
		fi
		ktap "$block"
	done
	rm -f "$SKIP_FILE"
}

# module_kunit_results <ko>: loads the KUnit module <ko>, prints its suites'
# results from debugfs (CONFIG_KUNIT_DEBUGFS), unloads it; fails, saying why.
module_kunit_results() {
	local k=/sys/kernel/debug/kunit before s
	[ -d $k ] || { echo "no $k (CONFIG_KUNIT_DEBUGFS)"; return 1; }
	before=$(ls $k)
	insmod "$1" || { echo "insmod $1 failed"; return 1; }
	for s in $(ls $k); do
		echo "$before" | grep -qxF "$s" || cat "$k/$s/results"
	done
	rmmod "$(basename "$1" .ko)" || { echo "rmmod $1 failed"; return 1; }
}

# expecting_reports <test> <ERE> <command>...: the command, the one step
# that reports, between a begin and an end line in the kernel log, where
# console_clean (test.sh) accepts WARN blocks matching <ERE> (rust-mm.rst).
expecting_reports() {
	local name=$1 re=$2 rc=0
	shift 2
	printf 'mmrust: expected reports: %s begin: %s\n' "$name" "$re" > /dev/kmsg
	"$@" || rc=$?
	printf 'mmrust: expected reports: %s end\n' "$name" > /dev/kmsg
	return $rc
}

# ktap_why <status> <skip reason>: why run_tests counts it a failure.
ktap_why() {
	if [ -n "$2" ]; then
		echo " after skip \"$2\" (a skip must end the test with its status $SKIP_RC)"
	elif [ "$1" = $SKIP_RC ]; then
		echo " without skip (only skip \"<reason>\" skips)"
	elif [ "$1" = 2 ]; then
		echo " (a shell error, or a 'return 2': skip only with skip \"<reason>\")"
	elif [ "$1" = 127 ]; then
		echo " (a command or test function not found)"
	fi
}

DEMOS=""
demo() { DEMOS="$DEMOS $1"; }
run_demo() {
	for d in $DEMOS; do "demo_$d"; done
}

# The value of a kernel command-line parameter, or $2 when absent.
cmdline_param() {
	v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^$1=//p" | tail -1)
	echo "${v:-$2}"
}

fail() { echo "$*"; return 1; }

# check_impl <boot parameter> <log prefix> [<original> <new>]: the log line
# "<prefix><impl>" names the implementation the parameter asked for, or <new>
# (default rust; <original> c) when absent or, with a rejection message, bad.
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

# bad_value <name>: a bad input, by name (without the newline echo adds).
bad_value() {
	case $1 in
	empty) ;;
	zero) printf 0 ;;
	space) printf ' ' ;;
	negative) printf -- -1 ;;
	word) printf abc ;;
	trailing) printf 1x ;;
	2) printf 2 ;;
	2^32) printf 4294967296 ;;
	2^64) printf 18446744073709551616 ;;
	long) head -c 4096 /dev/zero | tr '\0' 1 ;;		# 4096 ones
	long0) head -c 4095 /dev/zero | tr '\0' 0; printf 1 ;;	# 1, in 4096 digits
	esac
}

# refuses <file> <name>:<errno>...: each named bad value, one write with a
# newline, fails with that errno, <file> unchanged; every mismatch reported
# ("none": the write was taken), a changed value put back.
refuses() {
	local f=$1 before spec name want v err got bad=""
	shift
	before=$(cat "$f") || return 1
	for spec in "$@"; do
		name=${spec%%:*} want=${spec#*:}
		v=$(bad_value "$name")
		if err=$(echo "$v" 2>&1 > "$f"); then
			got=none
		else
			case $err in
			*"Invalid argument"*) got=EINVAL ;;
			*"Numerical result out of range"*) got=ERANGE ;;
			*"Argument list too long"*) got=E2BIG ;;
			*) got="'$err'" ;;
			esac
		fi
		[ "$got" = "$want" ] || bad="$bad $name:$got(wanted $want)"
		[ "$(cat "$f")" = "$before" ] || {
			bad="$bad $name:changed-to-$(cat "$f")"
			echo "$before" > "$f"
		}
	done
	[ -z "$bad" ] || fail "$f:$bad"
}

# What the project's debugfs files refuse (DEFINE_MM_DEBUGFS_ATTRIBUTE):
# anything but a number, 2^64 (-ERANGE), and a write longer than 23 bytes,
# which the kernel's simple_attr_write() would cut short (long0 would read 0).
DEBUGFS_BAD="empty:EINVAL space:EINVAL negative:EINVAL word:EINVAL trailing:EINVAL
2^64:ERANGE long:EINVAL long0:EINVAL"
# The switch files: anything but 1 and 0 on top of that.
SWITCH_BAD="$DEBUGFS_BAD 2:EINVAL 2^32:EINVAL"

# check_switch <debugfs file>: an mm_impl_switch's file takes 1 and 0 only.
check_switch() {
	local f=$1 booted v
	booted=$(cat "$f")
	for v in 0 1 "$booted"; do
		echo "$v" > "$f" && [ "$(cat "$f")" = "$v" ] ||
			fail "writing $v to $f: reads $(cat "$f")" || return 1
	done
	# shellcheck disable=SC2086
	refuses "$f" $SWITCH_BAD
}
