#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The programs of the test initramfs: the base's mm selftests with bash, our
# helpers, the samples and sample modules, hackbench on x86_64; run by build.sh.
. "$(dirname "$0")/lib.sh"

# Static binaries for the guest's architecture (arm64: clang's cross target
# with Debian's libc6-dev-arm64-cross and libgcc-12-dev-arm64-cross).
cc=(clang-19 -static)
[ "$MMRUST_ARCH" = x86_64 ] || cc=(clang-19 --target="$CLANG_TARGET" -fuse-ld=lld -static)

# The base's mm selftests, VMTESTS_PROGRAMS only (testing.rst, "The mm
# selftests"): the whole directory needs the guest's static libcap and
# libnuma too, and has programs none of our categories runs.
out=$EXTRA/selftests
hdr=$BUILD/usr/include
sel=$SRC/tools/testing/selftests/mm
kst=$BUILD/kselftest/mm
mkdir -p "$out" "$kst" "$LOGS"
[ -f "$hdr/linux/mman.h" ] || "${KMAKE[@]}" headers > /dev/null
ksel_log=$LOGS/kselftest-build-$NAME.log
# shellcheck disable=SC2046
make -C "$sel" LLVM=-19 ARCH="$MMRUST_ARCH" OUTPUT="$kst" \
	EXTRA_CFLAGS="-static -fuse-ld=lld" KHDR_INCLUDES="-isystem $hdr" -j"$(nproc)" \
	$(for p in "${VMTESTS_PROGRAMS[@]}"; do echo "$kst/$p"; done) > "$ksel_log" 2>&1 ||
	{ tail -20 "$ksel_log" >&2; die "the base's mm selftests do not build (log: $ksel_log)"; }
say "selftests: ${#VMTESTS_PROGRAMS[@]} programs of tools/testing/selftests/mm (static, log: $ksel_log)"
rm -rf "$out" && mkdir -p "$out"
for p in "${VMTESTS_PROGRAMS[@]}"; do
	llvm-strip-19 -o "$out/$p" "$kst/$p"
done
cp "$sel/run_vmtests.sh" "${VMTESTS_SCRIPTS[@]/#/$sel/}" "$out/"

# bash for run_vmtests.sh (busybox's ash has no arrays or PIPESTATUS):
# Debian's bash-static, the host's (x86_64) or the one setup.sh fetched.
bash_static=/bin/bash-static
[ "$MMRUST_ARCH" = x86_64 ] || bash_static=$CACHE/arm64-deb/root/bin/bash-static
[ -x "$bash_static" ] || die "no $MMRUST_ARCH bash-static at $bash_static: run 'make setup'"
bin=$EXTRA/bin
mkdir -p "$bin"
cp "$bash_static" "$bin/bash"

# Ours, and the benchmarks' (tools/testing/mmrust-bench).
for src in "$TOP"/tools/testing/mmrust/demand_fault.c \
	"$TOP"/tools/testing/mmrust-bench/{contpte_fork,timed_write,zero_memcmp}.c; do
	[ -f "$src" ] || continue	# the benchmarks' part not applied
	t=$(basename "$src" .c)
	if [ ! "$bin/$t" -nt "$src" ]; then
		say "guest tool: building $t (static)"
		"${cc[@]}" -O2 -Wall -Werror -o "$bin/$t" "$src" -lm
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
