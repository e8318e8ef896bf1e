#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Unpack the base (once), then lay the overlay and the patch series over a
# copy of it.  Only files whose content changes are written, so a no-change
# run leaves every timestamp alone and the next build recompiles nothing.
. "$(dirname "$0")/lib.sh"

[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL missing: run 'make setup' (linux-source-6.12 $BASE_VERSION)"

# The tarball, unpacked once per base version; the pinned one must be the
# tarball the project was measured on.
if [ ! -f "$BASE_DIR/sha256" ]; then
	sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
	[ "$BASE_VERSION" != "$BASE_PIN" ] || [ "$sum" = "$BASE_PIN_SHA256" ] ||
		die "linux-source-6.12 $BASE_VERSION: tarball sha256 $sum, pinned $BASE_PIN_SHA256"
	say "unpacking $BASE_TARBALL (about 20 s)"
	rm -rf "$PRISTINE"
	tar -C "$BASE_DIR" -xf "$BASE_TARBALL"
	echo "$sum" > "$BASE_DIR/sha256"
fi
# The unpacked base of the cache layout before the pin (one per cache).
rm -rf "$CACHE/base/linux-source-6.12" "$CACHE/base/sha256"
v=$(sed -n 's/^VERSION = //p; s/^PATCHLEVEL = //p; s/^SUBLEVEL = //p' "$PRISTINE/Makefile" | paste -sd.)
case "$v" in
6.12.*) ;;
*) die "base is Linux $v (linux-source-6.12 $BASE_VERSION), this project needs 6.12" ;;
esac
[ "$BASE_VERSION" = "$BASE_PIN" ] ||
	printf 'warning: base is linux-source-6.12 %s (MMRUST_BASE_VERSION); the project is pinned to and measured on %s\n' \
		"$BASE_VERSION" "$BASE_PIN" >&2
say "base: Linux $v (linux-source-6.12 $BASE_VERSION), tarball sha256 $(cat "$BASE_DIR/sha256")"
printf '%s %s %s\n' "$v" "$BASE_VERSION" "$(cat "$BASE_DIR/sha256")" > "$CACHE/base/VERSION"

# A prepared tree of another base starts again from a copy of this one.
if [ -d "$SRC" ] && [ "$(cat "$CACHE/src-base" 2>/dev/null)" != "$BASE_VERSION" ]; then
	say "the prepared tree is not of linux-source-6.12 $BASE_VERSION: copying the base again"
	rm -rf "$SRC" "$CACHE/manifest"
fi
if [ ! -d "$SRC" ]; then
	say "copying the base to $SRC"
	rm -rf "$SRC.tmp"
	cp -a "$PRISTINE" "$SRC.tmp" && mv "$SRC.tmp" "$SRC"
	echo "$BASE_VERSION" > "$CACHE/src-base"
fi

# Stage the wanted content of every file we own or patch.
stage=$CACHE/stage
rm -rf "$stage" && mkdir -p "$stage"
while read -r p; do
	case "$p" in ''|'#'*) continue ;; esac
	for f in $(sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$TOP/patches/$p"); do
		[ -e "$stage/$f" ] && continue
		mkdir -p "$stage/$(dirname "$f")"
		cp "$PRISTINE/$f" "$stage/$f" 2>/dev/null ||
			die "patch $p: $f is not in Linux $v (linux-source-6.12 $BASE_VERSION); nothing was built"
	done
	patch -s -p1 -d "$stage" --no-backup-if-mismatch < "$TOP/patches/$p" ||
		die "patch $p does not apply to Linux $v (linux-source-6.12 $BASE_VERSION); nothing was built"
done < "$TOP/patches/series"
(cd "$TOP" && for d in rust mm include arch kernel samples tools Documentation; do [ ! -d "$d" ] || find "$d" -type f; done) |
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
