// SPDX-License-Identifier: GPL-2.0

//! Host test of the SLUB per-cpu partial decisions (`mm/slub_partial/policy.rs`,
//! the very file the kernel builds into `mm/slub_partial.rs`).
//!
//! Built with the host's `rustc --test` by this directory's Makefile
//! (`make -C tools/testing/slub_partial run`; `make test` runs it):
//!
//! - the cases of `mm/slub_partial_cases.h`, worked by hand from seed
//!   003's rules, which the KUnit suite `slub_partial_rust` runs in the
//!   kernel too, read from that file;
//! - the whole `u32` range against the C original (`slub_c_*()` of
//!   `include/linux/slub_partial.h`, compiled by the host's C compiler):
//!   exhaustive where 2^32 inputs are cheap, sampled otherwise.  Where the
//!   C arithmetic wraps (a target of 2^31 objects or more, say) the Rust
//!   saturates instead, a difference kept on purpose
//!   (`Documentation/mm/mmrust/slub-partial.rst`): there the hand-worked
//!   cases and a property (the result never falls as the input grows)
//!   judge it;
//! - the push decision, row by row as worked by hand.

#![allow(dead_code)]

use core::ffi::c_int;

/// The page size the cases assume (the x86_64 and arm64 test images').
const PAGE_SIZE: usize = 4096;

#[path = "../../../mm/slub_partial/policy.rs"]
mod policy;

use policy::{
    cpu_partial_slabs, default_cpu_partial, partial_node_done, partial_objects, push_decision, Push,
};

/// The cases file, as the KUnit suite includes it.
const CASES: &str = include_str!("../../../mm/slub_partial_cases.h");

/// The numbers of every `<name>(a, b, c)` line of the cases file.
fn cases(name: &str) -> Vec<[u64; 3]> {
    let prefix = format!("{name}(");
    CASES
        .lines()
        .filter_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .map(|rest| {
            let args: Vec<u64> = rest
                .trim_end_matches(')')
                .split(',')
                .map(|a| a.trim().parse().expect("a decimal number"))
                .collect();
            [args[0], args[1], args[2]]
        })
        .collect()
}

fn u(v: u64) -> u32 {
    u32::try_from(v).expect("a u32")
}

/// A small deterministic generator (xorshift64*), for the sampled ranges.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
    }
}

// The oracle: the C original (`slub_c_*()` of `include/linux/slub_partial.h`,
// what `slub_partial_impl=c` runs), built by the host's C compiler from
// `slub_partial_c_original.c` and linked in by `rusttest.sh`.  Its
// unsigned int arithmetic wraps where the Rust saturates: past 2^32 in
// `2 * objects + per_slab - 1` (`cpu_partial_slabs`) and in
// `slabs * per_slab` (`partial_objects`).  There the expected values are
// the hand-worked rows of the cases file and the properties below.

#[link(name = "slub_partial_c_original", kind = "static")]
extern "C" {
    fn c_default_cpu_partial(size: u32, has_cpu_partial: bool) -> u32;
    fn c_cpu_partial_slabs(nr_objects: u32, objects_per_slab: u32) -> u32;
    fn c_partial_node_done(nr_pushed: u32, cpu_partial_slabs: u32) -> bool;
    fn c_partial_objects(slabs: u32, objects_per_slab: u32) -> u32;
}

fn c_default(size: u32, has: bool) -> u32 {
    // SAFETY: a pure C function of its arguments.
    unsafe { c_default_cpu_partial(size, has) }
}

/// The C original's slab limit, `None` where its arithmetic wraps (or it
/// would divide by zero).
fn c_slabs(objects: u32, per_slab: u32) -> Option<u32> {
    let wraps = per_slab == 0
        || objects
            .checked_mul(2)
            .and_then(|n| n.checked_add(per_slab - 1))
            .is_none();
    // SAFETY: a pure C function of its arguments, not called with a zero
    // divisor.
    (!wraps).then(|| unsafe { c_cpu_partial_slabs(objects, per_slab) })
}

fn c_done(pushed: u32, limit: u32) -> bool {
    // SAFETY: a pure C function of its arguments.
    unsafe { c_partial_node_done(pushed, limit) }
}

/// The C original's estimate, `None` where `slabs * per_slab` wraps.
fn c_objects(slabs: u32, per_slab: u32) -> Option<u32> {
    // SAFETY: a pure C function of its arguments.
    slabs
        .checked_mul(per_slab)
        .map(|_| unsafe { c_partial_objects(slabs, per_slab) })
}

/// Each decision, its result widened to `u64`, by the name of its cases.
type Decision = (&'static str, fn(u32, u32) -> u64);

const DECISIONS: [Decision; 4] = [
    ("DEFAULT_CASE", |size, has| {
        default_cpu_partial(size, has != 0).into()
    }),
    ("SLABS_CASE", |objects, per_slab| {
        cpu_partial_slabs(objects, per_slab).into()
    }),
    ("NODE_DONE_CASE", |pushed, limit| {
        partial_node_done(pushed, limit).into()
    }),
    ("OBJECTS_CASE", |slabs, per_slab| {
        partial_objects(slabs, per_slab).into()
    }),
];

#[test]
fn shared_cases() {
    for (name, decide) in DECISIONS {
        let cases = cases(name);
        // An empty or misread file would pass everything.
        assert!(cases.len() >= 10, "{} {name} lines", cases.len());
        for [a, b, want] in cases {
            assert_eq!(decide(u(a), u(b)), want, "{name}({a}, {b})");
        }
    }
}

/// Every object size, with and without per-cpu partial slabs, against the
/// C original.
#[test]
fn default_cpu_partial_every_size() {
    for size in 0..=u32::MAX {
        assert_eq!(
            default_cpu_partial(size, true),
            c_default(size, true),
            "size {size}"
        );
    }
    for size in (0..=u32::MAX).step_by(4093) {
        assert_eq!(
            default_cpu_partial(size, false),
            c_default(size, false),
            "size {size}"
        );
    }
}

/// The slab limit against the C original where it does not wrap; where it
/// does, the Rust limit never falls as the target grows (the C one drops
/// to about nothing past 2^31 objects) and stays at least the limit of the
/// last target C computes.
fn check_slabs_row(per_slab: u32, objects: impl Iterator<Item = u32>) {
    let mut last: Option<(u32, u32)> = None;
    for objects in objects {
        let got = cpu_partial_slabs(objects, per_slab);
        match c_slabs(objects, per_slab) {
            Some(want) => assert_eq!(got, want, "cpu_partial_slabs({objects}, {per_slab})"),
            None => {
                if let Some((prev_objects, prev)) = last {
                    assert!(
                        got >= prev,
                        "cpu_partial_slabs({objects}, {per_slab}) = {got}, \
                         below {prev} for {prev_objects}"
                    );
                }
            }
        }
        last = Some((objects, got));
    }
}

/// Every object target, for slab sizes real caches have and the extremes.
#[test]
fn cpu_partial_slabs_every_target() {
    for per_slab in [1, 3, 32, u32::MAX] {
        check_slabs_row(per_slab, 0..=u32::MAX);
    }
    // No per-cpu partial slabs without objects per slab (C divides by 0).
    for objects in (0..=u32::MAX).step_by(65_521) {
        assert_eq!(
            cpu_partial_slabs(objects, 0),
            0,
            "cpu_partial_slabs({objects}, 0)"
        );
    }
}

/// Every number of objects per slab, for targets that matter, and a
/// sample of the whole plane, against the C original where it does not
/// wrap.
#[test]
fn cpu_partial_slabs_every_slab_size() {
    for objects in [0, 1, 30, 120, (1 << 31) - 1, 1 << 31, u32::MAX] {
        for per_slab in 1..=u32::MAX {
            if let Some(want) = c_slabs(objects, per_slab) {
                let got = cpu_partial_slabs(objects, per_slab);
                if got != want {
                    panic!("cpu_partial_slabs({objects}, {per_slab}) = {got}, C {want}");
                }
            }
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..50_000_000 {
        let (objects, per_slab) = (rng.next(), rng.next() >> (rng.next() % 32));
        if let Some(want) = c_slabs(objects, per_slab) {
            assert_eq!(
                cpu_partial_slabs(objects, per_slab),
                want,
                "({objects}, {per_slab})"
            );
        }
    }
}

/// A refill's stop rule: every limit for the first pushes and the limit's
/// own neighbourhood, and a sample of the plane, against the C original
/// (which cannot wrap here).
#[test]
fn partial_node_done_plane() {
    for limit in (0..=u32::MAX).step_by(7) {
        for pushed in [0, 1, 2, limit / 2, limit / 2 + 1, limit, u32::MAX] {
            assert_eq!(
                partial_node_done(pushed, limit),
                c_done(pushed, limit),
                "({pushed}, {limit})"
            );
        }
    }
    let mut rng = Rng(7);
    for _ in 0..50_000_000 {
        let (pushed, limit) = (rng.next(), rng.next());
        assert_eq!(partial_node_done(pushed, limit), c_done(pushed, limit));
    }
}

/// The refill length the stop rule gives: limit / 2 + 1 slabs, 0 for 0
/// (the seed's "more than half the limit").
#[test]
fn partial_node_done_refill_length() {
    for limit in (0..=u32::MAX)
        .step_by(65_521)
        .chain([u32::MAX - 1, u32::MAX])
    {
        let want = if limit == 0 { 0 } else { limit / 2 + 1 };
        assert!(
            want == 0 || !partial_node_done(want - 1, limit),
            "limit {limit}"
        );
        assert!(partial_node_done(want, limit), "limit {limit}");
    }
}

/// The estimate against the C original where `slabs * per_slab` does not
/// wrap; past that, it never falls as the slabs grow.
#[test]
fn partial_objects_plane() {
    for per_slab in [0, 1, 2, 512, u32::MAX] {
        let mut last = 0;
        for slabs in (0..=u32::MAX).step_by(3) {
            let got = partial_objects(slabs, per_slab);
            match c_objects(slabs, per_slab) {
                Some(want) => assert_eq!(got, want, "partial_objects({slabs}, {per_slab})"),
                None => assert!(got >= last, "partial_objects({slabs}, {per_slab}) = {got}"),
            }
            last = got;
        }
    }
    let mut rng = Rng(11);
    for _ in 0..50_000_000 {
        let (slabs, per_slab) = (rng.next(), rng.next());
        if let Some(want) = c_objects(slabs, per_slab) {
            assert_eq!(
                partial_objects(slabs, per_slab),
                want,
                "({slabs}, {per_slab})"
            );
        }
    }
}

/// The push, row by row as worked by hand from the seed's rules: a free
/// (`drain`) onto a list already holding the limit detaches it and starts
/// a new one of 1; anything else adds the slab to the count.
#[test]
fn push_decision_rules() {
    const MAX: c_int = c_int::MAX;
    // (head slabs, limit, drain) -> (detach, slabs)
    let rows: [(Option<c_int>, u32, bool, bool, c_int); 22] = [
        (None, 0, false, false, 1),
        (None, 0, true, false, 1),
        (None, 7, true, false, 1),
        (None, u32::MAX, true, false, 1),
        (Some(0), 0, true, true, 1),
        (Some(0), 0, false, false, 1),
        (Some(0), 1, true, false, 1),
        (Some(1), 1, true, true, 1),
        (Some(1), 2, true, false, 2),
        (Some(2), 2, true, true, 1),
        (Some(6), 7, true, false, 7),
        (Some(7), 7, true, true, 1),
        (Some(8), 7, true, true, 1),
        (Some(7), 7, false, false, 8),
        (Some(13), 7, false, false, 14),
        (Some(29), 30, true, false, 30),
        (Some(30), 30, true, true, 1),
        (Some(31), 30, false, false, 32),
        (Some(1000), u32::MAX, true, false, 1001),
        (Some(MAX - 1), u32::MAX, true, false, MAX),
        (Some(MAX - 1), u32::MAX, false, false, MAX),
        (Some(MAX), MAX as u32, true, true, 1),
    ];
    for (head, limit, drain, detach, slabs) in rows {
        assert_eq!(
            push_decision(head, limit, drain),
            Push { detach, slabs },
            "head {head:?} limit {limit} drain {drain}"
        );
    }
}
