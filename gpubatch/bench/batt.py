"""`gpubatch bench --suite batt`: run-batt itself on 10, 50 and 200 training tasks at depth 2 and 3, on the CPU
and on one GPU: seconds, ms per task sample, µs per program evaluation, the speed-up and whether the two
devices' outcomes agree (`gpubatch diff` on the two results documents).

A CPU run whose estimated time (from the CPU's measured rate on the smaller runs) exceeds `cpu_budget_s` is
not started: its row says so instead of stalling the suite for hours (depth 3 on a CPU).
"""
from __future__ import annotations

import math
import statistics
import time
from dataclasses import asdict, dataclass, field

SIZES = (10, 50, 200)
DEPTHS = (2, 3)


@dataclass(frozen=True)
class BattRun:
    """One run of run-batt: how long the search took and what it found."""

    tasks: int
    depth: int
    device: str
    seconds: float  # median search seconds over the repeats (device start-up apart)
    start_seconds: float
    evaluations: int
    samples: int  # task grids (demo inputs and test inputs) searched
    test_correct: int
    test_outputs: int

    @property
    def ms_per_sample(self) -> float:
        return 1e3 * self.seconds / max(1, self.samples)

    @property
    def us_per_eval(self) -> float:
        return 1e6 * self.seconds / max(1, self.evaluations)


@dataclass
class BattSuite:
    runs: list[BattRun] = field(default_factory=list)
    agree: dict = field(default_factory=dict)  # (tasks, depth) -> True / list of differences
    skipped: dict = field(default_factory=dict)  # (tasks, depth, device) -> why
    machine: dict = field(default_factory=dict)
    seconds: float = 0.0


def _search(tasks, device: str, depth: int, budget_s: float, max_states: int):
    from gpubatch.arc.batt import results_json, run_batt, summarize
    from gpubatch.arc.search import SearchConfig
    from gpubatch.engine import BatchExecutor, EngineSettings, select_device

    settings = EngineSettings(device=device, count=1, dynamic_dispatch=False)
    cfg = SearchConfig(depth=depth, max_states=max_states, time_budget_s=budget_s)
    with BatchExecutor(settings, select_device(device), runner="local") as ex:
        res, seconds, start = run_batt(tasks, ex, cfg)
    summary = summarize(res, seconds, 0, start)
    return summary, results_json(res, summary, {"device": device, "depth": depth})


def run_batt_suite(gpus: int, sizes=SIZES, depths=DEPTHS, repeats: int = 1, warmup: int = 1,
                   cpu_budget_s: float = 600.0, dataset: str = "arc1-train", progress=None,
                   max_states: int = 2_000_000) -> BattSuite:
    """Every (tasks, depth) on the CPU and, with `gpus`, on one GPU, with run-batt's state budget per task
    (`batt.max_states`); the devices' outcomes compared."""
    from gpubatch.arc.tasks import load_tasks
    from gpubatch.diff import compare

    from .machine import describe

    t0 = time.perf_counter()
    out = BattSuite(machine=describe(gpus))
    all_tasks, _ = load_tasks(dataset, max(sizes))
    devices = ["cpu"] + (["cuda"] if gpus else [])
    for device in devices:
        for _ in range(warmup):  # untimed: loads the data paths; on the GPU, compiles every level's kernels
            _search(all_tasks[:3], device, 1 if device == "cpu" else min(2, max(depths)), math.inf, max_states)
    cpu_rate: float | None = None  # CPU seconds per unit of the search's work bound, from the runs so far
    for depth in depths:
        for n in sizes:
            tasks = all_tasks[:n]
            docs = {}
            for device in devices:
                if device == "cpu" and cpu_rate is not None:
                    estimate = cpu_rate * _work_bound(tasks, depth, max_states)
                    if estimate > cpu_budget_s:
                        out.skipped[(n, depth, device)] = f"estimated {estimate:,.0f} s on this CPU"
                        continue
                times, summary = [], None
                for _ in range(max(1, repeats)):
                    summary, docs[device] = _search(tasks, device, depth, math.inf, max_states)
                    times.append(summary.seconds)
                run = BattRun(n, depth, device, statistics.median(times), summary.start_seconds,
                              summary.evaluations, sum(len(t.train) + len(t.test_inputs) for t in tasks),
                              summary.test_correct, summary.test_outputs)
                out.runs.append(run)
                if device == "cpu":
                    cpu_rate = run.seconds / max(1, _work_bound(tasks, depth, max_states))
                if progress:
                    progress(f"{n} tasks, depth {depth}, {device}: {run.seconds:.2f} s")
            if len(docs) == 2:
                found = compare(docs["cpu"], docs["cuda"])
                out.agree[(n, depth)] = True if not found else [d.line() for d in found[:20]]
    out.seconds = time.perf_counter() - t0
    return out


def _work_bound(tasks, depth: int, max_states: int) -> float:
    from gpubatch.arc.batt import search_work
    from gpubatch.arc.search import SearchConfig

    return search_work(tasks, SearchConfig(depth=depth, max_states=max_states))


def rows(suite: BattSuite) -> list[dict]:
    """The seeds' table: per (tasks, depth), CPU s, GPU s, ms per sample on each, speed-up, agreement."""
    by = {(r.tasks, r.depth, r.device): r for r in suite.runs}
    keys = sorted({(r.tasks, r.depth) for r in suite.runs} | {(n, d) for n, d, _ in suite.skipped},
                  key=lambda k: (k[1], k[0]))
    out = []
    for n, d in keys:
        cpu, gpu = by.get((n, d, "cpu")), by.get((n, d, "cuda"))
        agree = suite.agree.get((n, d))
        out.append({"tasks": n, "depth": d, "cpu_s": cpu and cpu.seconds, "gpu_s": gpu and gpu.seconds,
                    "gpu_start_s": gpu and gpu.start_seconds,
                    "cpu_ms_per_sample": cpu and cpu.ms_per_sample, "gpu_ms_per_sample": gpu and gpu.ms_per_sample,
                    "cpu_us_per_eval": cpu and cpu.us_per_eval, "gpu_us_per_eval": gpu and gpu.us_per_eval,
                    "evaluations": (gpu or cpu).evaluations if (gpu or cpu) else None,
                    "speedup": cpu.seconds / gpu.seconds if cpu and gpu and gpu.seconds else None,
                    "agree": None if agree is None else agree is True,
                    "correct": f"{(gpu or cpu).test_correct}/{(gpu or cpu).test_outputs}" if (gpu or cpu) else "",
                    "note": suite.skipped.get((n, d, "cpu"), "")})
    return out


def table(suite: BattSuite):
    from rich.table import Table

    t = Table(title=f"gpubatch bench --suite batt ({suite.seconds:.1f} s)", title_justify="left")
    for col in ("tasks", "depth", "CPU s", "GPU s", "CPU ms/sample", "GPU ms/sample", "GPU µs/eval", "speed-up",
                "agree", "test correct", "notes"):
        t.add_column(col, justify="left" if col == "notes" else "right")

    def f(v, fmt):
        return "" if v is None else format(v, fmt)

    for r in rows(suite):
        agree = "" if r["agree"] is None else ("yes" if r["agree"] else "NO")
        t.add_row(str(r["tasks"]), str(r["depth"]), f(r["cpu_s"], ".2f"), f(r["gpu_s"], ".2f"),
                  f(r["cpu_ms_per_sample"], ".1f"), f(r["gpu_ms_per_sample"], ".2f"), f(r["gpu_us_per_eval"], ".4f"),
                  f(r["speedup"], ",.1f") + ("x" if r["speedup"] else ""), agree, r["correct"], r["note"])
    return t


def to_json(suite: BattSuite) -> str:
    import json

    return json.dumps({"suite": "batt", "machine": suite.machine, "seconds": suite.seconds, "summary": rows(suite),
                       "runs": [{**asdict(r), "ms_per_sample": r.ms_per_sample, "us_per_eval": r.us_per_eval}
                                for r in suite.runs],
                       "differences": {f"{n} tasks depth {d}": v for (n, d), v in suite.agree.items()
                                       if v is not True}}, indent=1)
