#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host tests of the project's pure Rust (testing.rst, "Other checks"): the
# user-space test of tools/testing/slub_partial, built and run by its
# Makefile.  The output is libtest's: "test <name> ... ok|FAILED" per
# test, a summary.
. "$(dirname "$0")/lib.sh"

# MMRUST_RUSTTEST_ROOT: the tree to take the files from (default: this
# one; mutants.sh points it at the prepared tree).
root=${MMRUST_RUSTTEST_ROOT:-$TOP}
out=$CACHE/host-tests
mkdir -p "$out"
say "host test slub_partial: building and running (make -C tools/testing/slub_partial run)"
start=$(date +%s)
rc=0
make -s -C "$root/tools/testing/slub_partial" O="$out" RUSTC=/usr/bin/rustc run || rc=1
say "host test slub_partial: $(( $(date +%s) - start ))s"
exit $rc
