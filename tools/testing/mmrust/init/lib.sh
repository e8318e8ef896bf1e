# SPDX-License-Identifier: GPL-2.0
# Helpers of the boot tests (busybox sh).  A test is a shell function
# test_<name>, registered with "register <name>" (always: a test that
# cannot run here says so with skip, it is never left out).  It passes by
# returning 0, is skipped only through the helper skip "<reason>" (see
# there), and prints why when it fails; any other non-zero return is a
# failure, and so is a shell error inside it (busybox ash exits with 2 on
# an arithmetic or syntax error: each test runs in a subshell, so the
# error ends the test, not /init).  Lines it prints starting with "note: "
# are shown when it passes too (figures the documentation quotes).

TESTS=""
# register <name> [<path>]: a test, test_<name>; with a path, one the
# test needs (a component's debugfs directory or call counter, a module,
# a checker's file): where the kernel has no such path (a configuration without that
# component, as the GCC image without Rust), the test is skipped, "no
# <path> in this kernel"; an image that should have it then fails on the
# unexpected skip.  With mmrust.only_present=1 such tests are left out of
# the run instead, named in one KTAP comment, which the host checks
# against expected-skips: a boot of the tests that apply to a kernel (the
# GCC image's, and make test-debian's production kernel's).
register() {
	TESTS="$TESTS $1"
	[ -z "${2:-}" ] || NEEDS="${NEEDS:-}$1 $2
"
}

# skip <reason>: the only way a test is skipped.  Records the reason in
# SKIP_FILE and returns SKIP_RC (77, automake's "skipped"), which the
# test must pass on: '[ -d $X ] || { skip "no $X"; return; }' (a bare
# 'return' returns skip's status), or 'helper || return' from a helper
# that skipped.  A test counts as skipped only with both the file and the
# status: a plain 'return 2', or a skip whose status got lost, fails.
SKIP_RC=77
SKIP_FILE=${MMRUST_SKIP_FILE:-/tmp/mmrust-skip}
skip() {
	printf '%s\n' "${*:-(no reason given)}" > "$SKIP_FILE"
	return $SKIP_RC
}

# The boot tests' results are KTAP (Documentation/dev-tools/ktap.rst, as
# the kernel's selftests print it): "KTAP version 1", the plan "1..N",
# then one "ok N name", "ok N name # SKIP reason" or "not ok N name" per
# test, after its diagnostic lines "# ...".  They go to KTAP_DEV (/init
# sets it from mmrust.ktap=: a console of their own that no printk
# reaches, which boot.sh saves as the boot's .ktap file), opened for each
# block (no descriptor left to the tests' children; each close drains the
# tty).  A copy of every line, prefixed "mmrust: ", goes to the main
# console for the reader of the console log; the host counts only the
# KTAP file.  Without KTAP_DEV there is only the copy.
KTAP_DEV=${KTAP_DEV:-}
ktap() {
	[ -z "$KTAP_DEV" ] || printf '%s\n' "$@" >> "$KTAP_DEV"
	printf '%s\n' "$@" | sed '/^KTAP version/d; s/^/mmrust: /'
}

# run_tests: every registered test, or those named by mmrust.tests=
# (comma-separated) on the kernel command line, in KTAP.  The diagnostic
# line "# mmrust tests: <names>" after the plan names the planned tests,
# so that the host can name those missing (a boot that died half-way).
# Before each result, "# time <name>: <seconds> s" says how long the test
# took (guest uptime; the host lists the slowest of a boot).
run_tests() {
	local only n=0 t out rc reason block t0 need left_out
	only=$(cmdline_param mmrust.tests "")
	[ -z "$only" ] || TESTS=$(echo "$only" | tr , ' ')
	# shellcheck disable=SC2086
	TESTS=$(echo $TESTS)
	left_out=""
	if [ "$(cmdline_param mmrust.only_present 0)" = 1 ]; then
		for t in $TESTS; do
			need=$(printf '%s' "${NEEDS:-}" | awk -v t="$t" '$1 == t {print $2}')
			[ -z "$need" ] || [ -e "$need" ] || left_out="$left_out $t"
		done
		TESTS=$(for t in $TESTS; do case " $left_out " in *" $t "*) ;; *) echo "$t" ;; esac; done)
		# shellcheck disable=SC2086
		TESTS=$(echo $TESTS)
	fi
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
			# What a passing test reports: its lines "note: ...".
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

# module_kunit_results <ko>: loads the KUnit module <ko> (a path), prints
# the results of every suite it ran as KUnit keeps them
# (CONFIG_KUNIT_DEBUGFS: /sys/kernel/debug/kunit/<suite>/results, one KTAP
# document per suite), and unloads it (its suites' files go with it).
# Fails, saying why, if there is no such directory, or the load or the
# unload fails.
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

# expecting_reports <test> <ERE> <command> [<args>...]: runs the command,
# a step of the test <test> whose point is a report the kernel prints (a
# WARN), between two lines it writes to the kernel log:
#   mmrust: expected reports: <test> begin: <ERE>
#   mmrust: expected reports: <test> end
# The host's check of the console (console_clean in test.sh) accepts a
# WARN block ("cut here" to "end trace") only between a begin and its
# end, and only one with a line matching that begin's <ERE> (grep -E);
# every other report counts: one the ERE does not match inside the
# window, and any outside it (rmmod, reboot), the same report too.  Keep
# the window to the step that reports.  Returns the command's status.  What
# the kernel printed from the window on:
#   dmesg | sed -n "/mmrust: expected reports: <test> begin/,\$p"
expecting_reports() {
	local name=$1 re=$2 rc=0
	shift 2
	printf 'mmrust: expected reports: %s begin: %s\n' "$name" "$re" > /dev/kmsg
	"$@" || rc=$?
	printf 'mmrust: expected reports: %s end\n' "$name" > /dev/kmsg
	return $rc
}

# ktap_why <status> <skip reason>: why a status other than 0 or a proper
# skip is a failure, for the diagnostic line.
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

# errno_text <errno>: how a failed write reports it.
errno_text() {
	case $1 in
	EINVAL) echo "Invalid argument" ;;
	ERANGE) echo "Numerical result out of range" ;;
	E2BIG) echo "Argument list too long" ;;
	esac
}

# refuses <file> <name>:<errno>...: writing each named bad value (one
# write, a newline after it) to <file> fails with that errno and <file>
# reads back what it read before.  Every mismatch is reported ("none": the
# write was taken), and a changed value put back.
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
			got=$(for e in EINVAL ERANGE E2BIG; do
				case $err in *"$(errno_text $e)"*) echo $e ;; esac
			done)
			got=${got:-"'$err'"}
		fi
		[ "$got" = "$want" ] || bad="$bad $name:$got(wanted $want)"
		[ "$(cat "$f")" = "$before" ] || {
			bad="$bad $name:changed-to-$(cat "$f")"
			echo "$before" > "$f"
		}
	done
	[ -z "$bad" ] || fail "$f:$bad"
}

# What the debugfs files the project writes through refuse (one mechanism:
# DEFINE_MM_DEBUGFS_ATTRIBUTE): anything but a number, -ERANGE for one past
# 2^64 - 1 (the kernel's parser), and a write longer than 23 bytes, which
# the kernel's simple_attr_write() would cut short (long0 would read 0).
DEBUGFS_BAD="empty:EINVAL space:EINVAL negative:EINVAL word:EINVAL trailing:EINVAL
2^64:ERANGE long:EINVAL long0:EINVAL"
# The switch files: anything but 1 and 0 on top of that.
SWITCH_BAD="$DEBUGFS_BAD 2:EINVAL 2^32:EINVAL"

# check_switch <debugfs file>: the debugfs file of an mm_impl_switch takes
# 1 and 0, and refuses anything else with an error, keeping its value.
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
