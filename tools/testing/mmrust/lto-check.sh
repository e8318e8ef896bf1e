#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Is the Rust called from C inlined in the LTO image?  Counts the calls to
# each function crossing the Rust/C edge in both images; fails as
# Documentation/mm/mmrust/lto.rst ("How it is tested") says.
#   lto-check.sh [<test vmlinux> <LTO vmlinux>]
. "$(dirname "$0")/lib.sh"

plain=${1:-$CACHE/build/x86_64/vmlinux}
lto=${2:-$CACHE/build/x86_64-lto/vmlinux}
for f in "$plain" "$lto"; do
	[ -f "$f" ] || die "no $f: build the x86_64 test image and the LTO image (MMRUST_FLAVOR=lto build.sh)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
llvm-objdump-19 -d --no-show-raw-insn "$plain" | grep -E '^\s*[0-9a-f]+:\s+(call|jmp)' > "$tmp/plain"
llvm-objdump-19 -d --no-show-raw-insn "$lto" | grep -E '^\s*[0-9a-f]+:\s+(call|jmp)' > "$tmp/lto"
# calls <plain|lto> <symbol>: call and jmp instructions whose target is the
# symbol itself (not an offset into it: the function's own jumps).
calls() { grep -c -- "<$2>\$" "$tmp/$1" || true; }

# The crossings: Rust entry points C calls (the hot one first), then Rust->C.
rc=0
printf '%-8s %-42s %-7s %10s %10s\n' edge function dir test lto
for e in "slub slub_rust_put_cpu_partial c->rust" "slub slub_rust_partial_node_done c->rust" \
	"slub slub_rust_cpu_partial_slabs c->rust" "slub slub_rust_default_cpu_partial c->rust" \
	"hugetlb hugetlb_rust_update_and_free_pages_bulk c->rust" \
	"hugetlb hugetlb_bulk_free_folio rust->c" "hugetlb hugetlb_bulk_folio_clear_hugetlb rust->c"; do
	set -- $e
	printf '%-8s %-42s %-7s %10s %10s\n' "$1" "$2" "$3" "$(calls plain "$2")" "$(calls lto "$2")"
done
p=$(calls plain slub_rust_put_cpu_partial) l=$(calls lto slub_rust_put_cpu_partial)
if [ "$p" = 0 ]; then
	echo "lto-check: no call to slub_rust_put_cpu_partial in the test image: the count is broken"; rc=1
elif [ "$l" != 0 ]; then
	echo "lto-check: slub_rust_put_cpu_partial is called $l times in the LTO image: not inlined"; rc=1
else
	echo "lto-check: slub_rust_put_cpu_partial: $p call(s) in the test image, none in the LTO image (inlined)"
fi
exit $rc
