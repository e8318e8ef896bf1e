#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install what building and booting the test kernel needs (Debian 12, root).
# Idempotent: a second run only checks.
. "$(dirname "$0")/lib.sh"

PKGS=(clang-19 lld-19 llvm-19 libclang-19-dev
      rustc-web rust-web-src libstd-rust-web-dev rust-web-clippy rustfmt-web
      qemu-system-x86 qemu-system-arm libc6-dev-arm64-cross libgcc-12-dev-arm64-cross
      gcc-12 gcc-12-aarch64-linux-gnu dwarves flex bison bc libelf-dev libssl-dev cpio ccache
      busybox-static bash-static libcap-dev libnuma-dev xz-utils python3 python3-matplotlib make patch)
BINDGEN_VERSION=0.70.1

# download <dir> <package>...: apt-get download into <dir>, without its "unsandboxed" warning.
download() {
	(cd "$1" && shift && apt-get download -q "$@" 2>&1 |
		grep -v '^W: Download is performed unsandboxed'; exit "${PIPESTATUS[0]}")
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || die "need root to install: ${missing[*]}"
	say "installing Debian packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends "${missing[@]}"
else
	say "Debian packages: all ${#PKGS[@]} present"
fi

if ! "$TOOLS/bin/bindgen" --version 2>/dev/null | grep -q " $BINDGEN_VERSION\$"; then
	command -v cargo >/dev/null || { apt-get install -y -q --no-install-recommends cargo-web; }
	# In the background, while the downloads below run; waited for at the end.
	say "installing bindgen-cli $BINDGEN_VERSION from crates.io (about 2 minutes, in the background)"
	mkdir -p "$TOOLS"
	cargo install bindgen-cli --locked --version "$BINDGEN_VERSION" --root "$TOOLS" \
		> "$TOOLS/bindgen-install.log" 2>&1 &
	bindgen_pid=$!
else
	say "bindgen-cli $BINDGEN_VERSION present"
fi

# The base: linux-source-6.12 at $BASE_VERSION, downloaded and unpacked
# into the cache (not installed: the archive's newest is not the pin).
if [ ! -f "$BASE_TARBALL" ]; then
	[ "$(id -u)" = 0 ] || die "need root to fetch linux-source-6.12 $BASE_VERSION"
	say "fetching linux-source-6.12 $BASE_VERSION from the Debian archive (about 150 MB)"
	rm -rf "$BASE_DIR.tmp" && mkdir -p "$BASE_DIR.tmp"
	download "$BASE_DIR.tmp" "linux-source-6.12=$BASE_VERSION" ||
		{ apt-get update -q && download "$BASE_DIR.tmp" "linux-source-6.12=$BASE_VERSION"; } ||
		die "linux-source-6.12 $BASE_VERSION is not in the Debian archive; it has:" \
			"$(apt-cache madison linux-source-6.12 | awk '{print $3}' | paste -sd' ')"
	dpkg-deb -x "$BASE_DIR".tmp/linux-source-6.12_*.deb "$BASE_DIR.tmp"
	rm -f "$BASE_DIR".tmp/linux-source-6.12_*.deb
	[ -f "$BASE_DIR.tmp/usr/src/linux-source-6.12.tar.xz" ] ||
		die "no usr/src/linux-source-6.12.tar.xz in linux-source-6.12 $BASE_VERSION"
	mv "$BASE_DIR.tmp" "$BASE_DIR"
else
	say "linux-source-6.12 $BASE_VERSION present"
fi

# The arm64 guest's busybox and bash (run_vmtests.sh's shell): Debian's
# busybox-static and bash-static for arm64, unpacked into the cache
# (installing them would replace the host's x86_64 ones).
for pkg in busybox-static:busybox bash-static:bash-static; do
	bin=$CACHE/arm64-deb/root/bin/${pkg#*:}
	pkg=${pkg%:*}
	[ ! -x "$bin" ] || { say "$pkg:arm64 present"; continue; }
	[ "$(id -u)" = 0 ] || die "need root to fetch $pkg:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		say "adding the arm64 package architecture (for $pkg:arm64)"
		dpkg --add-architecture arm64
		apt-get update -q
	fi
	say "fetching $pkg:arm64 into $CACHE/arm64-deb"
	mkdir -p "$CACHE/arm64-deb"
	rm -f "$CACHE/arm64-deb/${pkg}"_*_arm64.deb
	download "$CACHE/arm64-deb" "$pkg:arm64" || true
	dpkg-deb -x "$CACHE/arm64-deb/${pkg}"_*_arm64.deb "$CACHE/arm64-deb/root"
	[ -x "$bin" ] || die "no $bin in $pkg:arm64"
done

# hackbench (Debian's rt-tests) for the x86_64 guest, unpacked, not installed.
hb=$CACHE/rt-tests/root/usr/bin/hackbench
if [ ! -x "$hb" ]; then
	[ "$(id -u)" = 0 ] || die "need root to fetch rt-tests"
	say "fetching rt-tests (hackbench) into $CACHE/rt-tests"
	rm -rf "$CACHE/rt-tests" && mkdir -p "$CACHE/rt-tests"
	download "$CACHE/rt-tests" rt-tests || true
	dpkg-deb -x "$CACHE"/rt-tests/rt-tests_*.deb "$CACHE/rt-tests/root"
	[ -x "$hb" ] || die "no hackbench in rt-tests"
else
	say "rt-tests (hackbench) present"
fi

# Debian's own configs of the base, amd64 and arm64, for the matrix's
# Debian cells; each package checked against its pinned sha256.
for a in amd64 arm64; do
	d=$DEBIAN_CONFIG_DIR/$a
	if [ ! -f "$d/sha256" ]; then
		[ "$(id -u)" = 0 ] || die "need root to fetch linux-config-6.12:$a"
		say "fetching Debian's kernel configs (linux-config-6.12:$a $BASE_VERSION) into $d"
		rm -rf "$d" && mkdir -p "$d"
		download "$d" "linux-config-6.12:$a=$BASE_VERSION" || true
		deb=$(echo "$d"/linux-config-6.12_*.deb)
		[ -f "$deb" ] || die "linux-config-6.12:$a $BASE_VERSION is not in the Debian archive"
		sum=$(sha256sum "$deb" | cut -d' ' -f1)
		pin=DEBIAN_CONFIG_PIN_SHA256_$a
		[ "$BASE_VERSION" != "$BASE_PIN" ] || [ "$sum" = "${!pin}" ] ||
			die "linux-config-6.12:$a $BASE_VERSION: sha256 $sum, pinned ${!pin}"
		dpkg-deb -x "$deb" "$d/root" && rm -f "$deb"
		echo "$sum" > "$d/sha256"
	else
		say "Debian's kernel configs (linux-config-6.12:$a) present"
	fi
done

# The x86_64 LTO image's Rust (MMRUST_FLAVOR=lto), rustc-web 1.85 on LLVM 19
# (lto.rst, "One LLVM"), with wrappers for its library path.
r185=$CACHE/rust-1.85
if [ ! -x "$r185/bin/rustc" ]; then
	[ "$(id -u)" = 0 ] || die "need root to fetch rustc-web $RUST_LTO_VERSION"
	say "fetching rustc-web $RUST_LTO_VERSION (LLVM 19, the LTO image's Rust) into $r185"
	rm -rf "$r185" && mkdir -p "$r185/debs" "$r185/bin"
	download "$r185/debs" rustc-web="$RUST_LTO_VERSION" libstd-rust-web-dev="$RUST_LTO_VERSION" \
		libstd-rust-web-1.85="$RUST_LTO_VERSION" rust-web-src="$RUST_LTO_VERSION" || true
	for d in "$r185"/debs/*.deb; do dpkg-deb -x "$d" "$r185/root"; done
	rm -rf "$r185/debs"
	for t in rustc rustdoc; do
		printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/root/usr/lib/x86_64-linux-gnu exec %s/root/usr/bin/%s "$@"\n' \
			"$r185" "$r185" "$t" > "$r185/bin/$t"
		chmod +x "$r185/bin/$t"
	done
	"$r185/bin/rustc" --version --verbose | grep -q '^LLVM version: 19\.' || die "rustc-web $RUST_LTO_VERSION: not built on LLVM 19"
else
	say "rustc-web $RUST_LTO_VERSION (LTO image) present"
fi

if [ -n "${bindgen_pid:-}" ]; then
	wait "$bindgen_pid" || { tail -20 "$TOOLS/bindgen-install.log"; die "cargo install bindgen-cli failed"; }
	say "bindgen-cli $BINDGEN_VERSION installed"
fi
