#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Configure (when the fragment changed) and build the test kernel of
# $MMRUST_ARCH, its modules (the Rust sample) and the static guest programs.
. "$(dirname "$0")/lib.sh"

mkdir -p "$BUILD" "$LOGS"
# The fragment: the test image's (lib.sh), or a flavour's <flavour>.config
# over the architecture's (testing.rst, "The images"; a later line wins).
frag=$BUILD/.mmrust-fragment.new
if [ -z "$MMRUST_FLAVOR" ]; then
	image_fragment "$MMRUST_ARCH" > "$frag"
else
	arch_fragment "$MMRUST_ARCH" > "$frag"
fi
[ ! -f "$TOP/tools/testing/mmrust/configs/$MMRUST_FLAVOR.config" ] ||
	cat "$TOP/tools/testing/mmrust/configs/$MMRUST_FLAVOR.config" >> "$frag"
log=$(build_log "$NAME")

if [ "$MMRUST_FLAVOR" = gcc ]; then
	: > "$log"
else
	"${KMAKE[@]}" rustavailable > "$log" 2>&1 || { cat "$log"; die "Rust toolchain not usable by the kernel"; }
fi

stamp=$BUILD/.mmrust-fragment
if [[ $MMRUST_FLAVOR == debian* ]]; then
	# testing.rst, "Debian's own configuration: make test-debian".
	debarch=amd64
	[ "$MMRUST_ARCH" = x86_64 ] || debarch=arm64
	deb=$(debian_config_xz $debarch)
	[ -r "$deb" ] || die "no $deb: run make setup"
	# debian_base: the .config before make mmrust.config.
	debian_base() {
		debian_config $debarch
		grep '^CONFIG_' "$TOP/tools/testing/mmrust/configs/debian.config"
	}
	{ debian_base; cat "$KSRC/kernel/configs/mmrust.config"
	  [ "$MMRUST_ARCH" = x86_64 ] || cat "$KSRC/arch/arm64/configs/mmrust.config"
	  echo "# $MMRUST_FLAVOR"; } > "$frag"
	if [ ! -f "$BUILD/.config" ] || ! cmp -s "$frag" "$stamp"; then
		say "configuring $BUILD: Debian's $debarch configuration, make mmrust.config${MMRUST_FLAVOR#debian}"
		debian_base > "$BUILD/.config"
		"${KMAKE[@]}" olddefconfig mmrust.config >> "$log" 2>&1 || { tail -20 "$log"; die "make mmrust.config failed"; }
		if [ "$MMRUST_FLAVOR" = debian-norust ]; then
			"$SRC/scripts/config" --file "$BUILD/.config" --disable RUST
			"${KMAKE[@]}" olddefconfig >> "$log" 2>&1 || { tail -20 "$log"; die "olddefconfig failed"; }
		fi
		grep -q '^CONFIG_MODVERSIONS=y' "$BUILD/.config" || die "config: MODVERSIONS is not on in $BUILD/.config"
		while read -r l; do
			grep -qxF "$l" "$BUILD/.config" || die "config: $l of configs/debian.config did not hold"
		done < <(grep '^CONFIG_' "$TOP/tools/testing/mmrust/configs/debian.config")
		# (6.12's arm64 has no HVO, so no polled grace period of its restores.)
		[ "$MMRUST_FLAVOR" = debian-norust ] || while read -r l; do
			case $MMRUST_ARCH:${l#*:} in
			arm64:CONFIG_HUGETLB_PAGE_OPTIMIZE_VMEMMAP=y|arm64:CONFIG_HUGETLB_VMEMMAP_POLLED_GP=y) continue ;;
			esac
			grep -qxF "${l#*:}" "$BUILD/.config" || die "config: ${l#*:} of ${l%%:*} did not hold"
		done < <(cd "$KSRC" && grep -H '^CONFIG_' kernel/configs/mmrust.config \
			$([ "$MMRUST_ARCH" = x86_64 ] || echo arch/arm64/configs/mmrust.config))
		lost=$(comm -23 <(xzcat "$deb" | grep '^CONFIG_.*=y$' | sort) <(grep '^CONFIG_.*=y$' "$BUILD/.config" | sort) |
			sed 's/=y$//' | tr '\n' ' ')
		# What GCC and binutils alone have (Debian's compiler), X32,
		# which needs GNU ld, and arm64's AMD display FPU code, which
		# clang may not build: seen lost with clang 19 and ld.lld 19.
		other=$(printf '%s\n' $lost | grep -Ev '^CONFIG_((AS|CC|LD)_[A-Z0-9_]+|GCC_[A-Z0-9_]+|FTRACE_MCOUNT_USE_CC|USE_X86_SEG_SUPPORT|X86_X32_(ABI|DISABLED)|DRM_AMD_DC_FP)$' || true)
		say "  Debian's =y of GCC or binutils, not kept with clang: $lost"
		[ -z "$other" ] || die "config: Debian's =y not kept: $(echo $other)"
		cp "$frag" "$stamp"
	fi
elif [ -n "${DERIVE_FROM:-}" ]; then
	# A flavour that only turns options off (nocontpte, production, base):
	# DERIVE_FROM's .config with the fragment's "=n" (and "=y") lines, by
	# olddefconfig, so that nothing else differs (allnoconfig would turn off
	# what EXPERT, which nocontpte's options' prompts need, puts behind a
	# prompt), in a copy of its build directory: only what changes recompiles.
	[ -f "$DERIVE_FROM/.config" ] ||
		die "$NAME derives from the image in $DERIVE_FROM: build that first (make build ARCH=$MMRUST_ARCH)"
	# (Not the base's: its objects come from another tree.)
	if [ ! -f "$BUILD/.config" ] && [ "$MMRUST_FLAVOR" != base ]; then
		say "starting $BUILD as a copy of $DERIVE_FROM"
		cp -a "$DERIVE_FROM/." "$BUILD/"
		# Its own modpost writes its own.
		rm -f "$BUILD/Module.symvers"
	fi
	case $MMRUST_FLAVOR in
	# The options whose help says so (as the matrix's production cell).
	production) on="" off=$(test_only_options) ;;
	# Every option of the series: the base has none of them.
	base) on="" off=$(sed -n 's/^config //p' "$TOP/Kconfig") ;;
	*) off=$(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=n$/\1/p' "$TOP/tools/testing/mmrust/configs/$MMRUST_FLAVOR.config")
	   on=$(sed -n 's/^CONFIG_\([A-Z0-9_]*\)=y$/\1/p' "$TOP/tools/testing/mmrust/configs/$MMRUST_FLAVOR.config") ;;
	esac
	cp "$DERIVE_FROM/.config" "$BUILD/.mmrust-derived.new"
	# shellcheck disable=SC2046 # one --enable or --disable per option
	"$SRC/scripts/config" --file "$BUILD/.mmrust-derived.new" \
		$(for o in $on; do echo --enable "$o"; done) $(for o in $off; do echo --disable "$o"; done)
	if ! cmp -s "$BUILD/.mmrust-derived.new" "$BUILD/.mmrust-derived"; then
		say "configuring $BUILD: $DERIVE_FROM/.config with$(for o in $on; do printf ' %s on,' "$o"; done)$(printf ' %s' $off) off"
		cp "$BUILD/.mmrust-derived.new" "$BUILD/.config"
		"${KMAKE[@]}" olddefconfig >> "$log" 2>&1 || { tail -20 "$log"; die "olddefconfig failed"; }
		for o in $off; do
			! grep -q "^CONFIG_$o=" "$BUILD/.config" || die "config: $o is not off in $BUILD/.config"
		done
		for o in $on; do
			grep -q "^CONFIG_$o=y" "$BUILD/.config" || die "config: $o is not on in $BUILD/.config"
		done
		say "  options that differ from $DERIVE_FROM: $(diff <(grep '^CONFIG_' "$DERIVE_FROM/.config" | sort) \
			<(grep '^CONFIG_' "$BUILD/.config" | sort) | sed -n 's/^[<>] CONFIG_\([^=]*\)=.*/\1/p' |
			sort -u | tr '\n' ' ')"
		cp "$BUILD/.mmrust-derived.new" "$BUILD/.mmrust-derived"
	fi
elif [ ! -f "$BUILD/.config" ] || ! cmp -s "$frag" "$stamp"; then
	say "configuring $BUILD from common.config, $MMRUST_ARCH.config${MMRUST_FLAVOR:+ and $MMRUST_FLAVOR.config}"
	# allnoconfig with the fragment: every symbol it does not name is
	# off, unless the base turns it on without a prompt.
	grep '^CONFIG_' "$frag" | sed 's/^\(CONFIG_[A-Z0-9_]*\)=n$/# \1 is not set/' > "$BUILD/.mmrust-allconfig"
	rm -f "$BUILD/.config"
	"${KMAKE[@]}" KCONFIG_ALLCONFIG="$BUILD/.mmrust-allconfig" allnoconfig >> "$log" 2>&1 ||
		{ tail -20 "$log"; die "allnoconfig failed"; }
	bad=0
	while read -r line; do
		case $line in
		*=n) ! grep -Eq "^${line%=n}=[ym]$" "$BUILD/.config" || { echo "not off in .config: $line" >&2; bad=1; } ;;
		*) grep -qx "$line" "$BUILD/.config" || { echo "missing in .config: $line" >&2; bad=1; } ;;
		esac
	done < <(grep '^CONFIG_' "$frag" | awk -F= '{v[$1] = $0; o[NR] = $1}
		END {for (i = 1; i <= NR; i++) if (!seen[o[i]]++) print v[o[i]]}')
	[ $bad = 0 ] || die "config fragment not satisfied (a dependency is off)"
	cp "$frag" "$stamp"
fi

# Debian's images: what is built in (modpost's vmlinux.symvers of it).
targets=("$(basename "$IMAGE")" modules)
[[ $MMRUST_FLAVOR != debian* ]] || targets=("$(basename "$IMAGE")")
# How long the last build from nothing of this image took here, for the message.
cold_rec=$LOGS/cold-build-$NAME
cold=""
[ -f "$BUILD/vmlinux" ] || cold=1
if [ -r "$cold_rec" ]; then
	read -r secs objs cpus < "$cold_rec" || true
	note="a cold build took $(( secs / 60 )) min $(( secs % 60 )) s here ($objs objects, $cpus CPUs)"
else
	note="a cold build compiles about 900 objects, on $(nproc) CPUs here"
fi
say "building ${targets[*]} in $BUILD ($([ -n "$cold" ] && echo "from nothing: " || echo "incremental; ")$note; log: $log)"
start=$(date +%s)
"${KMAKE[@]}" "${targets[@]}" >> "$log" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
	sleep 20
	kill -0 $pid 2>/dev/null || break
	# || true: before make's first "  CC"-style line there is none to
	# show, and under pipefail grep's "no match" ended this script with
	# the build still running (exit 1, no message; seen in a make test).
	last=$(grep -E '^  [A-Z]' "$log" | tail -1 | sed 's/^ *//') || true
	say "  ... $(( $(date +%s) - start ))s, $(grep -cE '^  (CC|RUSTC)' "$log") objects compiled, now: $last"
done
if ! wait $pid; then
	grep -E 'error|Error' "$log" | head -40 >&2
	die "kernel build failed (full log: $log)"
fi
n=$(grep -cE '^  (CC|RUSTC)' "$log" || true)
say "built $BUILD/$IMAGE in $(( $(date +%s) - start ))s ($n objects compiled)"
[ -z "$cold" ] || echo "$(( $(date +%s) - start )) $n $(nproc)" > "$cold_rec"

# Debian's: x86_64's boots, with the guest programs; the others do not.
[[ $MMRUST_FLAVOR == debian* && $NAME != x86_64-debian ]] || "$TOP/tools/testing/mmrust/guest.sh"
