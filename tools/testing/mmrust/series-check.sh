#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make series-check': the series of 'make series', one patch at a time,
# each step compiled and checkpatch'ed (Documentation/mm/mmrust/testing.rst,
# "The series check").  The tree is a hard-linked copy of $PRISTINE, which
# patch(1) never writes through: it replaces a file it changes.
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

# objects <patch>: what the patch needs compiled: the objects of its files
# and of the Makefile lines it adds, "h:<header>", a directory for its
# Makefile, "scripts", "prepare" (configuration, generated headers, bindings).
objects() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1" | while read -r f; do
		case $f in
		tools/*|Documentation/*) ;;
		Kbuild|Makefile|*Kconfig*) echo prepare ;;
		*/Makefile*|*/Kbuild) echo "${f%/*}/" ;;
		scripts/*) echo scripts ;;
		rust/*) echo rust/ ;;	# the crates, the helpers, the bindings
		*.c|*.S|*.rs) echo "${f%.*}.o" ;;
		*.h) echo "h:$f" ;;
		esac
	done
	# The options a step adds: the files of the overlay that test them
	# are compiled again (a component switched on by its last patch).
	sed -n 's/^+\(menu\)\{0,1\}config \([A-Z0-9_]*\)$/\2/p' "$1" | while read -r c; do
		(cd "$tree" && grep -lw "CONFIG_$c" $(cat "$CACHE/manifest") 2>/dev/null) |
			while read -r f; do
				case $f in
				*.c|*.S|*.rs) echo "${f%.*}.o" ;;
				*.h) echo "h:$f" ;;
				esac
			done
	done
	awk '/^\+\+\+ b\// { d = $2; sub(/^b\//, "", d); sub(/\/[^\/]*$/, "", d); mk = ($2 ~ /Makefile[^\/]*$/) }
	     mk && /^\+obj-[^ ]* *[+:]= / { for (i = 3; i <= NF; i++) if ($i ~ /\.o$/) print d "/" $i }' "$1"
}

# enabled <build dir> <object>: a Makefile line this configuration builds
# names it (testing.rst, "The series check").
enabled() {
	local b=$1 o=$2 d c
	[ "$o" != rust/ ] || { grep -q '^CONFIG_RUST=y' "$b/.config"; return; }
	case $o in scripts|prepare|*/) return 0 ;; esac
	d=$(dirname "$o")
	# Continuation lines joined: mm/Makefile's obj-y spans several.
	c=$(cat "$tree/$d"/Makefile* "$tree/$d"/Kbuild 2>/dev/null | sed -e :a -e '/\\$/N; s/\\\n/ /; ta' |
		awk -v o="$(basename "$o")" '/^[a-z0-9_]+-(y|\$\(CONFIG_[A-Z0-9_]+\))[ \t]*[:+]?=[ \t]/ {
			for (i = 3; i <= NF; i++) if ($i == o) { print $1; exit } }') || true
	case $c in
	'') return 1 ;;
	*-y) return 0 ;;
	*) c=${c#*-\$\(}; c=${c%%)*}; grep -Eq "^$c=[ym]" "$b/.config" ;;
	esac
}

# compile_step <arch>[-norust] <objects...>: configure and compile the
# objects in $CACHE/build/series-check-<arch>[-norust] (-norust: RUST=n).
compile_step() {
	local cfg=$1 arch=${1%-norust} b=$CACHE/build/series-check-$1 o objs=""; shift
	MMRUST_ARCH=$arch
	. "$TOP/tools/testing/mmrust/lib.sh"
	# lib.sh's make, on this tree and into this build directory.
	MK=("${KMAKE[@]/#O=*/O=$b}")
	MK=("${MK[@]/#$SRC/$tree}")
	mkdir -p "$b"
	arch_fragment "$arch" | grep '^CONFIG_' > "$b/.mmrust-allconfig"
	[ "$cfg" = "$arch" ] || { sed -i '/^CONFIG_RUST=/d' "$b/.mmrust-allconfig"; echo 'CONFIG_RUST=n' >> "$b/.mmrust-allconfig"; }
	# testing.rst, "The series check" ($kconfig_gen: the steps that change Kconfig).
	if [ "$(cat "$b/.mmrust-kconfig-gen" 2>/dev/null)" != "$kconfig_gen" ]; then
		"${MK[@]}" KCONFIG_ALLCONFIG="$b/.mmrust-allconfig" allnoconfig > "$b/.step.log" 2>&1 || return 1
		echo "$kconfig_gen" > "$b/.mmrust-kconfig-gen"
	else
		: > "$b/.step.log"
	fi
	for o in "$@"; do
		case $o in
		# A header: testing.rst, "The series check".
		h:*) o=$(grep -rlF --include='.*.o.cmd' "$tree/${o#h:}" "$b" 2>/dev/null |
			grep -v '/\.tmp_\|/scripts/\|/tools/' |
			sed "s|^$b/||; s|/\.\([^/]*\)\.cmd\$|/\1|; s|^\.\([^/]*\)\.cmd\$|\1|" |
			while read -r x; do ! enabled "$b" "$x" || echo "$x"; done | head -2 | tr '\n' ' ') || true
		     objs="$objs $o" ;;
		*) ! enabled "$b" "$o" || objs="$objs $o" ;;
		esac
	done
	echo $objs > "$b/.step-objects"
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086
	compile_objects "$b" $objs >> "$b/.step.log" 2>&1
}

rows=() bad=0 n=0 start=$(date +%s) done_cfgs= kconfig_gen=$$.0

for p in "$series"/[0-9]*.patch; do
	case $p in */0000-cover-letter.patch) continue ;; esac
	n=$((n + 1))
	name=$(basename "$p" .patch)
	if ! (cd "$tree" && patch -s -p1 --no-backup-if-mismatch < "$p") > /dev/null; then
		rows+=("$(printf '%-62s | %-28s | %s' "$name" "FAILED (does not apply)" -)")
		bad=1
		break
	fi
	objs=$(objects "$p" | sort -u | tr '\n' ' ')
	[[ " $objs " != *" prepare "* ]] || kconfig_gen=$$.$n
	[ "$n" -ge "$from" ] || continue
	built="ok"
	rm -f "$CACHE"/build/series-check-*/.step-objects
	for cfg in x86_64 x86_64-norust arm64; do
		arch=${cfg%-norust}
		# arm64 for the patches of arm64 and of its contpte.
		[ $cfg != arm64 ] || grep -Eq '^\+\+\+ b/(arch/arm64/|.*contpte)' "$p" || continue
		# RUST=n for the patches of C outside rust/.
		[ $cfg != x86_64-norust ] || grep -Ev '^\+\+\+ b/rust/' "$p" | grep -Eq '^\+\+\+ b/.*\.[chS]$' || continue
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
		if ! compile_step $cfg $o; then
			built="FAILED ($cfg)"
			bad=1
			grep -E 'error|Error|No rule' "$CACHE/build/series-check-$cfg/.step.log" | head -5 |
				sed "s|^|[series-check $name $cfg]   |" >&2
			break
		fi
		# Named when it compiled something.
		[ -z "$(cat "$CACHE/build/series-check-$cfg/.step-objects" 2>/dev/null)" ] ||
			done_cfgs="${done_cfgs:+$done_cfgs, }${cfg/x86_64-norust/RUST=n}"
	done
	if [ "$built" = ok ]; then
		built="ok ($done_cfgs)"
		[ -n "$(cat "$CACHE"/build/series-check-*/.step-objects 2>/dev/null)" ] ||
			built="ok (nothing to compile)"
	fi
	done_cfgs=
	cp=$("$SRC/scripts/checkpatch.pl" --strict --no-tree --quiet "$p" 2>/dev/null |
		awk '/^ERROR/ {e++} /^WARNING/ {w++} /^CHECK/ {c++} END {printf "%d/%d/%d", e, w, c}') || true
	# What checkpatch reports and why it stays: the patch's notes.
	[ "$cp" = 0/0/0 ] || ! grep -q '^Notes:' "$p" || cp="$cp, explained in its notes"
	rows+=("$(printf '%-62s | %-28s | %s' "$name" "$built" "$cp")")
	say "  $name: $built, checkpatch $cp ($(( $(date +%s) - start ))s)"
done

printf '%-62s | %-28s | %s\n' patch builds "checkpatch (errors/warnings/checks)"
printf '%s\n' "${rows[@]}"
say "series-check: $n patches in $(( $(date +%s) - start ))s"
exit $bad
