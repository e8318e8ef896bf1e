# SPDX-License-Identifier: GPL-2.0
# The samples (samples/), run as a developer would run them: the Rust
# sample module loaded and unloaded, the seed 001 demo run.

SAMPLES=/samples

# sample_mark: a line in the kernel log; sample_log: the sample module's
# lines since the last mark.
sample_mark() { echo "mmrust: sample mark" > /dev/kmsg; }
sample_log() { dmesg | sed -n '/mmrust: sample mark/h; /mmrust: sample mark/!H; ${x;p}' | sed -n 's/.*rust_mm_folio_list: //p'; }

test_sample_rust_mm_folio_list() {
	local ko=$SAMPLES/rust_mm_folio_list.ko out want
	[ -f $ko ] || fail "$ko is not in the initramfs" || return 1
	sample_mark
	insmod $ko || fail "insmod $ko failed" || return 1
	grep -q '^rust_mm_folio_list ' /proc/modules || fail "not in /proc/modules after insmod" || return 1
	rmmod rust_mm_folio_list || fail "rmmod failed" || return 1
	! grep -q '^rust_mm_folio_list ' /proc/modules || fail "still in /proc/modules after rmmod" || return 1
	out=$(sample_log)
	want="allocated 4 folios, orders 0 1 2 3, 15 pages
moved 2 folios of order >= 2 to a second list
first list: 2 folios, 3 pages; second list: 2 folios, 12 pages
holding 4 folios until unload
unloading: freeing 4 folios
4 folios had their reference put by the drop"
	[ "$out" = "$want" ] || fail "the module printed:
$out
expected:
$want"
}
register sample_rust_mm_folio_list /samples/rust_mm_folio_list.ko

demo_samples() {
	echo "== samples: the Rust sample module (samples/rust/rust_mm_folio_list.rs)"
	sample_mark
	insmod $SAMPLES/rust_mm_folio_list.ko && rmmod rust_mm_folio_list
	sample_log | sed 's/^/   /'
	echo "== samples: the huge zero page demo of seed 001 (samples/mm/huge_zero_page.c)"
	$SAMPLES/huge_zero_page | sed 's/^/   /'
}
demo samples
