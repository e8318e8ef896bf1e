#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Every test (Documentation/mm/mmrust/testing.rst) for MMRUST_ARCHES (default
# lib.sh's), ending with "N passed, N failed, N skipped".
#   test.sh [kunit|boot|all|debug|lto|gcc|debian|matrix|stress|parse-selftest]
#   test.sh one <label> <kernel parameters...>
# (debug, lto, gcc: that x86_64 image only; debian: make test-debian;
# matrix: matrix.sh only (MMRUST_MATRIX_ONLY); stress: make stress;
# parse-selftest: the parsers on synthetic logs, selftest-parse.sh; one:
# one boot of MMRUST_ARCH and MMRUST_FLAVOR's image, with those parameters)
. "$(dirname "$0")/lib.sh"

what=${1:-all}
passed=0 failed=0 skipped=0
xpassed=0	# expected skips that passed (reported, not failures)

# DMESG_BAD: the reports the console may not show, the guest's own list.
EXPECTED_SKIPS=${MMRUST_EXPECTED_SKIPS:-$TOP/tools/testing/mmrust/expected-skips}
DMESG_BAD=$(sed -n "s/^DMESG_BAD='\(.*\)'\$/\1/p" "$TOP/tools/testing/mmrust/init/90-dmesg.sh")
[ -n "$DMESG_BAD" ] || die "no DMESG_BAD='...' line in init/90-dmesg.sh"

# kunit.py: the prepared tree's, or the pristine base's before there is one.
KUNIT_SRC=$SRC
[ -f "$KUNIT_SRC/tools/testing/kunit/kunit.py" ] || KUNIT_SRC=$PRISTINE

# kunit_parse <KTAP file> <JSON out>: the base's kunit.py parse, its report
# on standard output, the results as JSON in <JSON out> (none if it fails).
kunit_parse() {
	rm -f "$2"
	(cd "$KUNIT_SRC" && python3 tools/testing/kunit/kunit.py parse --json="$2" "$1" 2>&1) |
		grep -v ' Test results stored in ' || true
}

# json_cases <JSON>: "<status>\t<name>" per test case of kunit.py's JSON
# (PASS, FAIL, SKIP, or ERROR: crashed or missing); the name: the named
# groups above it and its own, joined with "." (<suite>.<case>[.<param>]).
json_cases() {
	[ -s "$1" ] || return 0
	python3 - "$1" <<'PY'
import json, sys
def walk(group, path):
    for case in group.get("test_cases", []):
        print("%s\t%s" % (case["status"], ".".join(path + [case["name"]])))
    for sub in group.get("sub_groups", []):
        walk(sub, path + [sub["name"]] if sub["name"] else path)
walk(json.load(open(sys.argv[1])), [])
PY
}

# expected_skip <label> <name>: whether expected-skips lists the skip
# (patterns, see there); prints the reason.
expected_skip() {
	local l t reason
	[ -f "$EXPECTED_SKIPS" ] || return 1
	while read -r l t reason; do
		case $l in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2053
		if [[ $1 == $l && $2 == $t ]]; then
			echo "$reason"
			return 0
		fi
	done < "$EXPECTED_SKIPS"
	return 1
}

# passed_but_expected <label> <name>: a pass that expected-skips lists as
# a skip is reported (not a failure: the entry is to be removed).
passed_but_expected() {
	local why
	if why=$(expected_skip "$1" "$2"); then
		echo "[$1] expected skip passed: $2 (expected-skips: $why)"
		xpassed=$((xpassed + 1))
	fi
}

# verdict <label> <name> <ok?> [why]: "ok <name>" or "not ok <name>: why".
verdict() {
	if [ "$3" = 0 ]; then
		echo "[$1] mmrust: ok $2"; passed=$((passed + 1))
	else
		echo "[$1] mmrust: not ok $2${4:+: $4}"; failed=$((failed + 1))
	fi
}

# count_case <label> <status> <name> [<skip reason>]: one test case of a
# boot, counted; a skip not in expected-skips is a failure.
count_case() {
	case $2 in
	PASS) passed=$((passed + 1)); passed_but_expected "$1" "$3" ;;
	SKIP)
		if expected_skip "$1" "$3" > /dev/null; then
			skipped=$((skipped + 1))
		else
			verdict "$1" "$3" 1 "unexpected skip${4:+ ($4)}: not in expected-skips"
		fi
		;;
	*) failed=$((failed + 1)) ;;
	esac
}

# kunit_results <log> <label>: kunit.py's own report, then its summary's
# counts (crashed and parse errors fail too), the skips checked.
kunit_results() {
	local out p f tmp st name leaf reason
	tmp=$(mktemp -d)
	out=$(kunit_parse "$1" "$tmp/json")
	echo "$out" | sed "s|^|[$2] |"
	summary=$(echo "$out" | grep -o 'Ran [0-9]* tests:.*' | tail -1) || true
	if [ -z "$summary" ]; then
		verdict "$2" kunit 1 "no KUnit results in $1"
		rm -rf "$tmp"
		return
	fi
	count() { echo "$summary" | grep -o "$1: [0-9]*" | grep -o '[0-9]*' || echo 0; }
	p=$(count passed)
	f=$(( $(count failed) + $(count crashed) + $(count errors) ))
	passed=$((passed + p)); failed=$((failed + f))
	json_cases "$tmp/json" > "$tmp/cases" || true
	while IFS=$'\t' read -r st name; do
		case $st in
		SKIP)
			leaf=${name##*.}
			reason=$(tr -d '\r' < "$1" | grep -F -m1 " $leaf # SKIP" | sed 's/.* # SKIP *//') || true
			count_case "$2" SKIP "$name" "$reason" ;;
		PASS) passed_but_expected "$2" "$name" ;;	# counted above
		FAIL|ERROR) echo "[$2] mmrust: not ok $name" ;;	# named (counted above)
		esac
	done < "$tmp/cases"
	rm -rf "$tmp"
}

# without_expected_reports: standard input less the reports a test expected
# (expecting_reports, init/lib.sh): in a window from the kernel line
# "mmrust: expected reports: <test> begin: <ERE>" to "... <test> end", a
# WARN block ("cut here" to "end trace", with a "WARNING:" line) inside it
# with a line matching <ERE>, and the two lines (an ERE may name a report).
# All else is kept, all of a window that never ended too (the boot died in
# it, or a second begin came first).  Only kernel lines (a timestamp or none
# before "mmrust:") open or close a window, not a copy in a failed test's
# KTAP ("mmrust: #   [...] mmrust: expected reports: ...").
without_expected_reports() {
	awk '
		# emit: a line, held while a window is open (dropped at its end
		# when accepted), else printed.
		function emit(line, accepted) {
			if (win == "") { print line; return }
			held[nh] = line; ok[nh++] = accepted
		}
		function release(keep_all,  i) {
			for (i = 0; i < nh; i++) if (keep_all || !ok[i]) print held[i]
			nh = 0
		}
		function close_block(complete,  i, accepted) {
			accepted = complete && win != "" && bwin == wid && warn && match_re
			for (i = 0; i < n; i++) emit(buf[i], accepted)
			inblk = 0; n = 0
		}
		match($0, /^(\[[^]]*\] *)*mmrust: expected reports: /) {
			rest = substr($0, RSTART + RLENGTH)
			name = rest; sub(/ .*/, "", name)
			if (substr(rest, length(name) + 1, 8) == " begin: ") {
				release(1)
				win = name; re = substr(rest, length(name) + 9); wid++
				next
			}
			if (rest == name " end" && name == win) {
				release(0)
				win = ""
				next
			}
		}
		/-+\[ cut here \]-+/ {
			if (inblk) close_block(0)
			inblk = 1; n = 0; bwin = wid; warn = 0; match_re = 0
		}
		inblk {
			buf[n++] = $0
			if ($0 ~ /WARNING:/) warn = 1
			if (win != "" && $0 ~ re) match_re = 1
			if ($0 ~ /---\[ end trace/) close_block(1)
			next
		}
		{ emit($0, 0) }
		END { if (inblk) close_block(0); release(1) }'
}

# console_clean <console log> <KTAP file> <label>: dmesg_clean's check of
# the whole console (a report before /init or after its check counts too),
# less /init's copies of the KTAP lines ("mmrust: <line>").
console_clean() {
	local hits ktap=$2
	[ -s "$ktap" ] || ktap=/dev/null
	# Expected reports: rust-mm.rst, "Tests" (folio_list_corruption_caught).
	hits=$(tr -d '\r' < "$1" | without_expected_reports | grep -E "$DMESG_BAD" |
		grep -vxF -f <(tr -d '\r' < "$ktap" | sed 's/^/mmrust: /') || true)
	# A console without the kernel's banner is no proof of anything.
	if ! grep -q 'Linux version ' "$1" 2>/dev/null; then
		verdict "$3" console_clean 1 "no kernel messages in $1 (the console was lost)"
	elif [ -z "$hits" ]; then
		verdict "$3" console_clean 0
	else
		verdict "$3" console_clean 1 "kernel reports in $1:"
		sed -n "1,20s|^|[$3]   |p" <<< "$hits"
	fi
}

# not_ok_tail <counter> <label> <log> <what>: "not ok <what>", counted in
# <counter>, with the last lines of <log>.
not_ok_tail() {
	echo "[$2] mmrust: not ok $4; last lines of $3:"
	[ ! -e "$3" ] || tail -20 "$3" | sed "s|^|[$2]   |"
	: $(( $1 += 1 ))
}

# boot_results <log> <label> [<KTAP>]: the KTAP (default: boot.sh's, beside
# <log>) counted (testing.rst, "Results: KTAP"), then console_clean.
boot_results() {
	local log=$1 label=$2 ktap=${3:-${1%.log}.ktap} tmp out planned name st reason
	[ -e "$log" ] || log=/dev/null
	tmp=$(mktemp -d)
	: > "$tmp/ktap"
	[ ! -f "$ktap" ] || tr -d '\r' < "$ktap" > "$tmp/ktap"
	if [ ! -s "$tmp/ktap" ]; then
		not_ok_tail failed "$label" "$1" "boot: no KTAP output in $ktap (the boot did not run, or /init found no KTAP console)"
	else
		out=$(kunit_parse "$tmp/ktap" "$tmp/json")
		echo "$out" | sed "s|^|[$label] |"
		# What passing tests report (figures the documentation quotes).
		sed -n "s|^# note |[$label] mmrust: note |p" "$tmp/ktap"
		sed -n 's/^# time \(.*\): \(.*\) s$/\2 \1/p' "$tmp/ktap" | sort -rn | head -5 |
			awk -v l="$label" '{s = s (NR > 1 ? ", " : "") $2 " " $1 " s"}
				END {if (NR) print "[" l "] mmrust: slowest tests: " s}'
		json_cases "$tmp/json" > "$tmp/cases" || true
		planned=$(sed -n '/^# mmrust tests: /{s///p;q}' "$tmp/ktap")
		[ -n "$planned" ] ||
			verdict "$label" boot 1 "no '# mmrust tests:' line (the planned tests) in $ktap"
		for name in $planned; do
			st=$(awk -F'\t' -v n="$name" '$2 == n {print $1; exit}' "$tmp/cases")
			reason=$(sed -n "/^ok [0-9]* $name # SKIP */{s///p;q}" "$tmp/ktap")
			case $st in
			'') verdict "$label" "$name" 1 "missing: planned, no result of that name (the boot ended before it, or its line was garbled)" ;;
			FAIL|ERROR) verdict "$label" "$name" 1 ;;
			*) count_case "$label" "$st" "$name" "$reason" ;;
			esac
		done
		# mmrust.only_present=1's left-out tests: testing.rst, "Results: KTAP".
		for name in $(sed -n '/^# not in this kernel, left out:/{s///p;q}' "$tmp/ktap"); do
			expected_skip "$label" "$name" > /dev/null ||
				verdict "$label" "$name" 1 "left out (not in this kernel), not in expected-skips"
		done
		# The KUnit modules' KTAP: testing.rst, "The debug image".
		if grep -q '^# kunit-module: ' "$tmp/ktap"; then
			sed -n 's/^# kunit-module: //p' "$tmp/ktap" > "$tmp/kunit-modules"
			kunit_results "$tmp/kunit-modules" "${label/\/boot\//\/kunit-modules\/}"
		fi
		grep -qx '# mmrust: done' "$tmp/ktap" ||
			not_ok_tail failed "$label" "$1" "boot: /init did not finish (no '# mmrust: done' in $ktap)"
	fi
	rm -rf "$tmp"
	console_clean "$log" "$ktap" "$label"
}

# kselftest_results <log> <label>: testing.rst, "The mm selftests"; the
# whole plan run and /init finished, then console_clean.
EXPECTED_KSELFTEST=${MMRUST_EXPECTED_KSELFTEST:-$TOP/tools/testing/mmrust/expected-kselftest}
kselftest_results() {
	local log=$1 label=$2 ktap=${1%.log}.ktap out st name reason why p=0 s=0 f=0
	[ -e "$log" ] || log=/dev/null
	if [ ! -s "$ktap" ]; then
		not_ok_tail failed "$label" "$1" "kselftest: no output in $ktap"
		console_clean "$log" "$ktap" "$label"
		return
	fi
	if ! out=$(python3 "$TOP/tools/testing/mmrust/kselftest-results.py" "$ktap" "$label" "$EXPECTED_KSELFTEST" 2>&1); then
		verdict "$label" kselftest 1 "kselftest-results.py: $out"
		return
	fi
	while IFS=$'\x1f' read -r st name reason why; do
		case $st in
		PASS) p=$((p + 1)) ;;
		SKIP) s=$((s + 1)) ;;
		FAIL) f=$((f + 1))
			echo "[$label] mmrust: not ok $name${reason:+ ($reason)}${why:+: $why}" ;;
		OUTPUT) echo "[$label]   $name" ;;
		UNUSED) echo "[$label] expected-kselftest entry matched nothing: $name" ;;
		PLAN)
			if [ -z "$name" ] || [ "$name" = 0 ] || [ "$name" != "$reason" ]; then
				echo "[$label] mmrust: not ok kselftest: run_vmtests.sh planned ${name:-nothing}, ran $reason (see $ktap)"
				f=$((f + 1))
			fi ;;
		esac
	done <<< "$out"
	tr -d '\r' < "$ktap" | grep -qx '# mmrust: done' ||
		not_ok_tail f "$label" "$1" "kselftest: /init did not finish (no '# mmrust: done' in $ktap)"
	echo "[$label] mmrust: kselftest: $p passed, $s skipped (expected-kselftest), $f failed (programs and their cases; $ktap)"
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
	console_clean "$log" "$ktap" "$label"
}

mkdir -p "$LOGS"

# shell_check: 'make shell' without a terminal (testing.rst, "The boots").
shell_check() {
	local log=$LOGS/boot-shell.log start=$(date +%s) ok i
	say "booting the test kernel (shell): commands on standard input"
	rm -f "$log"
	{
		# The commands once the shell prompts (120 s at most): what
		# arrives before the shell has the terminal is lost (seen: with
		# 32 blank lines first, every command echoed, then dropped).
		i=0
		while ! grep -q 'mmrust# ' "$log" 2> /dev/null && [ $i -lt 1200 ]; do
			sleep 0.1; i=$((i + 1))
		done
		printf '\n%.0s' $(seq 4)
		# Each command twice: the emulated UART sometimes loses a
		# character (seen in two runs in a row); one good copy will do.
		for c in 'echo shell-$((6 * 7))' \
			'insmod /samples/rust_mm_folio_list.ko && rmmod rust_mm_folio_list && echo module-ok' \
			'command -v huge_zero_page' 'command -v timed_write' \
			'cat /sys/kernel/debug/hugetlb_bulk_free/rust'; do
			printf '%s\n%s\n' "$c" "$c"
		done
		echo exit
	} | MMRUST_BOOT_TIMEOUT=180 "$TOP/tools/testing/mmrust/shell.sh" > "$log" 2>&1 || true
	say "  shell: $(( $(date +%s) - start ))s (console: $log)"
	ok=0; grep -q '^shell-42' "$log" || ok=$?
	verdict boot/shell shell_runs_commands $ok "no output of 'echo shell-\$((6 * 7))' in $log"
	ok=0; grep -q '^module-ok' "$log" || ok=$?
	verdict boot/shell shell_loads_sample_module $ok "insmod/rmmod of the sample failed, see $log"
	ok=0; grep -q '^/samples/huge_zero_page' "$log" && grep -q '^/bin/timed_write' "$log" || ok=$?
	verdict boot/shell shell_path $ok "samples and test programs not on PATH, see $log"
	# At the end of a line: the shell's prompt may come first when the
	# echo of 'exit' was lost (seen: "mmrust# mmrust: done").
	ok=0; grep -q 'mmrust: done.\?$' "$log" || ok=$?
	verdict boot/shell shell_exit_powers_off $ok "the guest did not power off after 'exit'"
}

series_check() {
	local out ok
	ok=0; out=$("$TOP/tools/testing/mmrust/series.sh" --check 2>&1) || ok=$?
	echo "$out" | sed 's/^/[series] /'
	verdict series series_applies_to_plain_base $ok "$(echo "$out" | tail -1)"
}

# applying.rst's kselftest build ("The tests on your own kernel and machine")
# on the prepared tree, host compiler: the series' five built, none warned.
kselftest_build_check() {
	local o=$CACHE/kselftest-build log=$LOGS/kselftest-build-host.log ok=0 why="" p w
	rm -rf "$o"
	make -C "$SRC/tools/testing/selftests" TARGETS=mm O="$o" \
		KHDR_INCLUDES="-isystem $CACHE/build/x86_64/usr/include" -j"$(nproc)" > "$log" 2>&1 ||
		{ ok=1; why="the build failed, see $log"; }
	for p in hugetlb_pool thp_huge_zero_page contpte_mthp slub_cpu_partial clear_pages_zero; do
		[ -x "$o/kselftest/mm/$p" ] || { ok=1; why="${why:+$why; }no $p built (see $log)"; }
		w=$(grep -E "^$p\.c:[0-9]+:[0-9]+: (warning|error)" "$log" | head -3) || true
		[ -z "$w" ] || { ok=1; why="${why:+$why; }$w"; }
	done
	verdict host kselftest_build_mm $ok "$why"
	rm -rf "$o"
}

# 'make rusttest' (testing.rst, "Other checks"), and one verdict for the run
# (a harness that does not build, or dies, reports no test line).
rusttest_check() {
	local out ok line n=0
	ok=0; out=$("$TOP/tools/testing/mmrust/rusttest.sh" 2>&1) || ok=$?
	while read -r line; do
		case $line in
		"test "*" ... ok") verdict host/rusttest "$(echo "$line" | cut -d' ' -f2)" 0; n=$((n + 1)) ;;
		"test "*" ... FAILED") verdict host/rusttest "$(echo "$line" | cut -d' ' -f2)" 1; n=$((n + 1)) ;;
		esac
	done <<< "$out"
	[ "$ok" = 0 ] || echo "$out" | grep -v '^test .* \.\.\. ok$' | tail -40 | sed 's/^/[host\/rusttest] /'
	[ "$n" -gt 0 ] || ok=1
	verdict host/rusttest rusttest_runs $ok "$(grep -m1 -E '^error|panicked' <<< "$out" || echo "exit $ok, $n tests")"
}

# matrix_check <output of matrix.sh>: one verdict per configuration and
# architecture, the table and the failures' details printed as they are.
matrix_check() {
	local out line
	out=$(cat "$1" 2>/dev/null) || true
	echo "$out" | sed 's/^/[matrix] /'
	while read -r line; do
		set -- $line
		case "$3" in
		ok) verdict "matrix/$1" "config_$2" 0 ;;
		FAILED) verdict "matrix/$1" "config_$2" 1 "${line#*FAILED }" ;;
		esac
	done < <(echo "$out" | sed -n '/^configuration matrix/,$p' | tail -n +2)
	grep -q '^configuration matrix' <<< "$out" ||
		verdict matrix configuration_matrix_ran 1 "matrix.sh printed no table"
	# The i386 cell booted the clearing's KUnit suite: its cases, each.
	if grep -q '^i386 *generic-clear-pages *ok' <<< "$out"; then
		kunit_results "$LOGS/matrix-i386-kunit.log" matrix/i386/kunit
	fi
}

# 'make bench QUICK=1' (testing.rst, "The images" and "The boots").
bench_check() {
	local label=${p}bench-quick out=$LOGS/bench-quick-$MMRUST_ARCH.log start=$(date +%s)
	local report=$CACHE/report/$MMRUST_ARCH-quick only=all ok png head
	local pngs="slub_push hackbench hugetlb_free_vs_n hugetlb_free_vs_vcpus clear_pages zero_page_rss"
	local heads="slub_partial_rust_over_c_insns hugetlb_free_rust_over_c_insns_hvo0_n64
		hugetlb_free_rust_over_c_insns_hvo1_n64 clear_pages_batched_over_per_page_2m
		hackbench_process_g1_rust_over_c_insns"
	if [ "$MMRUST_ARCH" = arm64 ]; then
		only=contpte pngs=contpte
		heads="contpte_fork_order0_on_over_off contpte_munmap_order9_on_over_off"
	fi
	say "make bench QUICK=1 ($MMRUST_ARCH$([ $only = all ] || echo ", $only")): every benchmark step, smallest sizes"
	ok=0; QUICK=1 MMRUST_BENCH_ONLY=$only "$TOP/tools/testing/mmrust-bench/bench.sh" > "$out" 2>&1 || ok=$?
	say "  bench: $(( $(date +%s) - start ))s (output: $out)"
	verdict "$label" bench_quick_runs $ok "exit $ok, see $out"
	ok=0; tail -1 "$out" | grep -qx "report: $report/report.md" && [ -s "$report/report.md" ] || ok=1
	verdict "$label" bench_quick_report $ok "no 'report: $report/report.md' last, see $out"
	for png in $pngs; do
		ok=0; head -c 8 "$report/$png.png" 2>/dev/null | grep -q PNG || ok=1
		verdict "$label" "bench_quick_plot_$png" $ok "no plot $report/$png.png"
	done
	for head in $heads; do
		ok=0; grep -Eq "^bench: $head = [0-9.]+\$" "$out" || ok=1
		verdict "$label" "bench_quick_$head" $ok "$(grep "^bench: $head " "$out" || echo "no line 'bench: $head'")"
	done
}

# image_warnings <label>: testing.rst, "The configuration matrix"; in this
# image's build log: what this run compiled, everything in a cold run.
image_warnings() {
	local log=$LOGS/build.log w
	[ "$NAME" = x86_64 ] || log=$LOGS/build-$NAME.log
	w=$("$TOP/tools/testing/mmrust/matrix.sh" --warnings "$log" 2>&1) || true
	verdict "$1" no_new_warnings "$([ -z "$w" ]; echo $?)" "$w"
}

# hugetlb_cma=1G (testing.rst, "The boots"): a plain 5 GiB guest has a free
# aligned GiB in some boots only.
run_boot() {  # run_boot <label> <mode> <params...>
	local label=$1 mode=$2; shift 2
	set -- hugetlb_cma=1G "$@"
	local log=$LOGS/boot-$label.log start=$(date +%s) pid t
	[ "$NAME" = x86_64 ] || log=$LOGS/boot-$NAME-$label.log
	# No earlier boot's console or KTAP may be counted (boot.sh deletes
	# them too, but it may die before).
	rm -f "$log" "${log%.log}.ktap"
	say "booting the test kernel ($label): mmrust.mode=$mode $*"
	"$TOP/tools/testing/mmrust/boot.sh" "$mode" "$log" "$@" &
	pid=$!
	# Progress every minute: the last verdict or stress line so far.
	while ! timeout 60 tail --pid=$pid -f /dev/null; do
		t=$(grep -E '^(mmrust: (ok|not ok) |stress: )' "$log" 2> /dev/null | tail -1) || true
		say "  $label: $(( $(date +%s) - start ))s${t:+, last: $t}"
	done
	wait $pid || true
	say "  $label: $(( $(date +%s) - start ))s (console: $log)"
	LOG=$log
}

# Boots side by side: using.rst, MMRUST_BOOTS_AT_ONCE (TCG: a host CPU per
# vCPU); with one, each in the foreground, its progress lines as they come.
boot_slots() {
	local cpus=$(( $(nproc) / ${MMRUST_SMP:-2} )) mem=${MMRUST_MEM:-5G} avail
	avail=$(awk '/^MemAvailable:/ {print int($2 / 1048576)}' /proc/meminfo)
	if [[ $mem =~ ^[0-9]+G$ ]] && [ -n "$avail" ] && [ $(( avail / ${mem%G} )) -lt "$cpus" ]; then
		cpus=$(( avail / ${mem%G} ))
	fi
	echo "$cpus"
}
BOOT_SLOTS=${MMRUST_BOOTS_AT_ONCE:-$(boot_slots)}
[ "$BOOT_SLOTS" -ge 1 ] 2>/dev/null || BOOT_SLOTS=1
declare -A BOOT_PID=()
# boot_start <label> <mode> <params...>: run_boot, in the background when
# there are slots for more than one boot, after waiting for a free slot.
boot_start() {
	local label=$1 l n
	if [ "$BOOT_SLOTS" = 1 ]; then
		run_boot "$@"
		return
	fi
	while :; do
		n=0
		for l in "${!BOOT_PID[@]}"; do
			! kill -0 "${BOOT_PID[$l]}" 2>/dev/null || n=$((n + 1))
		done
		[ $n -ge "$BOOT_SLOTS" ] || break
		sleep 1
	done
	run_boot "$@" > "$LOGS/boot-$NAME-$label.progress" 2>&1 &
	BOOT_PID[$label]=$!
	trap cleanup_children EXIT
}
# boot_end <label>: waits for a boot of boot_start, shows its progress
# lines and sets LOG to its console log.
boot_end() {
	if [ -n "${BOOT_PID[$1]:-}" ]; then
		wait "${BOOT_PID[$1]}" || true
		unset "BOOT_PID[$1]"
		cat "$LOGS/boot-$NAME-$1.progress"
		rm -f "$LOGS/boot-$NAME-$1.progress"
	fi
	LOG=$LOGS/boot-$1.log
	[ "$NAME" = x86_64 ] || LOG=$LOGS/boot-$NAME-$1.log
}

# test_arch <arch>: testing.rst, "The boots"; labels prefixed with the arch
# but for x86_64 (the labels of before).  init_on_free=1 zeroes freed pages:
# bad-param runs the clearing's preempt=full faults without it.
test_arch() {
	MMRUST_ARCH=$1
	. "$TOP/tools/testing/mmrust/lib.sh"
	local p="" off="" bad=""
	[ "$MMRUST_ARCH" = x86_64 ] || p="$MMRUST_ARCH/"
	# The arch's own switch: off (sync) in the c boot, bogus in bad-param.
	[ "$MMRUST_ARCH" != arm64 ] || off=contpte_impl=off bad=contpte_impl=bogus
	[ "$MMRUST_ARCH" != x86_64 ] || off=hugetlb_vmemmap_gp_impl=sync bad=hugetlb_vmemmap_gp_impl=bogus
	say "== $MMRUST_ARCH =="
	[ "$what" != all ] || image_warnings "${p}build"
	case "$what" in
	kunit)
		run_boot kunit-rust none hugetlb_free_vmemmap=on init_on_free=1 preempt=full
		kunit_results "$LOG" ${p}kunit/rust
		;;
	boot|all)
		# Side by side where the host has the CPUs, results read in order.
		boot_start rust test hugetlb_free_vmemmap=on init_on_free=1 preempt=full \
			$([ "$what" = boot ] && echo kunit.enable=0)
		boot_start c test slub_partial_impl=c hugetlb_bulk_free_impl=c clear_pages_impl=per_page \
			$off preempt=voluntary hugetlb_free_vmemmap=off \
			$([ "$what" = boot ] && echo kunit.enable=0)
		boot_start bad-param test slub_partial_impl=bogus hugetlb_bulk_free_impl=bogus \
			clear_pages_impl=bogus $bad preempt=full kunit.enable=0
		# The kselftest boots: testing.rst, "The boots", 4 and 5.
		local vmtests
		vmtests="mmrust.vmtests=$(echo $VMTESTS_CATEGORIES | tr ' ' ,)"
		MMRUST_BOOT_TIMEOUT=${MMRUST_KSELFTEST_TIMEOUT:-1800} \
			boot_start kselftest-rust kselftest hugetlb_free_vmemmap=on kunit.enable=0 "$vmtests"
		MMRUST_BOOT_TIMEOUT=${MMRUST_KSELFTEST_TIMEOUT:-1800} \
			boot_start kselftest-c kselftest hugetlb_free_vmemmap=on kunit.enable=0 "$vmtests" \
			slub_partial_impl=c hugetlb_bulk_free_impl=c clear_pages_impl=per_page \
			${off/contpte_impl=off/}
		boot_end rust
		[ "$what" = boot ] || kunit_results "$LOG" ${p}kunit/rust
		boot_results "$LOG" ${p}boot/rust
		boot_end c
		[ "$what" = boot ] || kunit_results "$LOG" ${p}kunit/c
		boot_results "$LOG" ${p}boot/c
		boot_end bad-param
		boot_results "$LOG" ${p}boot/bad-param
		boot_end kselftest-rust
		kselftest_results "$LOG" ${p}kselftest/rust
		boot_end kselftest-c
		kselftest_results "$LOG" ${p}kselftest/c
		[ "$MMRUST_ARCH" != x86_64 ] || shell_check
		[ "$what" != all ] || bench_check
		;;
	*) die "usage: test.sh [kunit|boot|all|debug|lto|gcc|debian|matrix|stress|parse-selftest|one <label> <kernel parameters...>]" ;;
	esac
}

# Freed pages unmapped and zeroed; no5lvl: testing.rst, "The debug image"
# (the race's KASAN report came from handle_edge_irq).
DEBUG_PARAMS="debug_pagealloc=on init_on_free=1 no5lvl"

# flavour_start <flavour> <title> [<arch>]: lib.sh for the image of <flavour>
# (x86_64's by default), its header, its no_new_warnings; flavour_results
# <boot>: the KUnit and boot-test results of the boot just run.
flavour_start() {
	export MMRUST_ARCH=${3:-x86_64} MMRUST_FLAVOR=$1
	. "$TOP/tools/testing/mmrust/lib.sh"
	say "== $MMRUST_ARCH $2 =="
	image_warnings "$NAME/build"
}
flavour_results() { kunit_results "$LOG" "$NAME/kunit/$1"; boot_results "$LOG" "$NAME/boot/$1"; }

# test_debug: testing.rst, "The debug image"; side by side (two slots): the
# longest boots of make test, much of it KASAN's and lockdep's own work.
test_debug() {
	flavour_start debug "debug image (KASAN, lockdep, DEBUG_VM, DEBUG_PAGEALLOC, kmemleak, UBSAN)"
	export MMRUST_BOOT_TIMEOUT=${MMRUST_DEBUG_BOOT_TIMEOUT:-2400}
	BOOT_SLOTS=2 boot_start c test slub_partial_impl=c hugetlb_bulk_free_impl=c clear_pages_impl=per_page \
		hugetlb_vmemmap_gp_impl=sync preempt=voluntary hugetlb_free_vmemmap=on $DEBUG_PARAMS
	run_boot rust test hugetlb_free_vmemmap=on $DEBUG_PARAMS preempt=full
	flavour_results rust
	boot_end c
	flavour_results c
	unset MMRUST_BOOT_TIMEOUT MMRUST_FLAVOR
}

# test_gcc: the GCC image's one boot: testing.rst, "The images", "The boots".
test_gcc() {
	flavour_start gcc "GCC image (GCC 12, Rust off, the C components on)"
	run_boot c-components test hugetlb_free_vmemmap=on init_on_free=1 preempt=full mmrust.only_present=1
	flavour_results c-components
	unset MMRUST_FLAVOR
}

# debian_linked <arch>: testing.rst, "Debian's own configuration" (build.sh
# checked the fragments' lines; KUnit's exports: applying.rst, "Rust beside
# MODVERSIONS").
debian_linked() {
	local arch=$1 b=$CACHE/build/$1-debian bad="" rust img=arch/x86/boot/bzImage o
	local want="MODVERSIONS RUST RUST_BUILTIN_ONLY SLUB_CPU_PARTIAL_RUST HUGETLB_BULK_FREE_RUST CLEAR_PAGES_BATCH TRANSPARENT_HUGEPAGE"
	[ "$arch" = x86_64 ] || { img=arch/arm64/boot/Image; want="$want ARM64_CONTPTE"; }
	[ -s "$b/$img" ] && [ -s "$b/vmlinux.symvers" ] || bad="no $b/$img or no $b/vmlinux.symvers"
	for o in $want; do
		[ -n "$bad" ] || grep -qx "CONFIG_$o=y" "$b/.config" || bad="CONFIG_$o is not on in $b/.config"
	done
	if [ -z "$bad" ]; then
		rust=$(mktemp)
		# shellcheck disable=SC2046 # one object per word
		(cd "$b" && llvm-nm-19 --defined-only -g $(find . -name '.*.o.cmd' -exec grep -l '^savedcmd_.*rustc' {} + |
			sed 's|/\.\([^/]*\)\.cmd$|/\1|')) | awk 'NF >= 2 { print $NF }' | sort -u > "$rust" ||
			bad="llvm-nm-19 failed on the Rust objects of $b"
		[ -n "$bad" ] || [ -s "$rust" ] || bad="no symbol defined by a Rust object in $b"
		[ -n "$bad" ] || bad=$(awk -F'\t' 'FNR == NR { rust[$1] = 1; next }
			length($1) != 10 || $1 !~ /^0x[0-9a-f]+$/ || $1 ~ /^0x0+$/ { print "CRC " $1 " of " $2 }
			($2 in rust) && $5 != "EXPORTED_FOR_KUNIT_TESTING" { print "a symbol a Rust object defines is exported: " $2 }' \
			"$rust" "$b/vmlinux.symvers" | sort | sed -n 1,20p)
		[ -n "$bad" ] || say "  $arch-debian: $(wc -l < "$b/vmlinux.symvers") exports, none zero; $(wc -l < "$rust") symbols of Rust objects, none exported but for KUnit"
		rm -f "$rust"
	fi
	verdict "$arch-debian/build" debian_linked "$([ -z "$bad" ]; echo $?)" "$bad"
}

# modversions_check: Rust beside MODVERSIONS (patches/0036; testing.rst,
# "Debian's own configuration"); the note counts the exports with Rust
# alone (C code of the Rust components).
modversions_check() {
	local with=$CACHE/build/x86_64-debian/vmlinux.symvers n=$CACHE/build/x86_64-debian-norust bad=""
	local without=$n/vmlinux.symvers
	[ -s "$with" ] && [ -s "$without" ] || bad="no $with or no $without"
	[ -n "$bad" ] || { grep -q '^CONFIG_MODVERSIONS=y' "$n/.config" && ! grep -q '^CONFIG_RUST=y' "$n/.config"; } ||
		bad="$n/.config: not MODVERSIONS without Rust"
	[ -n "$bad" ] || bad=$(awk -F'\t' 'FNR == NR { if (length($1) != 10 || $1 !~ /^0x[0-9a-f]+$/ || $1 ~ /^0x0+$/)
				print "CRC " $1 " of " $2 " without Rust"
			crc[$2] = $1; next }
		($2 in crc) && crc[$2] != $1 { print "CRC of " $2 ": " crc[$2] " without Rust, " $1 " with" }
		{ seen[$2] = 1 }
		END { for (s in crc) if (!(s in seen)) print "exported only without Rust: " s }' \
		"$without" "$with" | sort | sed -n 1,20p)
	[ -n "$bad" ] || say "  modversions: $(awk -F'\t' 'NR == FNR { a[$2] = 1; next }
		{ if ($2 in a) same++; else only++ }
		END { printf "%d exports with the same CRC with and without Rust, %d with Rust alone", same, only }' \
		"$without" "$with")"
	verdict x86_64-debian/build modversions_crcs_unchanged "$([ -z "$bad" ]; echo $?)" "$bad"
}

# test_debian: 'make test-debian' for MMRUST_ARCHES.
test_debian() {
	local arch
	for arch in $arches; do
		flavour_start debian "Debian image (Debian's configuration, make mmrust.config, MODVERSIONS)" "$arch"
		debian_linked "$arch"
		[ "$arch" = x86_64 ] || continue
		modversions_check
		MMRUST_BOOT_TIMEOUT=${MMRUST_KSELFTEST_TIMEOUT:-1800} run_boot kselftest kselftest \
			hugetlb_free_vmemmap=on kunit.enable=0 "mmrust.vmtests=$(echo $VMTESTS_CATEGORIES | tr ' ' ,)"
		kselftest_results "$LOG" x86_64-debian/kselftest/rust
		run_boot test test hugetlb_free_vmemmap=on mmrust.only_present=1 kunit.enable=0
		boot_results "$LOG" x86_64-debian/boot/rust
	done
	unset MMRUST_FLAVOR
}

# test_lto: the SLUB push inlined into C (lto-check.sh), then one boot of
# the new implementations (testing.rst, "The boots").
test_lto() {
	local out ok
	flavour_start lto "LTO image (Clang ThinLTO, Rust objects in the link)"
	ok=0; out=$("$TOP/tools/testing/mmrust/lto-check.sh" 2>&1) || ok=$?
	echo "$out" | sed 's|^|[x86_64-lto/build] |'
	verdict x86_64-lto/build slub_push_inlined_into_c $ok "$(echo "$out" | tail -1)"
	run_boot rust test hugetlb_free_vmemmap=on init_on_free=1 preempt=full
	flavour_results rust
	unset MMRUST_FLAVOR
}

# test_stress: 'make stress' (testing.rst, "Stress").
test_stress() {
	local mins=${MMRUST_STRESS_MINUTES:-5} smp dbg="" label=stress
	case "$mins" in ''|*[!0-9]*|0) die "DURATION=$mins: a whole number of minutes, at least 1" ;; esac
	if [ "$MMRUST_ARCH" = x86_64 ] && [ "${MMRUST_DEBUG:-1}" = 1 ]; then
		export MMRUST_FLAVOR=debug
		dbg=$DEBUG_PARAMS
	fi
	. "$TOP/tools/testing/mmrust/lib.sh"
	[ "$NAME" = x86_64 ] || label=$NAME/stress
	export MMRUST_BOOT_TIMEOUT=$(( mins * 60 + 1200 ))
	for smp in ${MMRUST_STRESS_SMP:-2 4}; do
		say "== stress: $mins min on $smp vCPUs, $NAME image =="
		MMRUST_SMP=$smp run_boot "stress-smp$smp" stress mmrust.stress_secs=$(( mins * 60 )) \
			hugetlb_free_vmemmap=on preempt=full $dbg
		boot_results "$LOG" "$label/smp$smp"
	done
}

# test.sh one: testing.rst, "Results: KTAP"; mmrust.vmtests=: a kselftest boot.
if [ "$what" = one ]; then
	shift 2>/dev/null || true
	label=${1:?usage: test.sh one <label> <kernel parameters...>}; shift
	p=""
	[ "$NAME" = x86_64 ] || p="$NAME/"
	if [[ " $* " == *" mmrust.vmtests="* ]]; then
		MMRUST_BOOT_TIMEOUT=${MMRUST_BOOT_TIMEOUT:-${MMRUST_KSELFTEST_TIMEOUT:-1800}} \
			run_boot "$label" kselftest kunit.enable=0 "$@"
		kselftest_results "$LOG" "${p}kselftest/$label"
	else
		run_boot "$label" test "$@"
		[[ " $* " == *" kunit.enable=0 "* ]] || kunit_results "$LOG" "${p}kunit/$label"
		boot_results "$LOG" "${p}boot/$label"
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
	exit
fi

if [ "$what" = parse-selftest ]; then
	. "$TOP/tools/testing/mmrust/selftest-parse.sh"
	exit
fi

# 'make test' as a pipeline (testing.rst, "The images"): nice 19, so that the
# boots' QEMU gets the CPU first; each step leaves <step>.rc in $BG when done.
BG=$CACHE/logs/background
# background_builds <step>...: "build:<arch>", "build:<x86_64 flavour>", "matrix".
background_builds() {
	rm -rf "$BG" && mkdir -p "$BG"
	(
		set +e
		for step in "$@"; do
			case $step in
			build:debug|build:lto|build:gcc) MMRUST_ARCH=x86_64 MMRUST_FLAVOR=${step#build:} nice -n 19 \
				"$TOP/tools/testing/mmrust/build.sh" ;;
			build:*) MMRUST_ARCH=${step#build:} nice -n 19 "$TOP/tools/testing/mmrust/build.sh" ;;
			matrix) nice -n 19 "$TOP/tools/testing/mmrust/matrix.sh" ;;
			esac > "$BG/${step#*:}.log" 2>&1
			echo $? > "$BG/${step#*:}.rc"
		done
	) &
	BG_PID=$!
	trap cleanup_children EXIT
}

# cleanup_children: the background builds and boots, with what they run.
cleanup_children() {
	local p
	[ -z "${BG_PID:-}" ] || kill_tree "$BG_PID"
	for p in "${BOOT_PID[@]}"; do kill_tree "$p"; done
}

# kill_tree <pid>: the process and every descendant.
kill_tree() {
	local c
	for c in $(pgrep -P "$1" || true); do kill_tree "$c"; done
	kill "$1" 2>/dev/null || true
}

# background_wait <step> <label> [quiet]: wait for a background step; 0
# when it succeeded, else a failed verdict with the end of its log (quiet:
# no verdict, the caller counts what failed).
background_wait() {
	local t=0 rc
	while [ ! -f "$BG/$1.rc" ]; do
		sleep 5; t=$((t + 5))
		[ $((t % 60)) != 0 ] || say "  waiting for the background step $1 (${t}s): $(grep '^==>' "$BG/$1.log" 2>/dev/null | tail -1)"
	done
	rc=$(cat "$BG/$1.rc")
	[ "$rc" != 0 ] || return 0
	[ -z "${3:-}" ] || return 1
	tail -30 "$BG/$1.log" | sed "s|^|[$2]   |"
	verdict "$2" "background_$1" 1 "exit $rc, see $BG/$1.log"
	return 1
}

arches=" ${MMRUST_ARCHES:-$MMRUST_ARCH} "
case $what in
stress|debug|lto|gcc|debian) "test_$what" ;;
matrix)
	"$TOP/tools/testing/mmrust/matrix.sh" > "$LOGS/matrix-only.log" 2>&1 || true
	matrix_check "$LOGS/matrix-only.log"
	;;
all)
	# make built the first arch's image; the others, the x86_64 flavours (unless
	# MMRUST_DEBUG, MMRUST_LTO, MMRUST_GCC=0) and the matrix build behind its boots.
	set -- $arches
	first=$1; shift
	flavours="" steps=""
	[[ $arches != *" x86_64 "* ]] || for f in debug lto gcc; do
		v=MMRUST_${f^^}; [ "${!v:-1}" != 1 ] || flavours="$flavours $f"
	done
	for s in "$@" $flavours; do steps="$steps build:$s"; done
	# shellcheck disable=SC2086
	background_builds $steps matrix
	say "building in the background (nice 19):$steps matrix; logs in $BG"
	test_arch "$first"
	for arch in "$@"; do
		! background_wait "$arch" "$arch/build" || test_arch "$arch"
	done
	series_check
	kselftest_build_check
	ok=0; out=$(bash "$TOP/tools/testing/mmrust/test.sh" parse-selftest 2>&1) || ok=$?
	echo "$out" | grep -v '^selftest: ok ' | sed 's/^/[parse-selftest] /'
	verdict host parse_selftest $ok "$(echo "$out" | tail -1)"
	rusttest_check
	for f in $flavours; do
		! background_wait "$f" "x86_64-$f/build" || "test_$f"
	done
	# matrix_check counts the cells (and a matrix.sh without its table).
	background_wait matrix matrix quiet || true
	matrix_check "$BG/matrix.log"
	wait "$BG_PID" || true
	trap - EXIT
	;;
*)
	for arch in $arches; do
		test_arch "$arch"
	done
	;;
esac

[ "$xpassed" = 0 ] || echo "$xpassed expected skip(s) passed: see 'expected skip passed' above (expected-skips)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$passed" -gt 0 ]
