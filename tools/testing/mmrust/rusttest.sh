#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the project's pure Rust ('make rusttest-mmrust'; part of
# 'make test'): each file of host/ is built with the host's rustc as a test
# harness (optimised, with the overflow checks the kernel builds Rust
# with) and run.  The output is libtest's: one "test <name> ... ok|FAILED"
# line per test, and its summary.
. "$(dirname "$0")/lib.sh"

# MMRUST_RUSTTEST_ROOT: the tree to take the files from (default: this
# one; mutants.sh points it at the prepared tree).
root=${MMRUST_RUSTTEST_ROOT:-$TOP}
out=$CACHE/host-tests
mkdir -p "$out"
rc=0
for f in "$root"/tools/testing/mmrust/host/*_test.rs; do
	name=$(basename "$f" .rs)
	say "host test $name: building"
	/usr/bin/rustc --edition=2021 --test -C opt-level=3 -C overflow-checks=on \
		-C debug-assertions=on -o "$out/$name" "$f" || { rc=1; continue; }
	start=$(date +%s)
	"$out/$name" --test-threads="$(nproc)" || rc=1
	say "host test $name: $(( $(date +%s) - start ))s"
done
exit $rc
