# SPDX-License-Identifier: GPL-2.0
# The self-test of test.sh's result parsing on synthetic logs, without a
# kernel, and of the guest's run_tests under busybox sh where there is one.
# Sourced by 'test.sh parse-selftest' (functions and counters are test.sh's).

ST_DIR=$(mktemp -d)
ST_PASSED=0 ST_FAILED=0
# Expected skips of the cases: one file of the real format.
EXPECTED_SKIPS=$ST_DIR/expected-skips
cat > "$EXPECTED_SKIPS" <<'EOF'
# label        test                     reason
arm64/boot/*   hugetlb_1g_hvo_on        no HVO on arm64 in 6.12
*kunit/*       slub_test.test_kfree_rcu built in
EOF

# st_ok <case>, st_fail <case: why>: a case's verdict, counted.
st_ok() { echo "selftest: ok $1"; ST_PASSED=$((ST_PASSED + 1)); }
st_fail() { echo "selftest: not ok $1"; ST_FAILED=$((ST_FAILED + 1)); }
# st_check <case> <passed> <failed> <skipped> [<ERE>]: the counters after the
# case (reset by st_reset), and a line of its report ($ST_DIR/out) matching <ERE>.
st_reset() { passed=0 failed=0 skipped=0 xpassed=0; }
st_check() {
	local got="$passed/$failed/$skipped" want="$2/$3/$4" bad=""
	[ "$got" = "$want" ] || bad="counts (passed/failed/skipped) $got, want $want"
	[ -z "${5:-}" ] || grep -Eq -- "$5" "$ST_DIR/out" || bad="${bad:+$bad; }no line matching '$5'"
	if [ -z "$bad" ]; then
		st_ok "$1"
		# MMRUST_SELFTEST_VERBOSE=1: each case's report too.
		[ -z "${MMRUST_SELFTEST_VERBOSE:-}" ] || sed 's/^/selftest:   /' "$ST_DIR/out"
	else
		st_fail "$1: $bad; its report:"
		sed 's/^/selftest:   /' "$ST_DIR/out"
	fi
}
# st_run <case> <passed> <failed> <skipped> <ERE or ''> <parser> <arguments>...:
# the parser on reset counters, its report in $ST_DIR/out, then st_check.
st_run() { st_reset; "${@:6}" > "$ST_DIR/out" 2>&1; st_check "${@:1:5}"; }

# st_ktap <name> <line>...: $ST_DIR/<name>.ktap, one line each,
# CRLF-terminated as the guest's tty writes them; st_console <name>:
# $ST_DIR/<name>.log, a console, from standard input; st_boot <name>
# <line>...: both, the console a clean one.
st_ktap() { local f=$ST_DIR/$1.ktap; shift; printf '%s\r\n' "$@" > "$f"; }
st_console() { cat > "$ST_DIR/$1.log"; }
st_boot() { st_ktap "$@"; echo "$CLEAN_CONSOLE" | st_console "$1"; }
CLEAN_CONSOLE='[    0.000000] Linux version 6.12.57 (mmrust)
[    5.100000] Run /init as init process
mmrust: 1..3
mmrust: ok 1 a
mmrust: done'

# 1. Everything passes: 3 tests, and the console check.
st_boot pass "KTAP version 1" "1..3" "# mmrust tests: a b c" "# note a: 42 pages" \
	"ok 1 a" "ok 2 b" "ok 3 c" "# mmrust: done"
st_run all_pass 4 0 0 '^\[boot/rust\] mmrust: note a: 42 pages$' boot_results "$ST_DIR/pass.log" boot/rust

# 2. A failure, with its diagnostic lines.
st_boot fail "KTAP version 1" "1..3" "# mmrust tests: a b c" "ok 1 a" \
	"#   want 4, got 3" "# b: exit status 1" "not ok 2 b" "ok 3 c" "# mmrust: done"
st_run not_ok 3 1 0 '^\[boot/rust\] mmrust: not ok b$' boot_results "$ST_DIR/fail.log" boot/rust

# 3. A boot that died half-way: c is missing against the plan (named), and
# /init never finished; kernel messages interleaved on the console.
st_ktap died "KTAP version 1" "1..3" "# mmrust tests: a b c" "ok 1 a" "ok 2 b"
printf '%s\n' "[    0.000000] Linux version 6.12.57 (mmrust)" "mmrust: ok 1 a" \
	"mmrust: ok 2[   12.5] Kernel panic - not syncing: Fatal exception" | st_console died
st_run missing_vs_plan 2 3 0 '^\[boot/c\] mmrust: not ok c: missing' boot_results "$ST_DIR/died.log" boot/c
# console_clean fails on the panic itself (the console has the banner).
grep -q "^\[boot/c\]   .*Kernel panic - not syncing" "$ST_DIR/out" ||
	st_fail "missing_vs_plan: the panic is not the console's report"
grep -q "^\[boot/c\] mmrust: not ok boot: /init did not finish" "$ST_DIR/out" ||
	st_fail "missing_vs_plan: no 'did not finish' line"

# 4. A skip expected-skips lists (arm64: no HVO), and 5. the same skip
# where it is not listed (x86_64): a failure, with its name and reason.
st_boot xskip "KTAP version 1" "1..2" "# mmrust tests: hugetlb_1g_hvo_on b" \
	"ok 1 hugetlb_1g_hvo_on # SKIP no HVO in this kernel" "ok 2 b" "# mmrust: done"
st_run expected_skip 2 0 1 '' boot_results "$ST_DIR/xskip.log" arm64/boot/rust
st_run unexpected_skip 2 1 0 '^\[boot/rust\] mmrust: not ok hugetlb_1g_hvo_on: unexpected skip \(no HVO in this kernel\)' \
	boot_results "$ST_DIR/xskip.log" boot/rust

# 6. An expected skip that passed: reported, not a failure.
st_boot xpass "KTAP version 1" "1..1" "# mmrust tests: hugetlb_1g_hvo_on" \
	"ok 1 hugetlb_1g_hvo_on" "# mmrust: done"
st_run expected_skip_passed 2 0 0 '^\[arm64/boot/c\] expected skip passed: hugetlb_1g_hvo_on' \
	boot_results "$ST_DIR/xpass.log" arm64/boot/c

# 7. No KTAP (QEMU never ran, or /init found no KTAP console): the boot fails.
echo "$CLEAN_CONSOLE" | st_console noktap
st_run missing_ktap 1 1 0 '^\[boot/bad-param\] mmrust: not ok boot: no KTAP output' \
	boot_results "$ST_DIR/noktap.log" boot/bad-param

# 8. Stale logs: an earlier boot's passing console and KTAP, and a boot.sh
# that dies before QEMU (run_boot, with a fake boot.sh); then the real
# boot.sh, dying on a missing kernel, still deletes both first.
st_reset
mkdir -p "$ST_DIR/top/tools/testing/mmrust" "$ST_DIR/logs"
printf '#!/bin/sh\nexit 1\n' > "$ST_DIR/top/tools/testing/mmrust/boot.sh"
chmod +x "$ST_DIR/top/tools/testing/mmrust/boot.sh"
for e in ktap log; do cp "$ST_DIR/pass.$e" "$ST_DIR/logs/boot-stale.$e"; done
(TOP=$ST_DIR/top LOGS=$ST_DIR/logs NAME=x86_64; run_boot stale test; boot_results "$LOG" boot/stale
	echo "counts $passed $failed $skipped") > "$ST_DIR/out" 2>&1
read -r _ passed failed skipped < <(grep '^counts ' "$ST_DIR/out")
# Two failures: no KTAP, and no console (console_clean).
st_check stale_log_not_counted 0 2 0 '^\[boot/stale\] mmrust: not ok boot: no KTAP output'
for e in ktap log; do cp "$ST_DIR/pass.$e" "$ST_DIR/logs/boot-stale.$e"; done
MMRUST_CACHE=$ST_DIR/nocache "$TOP/tools/testing/mmrust/boot.sh" test "$ST_DIR/logs/boot-stale.log" \
	> "$ST_DIR/out" 2>&1 || true
if [ ! -e "$ST_DIR/logs/boot-stale.log" ] && [ ! -e "$ST_DIR/logs/boot-stale.ktap" ]; then
	st_ok boot_sh_deletes_logs_first
else st_fail "boot_sh_deletes_logs_first: $(ls "$ST_DIR/logs")"; fi

# 9. A SLUB object report on the console, after /init's own check (the
# KTAP passes): the host's console check fails the boot.  A KTAP copy on
# the console naming "BUG" is not kernel output and does not count.
st_ktap slub "KTAP version 1" "1..1" "# mmrust tests: dmesg_clean" \
	"# note dmesg_clean: the words BUG: and Bad page in a note" "ok 1 dmesg_clean" "# mmrust: done"
{ echo "$CLEAN_CONSOLE"
  echo "mmrust: # note dmesg_clean: the words BUG: and Bad page in a note"
  echo "[   99.000000] ============================================================================="
  echo "[   99.000001] BUG kmalloc-64 (Tainted: G                 N): Right Redzone overwritten"
} | st_console slub
st_run console_slub_report 1 1 0 'not ok console_clean' boot_results "$ST_DIR/slub.log" x86_64-debug/boot/c
grep -q 'BUG kmalloc-64 (Tainted' "$ST_DIR/out" && ! grep -q '  mmrust: # note' "$ST_DIR/out" ||
	st_fail "console_slub_report: report line missing or KTAP copy counted"

# 9b. Expected reports (expecting_reports, init/lib.sh): a matching WARN inside
# its window is left out; the same after the end (as during rmmod or reboot),
# or another report inside the window, still fails the boot.
EXPECTED_BEGIN='[   50.000000] mmrust: expected reports: folio_list_corruption_caught begin: list_(add|del) corruption|FolioList [^ ]*: corrupted links'
EXPECTED_END='[   50.200000] mmrust: expected reports: folio_list_corruption_caught end'
EXPECTED_WARN='[   50.100000] ------------[ cut here ]------------
[   50.100001] list_del corruption. next->prev should be ffff888003f0a008, but was ffff888003f0a048. (next=ffff888003f0a048)
[   50.100002] WARNING: CPU: 0 PID: 77 at lib/list_debug.c:65 __list_del_entry_valid_or_report+0xbd/0xd0
[   50.100003] ---[ end trace 0000000000000000 ]---'
# One KTAP for the three consoles.
st_ktap expected "KTAP version 1" "1..1" "# mmrust tests: c" "ok 1 c" "# mmrust: done"
{ echo "$CLEAN_CONSOLE"; echo "$EXPECTED_BEGIN"; echo "$EXPECTED_WARN"; echo "$EXPECTED_END"; } | st_console expected
st_run console_expected_report_in_its_window 2 0 0 '' boot_results "$ST_DIR/expected.log" x86_64-debug/boot/c
{ echo "$CLEAN_CONSOLE"; echo "$EXPECTED_BEGIN"; echo "$EXPECTED_END"; echo "$EXPECTED_WARN"; } | st_console after
st_run console_expected_report_after_its_window 1 1 0 'list_del corruption\. next->prev' \
	boot_results "$ST_DIR/after.log" x86_64-debug/boot/c "$ST_DIR/expected.ktap"
{ echo "$CLEAN_CONSOLE"; echo "$EXPECTED_BEGIN"; echo "$EXPECTED_WARN"
  echo "[   50.150000] ------------[ cut here ]------------"
  echo "[   50.150001] WARNING: CPU: 0 PID: 78 at mm/slub.c:4700 free_module+0x10/0x20"
  echo "[   50.150002] ---[ end trace 0000000000000000 ]---"
  echo "$EXPECTED_END"
} | st_console unexpected
st_run console_other_report_in_the_window 1 1 0 'WARNING: CPU: 0 PID: 78' \
	boot_results "$ST_DIR/unexpected.log" x86_64-debug/boot/c "$ST_DIR/expected.ktap"
grep -q 'PID: 77' "$ST_DIR/out" && st_fail "console_other_report_in_the_window: the expected report was counted"

# 10. KUnit on the console, then the boot tests' copies ("mmrust: ..."):
# an expected KUnit skip counts as skipped, an unexpected one fails, a
# parameterised case's parameters count one each.
cat > "$ST_DIR/kunit.log" <<'EOF'
[    1.000000] KTAP version 1
[    1.000001] 1..2
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: slub_test
[    1.000004]     1..2
[    1.000005]     ok 1 test_clobber_zone
[    1.000006]     ok 2 test_kfree_rcu # SKIP can't do kfree_rcu() when test is built-in
[    1.000007] ok 1 slub_test
[    1.000008]     KTAP version 1
[    1.000009]     # Subtest: clear_pages_batch
[    1.000010]     1..2
[    1.000011]         KTAP version 1
[    1.000012]         # Subtest: test_zero
[    1.000013]         ok 1 order 0
[    1.000014]         ok 2 order 9
[    1.000015]     # test_zero: pass:2 fail:0 skip:0 total:2
[    1.000016]     ok 1 test_zero
[    1.000017]     ok 2 test_1g # SKIP no room for a 1 GiB hugetlb page (boot with hugetlb_cma=1G)
[    1.000018] # clear_pages_batch: pass:1 fail:0 skip:1 total:2
[    1.000019] ok 2 clear_pages_batch
[    5.100000] Run /init as init process
mmrust: 1..2
mmrust: ok 1 a
mmrust: ok 2 b # SKIP reason
EOF
st_run kunit_skips 3 1 1 '^\[kunit/rust\] mmrust: not ok clear_pages_batch.test_1g: unexpected skip \(no room' \
	kunit_results "$ST_DIR/kunit.log" kunit/rust

# 10a. KUnit suites loaded as modules (init/08-kunit-modules.sh): their
# KTAP in the boot's KTAP file as "# kunit-module: " lines, every case
# counted under .../kunit-modules/<boot>, a failed case by name.
st_boot kmod "KTAP version 1" "1..1" "# mmrust tests: kunit_suites_as_modules" \
	"# kunit-module: KTAP version 1" "# kunit-module: 1..2" \
	"# kunit-module:     KTAP version 1" "# kunit-module:     # Subtest: mm_impl_switch" \
	"# kunit-module:     1..1" "# kunit-module:     ok 1 test_select" "# kunit-module: ok 1 mm_impl_switch" \
	"# kunit-module:     KTAP version 1" "# kunit-module:     # Subtest: slub_partial_rust" \
	"# kunit-module:     1..2" "# kunit-module:     ok 1 test_a" "# kunit-module:     not ok 2 test_b" \
	"# kunit-module: not ok 2 slub_partial_rust" "ok 1 kunit_suites_as_modules" "# mmrust: done"
# Passed: the boot test, test_select, test_a, console_clean; failed: test_b.
st_run kunit_modules 4 1 0 '^\[x86_64-debug/kunit-modules/rust\] mmrust: not ok slub_partial_rust.test_b$' \
	boot_results "$ST_DIR/kmod.log" x86_64-debug/boot/rust

# 11a. A kselftest boot (kselftest-results.py): expected skips and failures
# count as skipped, others fail, named, with a failed program's last lines;
# a short plan and a missing end fail.
EXPECTED_KSELFTEST=$ST_DIR/expected-kselftest
cat > "$EXPECTED_KSELFTEST" <<'EOF2'
*kselftest/mm | cow: * | SKIP | MADV_PAGEOUT did not work* | no swap
*kselftest/mm | hugepage-shm | FAIL | exit=1 | no SYSVIPC
*kselftest/mm | nothing-matches | SKIP | * | an entry that matches nothing
*kselftest/mm | cow: * with hugetlb (32768 kB) | FAIL | * | a gigantic page's pin
EOF2
KST_COW=("# running ./cow" "# TAP version 13" "# 1..3" "# # [RUN] Basic COW ... with base page"
	"# ok 1 No leak from parent into child" "# # [RUN] Basic COW ... with swapped out base page"
	"# ok 2 # SKIP MADV_PAGEOUT did not work, is swap enabled?")
st_boot kst_pass "TAP version 13" "${KST_COW[@]}" "# # [RUN] Basic COW ... with THP" \
	"# ok 3 No leak from parent into child" "ok 1 cow" "# running ./hugepage-shm" \
	"# shmget: Function not implemented" "not ok 2 hugepage-shm # exit=1" "1..2" "# mmrust: done"
st_run kselftest_expected 4 0 2 'expected-kselftest entry matched nothing: line 3: nothing-matches' \
	kselftest_results "$ST_DIR/kst_pass.log" kselftest/mm
st_boot kst_fail "TAP version 13" "${KST_COW[@]}" "# # [RUN] Basic COW ... with THP" \
	"# not ok 3 Leak from parent into child" "not ok 1 cow # exit=1" "# running ./mkdirty" \
	"# ok 1 # SKIP mbind() failed" "ok 2 mkdirty" "1..3"
# Failed: cow's case 3, cow, mkdirty's unexpected skip, the plan (2 of 3),
# and /init not finishing.
st_run kselftest_failures 3 5 1 '^\[arm64/kselftest/mm\] mmrust: not ok cow: 3 Basic COW \.\.\. with THP$' \
	kselftest_results "$ST_DIR/kst_fail.log" arm64/kselftest/mm
grep -q '^\[arm64/kselftest/mm\]   # # \[RUN\] Basic COW ... with THP' "$ST_DIR/out" &&
	grep -q "mmrust: not ok mkdirty: 1 (mbind() failed): unexpected skip" "$ST_DIR/out" &&
	grep -q "planned 3, ran 2" "$ST_DIR/out" ||
	st_fail "kselftest_failures: a failed program's output, the skip or the plan not reported"

# 11b. A program that failed only in cases expected to fail counts as
# skipped with them; kst_fail above, with a case not expected, fails.
st_boot kst_xfail "TAP version 13" "# running ./cow" "# TAP version 13" "# 1..2" \
	"# # [RUN] R/O longterm pin ... with hugetlb (32768 kB)" "# not ok 1 PIN_LONGTERM_TEST_START failed" \
	"# # [RUN] Basic COW ... with THP" "# ok 2 No leak from parent into child" \
	"not ok 1 cow # exit=1" "1..1" "# mmrust: done"
st_run kselftest_expected_case_failure 2 0 2 'kselftest: 1 passed, 2 skipped' \
	kselftest_results "$ST_DIR/kst_xfail.log" arm64/kselftest/mm

# 11. The guest's run_tests (init/lib.sh) under busybox sh: a pass, an
# arithmetic error, a bare 'return 2', a skip through skip (expected here),
# a skip through a helper (not expected); its KTAP parsed like a boot's.
if command -v busybox > /dev/null; then
	cat > "$ST_DIR/guest.sh" <<EOF
. "$TOP/tools/testing/mmrust/init/lib.sh"
test_a() { echo "note: fine"; }
register a
test_arith() { local x=0; echo \$((1 / x)); }
register arith
test_ret2() { echo "skip: old style"; return 2; }
register ret2
test_hugetlb_1g_hvo_on() { [ -d /nonexistent ] || { skip "no HVO in this kernel"; return; }; }
register hugetlb_1g_hvo_on
helper() { skip "no such directory"; }
test_helper_skip() { helper || return; return 1; }
register helper_skip
run_tests
echo "# mmrust: done" >> "\$KTAP_DEV"
EOF
	KTAP_DEV=$ST_DIR/guest.ktap MMRUST_SKIP_FILE=$ST_DIR/skip busybox sh "$ST_DIR/guest.sh" > "$ST_DIR/guest.log" 2>&1
	# console_clean fails too: a shell's output has no kernel banner.
	st_run guest_run_tests 1 4 1 '^\[arm64/boot/rust\] mmrust: not ok arith$' boot_results "$ST_DIR/guest.log" arm64/boot/rust
	grep -q '^not ok 3 ret2$' "$ST_DIR/guest.ktap" &&
		grep -q '^ok 4 hugetlb_1g_hvo_on # SKIP no HVO in this kernel$' "$ST_DIR/guest.ktap" &&
		grep -q 'divide by zero' "$ST_DIR/guest.ktap" ||
		{ st_fail "guest_run_tests: KTAP lines:"; sed 's/^/selftest:   /' "$ST_DIR/guest.ktap"; }
	# Made-up /sys/kernel/slab caches, for the limits of the walk checks.
	sd=$ST_DIR/slab
	st_cache() {
		mkdir -p "$sd/$1"
		echo "$2" > "$sd/$1/cpu_partial"; echo "$3" > "$sd/$1/objs_per_slab"
		echo "$4" > "$sd/$1/slabs_cpu_partial"
	}
	st_cache good 30 16 "16(2) C0=8(1) C1=8(1)"; st_cache empty 0 16 "0(0)"
	st_cache over 8 16 "48(3) C0=24(3)"; st_cache estimate 30 16 "10(2) C0=10(2)"
	st_cache malformed 30 16 "16(2) C0=8"
	# check_partial_walk against walk files written here, with the caches
	# above for the limits: linked = recorded and within the limit passes.
	for c in "agree:good 0 1 1 4\ngood 1 2 2 4\nwalked 2 caches on 2 CPUs\n:0:note: walk: 2 caches, 2 non-empty" \
		"head_differs:good 1 2 1 4\nwalked 1 caches on 2 CPUs\n:1:good: CPU 1 links 2 slabs, its head records 1" \
		"over_limit:over 0 3 3 3\nwalked 1 caches on 2 CPUs\n:1:over: CPU 0 links 3 slabs, limit 1" \
		"limit_differs:good 0 1 1 2\nwalked 1 caches on 2 CPUs\n:1:good: the kernel's limit is 2 slabs, 4 from cpu_partial 30" \
		"no_summary:good 0 1 1 4\n:1:the walk covered no cache" \
		"every_list_empty:walked 3 caches on 2 CPUs\n:3:the walk found no non-empty per-cpu partial list" \
		"malformed:good 0 1\nwalked 1 caches on 2 CPUs\n:1:malformed walk line"; do
		IFS=: read -r name text want line <<< "$c"
		printf '%b' "$text" > "$sd/walk"
		out=$(SLAB_DIR=$sd WALK=$sd/walk busybox sh -c "register() { :; }; demo() { :; }
			. '$TOP/tools/testing/mmrust/init/10-slub-partial.sh'
			check_partial_walk" 2>&1) && rc=0 || rc=$?
		if [ "$rc" = "$want" ] && [[ "$out" == "$line"* ]]; then st_ok "check_partial_walk_$name"
		else st_fail "check_partial_walk_$name: exit $rc (want $want), output '$out'"; fi
	done
else
	echo "selftest: no busybox on this host: the guest's run_tests not run"
fi

rm -rf "$ST_DIR"
echo "selftest: $ST_PASSED passed, $ST_FAILED failed"
[ "$ST_FAILED" = 0 ]
