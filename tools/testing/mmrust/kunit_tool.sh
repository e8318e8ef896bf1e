#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make kunit-tool": the project's KUnit suites the way kernel developers
# run KUnit, with the base's kunit.py and mm/.kunitconfig, in the prepared
# tree.  kunit.py configures and builds a kernel of its own (a second
# build, in $CACHE/build/kunit-tool), boots it in QEMU and parses the
# results.
. "$(dirname "$0")/lib.sh"

kbuild=$CACHE/build/kunit-tool
say "kunit.py run --arch=x86_64 --kunitconfig=mm/.kunitconfig (build in $kbuild; cold: ~10 min)"
start=$(date +%s)
cd "$SRC"
rc=0
python3 tools/testing/kunit/kunit.py run --arch=x86_64 --kunitconfig=mm/.kunitconfig \
	--build_dir="$kbuild" --jobs="$(nproc)" --timeout=1800 \
	--make_options LLVM=-19 --make_options "CC=ccache clang-19" \
	--make_options RUSTC=/usr/bin/rustc --make_options HOSTRUSTC=/usr/bin/rustc \
	--make_options RUSTDOC=/usr/bin/rustdoc --make_options "BINDGEN=$TOOLS/bin/bindgen" \
	--qemu_args="-m 3G" --kernel_args=hugetlb_free_vmemmap=on || rc=$?
say "kunit.py: exit $rc after $(( $(date +%s) - start ))s"
exit $rc
