#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make series-check': the series of 'make series', one patch at a time,
# on a copy of the plain base, each step compiled and checkpatch'ed:
#
#   - the tree: a hard-linked copy of the plain base ($PRISTINE, which
#     patch(1) never writes through: it replaces a file it changes), the
#     patches applied in order;
#   - at each step, x86_64 (and arm64 where the patch touches arch/arm64/):
#     configured from allnoconfig with the test image's fragment (symbols
#     the step does not have yet are ignored) and the objects the step
#     adds or changes compiled with kbuild's single-object targets, those
#     a Makefile line of the step names included (the Rust crates first
#     when the configuration has Rust).  Not a link of each step: the
#     complete series is linked by 'make build';
#   - checkpatch.pl --strict on the patch.
#
# Prints "patch | builds | checkpatch" (checkpatch: errors/warnings/checks)
# and exits non-zero when a step does not apply or does not compile.
#   MMRUST_SERIES_CHECK_FROM=<n>: start the table at patch n (the patches
#   before it are applied, not checked).
. "$(dirname "$0")/lib.sh"

"$TOP/tools/testing/mmrust/series.sh" >&2
series=${MMRUST_SERIES_DIR:-$CACHE/series}
tree=$CACHE/series-check-src
from=${MMRUST_SERIES_CHECK_FROM:-1}
say "series-check: a copy of the plain base in $tree"
rm -rf "$tree"
cp -al "$PRISTINE" "$tree"

# objects <patch>: the objects of the files the patch adds or changes, and
# those the Makefile lines it adds name (obj-y / obj-$(CONFIG_...));
# "scripts" when it changes scripts/ (the Rust target, host programs);
# "prepare" for a Kconfig or top-level kbuild file (configuration,
# generated headers, the Rust bindings); a directory for its Makefile.
objects() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1" | while read -r f; do
		case $f in
		tools/*|Documentation/*) ;;
		Kbuild|Makefile|*Kconfig*) echo prepare ;;
		*/Makefile*|*/Kbuild) echo "${f%/*}/" ;;
		scripts/*) echo scripts ;;
		rust/*) echo rust/ ;;	# the crates, the helpers, the bindings
		*.c|*.S|*.rs) echo "${f%.*}.o" ;;
		esac
	done
	awk '/^\+\+\+ b\// { d = $2; sub(/^b\//, "", d); sub(/\/[^\/]*$/, "", d); mk = ($2 ~ /Makefile[^\/]*$/) }
	     mk && /^\+obj-[^ ]* *[+:]= / { for (i = 3; i <= NF; i++) if ($i ~ /\.o$/) print d "/" $i }' "$1"
}

# enabled <build dir> <object>: a Makefile of the object's directory names
# it in a line this configuration builds (obj-y, or obj-$(CONFIG_X) with X
# on).  Objects no Makefile names (user-space programs, the other
# architecture's code) are not kernel objects of this configuration.
enabled() {
	local b=$1 o=$2 d c
	[ "$o" != rust/ ] || { grep -q '^CONFIG_RUST=y' "$b/.config"; return; }
	case $o in scripts|prepare|*/) return 0 ;; esac
	d=$(dirname "$o")
	c=$(cat "$tree/$d"/Makefile* "$tree/$d"/Kbuild 2>/dev/null |
		awk -v o="$(basename "$o")" '/^obj-/ { for (i = 3; i <= NF; i++) if ($i == o) { print $1; exit } }') || true
	case $c in
	'') return 1 ;;
	obj-y) return 0 ;;
	*) c=${c#obj-\$\(}; c=${c%%)*}; grep -Eq "^$c=[ym]" "$b/.config" ;;
	esac
}

# compile_step <arch> <objects...>: configure (when Kconfig changed) and
# compile the objects in $CACHE/build/series-check-<arch>.
compile_step() {
	local arch=$1 b=$CACHE/build/series-check-$1 o objs=""; shift
	MMRUST_ARCH=$arch
	. "$TOP/tools/testing/mmrust/lib.sh"
	# lib.sh's make, on this tree and into this build directory.
	MK=("${KMAKE[@]/#O=*/O=$b}")
	MK=("${MK[@]/#$SRC/$tree}")
	mkdir -p "$b"
	grep '^CONFIG_' "$TOP/tools/testing/mmrust/configs/$arch.config" > "$b/.mmrust-allconfig"
	"${MK[@]}" KCONFIG_ALLCONFIG="$b/.mmrust-allconfig" allnoconfig > "$b/.step.log" 2>&1 || return 1
	for o in "$@"; do
		! enabled "$b" "$o" || objs="$objs $o"
	done
	echo $objs > "$b/.step-objects"
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086
	compile_objects "$b" $objs >> "$b/.step.log" 2>&1
}

rows=() bad=0 n=0 start=$(date +%s)
for p in "$series"/[0-9]*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	name=$(basename "$p" .patch)
	if ! (cd "$tree" && patch -s -p1 --no-backup-if-mismatch < "$p") > /dev/null; then
		rows+=("$(printf '%-62s | %-24s | %s' "$name" "FAILED (does not apply)" -)")
		bad=1
		break
	fi
	[ "$n" -ge "$from" ] || continue
	objs=$(objects "$p" | sort -u | tr '\n' ' ')
	built="ok"
	rm -f "$CACHE"/build/series-check-*/.step-objects
	for arch in x86_64 arm64; do
		# arm64 for the patches of arm64 and of its contpte.
		[ $arch = x86_64 ] || grep -Eq '^\+\+\+ b/(arch/arm64/|.*contpte)' "$p" || continue
		# An object of the other architecture's tree is not built here.
		o=""
		for x in $objs; do
			case $x in
			arch/x86/*) [ $arch != x86_64 ] || o="$o $x" ;;
			arch/arm64/*) [ $arch != arm64 ] || o="$o $x" ;;
			*) o="$o $x" ;;
			esac
		done
		# shellcheck disable=SC2086
		if ! compile_step $arch $o; then
			built="FAILED ($arch)"
			bad=1
			grep -E 'error|Error|No rule' "$CACHE/build/series-check-$arch/.step.log" | head -5 |
				sed "s|^|[series-check $name $arch]   |" >&2
			break
		fi
		[ $arch = x86_64 ] || built="ok (x86_64, arm64)"
	done
	cp=$("$SRC/scripts/checkpatch.pl" --strict --no-tree --quiet "$p" 2>/dev/null |
		awk '/^ERROR/ {e++} /^WARNING/ {w++} /^CHECK/ {c++} END {printf "%d/%d/%d", e, w, c}') || true
	[ -n "$(cat "$CACHE"/build/series-check-*/.step-objects 2>/dev/null)" ] || [ "$built" != ok ] ||
		built="ok (nothing to compile)"
	rows+=("$(printf '%-62s | %-24s | %s' "$name" "$built" "$cp")")
	say "  $name: $built, checkpatch $cp ($(( $(date +%s) - start ))s)"
done

printf '%-62s | %-24s | %s\n' patch builds "checkpatch (errors/warnings/checks)"
printf '%s\n' "${rows[@]}"
say "series-check: $n patches in $(( $(date +%s) - start ))s"
exit $bad
