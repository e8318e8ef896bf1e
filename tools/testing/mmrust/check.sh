#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Style checks of our code (testing.rst, "Other checks"); clippy needs a
# built tree.
. "$(dirname "$0")/lib.sh"

cd "$TOP"
rc=0 series=$(grep -v '^#' patches/series)
ours() { for d in mm include rust arch samples tools/testing/mmrust tools/testing/mmrust-bench tools/testing/slub_partial tools/testing/selftests; do [ ! -d $d ] || find $d -name "$1"; done | sort; }
cfiles=$(ours '*.[ch]')
rsfiles=$(ours '*.rs')

say "checkpatch: $(echo $cfiles | wc -w) C files, $(echo $series | wc -w) patches"
for f in $cfiles; do
	"$SRC/scripts/checkpatch.pl" --no-tree --quiet -f "$f" || rc=1
done
for p in $series; do
	# A Kconfig "source" line names a file by design (EMBEDDED_FILENAME); this
	# checkpatch reads the diffs' blank context lines (a lone space) as trailing
	# whitespace (TRAILING_WHITESPACE; our C files are checked for it above).
	# The Fixes: ids are mainline's, unknown to this repository's git (UNKNOWN_COMMIT_ID).
	"$SRC/scripts/checkpatch.pl" --no-tree --quiet --no-signoff \
		--ignore EMBEDDED_FILENAME,TRAILING_WHITESPACE,UNKNOWN_COMMIT_ID "patches/$p" || rc=1
done

kfiles=$(echo "$cfiles" | grep -v '^tools/')
say "kernel-doc -Wall: $(echo $kfiles | wc -w) C files and headers"
for f in $kfiles; do
	out=$("$SRC/scripts/kernel-doc" -none -Wall "$f" 2>&1)
	[ -z "$out" ] || { echo "$out"; rc=1; }
done

# kernel-doc on the base's files that the hooks change: a warning of the
# prepared file that the pristine one does not have (paths and line
# numbers aside) comes from a hook's lines.
hooked=$(for p in $series; do
	sed -n 's|^+++ b/\([^[:space:]]*\.[ch]\).*|\1|p' "patches/$p"; done | sort -u)
say "kernel-doc -Wall: $(echo $hooked | wc -w) hooked base files, new warnings only"
kdoc_msgs() { "$SRC/scripts/kernel-doc" -none -Wall "$1" 2>&1 | sed -E 's|^[^ ]*:[0-9]+: ||' | sort; }
for f in $hooked; do
	[ -f "$PRISTINE/$f" ] || continue
	out=$(comm -23 <(kdoc_msgs "$SRC/$f") <(kdoc_msgs "$PRISTINE/$f"))
	[ -z "$out" ] || { echo "$f (hooked): $out"; rc=1; }
done

docs=$(ls Documentation/mm/mmrust/*.rst 2>/dev/null)
say "checkpatch: $(echo $docs | wc -w) documentation pages"
for f in $docs; do
	"$SRC/scripts/checkpatch.pl" --no-tree --quiet -f "$f" || rc=1
	[ "$(basename "$f")" = index.rst ] ||
		grep -Eq "^ +$(basename "$f" .rst)\$" Documentation/mm/mmrust/index.rst ||
		{ echo "$f: not in Documentation/mm/mmrust/index.rst"; rc=1; }
done

say "rustfmt --check: $(echo $rsfiles | wc -w) files"
for f in $rsfiles; do
	/usr/bin/rustfmt --check --edition 2021 --config-path "$SRC/.rustfmt.toml" "$f" || rc=1
done

say "clippy (CLIPPY=1) on our Rust objects"
# clippy <object> <pattern>: rebuild one object with clippy; its findings
# in files matching <pattern> count.
clippy() {
	local out
	rm -f "$BUILD/$1"
	out=$("${KMAKE[@]}" CLIPPY=1 "$1" 2>&1) || { echo "$out" | tail -20; rc=1; return; }
	# grep to /dev/null, not -q: under pipefail, -q leaving early could
	# kill the first grep with SIGPIPE and hide the warning.
	if grep -A4 '^warning\|^error' <<< "$out" | grep -- "--> $2" > /dev/null; then
		echo "$out"
		rc=1
	fi
	say "  $1: $(echo "$out" | grep -c ' CLIPPY ') crate(s) checked"
}
# Crate roots only: files in a subdirectory are modules of the crate beside
# it.  The kernel crate is checked for our modules (rust/kernel/mm*) only.
for f in $(echo "$rsfiles" | grep -E '^(mm|samples/rust)/[^/]+\.rs$'); do
	clippy "${f%.rs}.o" "$f"
done
clippy rust/kernel.o 'rust/kernel/mm'
[ $rc = 0 ] && say "check: clean" || say "check: findings above"
exit $rc
