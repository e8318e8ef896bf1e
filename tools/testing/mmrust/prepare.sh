#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the base (once), then lay the overlay and the patch series over a
# copy of it.  Only files whose content changes are written, so a no-change
# run leaves every timestamp alone and the next build recompiles nothing.
. "$(dirname "$0")/lib.sh"

[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing: run 'make setup' (package linux-source-6.12)"

mkdir -p "$CACHE/base"
if [ ! -f "$CACHE/base/sha256" ]; then
	say "unpacking $BASE_TARBALL (about 20 s)"
	rm -rf "$PRISTINE"
	tar -C "$CACHE/base" -xf "$BASE_TARBALL"
	sha256sum "$BASE_TARBALL" | cut -d' ' -f1 > "$CACHE/base/sha256"
fi
v=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' "$PRISTINE/Makefile" | paste -sd.)
case "$v" in
6.12.*) ;;
*) die "base is Linux $v, this project needs 6.12 (linux-source-6.12)" ;;
esac
[ "${v##*.}" = "$EXPECTED_SUBLEVEL" ] ||
	printf 'warning: base is %s; the project was built and measured against 6.12.%s\n' "$v" "$EXPECTED_SUBLEVEL" >&2
say "base: Linux $v, tarball sha256 $(cat "$CACHE/base/sha256")"
printf '%s %s\n' "$v" "$(cat "$CACHE/base/sha256")" > "$CACHE/base/VERSION"

if [ ! -d "$SRC" ]; then
	say "copying the base to $SRC"
	cp -a "$PRISTINE" "$SRC.tmp" && mv "$SRC.tmp" "$SRC"
fi

# Stage the wanted content of every file we own or patch.
stage=$CACHE/stage
rm -rf "$stage" && mkdir -p "$stage"
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$TOP/patches/$p"); do
		[ -e "$stage/$f" ] && continue
		mkdir -p "$stage/$(dirname "$f")"
		cp "$PRISTINE/$f" "$stage/$f"
	done
	patch -s -p1 -d "$stage" --no-backup-if-mismatch < "$TOP/patches/$p" ||
		die "patch $p does not apply to Linux $v"
done < "$TOP/patches/series"
(cd "$TOP" && for d in rust mm include arch samples tools; do [ ! -d "$d" ] || find "$d" -type f; done) |
while read -r f; do
	mkdir -p "$stage/$(dirname "$f")"
	cp "$TOP/$f" "$stage/$f"
done
cp "$TOP/Kconfig" "$stage/mm/Kconfig.mmrust"

# Install what changed; put back what we no longer own.
(cd "$stage" && find . -type f | sed 's|^\./||' | sort) > "$CACHE/manifest.new"
changed=0
while read -r f; do
	if ! cmp -s "$stage/$f" "$SRC/$f"; then
		mkdir -p "$SRC/$(dirname "$f")"
		cp "$stage/$f" "$SRC/$f"
		changed=$((changed + 1))
	fi
done < "$CACHE/manifest.new"
if [ -f "$CACHE/manifest" ]; then
	comm -23 "$CACHE/manifest" "$CACHE/manifest.new" | while read -r f; do
		if [ -f "$PRISTINE/$f" ]; then cp "$PRISTINE/$f" "$SRC/$f"; else rm -f "$SRC/$f"; fi
	done
fi
mv "$CACHE/manifest.new" "$CACHE/manifest"
say "overlay: $(wc -l < "$CACHE/manifest") files, $changed changed, $(grep -vc '^#' "$TOP/patches/series") patches"
