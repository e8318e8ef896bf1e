#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# "make kunit-tool": the project's KUnit suites the way kernel developers
# run KUnit, with the base's kunit.py and mm/.kunitconfig, in the prepared
# tree.  kunit.py configures and builds a kernel of its own (a second
# build, in $CACHE/build/kunit-tool), boots it in QEMU and parses the
# results.
. "$(dirname "$0")/lib.sh"

# ARCH=arm64 (MMRUST_ARCH): the arm64 suites, mm/arm64.kunitconfig (no HVO,
# contpte), in a build of their own.
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
