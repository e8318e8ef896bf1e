#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make mutants': the suite must bite.  Each file of mutants/ is a small,
# plausible bug as a patch of the prepared tree, with a header naming the
# smallest part of 'make test' that should catch it:
#
#   # Mutation: <what the bug is>
#   # Image: x86_64 | arm64 | x86_64-debug | x86_64-lto | host
#   # Run: <kernel parameters of one boot> (not for host)
#   # Expect: <test name pattern> ...   (shell patterns, one must fail;
#   #         "(build)" for a bug the build itself must refuse)
#   --- a/<path>
#   +++ b/<path>
#   ...
#
# For each (ONLY=<name>[,<name>...] picks some): apply it to the prepared tree, rebuild
# the image incrementally (host: the host tests, rusttest.sh), boot it once
# with the parameters of its Run line ('test.sh one'), take it back off,
# and record which of the expected tests failed.  Ends with the table
# "mutation | caught by | time" and a rebuild of the images it touched,
# unmutated; exits non-zero if a mutation survived (or did not apply).
# Not part of 'make test': every mutation is a build and a boot.
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

# A mutation applied is taken back off however this script ends (the next
# 'make mutants' or 'make prepare' would restore the tree anyway).
applied=""
trap '[ -z "$applied" ] || patch -s -R -p1 -d "$SRC" < "$applied"' EXIT
# The Expect patterns are matched, never expanded against files.
set -f
rows=""
survived=0
touched=""
set +f
files=$(ls "$dir"/*.patch 2>/dev/null) || die "no mutations in $dir"
set -f
start_all=$(date +%s)
for f in $files; do
	name=$(basename "$f" .patch)
	if [ -n "$only" ]; then
		# ONLY: names, with or without their number, or numbers alone,
		# comma-separated.
		case ",$only," in *",$name,"*|*",${name#*-},"*|*",${name%%-*},"*) ;; *) continue ;; esac
	fi
	image=$(field "$f" Image) run=$(field "$f" Run) expect=$(field "$f" Expect)
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
	caught=""
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
			failures="(build)"
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
	if [ -z "$caught" ]; then
		survived=$((survived + 1))
		caught="SURVIVED (failed: $(echo $failures | tr '\n' ' ' | cut -c1-80))"
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
