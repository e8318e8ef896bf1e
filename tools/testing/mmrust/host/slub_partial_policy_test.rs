// SPDX-License-Identifier: GPL-2.0

//! Host test of the SLUB per-cpu partial decisions (`mm/slub_partial/policy.rs`,
//! the very file the kernel builds into `mm/slub_partial.rs`).
//!
//! Built with the host's `rustc --test` by `tools/testing/mmrust/rusttest.sh`
//! (`make rusttest-mmrust`, part of `make test`):
//!
//! - the cases of `mm/slub_partial_cases.h`, which the KUnit suite
//!   `slub_partial_rust` runs in the kernel, read from that file;
//! - properties over the whole `u32` range against a model in wider
//!   integers: exhaustive where 2^32 inputs are cheap, sampled otherwise.

#![allow(dead_code)]

use core::ffi::c_int;

/// The page size the cases assume (the x86_64 and arm64 test images').
const PAGE_SIZE: usize = 4096;

#[path = "../../../../mm/slub_partial/policy.rs"]
mod policy;

use policy::{
    cpu_partial_slabs, default_cpu_partial, partial_node_done, partial_objects, push_decision, Push,
};

/// The cases file, as the KUnit suite includes it.
const CASES: &str = include_str!("../../../../mm/slub_partial_cases.h");

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

// The models: the rules as the seed states them, in wider integers.

fn model_default(size: u32, has: bool) -> u32 {
    match (has, size as usize) {
        (false, _) => 0,
        (true, s) if s >= PAGE_SIZE => 6,
        (true, s) if s >= 1024 => 24,
        (true, s) if s >= 256 => 52,
        _ => 120,
    }
}

fn model_slabs(objects: u32, per_slab: u32) -> u32 {
    if per_slab == 0 {
        return 0;
    }
    let need = 2 * u128::from(objects);
    let per = u128::from(per_slab);
    u32::try_from(need.div_ceil(per)).unwrap_or(u32::MAX)
}

fn model_done(pushed: u32, limit: u32) -> bool {
    if pushed == 0 {
        limit == 0
    } else {
        u64::from(pushed) * 2 > u64::from(limit) - u64::from(limit % 2)
    }
}

fn model_objects(slabs: u32, per_slab: u32) -> u32 {
    u32::try_from(u128::from(slabs) * u128::from(per_slab) / 2).unwrap_or(u32::MAX)
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

/// Every object size, with and without per-cpu partial slabs.
#[test]
fn default_cpu_partial_every_size() {
    for size in 0..=u32::MAX {
        assert_eq!(
            default_cpu_partial(size, true),
            model_default(size, true),
            "size {size}"
        );
    }
    for size in (0..=u32::MAX).step_by(4093) {
        assert_eq!(default_cpu_partial(size, false), 0, "size {size}");
    }
}

/// Every object target, for slab sizes real caches have and the extremes.
#[test]
fn cpu_partial_slabs_every_target() {
    for per_slab in [1, 3, 32, u32::MAX] {
        for objects in 0..=u32::MAX {
            let got = cpu_partial_slabs(objects, per_slab);
            if got != model_slabs(objects, per_slab) {
                panic!("cpu_partial_slabs({objects}, {per_slab}) = {got}");
            }
        }
    }
}

/// Every number of objects per slab, for targets that matter, and a
/// sample of the whole plane.
#[test]
fn cpu_partial_slabs_every_slab_size() {
    for objects in [0, 1, 30, 120, (1 << 31) - 1, 1 << 31, u32::MAX] {
        for per_slab in 0..=u32::MAX {
            let got = cpu_partial_slabs(objects, per_slab);
            if got != model_slabs(objects, per_slab) {
                panic!("cpu_partial_slabs({objects}, {per_slab}) = {got}");
            }
        }
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..50_000_000 {
        let (objects, per_slab) = (rng.next(), rng.next() >> (rng.next() % 32));
        assert_eq!(
            cpu_partial_slabs(objects, per_slab),
            model_slabs(objects, per_slab)
        );
    }
}

/// A refill's stop rule: every limit for the first pushes and the limit's
/// own neighbourhood, and a sample of the plane.
#[test]
fn partial_node_done_plane() {
    for limit in (0..=u32::MAX).step_by(7) {
        for pushed in [0, 1, 2, limit / 2, limit / 2 + 1, limit, u32::MAX] {
            assert_eq!(
                partial_node_done(pushed, limit),
                model_done(pushed, limit),
                "({pushed}, {limit})"
            );
        }
    }
    let mut rng = Rng(7);
    for _ in 0..50_000_000 {
        let (pushed, limit) = (rng.next(), rng.next());
        assert_eq!(partial_node_done(pushed, limit), model_done(pushed, limit));
    }
}

/// The refill length the stop rule gives: limit / 2 + 1 slabs, 0 for 0.
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

#[test]
fn partial_objects_plane() {
    for slabs in (0..=u32::MAX).step_by(3) {
        for per_slab in [0, 1, 2, 512, u32::MAX] {
            assert_eq!(
                partial_objects(slabs, per_slab),
                model_objects(slabs, per_slab)
            );
        }
    }
    let mut rng = Rng(11);
    for _ in 0..50_000_000 {
        let (slabs, per_slab) = (rng.next(), rng.next());
        assert_eq!(
            partial_objects(slabs, per_slab),
            model_objects(slabs, per_slab)
        );
    }
}

/// The push: detach a full list on a free only; count the pushed slab.
#[test]
fn push_decision_rules() {
    for limit in [0, 1, 2, 30, 1000, u32::MAX] {
        for drain in [false, true] {
            assert_eq!(
                push_decision(None, limit, drain),
                Push {
                    detach: false,
                    slabs: 1
                }
            );
            for n in [0, 1, 2, 29, 30, 31, 999, 1000, 1001, c_int::MAX - 1] {
                let full = n as u32 >= limit;
                let want = if drain && full {
                    Push {
                        detach: true,
                        slabs: 1,
                    }
                } else {
                    Push {
                        detach: false,
                        slabs: n + 1,
                    }
                };
                assert_eq!(
                    push_decision(Some(n), limit, drain),
                    want,
                    "n {n} limit {limit} drain {drain}"
                );
            }
        }
    }
}
