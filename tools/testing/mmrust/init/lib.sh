# SPDX-License-Identifier: GPL-2.0
# Helpers of the boot tests (busybox sh).  A test is a shell function
# test_<name>; it passes by returning 0, is skipped by returning 2 (and
# saying why), and prints why when it fails; lines it prints starting
# with "note: " are shown when it passes too (figures the README quotes).

TESTS=""
register() { TESTS="$TESTS $1"; }

# run_tests: every registered test, or those named by mmrust.tests=
# (comma-separated) on the kernel command line.
run_tests() {
	local only
	only=$(cmdline_param mmrust.tests "")
	[ -z "$only" ] || TESTS=$(echo "$only" | tr , ' ')
	for t in $TESTS; do
		out=$("test_$t" 2>&1)
		rc=$?
		if [ $rc = 0 ]; then
			echo "mmrust: ok $t"
			# What a passing test reports: its lines "note: ...".
			echo "$out" | sed -n "s/^note: /mmrust: note $t: /p"
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
