# SPDX-License-Identifier: GPL-2.0
# Shared settings of the mmrust driver scripts; sourced, never run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
CACHE=${MMRUST_CACHE:-$HOME/.cache/mmrust}
BASE_TARBALL=${MMRUST_BASE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
PRISTINE=$CACHE/base/linux-source-6.12  # unpacked tarball, never modified
SRC=$CACHE/src                         # base + overlay + patches, built from
BUILD=$CACHE/build/x86_64               # out-of-tree build directory
TOOLS=$CACHE/tools                      # bindgen-cli
LOGS=$CACHE/logs
EXPECTED_SUBLEVEL=117

# Debian's rustc/rustdoc first: rustup's toolchains here have no rust-src.
export PATH=/usr/lib/llvm-19/bin:$TOOLS/bin:/usr/bin:$PATH
export LIBCLANG_PATH=/usr/lib/llvm-19/lib
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}

KMAKE=(make -C "$SRC" O="$BUILD" ARCH=x86_64 LLVM=-19 "CC=ccache clang-19"
       RUSTC=/usr/bin/rustc HOSTRUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
       "BINDGEN=$TOOLS/bin/bindgen" RUSTFMT=/usr/bin/rustfmt
       CLIPPY_DRIVER=/usr/bin/clippy-driver -j"$(nproc)")

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
