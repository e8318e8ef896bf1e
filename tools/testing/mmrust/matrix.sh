#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The configuration matrix (Documentation/mm/mmrust/testing.rst, "The
# configuration matrix"), one build directory per architecture
# ($CACHE/build/matrix-<arch>).  Prints a table of configuration against
# result; exits non-zero when a cell failed.
#   matrix.sh            every architecture of MMRUST_ARCHES
#   matrix.sh --warnings <log>   the overlay's warnings in a build log
#   MMRUST_MATRIX_ONLY="<config> ..."   only these configurations (names
#                        as the table prints them, "minimal-linked" too)
. "$(dirname "$0")/lib.sh"

MTOP=$TOP/tools/testing/mmrust
BASE_WARNINGS=$MTOP/matrix-base-warnings

# The project's options: those of ./Kconfig but the switch the components
# select and what rustc can do (RUSTC_*, no prompt: it follows the toolchain).
project_options() {
	sed -n 's/^config \([A-Z0-9_]*\)$/\1/p' "$TOP/Kconfig" | grep -vx 'MM_IMPL_SWITCH\|RUSTC_.*'
}

# opts <value> <options...>: " CONFIG_<option>=<value>" for each.
opts() { local v=$1 o; shift; for o in "$@"; do printf ' CONFIG_%s=%s' "$o" "$v"; done; }

# configs <arch>: one line per configuration, "<name> <CONFIG_X=v>...",
# the changes over the architecture's test image fragment.
configs() {
	local o not_here=CONTPTE_KUNIT_TEST
	echo "rust-off CONFIG_RUST=n"
	# What a production kernel builds: no KUnit, no test-only option.
	echo "production CONFIG_KUNIT=n$(opts n $(test_only_options))"
	for o in SLUB_CPU_PARTIAL_RUST HUGETLB_BULK_FREE_RUST CLEAR_PAGES_BATCH; do
		echo "no-${o,,} CONFIG_$o=n"
	done
	case $1 in
	x86_64)
		echo "no-hugetlb_vmemmap_polled_gp CONFIG_HUGETLB_VMEMMAP_POLLED_GP=n"
		# HVO has no prompt: it follows SPARSEMEM_VMEMMAP.
		echo "no-hvo CONFIG_SPARSEMEM_VMEMMAP=n CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP=n"
		;;
	arm64)
		echo "no-contpte_switch CONFIG_CONTPTE_SWITCH=n"
		echo "no-contpte_vmstat CONFIG_CONTPTE_VMSTAT=n"
		# ARM64_CONTPTE's prompt is behind EXPERT.
		echo "no-arm64_contpte CONFIG_EXPERT=y CONFIG_ARM64_CONTPTE=n"
		;;
	esac
	echo "no-debug_fs CONFIG_DEBUG_FS=n"
	# kunit-m: every suite of the architecture (testing.rst, "The configuration matrix").
	[ "$1" = x86_64 ] || not_here=HUGETLB_VMEMMAP_POLLED_GP_KUNIT_TEST
	echo "kunit-m CONFIG_KUNIT=m$(opts m $(project_options | grep '_KUNIT_TEST$' | grep -vxF "$not_here"))"
	echo "all-off$(opts n $(project_options))"
	echo "no-slub_cpu_partial CONFIG_SLUB_CPU_PARTIAL=n"
	echo "no-hugetlb_page CONFIG_HUGETLBFS=n CONFIG_HUGETLB_PAGE=n"
	echo "no-thp CONFIG_TRANSPARENT_HUGEPAGE=n"
	echo "preempt_none CONFIG_PREEMPT_DYNAMIC=n CONFIG_PREEMPT_NONE=y"
}

# objects <arch> <build dir>: the objects the overlay adds or patches that
# the configuration in <build dir> builds, one per line (ours by the obj-
# lines of mm/Makefile.mmrust and samples/rust/Makefile.mmrust).
objects() {
	local arch=$1 cfg=$2/.config
	on() { grep -Eq "^CONFIG_$1=[ym]" "$cfg"; }
	# The hooked base files (page_alloc.c, pgtable-generic.c, hugetlbfs'
	# inode.c, mmu_notifier.c: exports for the KUnit modules, patch 0039).
	echo mm/slub.o mm/memory.o mm/vmstat.o mm/page_alloc.o mm/pgtable-generic.o
	! on HUGETLBFS || echo mm/hugetlb.o fs/hugetlbfs/inode.o
	! on MMU_NOTIFIER || echo mm/mmu_notifier.o
	! on HUGETLB_PAGE_OPTIMIZE_VMEMMAP || echo mm/hugetlb_vmemmap.o
	! on RUST || echo rust/helpers/helpers.o
	case $arch in
	x86_64) echo arch/x86/lib/clear_pages_64.o ;;
	arm64)
		echo arch/arm64/lib/clear_pages.o arch/arm64/mm/fault.o
		! on ARM64_CONTPTE || echo arch/arm64/mm/contpte.o
		;;
	esac
	for mk in mm/Makefile.mmrust samples/rust/Makefile.mmrust; do
		awk -v d="$(dirname $mk)" '/^obj-\$\(CONFIG_[A-Z0-9_]*\)/ {
			c = $1; sub(/^obj-\$\(CONFIG_/, "", c); sub(/\).*/, "", c)
			for (i = 3; i <= NF; i++) print c, d "/" $i }' "$TOP/$mk"
	done | while read -r c o; do
		! on "$c" || echo "$o"
	done
}

# configure <arch> <build dir> <changes...>: allnoconfig with the test
# image's fragment and the changes; prints the changes that did not hold.
configure() {
	local arch=$1 b=$2 l; shift 2
	{ image_fragment "$arch" | grep '^CONFIG_'; printf '%s\n' "$@"; } |
		sed 's/^\(CONFIG_[A-Z0-9_]*\)=n$/# \1 is not set/' > "$b/.mmrust-allconfig"
	rm -f "$b/.config"
	"${MK[@]}" KCONFIG_ALLCONFIG="$b/.mmrust-allconfig" allnoconfig > "$b/.mmrust-configure.log" 2>&1 ||
		{ echo "allnoconfig failed"; return; }
	for l in "$@"; do
		case $l in
		*=n) ! grep -q "^${l%=n}=" "$b/.config" || echo "$l did not hold" ;;
		*) grep -qx "$l" "$b/.config" || echo "$l did not hold" ;;
		esac
	done
}

# warnings <log>: the warnings in the files the overlay adds or patches, less
# the base's own (matrix-base-warnings), as "<file>:<line>:<col>: warning:
# <text>" (clang) or "<file>: warning: <text>" (rustc's "-->" line).
warnings() {
	awk -v src="$SRC/" '
		function rel(f) { sub("^" src, "", f); sub(/^\.\.\/src\//, "", f); return f }
		/^warning: / { w = $0; next }
		/^ *--> / && w != "" { f = $2; sub(/:.*/, "", f); print rel(f) ": " w; w = ""; next }
		/: warning: / { print rel($0) }' "$1" |
	awk 'NR == FNR { ours[$0] = 1; next } { f = $0; sub(/:.*/, "", f); if (f in ours) print }' \
		"$CACHE/manifest" - |
	grep -vFf <(grep -v '^#' "$BASE_WARNINGS" | sed '/^$/d') || true
}

# wanted <config>: in MMRUST_MATRIX_ONLY, or no MMRUST_MATRIX_ONLY.
wanted() { [ -z "${MMRUST_MATRIX_ONLY:-}" ] || [[ " $MMRUST_MATRIX_ONLY " == *" $1 "* ]]; }

# minimal_linked <arch> <build dir>: RUST=n and every project option off, linked.
minimal_linked() {
	local arch=$1 b=$2 changes="CONFIG_RUST=n$(opts n $(project_options))" start why
	start=$(date +%s)
	say "matrix $arch: minimal (RUST=n, every project option off): linking vmlinux"
	# shellcheck disable=SC2086
	why=$(configure "$arch" "$b" $changes)
	if [ -n "$why" ]; then
		cell "$arch" minimal-linked "FAILED (config)" "$why"
	elif built "$arch" minimal-linked "$b/.mmrust-build.log" "${MK[@]}" vmlinux; then
		cell "$arch" minimal-linked "ok ($(grep -cE '^  (CC|AS|RUSTC) ' "$b/.mmrust-build.log" || true) objects, $(( $(date +%s) - start ))s)"
	fi
	[ ! -f "$b/.mmrust-build.log" ] || cat "$b/.mmrust-build.log" >> "$log"
}

# generic_clear_pages: i386 (configs/i386-generic.config), no clear_pages()
# of its own, linked and booted for the KUnit suite clear_pages_batch; the
# cell is the build, the console goes to $GENERIC_KUNIT_LOG (test.sh counts it).
GENERIC_KUNIT_LOG=$LOGS/matrix-i386-kunit.log
generic_clear_pages() {
	local b=$CACHE/build/matrix-i386 start=$(date +%s) l n
	local mk=("${KMAKE[@]/#O=*/O=$b}")
	mk=("${mk[@]/#ARCH=*/ARCH=i386}")
	mkdir -p "$b"
	say "matrix i386: generic clear_pages(): building and booting the KUnit suite clear_pages_batch"
	grep '^CONFIG_' "$MTOP/configs/i386-generic.config" > "$b/.mmrust-allconfig"
	if ! cmp -s "$b/.mmrust-allconfig" "$b/.mmrust-fragment"; then
		rm -f "$b/.config"
		"${mk[@]}" KCONFIG_ALLCONFIG="$b/.mmrust-allconfig" allnoconfig > "$b/.mmrust-configure.log" 2>&1 ||
			{ cell i386 generic-clear-pages "FAILED (config)" "allnoconfig failed"; return; }
		for l in $(cat "$b/.mmrust-allconfig"); do
			grep -qx "$l" "$b/.config" ||
				{ cell i386 generic-clear-pages "FAILED (config)" "$l did not hold"; return; }
		done
		cp "$b/.mmrust-allconfig" "$b/.mmrust-fragment"
	fi
	built i386 generic-clear-pages "$b/.mmrust-build.log" "${mk[@]}" bzImage || return 0
	n=$(grep -cE '^  (CC|AS) ' "$b/.mmrust-build.log" || true)
	# No init: after the suite the kernel panics, QEMU exits (panic=-1, -no-reboot).
	timeout 600 qemu-system-i386 -M pc -cpu max -smp 2 -m 1G -nographic -no-reboot -nic none \
		-kernel "$b/arch/x86/boot/bzImage" \
		-append "console=ttyS0 panic=-1 kunit.filter_glob=clear_pages_batch" \
		> "$GENERIC_KUNIT_LOG" 2>&1 || true
	cell i386 generic-clear-pages "ok ($n objects, booted: KUnit in $GENERIC_KUNIT_LOG, $(( $(date +%s) - start ))s)"
}

if [ "${1:-}" = --warnings ]; then
	warnings "$2"
	exit 0
fi

rows=()
bad=0
# built <arch> <name> <log> <command...>: the command's output in <log>; a
# failure, or a warning in our files, fails the cell (status 1).
built() {
	local arch=$1 name=$2 log=$3 w
	shift 3
	if ! "$@" > "$log" 2>&1; then
		cell "$arch" "$name" "FAILED (build)" "$(grep -E 'error|Error' "$log" | head -20)"
		return 1
	fi
	w=$(warnings "$log")
	[ -z "$w" ] || { cell "$arch" "$name" "FAILED (warning)" "$w"; return 1; }
}
# compile_cell <arch> <name> <build dir> <log> <start> <objects...>: built
# with compile_objects; a failed cell's objects removed (kbuild would keep a
# warned object; ccache gives back its warnings too); the log to <log>.
compile_cell() {
	local arch=$1 name=$2 b=$3 log=$4 start=$5 n
	shift 5
	n=$(printf '%s\n' "$@" | grep -cv '^rust/$' || true)
	! built "$arch" "$name" "$b/.mmrust-build.log" compile_objects "$b" "$@" ||
		cell "$arch" "$name" "ok ($n objects$([[ " $* " != *" rust/ "* ]] || echo " and the Rust crates"), $(( $(date +%s) - start ))s)"
	[ "${rows[-1]##* ok}" != "${rows[-1]}" ] || (cd "$b" && rm -f "${@/#rust\//}")
	cat "$b/.mmrust-build.log" >> "$log"
}

# debian_configure <debarch> <changes...>: Debian's config, KUnit, the
# changes, olddefconfig, in $b with MK.
debian_configure() {
	local deb=$1; shift
	{ debian_config $deb; printf '%s\n' CONFIG_KUNIT=y "$@"; } |
		sed 's/^\(CONFIG_[A-Z0-9_]*\)=n$/# \1 is not set/' > "$b/.config"
	"${MK[@]}" olddefconfig > "$b/.mmrust-configure.log" 2>&1 || echo "olddefconfig failed"
}

# debian_gcc <arch>: testing.rst, "The configuration matrix".
debian_gcc() {
	local arch=$1 b o on_opts="" name changes start why objs deb gcc cross="" cell0
	case $arch in
	x86_64) deb=amd64 gcc=x86_64-linux-gnu-gcc-12 cell0=debian-gcc ;;
	arm64) deb=arm64 gcc=aarch64-linux-gnu-gcc-12 cross=aarch64-linux-gnu- cell0=debian-gcc-arm64 ;;
	esac
	b=$CACHE/build/matrix-$cell0
	local cfg=$(debian_config_xz $deb)
	[ -z "${MMRUST_MATRIX_ONLY:-}" ] || [[ "$MMRUST_MATRIX_ONLY" == *$cell0* ]] || return 0
	[ -r "$cfg" ] || { cell "$arch" "$cell0" "FAILED (config)" "no $cfg: run make setup"; return; }
	command -v "$gcc" > /dev/null ||
		{ cell "$arch" "$cell0" "FAILED (config)" "no $gcc: run make setup"; return; }
	mkdir -p "$b"
	MK=(make -C "$SRC" O="$b" ARCH="$arch" ${cross:+CROSS_COMPILE=$cross} "CC=ccache $gcc"
		HOSTCC=gcc-12 -j"$(nproc)")
	# shellcheck disable=SC2046
	why=$(debian_configure $deb $(opts y $(project_options)))
	[ -z "$why" ] || { cell "$arch" "$cell0" "FAILED (config)" "$why"; return; }
	# The options Debian's configuration takes: the cells that turn one off.
	on_opts=$(for o in $(project_options); do ! grep -q "^CONFIG_$o=y" "$b/.config" || echo "$o"; done)
	while read -r name changes; do
		wanted "$name" || wanted "$cell0" || continue
		start=$(date +%s)
		# shellcheck disable=SC2046,SC2086
		why=$(debian_configure $deb $(opts y $on_opts) $changes)
		[ -z "$why" ] || { cell "$arch" "$name" "FAILED (config)" "$why"; continue; }
		for o in $changes; do
			! grep -q "^${o%=n}=y" "$b/.config" || { why="$o did not hold"; break; }
		done
		[ -z "$why" ] || { cell "$arch" "$name" "FAILED (config)" "$why"; continue; }
		objs=$(objects "$arch" "$b" | tr '\n' ' ')
		say "matrix $arch: $name (GCC 12): $(echo $objs | wc -w) objects"
		# shellcheck disable=SC2086
		compile_cell "$arch" "$name" "$b" "$LOGS/matrix-debian.log" "$start" $objs
	done < <(echo "$cell0"
		# The call counters are selected by the KUnit suites: off with KUnit.
		for o in $on_opts; do
			echo "$cell0-no-${o,,} CONFIG_$o=n$([ "$o" != MM_IMPL_SWITCH_CALLS ] || echo " CONFIG_KUNIT=n")"
		done)
}

# debian_rust <clang|gcc>: testing.rst, "The configuration matrix".
debian_rust() {
	local cc=$1 b o why objs start name a cfg=$(debian_config_xz amd64)
	case $cc in
	clang) name=debian-clang-rust b=$CACHE/build/matrix-debian-clang ;;
	gcc) name=debian-gcc-rust b=$CACHE/build/matrix-debian-gcc-rust ;;
	esac
	wanted "$name" || return 0
	[ -r "$cfg" ] || { cell x86_64 "$name" "FAILED (config)" "no $cfg: run make setup"; return; }
	start=$(date +%s)
	mkdir -p "$b"
	MK=()
	for a in "${KMAKE[@]/#O=*/O=$b}"; do
		case "$cc:$a" in
		gcc:LLVM=*) ;;
		"gcc:CC=ccache clang-19") MK+=("CC=ccache x86_64-linux-gnu-gcc-12" HOSTCC=gcc-12) ;;
		*) MK+=("$a") ;;
		esac
	done
	# shellcheck disable=SC2046
	why=$(debian_configure amd64 $(opts y RUST RUST_BUILTIN_ONLY $(project_options)))
	[ -z "$why" ] || { cell x86_64 "$name" "FAILED (config)" "$why"; return; }
	for o in RUST RUST_BUILTIN_ONLY MODVERSIONS SLUB_CPU_PARTIAL_RUST HUGETLB_BULK_FREE_RUST; do
		grep -q "^CONFIG_$o=y" "$b/.config" || why="$why CONFIG_$o=y did not hold;"
	done
	[ "$cc" != gcc ] || grep -q '^CONFIG_CC_IS_GCC=y' "$b/.config" || why="$why not built with GCC;"
	[ -z "$why" ] || { cell x86_64 "$name" "FAILED (config)" "$why"; return; }
	objs=$(objects x86_64 "$b" | tr '\n' ' ')
	say "matrix x86_64: $name ($cc, Rust): the Rust crates and $(echo $objs | wc -w) objects"
	# shellcheck disable=SC2086
	compile_cell x86_64 "$name" "$b" "$LOGS/matrix-debian.log" "$start" rust/ $objs
}

# builtin_only_refusals: testing.rst, "The configuration matrix".
builtin_only_refusals() {
	local b=$CACHE/build/matrix-debian-clang k=$CACHE/build/matrix-debian-kconfig
	local m=$CACHE/build/matrix-rust-extmod name start out
	name=debian-rust-builtin-only-rnull-m
	if wanted "$name"; then
		start=$(date +%s)
		mkdir -p "$k"
		# rnull_config <RUST_BUILTIN_ONLY and MODVERSIONS>: Debian's config
		# (keys kept), Rust, BLK_DEV_RUST_NULL=m; its line in the result.
		rnull_config() {
			{ xzcat "$(debian_config_xz amd64)"; printf '%s\n' CONFIG_RUST=y "$@" CONFIG_BLK_DEV_RUST_NULL=m; } |
				sed 's/^\(CONFIG_[A-Z0-9_]*\)=n$/# \1 is not set/' > "$k/.config"
			"${KMAKE[@]/#O=*/O=$k}" olddefconfig > "$k/.mmrust-configure.log" 2>&1 || return 1
			grep 'CONFIG_BLK_DEV_RUST_NULL[= ]' "$k/.config" || echo "(no line)"
		}
		out=$(rnull_config CONFIG_RUST_BUILTIN_ONLY=n CONFIG_MODVERSIONS=n) || out="olddefconfig failed"
		if [ "$out" != CONFIG_BLK_DEV_RUST_NULL=m ]; then
			cell x86_64 "$name" "FAILED (config)" "without RUST_BUILTIN_ONLY, BLK_DEV_RUST_NULL=m did not hold: $out"
		elif out=$(rnull_config CONFIG_RUST_BUILTIN_ONLY=y) && [ "$out" = CONFIG_BLK_DEV_RUST_NULL=m ]; then
			cell x86_64 "$name" "FAILED (not refused)" "BLK_DEV_RUST_NULL=m held beside RUST_BUILTIN_ONLY=y"
		elif ! grep -q '^CONFIG_RUST_BUILTIN_ONLY=y' "$k/.config"; then
			cell x86_64 "$name" "FAILED (config)" "RUST_BUILTIN_ONLY=y did not hold"
		else
			# Kconfig's reason: the "depends on" of drivers/block/Kconfig (patch 0042).
			out=$(sed -n '/^config BLK_DEV_RUST_NULL$/,/^$/p' "$SRC/drivers/block/Kconfig" |
				grep -o 'depends on .*RUST_BUILTIN_ONLY.*' || true)
			if [ -n "$out" ]; then
				cell x86_64 "$name" "ok (refused as it must be: Kconfig: $out; $(( $(date +%s) - start ))s)"
			else
				cell x86_64 "$name" "FAILED (config)" "refused, but not for RUST_BUILTIN_ONLY"
			fi
		fi
	fi
	name=debian-rust-builtin-only-extmod
	if wanted "$name"; then
		start=$(date +%s)
		if [ ! -f "$b/rust/libkernel.rmeta" ]; then
			cell x86_64 "$name" "FAILED (build)" "no Rust crates in $b (the debian-clang-rust cell builds them)"
			return
		fi
		rm -rf "$m" && mkdir -p "$m"
		echo 'obj-m := rust_extmod.o' > "$m/Kbuild"
		cat > "$m/rust_extmod.rs" <<-'RS'
		use kernel::prelude::*;
		module! { type: M, name: "rust_extmod", license: "GPL", }
		struct M; impl kernel::Module for M { fn init(_: &'static ThisModule) -> Result<Self> { Ok(M) } }
		RS
		if "${KMAKE[@]/#O=*/O=$b}" M="$m" modules > "$m/build.log" 2>&1; then
			cell x86_64 "$name" "FAILED (not refused)" "an out-of-tree Rust module built beside RUST_BUILTIN_ONLY=y"
		elif out=$(grep -o 'rust_extmod.o: Rust code in a module but CONFIG_RUST_BUILTIN_ONLY=y' "$m/build.log"); then
			cell x86_64 "$name" "ok (refused as it must be: '$out ...'; $(( $(date +%s) - start ))s)"
		else
			cell x86_64 "$name" "FAILED (build)" "failed without naming RUST_BUILTIN_ONLY: $(grep -E 'error|Error' "$m/build.log" | head -5)"
		fi
		cat "$m/build.log" >> "$LOGS/matrix-debian.log"
	fi
}

# production_fragment: make mmrust.config on Debian's amd64 configuration.
production_fragment() {
	local k=$CACHE/build/matrix-debian-kconfig name=debian-mmrust-config start why="" l o
	wanted "$name" || return 0
	start=$(date +%s)
	mkdir -p "$k"
	debian_config amd64 > "$k/.config"
	"${KMAKE[@]/#O=*/O=$k}" mmrust.config > "$k/.mmrust-configure.log" 2>&1 ||
		{ cell x86_64 "$name" "FAILED (config)" "make mmrust.config failed: $(tail -3 "$k/.mmrust-configure.log")"; return; }
	for l in $(grep '^CONFIG_' "$TOP/kernel/configs/mmrust.config"); do
		grep -qx "$l" "$k/.config" || why="$why $l did not hold;"
	done
	for o in $(test_only_options); do
		! grep -Eq "^CONFIG_$o=[ym]" "$k/.config" || why="$why test option CONFIG_$o is on;"
	done
	if [ -z "$why" ]; then
		cell x86_64 "$name" "ok ($(grep -c '^CONFIG_' "$TOP/kernel/configs/mmrust.config") options held, no test option; $(( $(date +%s) - start ))s)"
	else
		cell x86_64 "$name" "FAILED (config)" "$why"
	fi
}

# kunit_m_check <arch> <build dir> <objects...>: replaces the kunit-m cell's
# verdict when a built-in object uses KUnit (testing.rst, "The configuration matrix").
kunit_m_check() {
	local arch=$1 b=$2 o calls=""
	shift 2
	for o in "$@"; do
		case $o in rust/|*_kunit.o|samples/*) continue ;; esac
		[ -f "$b/$o" ] || continue
		calls="$calls$(llvm-nm-19 -u "$b/$o" | awk -v o="$o" '$2 ~ /^(__)?kunit_/ && $2 != "kunit_running" { printf " %s: %s;", o, $2 }')"
	done
	# (not "bad": cell() sets the script's bad, which a local would hide)
	[ -z "$calls" ] || { unset 'rows[-1]'; cell "$arch" kunit-m "FAILED (built-in code calls KUnit)" "$calls"; }
}

cell() {  # cell <arch> <config> <result> [details]
	rows+=("$(printf '%-8s %-30s %s' "$1" "$2" "$3")")
	[ "${3%% *}" = ok ] || bad=1
	[ -z "${4:-}" ] || printf '%s\n' "$4" | sed "s|^|[matrix $1 $2]   |" >&2
}

for arch in ${MMRUST_ARCHES:-$MMRUST_ARCH}; do
	MMRUST_ARCH=$arch
	. "$MTOP/lib.sh"
	b=$CACHE/build/matrix-$arch
	# A new matrix tree starts as a copy of the image's (built before it,
	# test.sh), so that kbuild compiles again only what a change touches.
	if [ ! -e "$b/.config" ] && [ -f "$CACHE/build/$arch/vmlinux" ]; then
		say "matrix $arch: a new tree, copied from the image's ($CACHE/build/$arch)"
		rm -rf "$b" && cp -a "$CACHE/build/$arch" "$b"
	fi
	mkdir -p "$b"
	MK=("${KMAKE[@]/#O=*/O=$b}")
	log=$LOGS/matrix-$arch.log
	: > "$log"

	! wanted minimal-linked || minimal_linked "$arch" "$b"

	while read -r name changes; do
		wanted "$name" || continue
		start=$(date +%s)
		# shellcheck disable=SC2086
		why=$(configure "$arch" "$b" $changes)
		if [ -n "$why" ]; then
			cell "$arch" "$name" "FAILED (config)" "$why"
			continue
		fi
		objs=$(objects "$arch" "$b" | tr '\n' ' ')
		say "matrix $arch: $name: $(echo $objs | wc -w) objects"
		# shellcheck disable=SC2086
		compile_cell "$arch" "$name" "$b" "$log" "$start" $objs
		[ "$name" != kunit-m ] || [ "${rows[-1]##* ok}" = "${rows[-1]}" ] || kunit_m_check "$arch" "$b" $objs
	done < <(configs "$arch")
done

# After x86_64's cells: Debian's own configuration, with GCC, then clang and Rust.
if [[ " ${MMRUST_ARCHES:-$MMRUST_ARCH} " == *" x86_64 "* ]]; then
	MMRUST_ARCH=x86_64
	. "$MTOP/lib.sh"
	: > "$LOGS/matrix-debian.log"
	debian_gcc x86_64
	debian_rust clang
	debian_rust gcc
	builtin_only_refusals
	production_fragment
fi
# Debian's arm64 configuration, with GCC (appended to the same log).
if [[ " ${MMRUST_ARCHES:-$MMRUST_ARCH} " == *" arm64 "* ]]; then
	[[ " ${MMRUST_ARCHES:-$MMRUST_ARCH} " == *" x86_64 "* ]] || : > "$LOGS/matrix-debian.log"
	MMRUST_ARCH=arm64
	. "$MTOP/lib.sh"
	debian_gcc arm64
fi

# After x86_64's cells: i386 is an x86 configuration.
rm -f "$GENERIC_KUNIT_LOG"
if [[ " ${MMRUST_ARCHES:-$MMRUST_ARCH} " == *" x86_64 "* ]] && wanted generic-clear-pages; then
	MMRUST_ARCH=x86_64
	. "$MTOP/lib.sh"
	generic_clear_pages
fi

echo "configuration matrix (the objects the overlay adds or patches; the test images link everything on):"
printf '%s\n' "${rows[@]}"
exit $bad
