# SPDX-License-Identifier: GPL-2.0
# Shared settings of the mmrust driver scripts; sourced, never run.

set -euo pipefail
say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
CACHE=${MMRUST_CACHE:-$HOME/.cache/mmrust}
# The base: Debian's linux-source-6.12 at the version the project is built
# and measured on, with its tarball's sha256.  MMRUST_BASE_VERSION=<Debian
# version> tries another 6.12.y ('apt-cache madison linux-source-6.12').
BASE_PIN=6.12.117-1~deb12u1
BASE_PIN_SHA256=585a4a074597aefa2b1a68ada83a3184ba351c127544dea80618bbcceaa3961f
BASE_VERSION=${MMRUST_BASE_VERSION:-$BASE_PIN}
BASE_DIR=$CACHE/base/$BASE_VERSION      # the package, unpacked by setup.sh
# Debian's own kernel configs of the base, linux-config-6.12 of the same
# version (setup.sh; the matrix's Debian cells), and their packages' sha256.
DEBIAN_CONFIG_DIR=$CACHE/debian-config/$BASE_VERSION
# shellcheck disable=SC2034
DEBIAN_CONFIG_PIN_SHA256_amd64=9837dbdf866d58ff9cc64f106dbf0cbf16d1ea6e369b83c338d05e8860224b27
# shellcheck disable=SC2034
DEBIAN_CONFIG_PIN_SHA256_arm64=5642ad362614657f7393b3999a02d3f33325c13a15227333fe2ef0cdc29d74c8
# debian_config_xz <debarch>: the file of Debian's config for amd64 or arm64;
# debian_config <debarch>: its text with the signing keys emptied (Debian's
# are not in the source), for olddefconfig or make mmrust.config.
debian_config_xz() { echo "$DEBIAN_CONFIG_DIR/$1/root/usr/src/linux-config-6.12/config.${1}_none_$1.xz"; }
debian_config() {
	xzcat "$(debian_config_xz "$1")"
	printf '%s\n' CONFIG_SYSTEM_TRUSTED_KEYS=\"\" CONFIG_SYSTEM_REVOCATION_KEYS=\"\" CONFIG_MODULE_SIG_KEY=\"\"
}
BASE_TARBALL=$BASE_DIR/usr/src/linux-source-6.12.tar.xz
PRISTINE=$BASE_DIR/linux-source-6.12    # unpacked tarball, never modified
SRC=$CACHE/src                         # base + overlay + patches, built from
# The test kernel's architecture, from MMRUST_ARCH or ARCH: x86_64 (default) or arm64.
MMRUST_ARCH=${MMRUST_ARCH:-${ARCH:-x86_64}}
case "$MMRUST_ARCH" in
x86_64) IMAGE=arch/x86/boot/bzImage EXTRA=$CACHE/initramfs-extra
	CLANG_TARGET=x86_64-linux-gnu ;;
arm64) IMAGE=arch/arm64/boot/Image EXTRA=$CACHE/initramfs-extra-arm64
	CLANG_TARGET=aarch64-linux-gnu ;;
*) die "unknown architecture $MMRUST_ARCH (x86_64 or arm64)" ;;
esac
unset ARCH
# The image: the test image of the architecture, or the flavour that
# MMRUST_FLAVOR names (testing.rst, "The images"), built on its own.
MMRUST_FLAVOR=${MMRUST_FLAVOR:-}
KSRC=$SRC                               # the tree an image is built from
case "$MMRUST_FLAVOR" in
'') NAME=$MMRUST_ARCH ;;
debug) NAME=$MMRUST_ARCH-debug EXTRA=$CACHE/initramfs-extra-$NAME ;;
lto) [ "$MMRUST_ARCH" = x86_64 ] || die "the lto image is x86_64 only"
	NAME=$MMRUST_ARCH-lto EXTRA=$CACHE/initramfs-extra-$NAME ;;
gcc) [ "$MMRUST_ARCH" = x86_64 ] || die "the gcc image is x86_64 only"
	NAME=$MMRUST_ARCH-gcc EXTRA=$CACHE/initramfs-extra-$NAME ;;
# debian: Debian's own configuration, then make mmrust.config (testing.rst,
# "Debian's own configuration"); debian-norust: the same without Rust, the
# other side of the CRC check (test.sh modversions_check).
debian) NAME=$MMRUST_ARCH-debian EXTRA=$CACHE/initramfs-extra-$MMRUST_ARCH-debian ;;
debian-norust) [ "$MMRUST_ARCH" = x86_64 ] || die "the debian-norust image is x86_64 only"
	NAME=$MMRUST_ARCH-debian-norust EXTRA=$CACHE/initramfs-extra-$MMRUST_ARCH-debian ;;
# nocontpte: the contpte benchmark's base line (contpte.rst).  production:
# the test image without the test-only options; base: the pristine tree
# configured as the test image ('make bench MMRUST_BENCH_ONLY=production').
# All three take the test image's configuration (DERIVE_FROM).
nocontpte) [ "$MMRUST_ARCH" = arm64 ] || die "the nocontpte image is arm64 only"
	NAME=$MMRUST_ARCH-nocontpte EXTRA=$CACHE/initramfs-extra-$NAME
	DERIVE_FROM=$CACHE/build/$MMRUST_ARCH ;;
production) NAME=$MMRUST_ARCH-production EXTRA=$CACHE/initramfs-extra-$NAME
	DERIVE_FROM=$CACHE/build/$MMRUST_ARCH ;;
base) NAME=$MMRUST_ARCH-base EXTRA=$CACHE/initramfs-extra-$NAME
	DERIVE_FROM=$CACHE/build/$MMRUST_ARCH KSRC=$PRISTINE ;;
*) die "unknown image flavour $MMRUST_FLAVOR (debug, lto, gcc, debian, debian-norust, nocontpte, production, base or none)" ;;
esac
# Debian's rustc-web of the LTO image (LLVM 19, as clang-19 and ld.lld-19).
RUST_LTO_VERSION=1.85.0+dfsg3-1~deb12u3
RUST_BIN=/usr/bin
[ "$MMRUST_FLAVOR" != lto ] || RUST_BIN=$CACHE/rust-1.85/bin
BUILD=$CACHE/build/$NAME                # out-of-tree build directory
TOOLS=$CACHE/tools                      # bindgen-cli
LOGS=$CACHE/logs

# The mm selftests of make test's kselftest boots (testing.rst, "The mm
# selftests"): run_vmtests.sh's categories (mmrust.vmtests= may name others),
# the programs and scripts they run, and fail_alloc, the stress's fault
# injection (init/80-stress.sh); guest.sh builds them into /selftests.
VMTESTS_CATEGORIES="hugetlb thp cow mkdirty madv_populate slub"
VMTESTS_PROGRAMS=(hugepage-mmap hugepage-shm map_hugetlb hugepage-mremap hugepage-vmemmap
	hugetlb-madvise hugetlb_dio hugetlb_fault_after_madv hugetlb_madv_vs_map thuge-gen
	write_to_hugetlbfs khugepaged transhuge-stress split_huge_page_test cow mkdirty
	madv_populate thp_huge_zero_page slub_cpu_partial hugetlb_pool contpte_mthp clear_pages_zero
	fail_alloc)
VMTESTS_SCRIPTS=(charge_reserved_hugetlb.sh hugetlb_reparenting_test.sh write_hugetlb_memory.sh)

# Debian's rustc/rustdoc first: rustup's toolchains here have no rust-src.
export PATH=/usr/lib/llvm-19/bin:$TOOLS/bin:/usr/bin:$PATH
export LIBCLANG_PATH=/usr/lib/llvm-19/lib
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}

KMAKE=(make -C "$KSRC" O="$BUILD" ARCH="$MMRUST_ARCH" LLVM=-19 "CC=ccache clang-19"
       RUSTC=$RUST_BIN/rustc HOSTRUSTC=$RUST_BIN/rustc RUSTDOC=$RUST_BIN/rustdoc
       "BINDGEN=$TOOLS/bin/bindgen" RUSTFMT=/usr/bin/rustfmt
       CLIPPY_DRIVER=/usr/bin/clippy-driver -j"$(nproc)")
# The gcc image: GCC 12 and binutils, no LLVM (Rust is off in it).
[ "$MMRUST_FLAVOR" != gcc ] ||
	KMAKE=(make -C "$SRC" O="$BUILD" ARCH="$MMRUST_ARCH" "CC=ccache x86_64-linux-gnu-gcc-12"
	       HOSTCC=gcc-12 -j"$(nproc)")

# median: of the numbers on standard input; ratio <a> <b>: a / b, 3 decimals.
median() { sort -g | awk '{v[NR]=$1} END {if (!NR) exit; if (NR%2) print v[(NR+1)/2]; else printf "%.6g\n", (v[NR/2]+v[NR/2+1])/2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.3f", a / b; else print "n/a"}'; }

# arch_fragment <arch>: common.config, then <arch>.config; image_fragment
# <arch>: the test image's (testing.rst, "The mm selftests"; a later line wins).
arch_fragment() { cat "$TOP/tools/testing/mmrust/configs/"{common,"$1"}.config; }
image_fragment() {
	cat "$SRC/tools/testing/selftests/mm/config" "$TOP/tools/testing/mmrust/configs/kselftest.config"
	arch_fragment "$1"
}
# test_only_options: the options whose help says they are not for production kernels.
test_only_options() { awk '/^config / { o = $2 } /not for production kernels/ { print o }' "$TOP/Kconfig"; }
# build_log <image name>: its kernel build log (build.sh).
build_log() { if [ "$1" = x86_64 ]; then echo "$LOGS/build.log"; else echo "$LOGS/build-$1.log"; fi; }

# compile_objects <build dir> <objects...>: kbuild's single-object targets
# with "${MK[@]}" (never a make without a target: the whole kernel); "rust/":
# the Rust crates, built first when the configuration has Rust.  The
# arch/*/lib objects go in a make of their own with -j1: a target there is
# reached through both arch/arm64/ (core-y) and arch/arm64/lib/ (libs-y), and
# -j2 assembled clear_pages.o twice at once ("fixdep: error opening file:
# arch/arm64/lib/.clear_pages.o.d", seen twice in the matrix).
compile_objects() {
	local b=$1 o main="" lib="" rust=""
	shift
	for o in "$@"; do
		case $o in
		rust/) rust=1 ;;
		arch/*/lib/*) lib="$lib $o" ;;
		*) main="$main $o" ;;
		esac
	done
	if grep -q '^CONFIG_RUST=y' "$b/.config" && [ -n "$rust$main" ]; then
		"${MK[@]}" rust/ || return
	fi
	# shellcheck disable=SC2086
	{ [ -z "$main" ] || "${MK[@]}" $main; } && { [ -z "$lib" ] || "${MK[@]}" -j1 $lib; }
}
