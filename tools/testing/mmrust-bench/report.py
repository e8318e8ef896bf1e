#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the benchmark report of 'make bench' from bench.log's "bench:"
lines (Documentation/mm/mmrust/benchmarking.rst, "The report").

    report.py <bench.log> <report dir> <arch> <quick 0|1>

A component without figures in the log is left out; a figure "n/a" is shown so.
"""

import os
import platform
import re
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LINE = re.compile(r"^bench: (\S+) = (\S+)(?: (.*))?$")


def parse(path):
    """The bench: figures of the log, name -> (value or None, unit)."""
    figures = {}
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            try:
                value = float(m.group(2))
            except ValueError:
                value = None
            figures[m.group(1)] = (value, m.group(3) or "")
    return figures


class Report:
    """report.md being written, with its plots."""

    def __init__(self, figures, outdir):
        self.f = figures
        self.outdir = outdir
        self.lines = []
        self.plots = []

    def v(self, name):
        return self.f.get(name, (None, ""))[0]

    def fmt(self, name, digits=None):
        value = self.v(name)
        if value is None:
            return "n/a"
        if digits is None:
            return f"{value:g}"
        return f"{value:.{digits}f}"

    def out(self, *text):
        self.lines.extend(text)

    def table(self, header, rows):
        self.out("| " + " | ".join(header) + " |",
                 "|" + "---|" * len(header))
        for row in rows:
            self.out("| " + " | ".join(str(c) for c in row) + " |")
        self.out("")

    def plot(self, fig, name, caption):
        path = os.path.join(self.outdir, name)
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        self.plots.append(name)
        self.out(f"![{caption}]({name})", "")

    def has(self, prefix):
        return any(k.startswith(prefix) and v[0] is not None
                   for k, v in self.f.items())


def numbered(figures, pattern):
    """Sorted (number, name) of the figures whose name matches pattern,
    a regex with one group of digits."""
    found = []
    for name in figures:
        m = re.fullmatch(pattern, name)
        if m:
            found.append((int(m.group(1)), name))
    return sorted(found)


def slub(r):
    r.out("## SLUB per-cpu partial push, Rust vs C (seed 003)", "",
          "One free per full slab of a private 256-byte cache, each a push "
          "onto the per-cpu partial list; Rust and C alternate inside each "
          "boot of one image.", "")
    boots = numbered(r.f, r"slub_partial_rust_ns_per_op_boot(\d+)")
    rows = []
    for n, _ in boots:
        rust, c = r.v(f"slub_partial_rust_ns_per_op_boot{n}"), r.v(f"slub_partial_c_ns_per_op_boot{n}")
        rows.append([n, rust, c, f"{rust / c:.3f}" if rust and c else "n/a"])
    r.out("Wall clock (guest ns per free, median of the rounds of each boot):", "")
    r.table(["boot", "Rust ns/op", "C ns/op", "Rust/C"], rows)
    r.out(f"Median over the boots: Rust/C = **{r.fmt('slub_partial_rust_over_c', 3)}** (wall clock).", "")
    rows = []
    for run in (1, 2):
        rows.append([run, r.fmt(f"slub_partial_rust_insns_per_op_run{run}"),
                     r.fmt(f"slub_partial_c_insns_per_op_run{run}"),
                     r.fmt(f"slub_partial_rust_over_c_insns_run{run}", 3)])
    r.out("Exact (guest instructions per free, QEMU `-icount shift=0,sleep=off`), two boots:", "")
    r.table(["run", "Rust insns/op", "C insns/op", "Rust/C"], rows)
    r.out(f"Headline `slub_partial_rust_over_c_insns` = **{r.fmt('slub_partial_rust_over_c_insns', 3)}**; "
          f"run 1 against run 2: Rust {r.fmt('slub_partial_rust_insns_run1_run2_diff_pct')} %, "
          f"C {r.fmt('slub_partial_c_insns_run1_run2_diff_pct')} %.", "")
    if boots:
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        xs = [n for n, _ in boots]
        a.plot(xs, [r.v(f"slub_partial_rust_ns_per_op_boot{n}") for n in xs], label="Rust",
               **line_style("rust", 1))
        a.plot(xs, [r.v(f"slub_partial_c_ns_per_op_boot{n}") for n in xs], label="C",
               **line_style("c", 0))
        a.set_xlabel("boot")
        a.set_ylabel("ns per free (guest wall clock)")
        a.set_title("SLUB push, wall clock, by boot")
        a.set_xticks(xs)
        a.legend()
        vals = [[r.v(f"slub_partial_{i}_insns_per_op_run{run}") or 0 for run in (1, 2)]
                for i in ("rust", "c")]
        width = 0.35
        b.bar([x - width / 2 for x in (1, 2)], vals[0], width, label="Rust")
        b.bar([x + width / 2 for x in (1, 2)], vals[1], width, label="C")
        b.set_xlabel("run (QEMU -icount)")
        b.set_ylabel("guest instructions per free")
        b.set_title("SLUB push, exact")
        b.set_xticks([1, 2])
        b.legend()
        r.plot(fig, "slub_push.png", "SLUB push: wall clock by boot, and instructions per free")
    hackbench(r)


def hackbench(r):
    runs = sorted({(m.group(1), int(m.group(2))) for k in r.f
                   for m in [re.fullmatch(r"hackbench_(process|thread)_g(\d+)_rust_ms", k)] if m})
    if not runs:
        return
    r.out("### hackbench, the seed's slab workload (Rust vs C, same boot)", "",
          "Debian's rt-tests hackbench (over pipes, 100-byte messages: the test kernel has no "
          "networking for the seed's sockets), Rust and C alternating "
          "through `/sys/kernel/debug/slub_partial/rust`; the slab memory (`/proc/meminfo` "
          "`Slab`) and the slabs on per-cpu partial lists (sum of `slabs_cpu_partial`) after "
          "each run (medians).", "")
    rows = []
    for mode, g in runs:
        for impl in ("rust", "c"):
            p = f"hackbench_{mode}_g{g}_{impl}"
            rows.append([mode, g, IMPL[impl], r.fmt(p + "_ms"), r.fmt(p + "_minsns_run1"),
                         r.fmt(p + "_minsns_run2"), r.fmt(p + "_slab_kib"),
                         r.fmt(p + "_cpu_partial_slabs")])
        rows.append([mode, g, "Rust/C", r.fmt(f"hackbench_{mode}_g{g}_rust_over_c", 3),
                     r.fmt(f"hackbench_{mode}_g{g}_rust_over_c_insns", 3), "", "", ""])
    r.table(["mode", "groups", "impl", "wall ms", "M insns run 1", "M insns run 2",
             "Slab KiB", "per-cpu partial slabs"], rows)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    labels = [f"{mode}\n{g} groups" for mode, g in runs]
    xs = range(len(runs))
    for ax, suffix, ylabel in ((a, "_ms", "time (ms, guest wall clock)"),
                               (b, "_minsns_run1", "M guest instructions (icount)")):
        for off, impl in ((-0.2, "rust"), (0.2, "c")):
            ax.bar([x + off for x in xs],
                   [r.v(f"hackbench_{mode}_g{g}_{impl}{suffix}") or 0 for mode, g in runs],
                   0.4, label=IMPL[impl])
        ax.set_xticks(list(xs))
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_xlabel("hackbench mode and group count")
        ax.set_ylabel(ylabel)
        ax.legend()
    a.set_title("hackbench, wall clock")
    b.set_title("hackbench, exact")
    r.plot(fig, "hackbench.png", "hackbench, Rust vs C")


IMPL = {"rust": "Rust", "c": "C"}


def line_style(impl, hvo):
    """Rust wide and pale, C thin and dashed on top: both stay visible
    where their figures coincide."""
    color = "C0" if hvo else "C1"
    if impl == "rust":
        return {"color": color, "linewidth": 4, "alpha": 0.45, "marker": "o", "markersize": 9}
    return {"color": color, "linewidth": 1.3, "linestyle": "--", "marker": "s",
            "markerfacecolor": "none"}


def free_vs_n(r, ax, sizes, name, ylabel, title):
    """Bulk free time (in thousands of the figures' unit) against N, one
    line per implementation and HVO setting; name is a format string of
    impl, hvo and n."""
    for impl in ("rust", "c"):
        for hvo in (1, 0):
            ys = [r.v(name.format(impl=impl, hvo=hvo, n=n)) for n in sizes]
            ax.plot(sizes, [y / 1000 if y else None for y in ys],
                    label=f"{IMPL[impl]}, HVO {'on' if hvo else 'off'}", **line_style(impl, hvo))
    if sizes:
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
    ax.set_xlabel("N (2 MiB pages freed)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)


def hugetlb(r):
    r.out("## hugetlb bulk free, Rust vs C, HVO on and off (seed 004)", "",
          "Grow the 2 MiB pool to N pages, shrink it to 0: the bulk free's own "
          "time (debugfs `last_ns`) and the part of it spent waiting for RCU "
          "grace periods in vmemmap restores (`last_rcu_ns`).", "")
    sizes = [n for n, _ in numbered(r.f, r"hugetlb_free_rust_hvo1_n(\d+)_us")]
    rows = []
    for impl in ("rust", "c"):
        for hvo in (1, 0):
            for n in sizes:
                rows.append([impl, hvo, n, r.fmt(f"hugetlb_grow_{impl}_hvo{hvo}_n{n}_us"),
                             r.fmt(f"hugetlb_shrink_{impl}_hvo{hvo}_n{n}_us"),
                             r.fmt(f"hugetlb_free_{impl}_hvo{hvo}_n{n}_us"),
                             r.fmt(f"hugetlb_free_rcu_wait_{impl}_hvo{hvo}_n{n}_us")])
    r.out("Wall clock (us, medians):", "")
    r.table(["impl", "HVO", "N", "grow", "shrink", "free", "of it RCU wait"], rows)
    isizes = [n for n, _ in numbered(r.f, r"hugetlb_free_rust_hvo1_n(\d+)_polled_kinsns_run1")]
    rows = [[impl, hvo, n, gp] + [r.fmt(f"hugetlb_free_{w}{impl}_hvo{hvo}_n{n}_{gp}_kinsns_run{run}")
                                  for w in ("", "outside_rcu_wait_") for run in (1, 2)]
            for impl in ("rust", "c") for hvo in (1, 0) for n in isizes for gp in ("polled", "sync")]
    r.out("Exact (k guest instructions, QEMU `-icount`), two boots with 1 vCPU (with two, the "
          "instruction clock also counts the other vCPU's work); `gp`: the restore's grace "
          "period wait, polled (the default) or sync (6.12):", "")
    r.table(["impl", "HVO", "N", "gp", "free run 1", "free run 2", "outside RCU wait run 1",
             "outside RCU wait run 2"], rows)
    parts = {"free": "the whole free", "rcu": "RCU grace period wait", "alloc": "vmemmap page allocation",
             "remap": "remap walk (filling included)", "fill": "of the walk: filling the new pages",
             "flush": "TLB flush of the batch", "other": "the rest (lists, destructors, frees to buddy)"}
    for n in [m for m, _ in numbered(r.f, r"hugetlb_free_breakdown_rust_n(\d+)_free_kinsns_run1")]:
        r.out(f"Where the HVO free of {n} pages goes (exact, k guest instructions, grace period polled, "
              "debugfs `breakdown` on: its clock reads, around each folio's allocation and walk and "
              "each page's filling, are in the figures):", "")
        r.table(["part", "Rust run 1", "Rust run 2", "C run 1", "C run 2"],
                [[text] + [r.fmt(f"hugetlb_free_breakdown_{impl}_n{n}_{part}_kinsns_run{run}")
                           for impl in ("rust", "c") for run in (1, 2)]
                 for part, text in parts.items()])
    gp_rows = [[gp, hvo, r.fmt(f"hugetlb_free_rust_hvo{hvo}_n{n}_{gp}_us"),
                r.fmt(f"hugetlb_free_rcu_wait_rust_hvo{hvo}_n{n}_{gp}_us")]
               for n in [m for m in isizes if f"hugetlb_free_rust_hvo1_n{m}_polled_us" in r.f]
               for gp in ("polled", "sync") for hvo in (1, 0)]
    if gp_rows:
        r.out("The restore's grace period, polled against sync, wall clock (Rust, us):", "")
        r.table(["gp", "HVO", "free", "of it RCU wait"], gp_rows)
    heads = [k for k in sorted(r.f) if k.startswith("hugetlb_free_rust_over_c_insns")
             or k.startswith("hugetlb_free_hvo_on_over_off") or k.endswith("_insns_run1_run2_diff_pct")
             or k in ("hugetlb_free_rust_over_c", "hugetlb_free_rcu_waits")]
    r.table(["figure", "value"], [[f"`{k}`", f"{r.fmt(k)} {r.f[k][1]}".strip()] for k in heads])
    if sizes:
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        free_vs_n(r, axes[0], sizes, "hugetlb_free_{impl}_hvo{hvo}_n{n}_us",
                  "bulk free time (ms, guest wall clock)", "hugetlb bulk free, wall clock")
        free_vs_n(r, axes[1], isizes, "hugetlb_free_{impl}_hvo{hvo}_n{n}_polled_kinsns_run1",
                  "M guest instructions", "hugetlb bulk free, exact (icount), grace period polled")
        r.plot(fig, "hugetlb_free_vs_n.png", "hugetlb bulk free time against N")
    smp = numbered(r.f, r"hugetlb_free_rust_hvo1_n\d+_smp(\d+)_us")
    if smp:
        r.out("Against the guest's vCPU count (Rust, HVO on, wall clock):", "")
        r.table(["vCPUs", "free (us)", "of it RCU wait (us)"],
                [[n, r.fmt(k), r.fmt(k.replace("hugetlb_free_", "hugetlb_free_rcu_wait_"))] for n, k in smp])
        fig, a = plt.subplots(figsize=(5.5, 4))
        xs = [n for n, _ in smp]
        a.plot(xs, [(r.v(k) or 0) / 1000 for _, k in smp], "o-", label="Rust, HVO on: free")
        a.plot(xs, [(r.v(k.replace("hugetlb_free_", "hugetlb_free_rcu_wait_")) or 0) / 1000 for _, k in smp],
               "s--", label="of it: RCU grace period wait")
        a.set_xlabel("guest vCPUs")
        a.set_ylabel("bulk free time (ms, guest wall clock)")
        a.set_title("hugetlb bulk free against vCPUs")
        a.set_xticks(xs)
        a.legend()
        r.plot(fig, "hugetlb_free_vs_vcpus.png", "hugetlb bulk free against vCPUs")


def clearing(r):
    r.out("## Batched clearing of huge folios (seed 000) and the huge zero page (seed 001)", "")
    kinds = ("2m", "1g", "thp_2m")
    for clock, unit in (("", "GB/s, guest wall clock"), ("_icount", "bytes per guest instruction, icount")):
        rows = []
        for model in ("voluntary", "full"):
            for k in kinds:
                rows.append([model, k, r.fmt(f"clear_pages_batched_{k}_{model}{clock}"),
                             r.fmt(f"clear_pages_per_page_{k}_{model}{clock}"),
                             r.fmt(f"clear_pages_batched_over_per_page_{k}_{model}{clock}", 3)])
        r.out(f"Demand-fault clearing ({unit}):", "")
        r.table(["preempt", "page", "batched", "per-page", "batched/per-page"], rows)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for a, clock, ylabel in ((axes[0], "", "GB/s (guest wall clock)"),
                             (axes[1], "_icount", "bytes per guest instruction (icount)")):
        labels, b, p = [], [], []
        for model in ("voluntary", "full"):
            for k in kinds:
                labels.append(f"{k}\n{model}")
                b.append(r.v(f"clear_pages_batched_{k}_{model}{clock}") or 0)
                p.append(r.v(f"clear_pages_per_page_{k}_{model}{clock}") or 0)
        xs = range(len(labels))
        a.bar([x - 0.2 for x in xs], b, 0.4, label="batched")
        a.bar([x + 0.2 for x in xs], p, 0.4, label="per-page")
        a.set_xticks(list(xs))
        a.set_xticklabels(labels, fontsize=7)
        a.set_xlabel("page size / preemption model")
        a.set_ylabel(ylabel)
        a.set_title("huge page clearing" + (" (exact)" if clock else " (wall clock)"))
        a.legend()
    r.plot(fig, "clear_pages.png", "huge page clearing, batched vs per-page")
    rows = [[z, r.fmt(f"thp_zero_page_memcmp_first_ms_zp{z}"), r.fmt(f"thp_zero_page_memcmp_rest_ms_zp{z}"),
             r.fmt(f"thp_zero_page_demo_rss_kib_zp{z}")] for z in (1, 0)]
    r.out("THP huge zero page (`use_zero_page` 1 and 0):", "")
    r.table(["use_zero_page", "memcmp first (ms)", "memcmp rest (ms)", "demo RSS (KiB)"], rows)
    fig, a = plt.subplots(figsize=(5, 3.6))
    a.bar(["huge zero page on", "huge zero page off"],
          [(r.v(f"thp_zero_page_demo_rss_kib_zp{z}") or 0) / 1024 for z in (1, 0)], color=["C0", "C1"])
    a.set_ylabel("RSS after reading 200 MiB (MiB)")
    a.set_title("seed 001 demo: RSS")
    r.plot(fig, "zero_page_rss.png", "huge zero page demo RSS")
    host = [(s, k) for s in ("unrolled", "stosq", "stosb", "memset") for k in (4, 2048, 32768, 1048576)]
    if any(r.v(f"host_clear_{s}_{k}k") for s, k in host):
        r.out("On the host CPU (GB/s by extent of one clearing call):", "")
        r.table(["sequence", "4 KiB", "2 MiB", "32 MiB", "1 GiB"],
                [[s] + [r.fmt(f"host_clear_{s}_{k}k") for k in (4, 2048, 32768, 1048576)]
                 for s in ("unrolled", "stosq", "stosb", "memset")])


def contpte(r):
    r.out("## arm64 contpte: fork and munmap, on vs off (seed 002)", "")
    kinds = ("order0", "64k", "order9")
    for clock, unit in (("_icount", "k guest instructions, icount"), ("_wall", "us, guest wall clock")):
        rows = [[k, r.fmt(f"contpte_fork_{k}_on{clock}"), r.fmt(f"contpte_fork_{k}_off{clock}"),
                 r.fmt(f"contpte_fork_{k}_on_over_off{clock}", 3), r.fmt(f"contpte_munmap_{k}_on{clock}"),
                 r.fmt(f"contpte_munmap_{k}_off{clock}"), r.fmt(f"contpte_munmap_{k}_on_over_off{clock}", 3)]
                for k in kinds]
        r.out(f"{unit}:", "")
        r.table(["region", "fork on", "fork off", "on/off", "munmap on", "munmap off", "on/off"], rows)
    if r.has("contpte_fork_order0_built_in_over_out"):
        # The seed's "contpte-fold" over its baseline without contpte, Altra
        # bare metal (report_seeds.md, seed 002); it has no 64 KiB row.
        seed = {"order0": ("1.046", "1.001"), "64k": ("-", "-"), "order9": ("0.982", "1.008")}
        r.out("Built in (contpte on) against an image built without contpte "
              "(`CONFIG_ARM64_CONTPTE=n`, otherwise the same configuration), as the seed compares "
              "against its baseline.  Ours: exact (QEMU `-icount`), arm64 TCG on the host named at the "
              "top, with instructions per PTE of the mapped region; the seed's: its final series "
              "(\"contpte-fold\") over its baseline, wall clock on Ampere Altra bare metal:", "")
        rows = [[k, r.fmt(f"contpte_fork_{k}_built_in_over_out", 3), seed[k][0],
                 r.fmt(f"contpte_fork_{k}_insns_per_pte_in"), r.fmt(f"contpte_fork_{k}_insns_per_pte_out"),
                 r.fmt(f"contpte_munmap_{k}_built_in_over_out", 3), seed[k][1],
                 r.fmt(f"contpte_munmap_{k}_insns_per_pte_in"), r.fmt(f"contpte_munmap_{k}_insns_per_pte_out")]
                for k in kinds]
        r.table(["region", "fork in/out", "seed (Altra)", "fork insns/PTE in", "out",
                 "munmap in/out", "seed (Altra)", "munmap insns/PTE in", "out"], rows)
    fig, a = plt.subplots(figsize=(7, 4))
    labels = [f"{op} {k}" for op in ("fork", "munmap") for k in kinds]
    xs = range(len(labels))
    for off, clock, name in ((-0.2, "_icount", "exact (icount)"), (0.2, "_wall", "wall clock")):
        a.bar([x + off for x in xs],
              [r.v(f"contpte_{op}_{k}_on_over_off{clock}") or 0 for op in ("fork", "munmap") for k in kinds],
              0.4, label=name)
    a.axhline(1.02, color="red", linestyle=":", label="target 1.02")
    a.set_xticks(list(xs))
    a.set_xticklabels(labels, fontsize=8)
    a.set_xlabel("operation and region")
    a.set_ylabel("time with contpte on / off")
    a.set_title("contpte fork/munmap, on over off")
    a.legend(fontsize=8)
    r.plot(fig, "contpte.png", "contpte on/off ratios")


def lto(r):
    """Rust in the ThinLTO link: the LTO image against the test image."""
    r.out("## Rust in Clang ThinLTO: the LTO image", "",
          "The x86_64 image linked with Clang ThinLTO, its Rust objects in the link as LLVM bitcode "
          "(`configs/lto.config`, patches/0034, rustc-web 1.85 on LLVM 19), against the test image, "
          "whose Rust objects are native code called out of line.  Exact (instructions), Rust and C "
          "alternating in each boot; hugetlb outside the restore's grace period wait, 1 vCPU.", "")
    rows = []
    for label, name in (("SLUB push, Rust/C per free", "slub_partial_rust_over_c_insns"),
                        ("hugetlb free HVO on, Rust/C", "hugetlb_free_rust_over_c_insns_hvo1_n512"),
                        ("hugetlb free HVO off, Rust/C", "hugetlb_free_rust_over_c_insns_hvo0_n512"),
                        ("hackbench process g1, Rust/C", "hackbench_process_g1_rust_over_c_insns")):
        test = name + "_nolto" if r.v(name + "_nolto") is not None else name
        rows.append([label, f"{r.fmt(test, 3)} (`{test}`)", f"{r.fmt(name + '_lto', 3)} (`{name}_lto`)"])
    rows.append(["SLUB push, Rust insns per free",
                 r.fmt("slub_partial_rust_insns_per_op_nolto") if r.v("slub_partial_rust_insns_per_op_nolto") is not None
                 else r.fmt("slub_partial_rust_insns_per_op_run1"), r.fmt("slub_partial_rust_insns_per_op_lto")])
    rows.append(["SLUB push, C insns per free",
                 r.fmt("slub_partial_c_insns_per_op_nolto") if r.v("slub_partial_c_insns_per_op_nolto") is not None
                 else r.fmt("slub_partial_c_insns_per_op_run1"), r.fmt("slub_partial_c_insns_per_op_lto")])
    r.table(["measure", "test image (Rust out of line)", "LTO image (Rust inlined)"], rows)


def seeds(path):
    """The seeds' headline tables, by seed number."""
    parts, cur = {}, None
    if not os.path.exists(path):
        return parts
    for line in open(path, encoding="utf-8"):
        m = re.match(r"^## Seed (\d+)", line)
        if m:
            cur = m.group(1)
            parts[cur] = []
        if cur and not line.startswith("---"):
            parts[cur].append(line.rstrip("\n").replace("## Seed", "### Seed", 1))
    return parts


def main():
    log, outdir, arch, quick = sys.argv[1:5]
    figures = parse(log)
    r = Report(figures, outdir)
    try:
        qemu = subprocess.run(["qemu-system-x86_64", "--version"], capture_output=True,
                              text=True, check=False).stdout.splitlines()[0]
    except (OSError, IndexError):
        qemu = "QEMU (version unknown)"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo", encoding="utf-8")
                if l.startswith("model name")), platform.machine())
    r.out(f"# mmrust benchmark report: {arch}{' (QUICK=1: smallest sizes, not figures to quote)' if quick == '1' else ''}", "",
          f"Ours: the {arch} test image under {qemu}, TCG (no KVM), 2 vCPUs unless a table says "
          f"otherwise, on a {os.cpu_count()}-core host ({cpu}).  Wall-clock figures move by tens of "
          "percent between runs on this shared host; the exact figures (QEMU `-icount shift=0,sleep=off`: "
          "one guest nanosecond per executed instruction) are instruction counts that repeat.  TCG models "
          "no caches and no TLB reach: neither clock shows a cache or TLB effect.", "",
          f"Source of every figure: `bench.log` in this directory ({len(figures)} `bench:` lines).", "")
    seed = seeds(os.path.join(os.path.dirname(os.path.abspath(__file__)), "report_seeds.md"))
    for check, fn, num in (("slub_partial_rust_insns_per_op_run", slub, "003"), ("hugetlb_grow_", hugetlb, "004"),
                           ("clear_pages_", clearing, "000"), ("contpte_", contpte, "002")):
        if not r.has(check):
            continue
        fn(r)
        for n in ([num, "001"] if num == "000" else [num]):
            if n in seed:
                r.out("The seed's own figures, for comparison (its machine, not ours):", "")
                r.out(*seed[n])
                r.out("")
    if r.has("slub_partial_rust_over_c_insns_lto"):
        lto(r)
    r.out("## Every figure", "", "```")
    r.out(*[f"{k} = {r.fmt(k)} {unit}".rstrip() for k, (_, unit) in figures.items()])
    r.out("```", "")
    with open(os.path.join(outdir, "report.md"), "w", encoding="utf-8") as md:
        md.write("\n".join(r.lines) + "\n")
    print(f"report: {len(figures)} figures, plots: {' '.join(r.plots) or 'none'}")
    if not figures:
        sys.exit("report: no bench: lines in " + log)


if __name__ == "__main__":
    main()
