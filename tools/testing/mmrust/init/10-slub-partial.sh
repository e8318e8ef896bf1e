# SPDX-License-Identifier: GPL-2.0
# Boot tests and demonstration of the Rust SLUB per-cpu partial accounting.

# check_partial_walk: each list of the churn driver's walk as long as its
# head says (both read under one hold of its lock) and within the limit
# (slub-partial.rst), read after: a cpu_partial written meanwhile can fail
# it.  Exits 3 when every list is empty.  WALK=, SLAB_DIR=: selftest-parse.sh.
check_partial_walk() {
	local walk="${WALK:-$CHURN/walk}"
	[ -n "${WALK:-}" ] || [ -d "$CHURN" ] || { echo "note: no $CHURN in this kernel: the lists not walked"; return 0; }
	[ -r "$walk" ] || { echo "no $walk"; return 1; }
	awk -v dir="${SLAB_DIR:-/sys/kernel/slab}" 'function rd(f,   v) {
		if ((getline v < f) <= 0) v = "?"
		close(f)
		return v
	}
	function bad(m) { print m; failed = 1; exit 1 }
	/^walked [0-9]+ caches on [0-9]+ CPUs$/ { caches = $2; next }
	NF != 5 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ || $4 !~ /^-?[0-9]+$/ {
		bad("malformed walk line \"" $0 "\"")
	}
	{
		if ($3 != $4)
			bad($1 ": CPU " $2 " links " $3 " slabs, its head records " $4)
		objects = rd(dir "/" $1 "/cpu_partial"); per_slab = rd(dir "/" $1 "/objs_per_slab")
		if (objects !~ /^[0-9]+$/ || per_slab !~ /^[1-9][0-9]*$/)
			bad($1 ": cpu_partial \"" objects "\", objs_per_slab \"" per_slab "\"")
		limit = int((2 * objects + per_slab - 1) / per_slab)
		if ($3 + 0 > limit)
			bad($1 ": CPU " $2 " links " $3 " slabs, limit " limit " (cpu_partial " objects ", " per_slab " per slab)")
		if ($5 + 0 != limit)
			bad($1 ": the kernel'"'"'s limit is " $5 " slabs, " limit " from cpu_partial " objects " and " per_slab " per slab")
		lists++
	}
	END {
		if (failed) exit 1
		if (caches + 0 == 0) { print "the walk covered no cache"; exit 1 }
		if (lists + 0 == 0) { print "the walk found no non-empty per-cpu partial list: nothing checked"; exit 3 }
		print "note: walk: " caches " caches, " lists + 0 " non-empty per-cpu partial lists, each as long as its head says"
	}' "$walk"
}

# The boot's choice is in use, and runs alone (calls_c, calls_rust).
test_slub_partial_impl() {
	check_impl slub_partial_impl "slub_partial: per-cpu partial accounting: " &&
		booted_ran $SP slub_partial_impl c rust slub_calls_work
}
register slub_partial_impl /sys/kernel/debug/slub_partial/calls_rust

# The debugfs switch: 1 (Rust) and 0 (C) take effect, the rest refused.
SP=/sys/kernel/debug/slub_partial
test_slub_partial_impl_switch() {
	check_switch $SP/rust && switch_ran $SP c rust slub_calls_work
}
register slub_partial_impl_switch /sys/kernel/debug/slub_partial/calls_rust

# The base's slub_kunit module on each implementation (slub-partial.rst), its
# messages off the console: the host would read its KTAP as built-in suites'.
slub_kunit_run() {	# slub_kunit_run <ko> <impl>: one load; its results on stdout
	echo "$2" > $SP/rust || { echo "cannot write $2 to $SP/rust"; return 1; }
	module_kunit_results "$1"
}

test_slub_kunit_module_both_impls() {
	local ko=/samples/slub_kunit.ko impl out old level rc=0
	[ -f $ko ] || { skip "no $ko (CONFIG_SLUB_KUNIT_TEST=m)"; return; }
	case "$(cmdline_param kunit.enable 1)" in
	0|n|N|false) skip "KUnit disabled in this boot (kunit.enable=0)"; return ;;
	esac
	# A boot that runs some KUnit suites only filters the module's too.
	case "$(cmdline_param kunit.filter_glob "")" in
	''|slub_test*) ;;
	*) skip "kunit.filter_glob=$(cmdline_param kunit.filter_glob "") leaves slub_test out"; return ;;
	esac
	old=$(cat $SP/rust) level=$(cut -f1 /proc/sys/kernel/printk)
	echo 5 > /proc/sys/kernel/printk
	for impl in 1 0; do
		out=$(slub_kunit_run $ko $impl) || { rc=1; break; }
		if ! echo "$out" | grep -Eq '^ +ok [0-9]+ test_kfree_rcu$' ||
			! echo "$out" | grep -Eq '^ *ok [0-9]+ slub_test$' ||
			echo "$out" | grep -q 'not ok '; then
			rc=1
			break
		fi
	done
	echo "$level" > /proc/sys/kernel/printk
	echo "$old" > $SP/rust
	[ $rc = 0 ] || fail "slub_kunit with $SP/rust=$impl:
$(echo "$out" | grep -E ' ok [0-9]+ |# |failed|cannot')" || return 1
	echo "note: slub_kunit: $(echo "$out" | grep -Ec '^ +ok [0-9]+ test_') cases passed on each implementation"
}
register slub_kunit_module_both_impls /sys/kernel/debug/slub_partial

# Creates and removes many small files: dentries, inodes and kmalloc
# objects come and go, from two tasks the scheduler spreads over the CPUs.
slab_churn() {
	for cpu in 0 1; do
		(
			mkdir -p /tmp/churn$cpu
			i=0
			while [ $i -lt ${1:-1500} ]; do
				echo $i > /tmp/churn$cpu/f$i
				i=$((i + 1))
			done
			rm -rf /tmp/churn$cpu
		) &
	done
	wait
}

# check_partial_walk after the churn; skipped where it found nothing to check.
test_slub_churn() {
	local out rc=0
	slab_churn 1500
	out=$(check_partial_walk) || rc=$?
	[ $rc != 3 ] || { skip "$out"; return; }
	echo "$out"
	return $rc
}
register slub_churn /sys/kernel/debug/slub_partial_churn/walk

# Churn driver (CONFIG_SLUB_CPU_PARTIAL_RUST_CHURN, mm/slub_partial_churn.c).
CHURN=/sys/kernel/debug/slub_partial_churn
# churn_stat <name> [<file>]: a counter of the churn driver (80-stress.sh's
# checks); churn_mark, then churn_since <name>: how much it moved since.
churn_stat() { awk -v k="$1" '$1 == k {print $2}' "${2:-$CHURN/stats}"; }
churn_mark() { cat $CHURN/stats > /tmp/churn.mark; }
churn_since() { echo $(( $(churn_stat "$1") - $(churn_stat "$1" /tmp/churn.mark) )); }

show_caches() {
	printf '  %-22s %11s %6s %s\n' cache cpu_partial objs/s slabs_cpu_partial
	for s in "$@"; do
		c=/sys/kernel/slab/$s
		[ -d $c ] || continue
		printf '  %-22s %11s %6s %s\n' "$s" "$(cat $c/cpu_partial)" \
			"$(cat $c/objs_per_slab)" "$(cat $c/slabs_cpu_partial)"
	done
}

# Active and total objects of the caches the churn works, from /proc/slabinfo.
slabinfo() {
	awk -v when="$1" '$1 ~ /^(dentry|shmem_inode_cache|kmalloc-64|kmalloc-256)$/ {
		printf "  %-6s %-20s active %6d  total %6d\n", when, $1, $2, $3 }' /proc/slabinfo
}

demo_slub_partial() {
	echo "== SLUB per-cpu partial accounting =="
	dmesg | grep 'slub_partial:' | sed 's/^\[[^]]*\] /  /'
	caches="dentry inode_cache shmem_inode_cache kmalloc-64 kmalloc-256 kmalloc-1k kmalloc-4k"
	echo "-- per-cpu partial lists at boot (objects(slabs), per CPU):"
	show_caches $caches
	echo "-- slab churn: 2 x 3000 files created and removed in tmpfs"
	slabinfo before
	slab_churn 3000
	slabinfo after
	show_caches $caches
	echo "-- cpu_partial store: kmalloc-256 to 30 objects, then 'abc' (rejected)"
	echo 30 > /sys/kernel/slab/kmalloc-256/cpu_partial
	echo abc > /sys/kernel/slab/kmalloc-256/cpu_partial 2>/dev/null || echo "  'abc' rejected: $?"
	show_caches kmalloc-256
}
demo slub_partial
