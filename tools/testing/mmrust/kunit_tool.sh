#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make kunit-tool": the suites through the base's kunit.py run, in a
# kernel build of its own (testing.rst, "Other checks").
. "$(dirname "$0")/lib.sh"

kbuild=$CACHE/build/kunit-tool
kcfg=mm/.kunitconfig kargs=hugetlb_free_vmemmap=on
if [ "$MMRUST_ARCH" = arm64 ]; then
	kbuild=$CACHE/build/kunit-tool-arm64 kcfg=mm/arm64.kunitconfig kargs=""
fi
say "kunit.py run --arch=$MMRUST_ARCH --kunitconfig=$kcfg (build in $kbuild; cold: ~10 min)"
start=$(date +%s)
cd "$SRC"
rc=0
python3 tools/testing/kunit/kunit.py run --arch="$MMRUST_ARCH" --kunitconfig="$kcfg" \
	--build_dir="$kbuild" --jobs="$(nproc)" --timeout=1800 \
	--make_options LLVM=-19 --make_options "CC=ccache clang-19" \
	--make_options RUSTC=/usr/bin/rustc --make_options HOSTRUSTC=/usr/bin/rustc \
	--make_options RUSTDOC=/usr/bin/rustdoc --make_options "BINDGEN=$TOOLS/bin/bindgen" \
	--qemu_args="-m 3G" ${kargs:+--kernel_args=$kargs} || rc=$?
say "kunit.py: exit $rc after $(( $(date +%s) - start ))s"
exit $rc
