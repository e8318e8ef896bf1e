#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The programs of the test initramfs, all static: the base's hugetlb
# selftests (tools/testing/selftests/mm, run by init/20-hugetlb.sh), our
# helpers (timed_write: the benchmark's sysfs write timer; fault_zero: the
# clearing boot tests; demand_fault, zero_memcmp: the clearing and zero
# page benchmarks; contpte_fork: the arm64 contpte boot tests and fork and
# munmap benchmark; hugetlb_reserve: the surplus return test of the hugetlb
# bulk free), the user-space samples (samples/mm/*.c) and the sample
# modules (samples/rust, built with the kernel); and, for x86_64 guests,
# Debian's hackbench with the libraries it is linked with (the SLUB
# benchmark's workload).  Run by build.sh after the kernel build.
. "$(dirname "$0")/lib.sh"

# Static binaries for the guest's architecture (arm64: clang's cross target
# with Debian's libc6-dev-arm64-cross and libgcc-12-dev-arm64-cross).
cc=(clang-19 -static)
[ "$MMRUST_ARCH" = x86_64 ] || cc=(clang-19 --target="$CLANG_TARGET" -fuse-ld=lld -static)

out=$EXTRA/selftests
hdr=$BUILD/usr/include
sel=$SRC/tools/testing/selftests
mkdir -p "$out"
[ -f "$hdr/linux/mman.h" ] || "${KMAKE[@]}" headers > /dev/null
for t in hugepage-vmemmap map_hugetlb hugepage-mmap hugetlb-madvise; do
	src=$sel/mm/$t.c
	if [ ! "$out/$t" -nt "$src" ]; then
		say "selftest: building $t (static)"
		"${cc[@]}" -O2 -Wno-everything -isystem "$hdr" -I "$sel" -I "$sel/mm" \
			-o "$out/$t" "$src" "$sel/mm/vm_util.c"
	fi
done

bin=$EXTRA/bin
mkdir -p "$bin"
for t in timed_write fault_zero demand_fault zero_memcmp contpte_fork hugetlb_reserve; do
	if [ ! "$bin/$t" -nt "$TOP/tools/testing/mmrust/$t.c" ] ||
		[ ! "$bin/$t" -nt "$TOP/tools/testing/mmrust/guest_mm.h" ]; then
		say "guest tool: building $t (static)"
		"${cc[@]}" -O2 -Wall -Werror -o "$bin/$t" "$TOP/tools/testing/mmrust/$t.c" -lm
	fi
done

# /samples in the guest: the user-space samples, the sample modules and
# the test modules (mm/folio_list_debug_test.ko, the base's
# lib/slub_kunit.ko where it is built as a module).
smp=$EXTRA/samples
mkdir -p "$smp"
for src in "$TOP"/samples/mm/*.c; do
	b=$smp/$(basename "$src" .c)
	if [ ! "$b" -nt "$src" ]; then
		say "sample: building $(basename "$b") (static)"
		"${cc[@]}" -O2 -Wall -Werror -o "$b" "$src"
	fi
done
rm -f "$smp"/*.ko
for ko in "$BUILD"/samples/rust/*.ko "$BUILD"/mm/*.ko "$BUILD"/lib/slub_kunit.ko; do
	[ ! -f "$ko" ] || cp "$ko" "$smp/"
done

# hackbench (rt-tests, from setup.sh) and its shared libraries, x86_64 only.
hb=$CACHE/rt-tests/root/usr/bin/hackbench
if [ "$MMRUST_ARCH" = x86_64 ] && [ -x "$hb" ]; then
	cp "$hb" "$bin/hackbench"
	for lib in $(ldd "$hb" | grep -o '/[^ ]*'); do
		mkdir -p "$EXTRA$(dirname "$lib")"
		cp -L "$lib" "$EXTRA$lib"
	done
fi
