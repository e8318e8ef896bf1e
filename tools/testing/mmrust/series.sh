#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The overlay as one patch series, laid out by patches/overlay
# (Documentation/mm/mmrust/applying.rst):
#   series.sh          write it to $MMRUST_SERIES_DIR (default $CACHE/series)
#   series.sh --check  also check that 'git am' of it gives the prepared tree
# Both trees hold only the files the series touches: they apply the same.
. "$(dirname "$0")/lib.sh"

out=${MMRUST_SERIES_DIR:-$CACHE/series}
plan=$TOP/patches/overlay
manifest=$CACHE/manifest
[ -f "$manifest" ] && [ -d "$SRC" ] || die "no prepared tree: run 'make prepare'"

# Author and Signed-off-by: MMRUST_SIGNOFF, else git's identity, else a
# placeholder (replace it: a sign-off certifies the DCO).
signoff=${MMRUST_SIGNOFF:-}
if [ -z "$signoff" ] && n=$(git config user.name) && e=$(git config user.email); then
	signoff="$n <$e>"
fi
signoff=${signoff:-mmrust <mmrust@example.org>}
[[ $signoff =~ ^([^<]*[^<\ ])\ *\<([^>]+@[^>]+)\>$ ]] ||
	die "MMRUST_SIGNOFF='$signoff': expected \"Name <email>\""
export GIT_AUTHOR_NAME=${BASH_REMATCH[1]} GIT_AUTHOR_EMAIL=${BASH_REMATCH[2]}
export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
export GIT_AUTHOR_DATE='2026-01-01 00:00:00 +0000' GIT_COMMITTER_DATE='2026-01-01 00:00:00 +0000'
git_() { git -c init.defaultBranch=main -c core.autocrlf=false -c commit.gpgsign=false "$@"; }

# The base files the hooks change, and a git tree of their plain versions.
hooks=$(grep -v '^#' "$TOP/patches/series")
hooked=$(for p in $hooks; do sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$TOP/patches/$p"; done | sort -u)
base_tree() {  # base_tree <dir>
	rm -rf "$1" && mkdir -p "$1"
	for f in $hooked; do
		mkdir -p "$1/$(dirname "$f")" && cp "$PRISTINE/$f" "$1/$f"
	done
	(cd "$1" && git_ init -q && git_ add -A && git_ commit -q -m "Linux $(cut -d' ' -f1 "$CACHE/base/VERSION") (the files the series changes)" && git_ tag base)
}

work=$CACHE/series-work
base_tree "$work"
new_files=$(comm -23 "$manifest" <(echo "$hooked"))
used=$CACHE/series-used
: > "$used"
# source_of <file>: where a new file of the overlay comes from: the
# checkout, not the prepared tree, which --check compares the result with
# (the repository's Kconfig is installed as mm/Kconfig.mmrust).
source_of() {
	if [ "$1" = mm/Kconfig.mmrust ]; then echo "$TOP/Kconfig"; else echo "$TOP/$1"; fi
}

# The files the series adds in parts ("+ <path> /<regex>/"): the regexes
# claimed so far, one file each.
parts=$CACHE/series-parts
rm -rf "$parts" && mkdir -p "$parts"

# The pending commit ("= " or "@ ", patches/overlay's header); "! " lines
# are its notes, which format-patch puts below the "---".
subject= body= msg= notes=
flush() {
	[ -n "$subject" ] || [ -n "$msg" ] || return 0
	[ -n "$msg" ] || msg=$(printf '%s\n\n%s\n' "$subject" "$body")
	(cd "$work" && git_ add -A && printf '%s\n' "$msg" | git_ commit -q -s -F -) ||
		die "patches/overlay: '$subject' adds nothing"
	[ -z "$notes" ] || (cd "$work" && printf '%s\n' "$notes" | git_ notes add -F - HEAD)
	subject= body= msg= notes=
}
while IFS= read -r line; do
	case "$line" in
	''|'#'*) ;;
	'= '*) flush; subject=${line#= } ;;
	'| '*|'|') t=${line#|}; body="$body${body:+$'\n'}${t# }" ;;
	'! '*|'!') t=${line#!}; notes="$notes${notes:+$'\n'}${t# }" ;;
	'+ '*' /'*/)
		# A part of a file: the blocks whose first line matches the regex.
		p=${line#+ } re=${p#* /} p=${p%% /*}
		re=${re%/}
		grep -Fxq "$p" <<< "$new_files" || die "patches/overlay: '$p' is no new file of the overlay"
		from=$(source_of "$p")
		state=$parts/$(echo "$p" | tr / %)
		[ -f "$state" ] || echo "$p" >> "$used"
		printf '%s\n' "$re" >> "$state"
		mkdir -p "$work/$(dirname "$p")"
		python3 "$TOP/tools/testing/mmrust/series-parts.py" write "$from" "$state" > "$work/$p" ||
			die "patches/overlay: $p /$re/"
		;;
	'+ '*)
		p=${line#+ }
		case "$p" in
		*/) files=$(echo "$new_files" | grep "^$p" || true) ;;
		*) files=$(echo "$new_files" | grep -Fx "$p" || true) ;;
		esac
		[ -n "$files" ] || die "patches/overlay: '$p' is no new file of the overlay"
		for f in $files; do
			from=$(source_of "$f")
			mkdir -p "$work/$(dirname "$f")" && cp "$from" "$work/$f"
			echo "$f" >> "$used"
		done
		;;
	'@ '*)
		flush
		p=${line#@ }
		# A here-string, not "echo | grep -q": under pipefail, grep
		# -q leaving early makes echo die of SIGPIPE (seen once).
		grep -Fxq "$p" <<< "$hooks" || die "patches/overlay: $p is not in patches/series"
		echo "@$p" >> "$used"
		(cd "$work" && git_ apply "$TOP/patches/$p") || die "hook $p does not apply"
		# Its header: "Subject: [PATCH] <subject>", then the body up to
		# "---"; committed with the "+ " files that follow it, if any.
		msg=$(awk 'NR == 1 { sub(/^Subject: (\[PATCH\] )?/, ""); print; next }
		     /^---$/ { exit } { print }' "$TOP/patches/$p")
		;;
	*) die "patches/overlay: cannot read '$line'" ;;
	esac
done < "$plan"
flush
missing=$(comm -23 <({ echo "$new_files"; echo "$hooks" | sed 's/^/@/'; } | sort) <(sort "$used"))
[ -z "$missing" ] || die "patches/overlay: files of the overlay in no patch: $missing"
twice=$(sort "$used" | uniq -d)
[ -z "$twice" ] || die "patches/overlay: files in two patches: $twice"
for state in "$parts"/*; do
	[ -f "$state" ] || continue
	f=$(basename "$state" | tr % /)
	from=$(source_of "$f")
	python3 "$TOP/tools/testing/mmrust/series-parts.py" complete "$from" "$state" ||
		die "patches/overlay: $f is not added whole"
done

rm -rf "$out" && mkdir -p "$out"
(cd "$work" && git_ format-patch -q -o "$out" --no-signature --notes --cover-letter base..HEAD)
# The cover letter: its subject and text from patches/cover-letter (first
# line, then the rest), for format-patch's placeholders.
cover=$out/0000-cover-letter.patch
python3 - "$cover" "$TOP/patches/cover-letter" <<'PY' || die "cannot write the cover letter"
import sys
path, src = sys.argv[1], sys.argv[2]
subject, _, text = open(src).read().partition("\n")
letter = open(path).read()
if "*** SUBJECT HERE ***" not in letter or "*** BLURB HERE ***" not in letter:
    sys.exit("no placeholders in " + path)
letter = letter.replace("*** SUBJECT HERE ***", subject.strip())
letter = letter.replace("*** BLURB HERE ***", text.strip())
open(path, "w").write(letter)
PY
say "series: $(ls "$out" | grep -vc '^0000-') patches and a cover letter in $out (apply with 'git am' on a git tree of Linux $(cut -d' ' -f1 "$CACHE/base/VERSION"))"

[ "${1:-}" = --check ] || exit 0
check=$CACHE/series-check
base_tree "$check"
(cd "$check" && git_ am -q $(ls "$out"/*.patch | grep -v '/0000-cover-letter\.patch$')) ||
	die "the series does not apply with git am"
diff <(cd "$check" && git ls-files | sort) "$manifest" > /dev/null ||
	die "the series yields other files than the prepared tree: $(diff <(cd "$check" && git ls-files | sort) "$manifest" | head -5)"
while read -r f; do
	cmp -s "$check/$f" "$SRC/$f" || die "the series yields a different $f than the prepared tree"
done < "$manifest"
say "series: applies with git am to the plain base and yields the prepared tree ($(wc -l < "$manifest") files)"
