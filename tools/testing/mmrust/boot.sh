#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel in QEMU with the test initramfs (testing.rst, "The
# boots"; settings: using.rst).
#   boot.sh <mode> <log> [kernel parameters...]
# <mode>: /init's mmrust.mode=.  A <log> of "-": the console stays on this
# terminal (make shell).  Exit code: QEMU's.  In the test, stress and
# kselftest modes the KTAP console goes to <log> with .ktap for .log (or
# added).  Both files are deleted first: a boot that did not run leaves none.
. "$(dirname "$0")/lib.sh"

mode=$1 log=$2; shift 2
ktap=""
if [ "$log" != - ]; then
	ktap=${log%.log}.ktap
	[ "$ktap" != "$log" ] || ktap=$log.ktap
	rm -f "$log" "$ktap"
	case "$mode" in test|stress|kselftest) ;; *) ktap="" ;; esac
fi
# MMRUST_KERNEL: another kernel image (using.rst).
kernel=${MMRUST_KERNEL:-$BUILD/$IMAGE}
[ -f "$kernel" ] || die "no kernel at $kernel: run 'make build' (ARCH=$MMRUST_ARCH)"
busybox=/bin/busybox
[ "$MMRUST_ARCH" = x86_64 ] || busybox=$CACHE/arm64-deb/root/bin/busybox
[ -x "$busybox" ] || die "no $MMRUST_ARCH busybox at $busybox: run 'make setup'"

# The initramfs, rebuilt each time (milliseconds), one per console log, so
# that boots may run side by side (test.sh's debug boots).
tag=$NAME-console
[ "$log" = - ] || tag=$(basename "${log%.log}")
ird=$CACHE/initramfs.d/$tag
initrd=$ird.cpio
rm -rf "$ird" && mkdir -p "$ird"/{bin,dev,proc,sys,tmp,mmrust}
cp "$busybox" "$ird/bin/busybox"
cp "$TOP/tools/testing/mmrust/init/init" "$ird/init"
cp "$TOP"/tools/testing/mmrust/init/*.sh "$ird/mmrust/"
# The benchmarks' guest side (tools/testing/mmrust-bench), where applied.
[ ! -d "$TOP/tools/testing/mmrust-bench/init" ] || cp "$TOP"/tools/testing/mmrust-bench/init/*.sh "$ird/mmrust/"
[ ! -d "$EXTRA" ] || cp -a "$EXTRA/." "$ird/"
chmod +x "$ird/init"
(cd "$ird" && find . | cpio -o -H newc --quiet) > "$initrd"
rm -rf "$ird"

# choose_accel: using.rst, "Boots: KVM or TCG, and their settings" (seen: 70 s
# of nothing).  MMRUST_KVM_DEV: another node for the checks before the probe
# (to see the fallback); the probe's QEMU opens /dev/kvm.
kvm_dev=${MMRUST_KVM_DEV:-/dev/kvm}
host_arch() { case $(uname -m) in aarch64) echo arm64 ;; *) uname -m ;; esac; }
kvm_why_not() {	# kvm_why_not: prints why KVM cannot run this guest; fails if it can
	local out rc qemu
	[ "$(host_arch)" = "$MMRUST_ARCH" ] || { echo "the guest is $MMRUST_ARCH, the host $(uname -m)"; return; }
	[ -e "$kvm_dev" ] || { echo "no $kvm_dev"; return; }
	[ -r "$kvm_dev" ] && [ -w "$kvm_dev" ] || { echo "$kvm_dev is not read-write for $(id -un)"; return; }
	out=$(mktemp) && rc=0
	if [ "$MMRUST_ARCH" = x86_64 ]; then
		qemu=(qemu-system-x86_64 -cpu host -append "console=ttyS0 acpi=off panic=-1 rdinit=/none")
	else
		qemu=(qemu-system-aarch64 -M virt,gic-version=host -cpu host -append "console=ttyAMA0 panic=-1 rdinit=/none")
	fi
	timeout 30 "${qemu[@]}" -accel kvm -m 512M -smp 1 -display none \
		-monitor none -serial "file:$out" -no-reboot -nic none -kernel "$kernel" \
		< /dev/null > "$out.err" 2>&1 || rc=$?
	if grep -q "Linux version" "$out"; then
		rm -f "$out" "$out.err"
		return 1
	fi
	if [ "$rc" = 124 ]; then
		echo "a KVM probe boot printed nothing in 30 s"
	else
		echo "a KVM probe boot failed (exit $rc: $(head -c 200 "$out.err" | tr '\n' ' '))"
	fi
	rm -f "$out" "$out.err"
}
choose_accel() {
	local f=$CACHE/accel.$MMRUST_ARCH id why
	case "${MMRUST_ACCEL:-auto}" in
	tcg) echo tcg; return ;;
	kvm|auto) ;;
	*) echo "error: MMRUST_ACCEL=$MMRUST_ACCEL: kvm, tcg or unset" >&2; return 1 ;;
	esac
	if [[ "${MMRUST_QEMU_ARGS:-}" == *-icount* ]]; then
		[ "${MMRUST_ACCEL:-auto}" != kvm ] ||
			{ echo "error: MMRUST_ACCEL=kvm: an -icount boot (the exact measure) runs under TCG only" >&2; return 1; }
		echo tcg; return
	fi
	id="$(cat /proc/sys/kernel/random/boot_id 2>/dev/null) $kvm_dev"
	# One probe at a time: boots started side by side wait for the first.
	exec 9> "$f.lock" && flock 9
	if [ -r "$f" ] && [ "$(head -1 "$f")" = "$id" ]; then
		why=$(sed -n '2p' "$f")
	else
		why=$(kvm_why_not) || why=""
		printf '%s\n%s\n' "$id" "$why" > "$f"
		[ "${MMRUST_ACCEL:-auto}" = kvm ] || echo "boot: ${why:+TCG: }${why:-KVM (the probe boot printed its banner)}" >&2
	fi
	flock -u 9
	if [ -z "$why" ]; then
		echo kvm
	elif [ "${MMRUST_ACCEL:-auto}" = kvm ]; then
		echo "error: MMRUST_ACCEL=kvm, but KVM cannot run this guest: $why" >&2
		return 1
	else
		echo tcg
	fi
}

# MMRUST_QEMU_ARGS, MMRUST_SMP, MMRUST_MEM: using.rst.
smp=${MMRUST_SMP:-2}
mem=${MMRUST_MEM:-5G}
# initramfs_async=0: known-problems.rst, "The built-in suites' KTAP is read
# from the console" (kunit.py: "slub_partial_rust: missing expected subtest!").
cmdline="panic=-1 oops=panic initramfs_async=0 mmrust.mode=$mode $*"
# tsc=reliable, and tsc_early_khz= on the wall clock: benchmarking.rst, "Two
# clocks".  Seen on jiffies without them: wall-clock figures in 4 ms steps (one
# of three hugetlb boots); make test's quick SLUB bench found no round to time.
[ "$MMRUST_ARCH" != x86_64 ] || [ "$mode" != bench ] || cmdline="tsc=reliable $cmdline"
host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' | tail -1) || true
	[ -n "$mhz" ] || mhz=$(dmesg 2>/dev/null | sed -n 's/.*tsc: Detected \([0-9.]*\) MHz processor.*/\1/p' | tail -1) || true
	[ -n "$mhz" ] || ! grep -qw tsc_known_freq /proc/cpuinfo ||
		mhz=$(awk -F': *' '/^cpu MHz/ {print $2; exit}' /proc/cpuinfo)
	[ -z "$mhz" ] || awk -v m="$mhz" 'BEGIN {printf "%d\n", m * 1000}'
}
if [ "$MMRUST_ARCH" = x86_64 ] && [ "$mode" = bench ] && [[ "${MMRUST_QEMU_ARGS:-}" != *-icount* ]]; then
	khz=$(host_tsc_khz)
	[ -z "$khz" ] || [ "$khz" = 0 ] || cmdline="tsc_early_khz=$khz $cmdline"
fi
# The KTAP console, mmrust.ktap= (testing.rst, "Results: KTAP"), not a
# console= (no printk).  x86_64: both ports -serial (a -device isa-serial
# would take QEMU's default first port away).
ktap_args=()
if [ -n "$ktap" ]; then
	if [ "$MMRUST_ARCH" = x86_64 ]; then
		ktap_args=(-serial mon:stdio -serial "file:$ktap")
		cmdline="$cmdline mmrust.ktap=ttyS1"
	else
		ktap_args=(-chardev "file,id=ktap,path=$ktap"
			-device virtio-serial-device -device virtconsole,chardev=ktap)
		cmdline="$cmdline mmrust.ktap=hvc0"
	fi
fi
accel=$(choose_accel) || exit 1
if [ "$MMRUST_ARCH" = x86_64 ] && [ "$accel" = kvm ]; then
	# SeaBIOS (QEMU's default firmware): under KVM on a nested host a
	# qboot guest was seen printing nothing at all.
	qemu=(qemu-system-x86_64 -accel kvm -cpu host
		-append "console=ttyS0 acpi=off $cmdline")
elif [ "$MMRUST_ARCH" = x86_64 ]; then
	qemu=(qemu-system-x86_64 -accel tcg -bios /usr/share/qemu/qboot.rom -cpu max
		-append "console=ttyS0 acpi=off $cmdline")
elif [ "$accel" = kvm ]; then
	qemu=(qemu-system-aarch64 -accel kvm -M virt,gic-version=host -cpu host
		-append "console=ttyAMA0 $cmdline")
else
	# pauth-impdef: the same -cpu max, with a pointer-authentication
	# algorithm TCG computes quickly.
	qemu=(qemu-system-aarch64 -accel tcg -M virt -cpu max,pauth-impdef=on
		-append "console=ttyAMA0 $cmdline")
fi
qemu+=(-m "$mem" -smp "$smp" -nographic -no-reboot -nic none ${MMRUST_QEMU_ARGS:-}
	"${ktap_args[@]}" -kernel "$kernel" -initrd "$initrd")
if [ "$log" = - ]; then
	# --foreground: QEMU keeps the terminal (and its Ctrl-A commands).
	exec timeout --foreground "${MMRUST_BOOT_TIMEOUT:-3600}" "${qemu[@]}"
fi
rc=0
timeout "${MMRUST_BOOT_TIMEOUT:-300}" "${qemu[@]}" < /dev/null > "$log" 2>&1 || rc=$?
rm -f "$initrd"
exit $rc
