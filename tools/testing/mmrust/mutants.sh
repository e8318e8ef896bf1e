#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make mutants': the suite must bite (Documentation/mm/mmrust/testing.rst,
# "The suite bites: make mutants").  Each file of mutants/ is a patch with
# this header:
#
#   # Mutation: <what the bug is>
#   # Image: x86_64 | arm64 | x86_64-debug | x86_64-lto | host
#   # Run: <kernel parameters of one boot> (not for host)
#   # Expect: <test name pattern> ...   (shell patterns, one must fail;
#   #         "(build)" for a bug the build itself must refuse)
#   # Build-error: <string>   (with "(build)": a fixed string one of the
#   #         build's error lines must contain, e.g. rustc's code E0308)
#   --- a/<path>
#   ...
. "$(dirname "$0")/lib.sh"

dir=$TOP/tools/testing/mmrust/mutants
only=${MMRUST_MUTANTS_ONLY:-}
out=$LOGS/mutants
mkdir -p "$out"
[ -d "$SRC" ] || die "no prepared tree: run 'make prepare' first"

# field <file> <name>: the value of the header line "# <name>: ...".
field() { sed -n "s/^# $2: *//p" "$1" | head -1; }

# image_env <image>: the MMRUST_ARCH and MMRUST_FLAVOR of an image name.
image_env() {
	case $1 in
	x86_64) echo "MMRUST_ARCH=x86_64 MMRUST_FLAVOR=" ;;
	arm64) echo "MMRUST_ARCH=arm64 MMRUST_FLAVOR=" ;;
	x86_64-debug) echo "MMRUST_ARCH=x86_64 MMRUST_FLAVOR=debug" ;;
	x86_64-lto) echo "MMRUST_ARCH=x86_64 MMRUST_FLAVOR=lto" ;;
	*) return 1 ;;
	esac
}

# build_image <image>: an incremental build; 0 when it built.
build_image() {
	# shellcheck disable=SC2046
	env $(image_env "$1") "$TOP/tools/testing/mmrust/build.sh"
}

# ERROR_LINE: a build's error lines (grep -E): rustc's "error[E0308]:
# ...", a compiler's, assembler's or linker's "error: ...", not make's
# "*** [...] Error 1".
ERROR_LINE='(^|[^[:alnum:]_])error(\[[A-Z][0-9]+\])?:'

# build_error_check <log> <string>: 0 when an error line contains <string>;
# else "another error: <the first but build.sh's own, or the last line>".
build_error_check() {
	local first
	# (grep -F reads to the end: an early exit of grep -q would make the
	# first grep fail on SIGPIPE, a no-match under pipefail)
	[ -z "$2" ] || ! grep -E "$ERROR_LINE" "$1" | grep -F -- "$2" > /dev/null || return 0
	first=$(grep -E "$ERROR_LINE" "$1" | grep -v '^error: kernel build failed' | head -1 || true)
	[ -n "$first" ] || first=$(grep -v '^[[:space:]]*$' "$1" | tail -1 || true)
	echo "another error: $(echo "${first:-(an empty log)}" | sed 's/^[[:space:]]*//' | cut -c1-120)"
	return 1
}

# A mutation applied is taken back off however this script ends (the next
# 'make mutants' or 'make prepare' would restore the tree anyway).
applied=""
trap '[ -z "$applied" ] || patch -s -R -p1 -d "$SRC" < "$applied"' EXIT
rows="" survived=0 touched=""
files=$(ls "$dir"/*.patch 2>/dev/null) || die "no mutations in $dir"
# The Expect patterns are matched, never expanded against files.
set -f
start_all=$(date +%s)
for f in $files; do
	name=$(basename "$f" .patch)
	if [ -n "$only" ]; then
		# ONLY: names, with or without their number, or numbers.
		case ",$only," in *",$name,"*|*",${name#*-},"*|*",${name%%-*},"*) ;; *) continue ;; esac
	fi
	image=$(field "$f" Image) run=$(field "$f" Run) expect=$(field "$f" Expect)
	build_error=$(field "$f" Build-error)
	[ -n "$image" ] && [ -n "$expect" ] || die "$name: no Image or Expect line"
	say "mutant $name: $(field "$f" Mutation) ($image)"
	start=$(date +%s)
	log=$out/$name.log
	if ! patch -s -p1 -d "$SRC" --dry-run < "$f" > "$log" 2>&1; then
		rows="$rows$name | does not apply | -\n"; survived=$((survived + 1))
		continue
	fi
	patch -s -p1 -d "$SRC" < "$f"
	applied=$f
	caught="" why=""
	if [ "$image" = host ]; then
		MMRUST_RUSTTEST_ROOT=$SRC "$TOP/tools/testing/mmrust/rusttest.sh" >> "$log" 2>&1 || true
		failures=$(sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$log")
	else
		[[ " $touched " == *" $image "* ]] || touched="$touched $image"
		if build_image "$image" >> "$log" 2>&1; then
			# shellcheck disable=SC2046,SC2086
			env $(image_env "$image") "$TOP/tools/testing/mmrust/test.sh" one "mutant-$name" $run >> "$log" 2>&1 || true
			# Failures by name (a skip this ad-hoc boot's label does not
			# expect is not one).
			failures=$(grep -v ': unexpected skip' "$log" |
				sed -n 's/^\[[^]]*\] mmrust: not ok \([^: ]*\).*/\1/p' | sed 's/,$//') || true
		else
			# The kernel's own log after build.sh's summary of it.
			echo "==> $(build_log "$image"):" >> "$log"
			cat "$(build_log "$image")" >> "$log" 2>/dev/null || true
			failures=""
			if why=$(build_error_check "$log" "$build_error"); then
				failures="(build)"
			else
				why="build failed with $why"
				[ -n "$build_error" ] || [[ " $expect " != *" (build) "* ]] ||
					say "mutant $name: no Build-error line: a failed build counts as caught only with the error it names"
			fi
		fi
	fi
	patch -s -R -p1 -d "$SRC" < "$f"
	applied=""
	for pat in $expect; do
		for t in $failures; do
			# shellcheck disable=SC2254
			case $t in $pat) caught="$caught $t" ;; esac
		done
	done
	caught=$(echo $caught | tr ' ' '\n' | sort -u | paste -sd' ')
	if [ -n "$why" ]; then
		survived=$((survived + 1))
		caught="SURVIVED ($why)"
	elif [ -z "$caught" ]; then
		survived=$((survived + 1))
		caught="SURVIVED (failed: $(echo $failures | tr '\n' ' ' | cut -c1-80))"
	elif [ "$caught" = "(build)" ]; then
		caught="(build: $build_error)"
	fi
	rows="$rows$name | $caught | $(( $(date +%s) - start )) s\n"
	say "mutant $name: $caught (log: $log)"
done
[ -n "$rows" ] || die "no mutation named $only"

# The images as they were: rebuilt from the unmutated tree.
for image in $touched; do
	say "rebuilding the $image image unmutated"
	build_image "$image" > "$out/rebuild-$image.log" 2>&1 || { tail -20 "$out/rebuild-$image.log"; die "rebuild failed"; }
done
echo
echo "mutation | caught by | time"
echo "---|---|---"
printf '%b' "$rows"
echo
echo "mutants: $(printf '%b' "$rows" | wc -l) run, $survived survived, $(( $(date +%s) - start_all )) s"
[ "$survived" = 0 ]
