#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the project's pure Rust (testing.rst, "Other checks"): each
# host/*_test.rs as a libtest harness, with the kernel's overflow checks.
# The output is libtest's: "test <name> ... ok|FAILED" per test, a summary.
. "$(dirname "$0")/lib.sh"

# MMRUST_RUSTTEST_ROOT: the tree to take the files from (default: this
# one; mutants.sh points it at the prepared tree).
root=${MMRUST_RUSTTEST_ROOT:-$TOP}
out=$CACHE/host-tests
mkdir -p "$out"
rc=0

# The C original the SLUB test compares with (host/slub_partial_c_original.c):
# <linux/slub_partial.h> of the overlay, built by the host's cc against
# stand-ins of the kernel headers it includes, as a static library.
shim=$out/shim
mkdir -p "$shim/linux" "$shim/asm" "$shim/kunit"
for h in linux/jump_label.h linux/mm_impl_switch.h kunit/visibility.h; do : > "$shim/$h"; done
printf '#include <stdbool.h>\n#include <stddef.h>\n#define __always_inline inline __attribute__((always_inline))\n' > "$shim/linux/types.h"
echo '#define PAGE_SIZE 4096UL' > "$shim/asm/page.h"
echo '#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))' > "$shim/linux/math.h"
cc -O2 -Wall -Werror -fno-strict-overflow -I "$shim" -I "$root/include" \
	-c -o "$out/slub_partial_c_original.o" "$root/tools/testing/mmrust/host/slub_partial_c_original.c" &&
	ar rcs "$out/libslub_partial_c_original.a" "$out/slub_partial_c_original.o" || rc=1

for f in "$root"/tools/testing/mmrust/host/*_test.rs; do
	name=$(basename "$f" .rs)
	say "host test $name: building"
	/usr/bin/rustc --edition=2021 --test -C opt-level=3 -C overflow-checks=on \
		-C debug-assertions=on -L "native=$out" -o "$out/$name" "$f" || { rc=1; continue; }
	start=$(date +%s)
	"$out/$name" --test-threads="$(nproc)" || rc=1
	say "host test $name: $(( $(date +%s) - start ))s"
done
exit $rc
