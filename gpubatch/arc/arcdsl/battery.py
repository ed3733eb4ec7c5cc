"""The arc-dsl battery through the engine: (solver, task) pairs as items, each batch one plan over the samples
of its tasks (`interp.run_many`: every line once for the samples that reach it, shared lines once for all the
solvers that share them), each pair scored where it ran.

`own`: every solver on the task its name names. `cross`: every solver on every task ("which solvers solve which
tasks"). Per pair: solved (fits the demos and every known test output), fits (the demos only), wrong, error
(a demo raised), unsupported, or stopped (the run was interrupted before it ran). Per task, the solvers that fit
become its fits and their test outputs its attempts, so run-batt's scoring, submission and results serve the
battery as they serve the search.
"""
from __future__ import annotations

import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from functools import partial

from ...engine import Backend, BatchExecutor, BatchOp, ItemFailure
from ..batt import BattSummary, Fit, TaskResult, attempts, results_json
from ..tasks import Task
from .interp import SampleError, SampleStopped, run_many
from .solvers import Solver

STATUSES = ("solved", "fits", "wrong", "error", "unsupported", "stopped")
BATCHES_PER_WORKER = 16
HOST_PREFIX = "arcdsl host: "  # the stats' op of each primitive the lines call, e.g. "arcdsl host: objects"


@dataclass(frozen=True)
class PairOutcome:
    """One solver on one task: its status, and per sample "ok", "wrong" or the error (demos, then tests:
    "ok"/"wrong" where the test output is known, else "given")."""

    solver: str
    task: str
    status: str
    samples: tuple[str, ...]
    predictions: tuple = ()  # the test outputs (lists of rows) when the demos fit


def battery_pairs(solvers: list[Solver], tasks: list[Task], mode: str) -> list[tuple[Solver, Task]]:
    """The pairs a battery runs: `own` matches names to task ids, `cross` takes every solver on every task."""
    if mode == "cross":  # task by task: a batch holds every solver on a few tasks (shared lines, even costs),
        # the largest tasks first, so that the last batches are short and no worker waits on a long one at the end
        return [(s, t) for t in sorted(tasks, key=_cells, reverse=True) for s in solvers]
    by_name = named_tasks(tasks)
    return [(s, by_name[s.task_id]) for s in solvers if s.task_id in by_name]


def named_tasks(tasks: list[Task]) -> dict[str, Task]:
    """The tasks a solver's name can name: each by its id and, from a corpus of sub-folders ("concept/task"),
    by its file's name too where no other task has that name."""
    files = [t.id.rsplit("/", 1)[-1] for t in tasks]
    count = Counter(files)
    out = {f: t for f, t in zip(files, tasks) if count[f] == 1}
    out.update((t.id, t) for t in tasks)
    return out


def batch_sizes(costs: list[int], batches: int, workers: int = 1) -> list[int]:
    """Pairs per batch, cut in order so that each batch costs about the same (a pair's cost: its task's cells):
    the largest tasks, first in the order, are split over several batches rather than one batch holding the
    costliest pairs, which would end long after the others (many batches a worker for the same reason).
    The tail is guided (as OpenMP's `schedule(guided)`): once less than two batches a worker are left, a batch
    takes half a worker's share of what is left, down to an eighth of the others, so that the workers run out
    of work together instead of some waiting on the last full-sized batches."""
    left = float(sum(costs))
    target, share = left / max(1, batches), 2 * max(1, workers)
    sizes, size, acc = [], 0, 0.0
    for c in costs:
        if size and acc + c > max(target / 8, min(target, left / share)):
            sizes.append(size)
            left -= acc
            size, acc = 0, 0.0
        size, acc = size + 1, acc + c
    return sizes + [size] if size else sizes


def _cells(task: Task) -> int:
    """A task's size in grid cells over its samples: how costly running a solver on it tends to be."""
    return sum(len(g) * len(g[0]) for g in _inputs(task))


def _outcome(solver: Solver, task: Task, outs: list) -> PairOutcome:
    if any(isinstance(got, SampleStopped) for got in outs):  # the first Ctrl-C came before its lines all ran
        return PairOutcome(solver.name, task.id, "stopped", ("stopped",) * len(outs))
    n = len(task.train)
    codes, demo_errors, demo_wrong = [], False, False
    for (_, want), got in zip(task.train, outs[:n]):
        if isinstance(got, SampleError):
            codes.append(f"error: line {got.line}: {got.error}")
            demo_errors = True
        else:
            codes.append("ok" if got == want else "wrong")
            demo_wrong |= got != want
    tests = outs[n:]
    preds = tuple(None if isinstance(g, SampleError) or not _is_grid(g) else [list(r) for r in g] for g in tests)
    for i, got in enumerate(tests):
        if isinstance(got, SampleError):
            codes.append(f"error: line {got.line}: {got.error}")
        elif task.test_outputs is None:
            codes.append("given")
        else:
            codes.append("ok" if got == task.test_outputs[i] else "wrong")
    if demo_errors or demo_wrong:
        return PairOutcome(solver.name, task.id, "error" if demo_errors else "wrong", tuple(codes))
    known = task.test_outputs is not None and all(c == "ok" for c in codes[n:])
    return PairOutcome(solver.name, task.id, "solved" if known else "fits", tuple(codes), preds)


def _is_grid(g) -> bool:
    return isinstance(g, tuple) and len(g) > 0 and all(isinstance(r, tuple) and len(r) > 0 for r in g)


def _battery_op(solvers: tuple[Solver, ...], batch: list[tuple[int, Task]], backend: Backend) -> list:
    """A batch of pairs in one run: each solver over the samples of its tasks in the batch, every line once for
    all the samples that reach it, lines shared between solvers once for all of them. A pair names its solver
    by its index in `solvers`, which the op holds (sent to each worker process once, not with every batch)."""
    items = [(solvers[i], task) for i, task in batch]
    grids: list = []
    first_sample: dict[str, int] = {}  # task id -> index of its first sample in `grids`
    by_solver: dict[str, list[int]] = defaultdict(list)
    for k, (solver, task) in enumerate(items):
        if task.id not in first_sample:
            first_sample[task.id] = len(grids)
            grids += _inputs(task)
        by_solver[solver.name].append(k)
    out: list = [None] * len(items)
    jobs, owners = [], []
    for ks in by_solver.values():
        solver = items[ks[0]][0]
        if solver.unsupported:
            for k in ks:
                out[k] = PairOutcome(solver.name, items[k][1].id, "unsupported", (solver.unsupported,))
            continue
        samples = [first_sample[items[k][1].id] + i for k in ks for i in range(_samples(items[k][1]))]
        jobs.append((solver, samples))
        owners.append(ks)
    t0 = time.perf_counter()
    timings: dict[str, list] = {}
    results = run_many(jobs, grids, timings)
    # the per-value reference runs on the host: the stats say so, with its time and solver-sample evaluations,
    # and per primitive (its sample evaluations, its time, the lines that called it as work)
    backend.stats.for_op("arcdsl lines (host)", "cpu").add_batch(
        len(grids), time.perf_counter() - t0, work=sum(len(samples) for _, samples in jobs))
    for name, (lines, evaluations, seconds) in timings.items():
        backend.stats.for_op(f"{HOST_PREFIX}{name}", "cpu").add_batch(evaluations, seconds, work=lines)
    for (solver, _), ks, outs in zip(jobs, owners, results):
        at = 0
        for k in ks:
            task = items[k][1]
            out[k] = _outcome(solver, task, outs[at:at + _samples(task)])
            at += _samples(task)
    return out


def _samples(task: Task) -> int:
    return len(task.train) + len(task.test_inputs)


def _inputs(task: Task) -> list:
    return [g for g, _ in task.train] + list(task.test_inputs)


def task_results(tasks: list[Task], pairs: list[PairOutcome], solvers: dict[str, Solver],
                 per_task: float) -> list[TaskResult]:
    """Per task: the solvers that fit the demos (fewest lines first, then most agreeing), their test outputs as
    up to two attempts per test input, and whether they are right."""
    fitting: dict[str, list[PairOutcome]] = defaultdict(list)
    evals: dict[str, int] = defaultdict(int)
    for p in pairs:
        evals[p.task] += len(p.samples) if p.status != "unsupported" else 0
        if p.status in ("solved", "fits"):
            fitting[p.task].append(p)
    results = []
    for task in tasks:
        fits = fitting.get(task.id, [])
        votes = defaultdict(int)
        for p in fits:
            votes[repr(p.predictions)] += 1
        fits.sort(key=lambda p: (len(solvers[p.solver].lines), -votes[repr(p.predictions)], p.solver))
        preds, correct = attempts(task, [p.predictions for p in fits])
        ranked = tuple(Fit(p.solver, len(solvers[p.solver].lines), votes[repr(p.predictions)]) for p in fits[:20])
        results.append(TaskResult(task.id, ranked, preds, correct, 0, evals[task.id], per_task, None))
    return results


def run_battery(solvers: list[Solver], tasks: list[Task], executor: BatchExecutor, mode: str
                ) -> tuple[list[TaskResult], list[PairOutcome], float, float]:
    """Run the battery through the engine; returns per-task results (in task order), per-pair outcomes (in
    pair order), the run's wall time and the time spent readying the devices."""
    pairs = battery_pairs(solvers, tasks, mode)
    op = BatchOp("arcdsl battery", partial(_battery_op, tuple(solvers)))
    start = executor.warm(op)
    executor.stats.mark("devices ready")
    t0 = time.perf_counter()
    outcomes: list[PairOutcome] = []
    cells = {t.id: _cells(t) for t in tasks}
    width = executor.runner.width
    sizes = batch_sizes([cells[t.id] for _, t in pairs], BATCHES_PER_WORKER * width, width)
    index = {id(s): i for i, s in enumerate(solvers)}
    items = [(index[id(s)], t) for s, t in pairs]  # solvers by index: the op holds them
    for (solver, task), res in zip(pairs, executor.run_all(op, items, total=len(pairs), label="pairs",
                                                           sizes=sizes)):
        if isinstance(res, ItemFailure):
            res = PairOutcome(solver.name, task.id, "error", (f"internal error: {res.kind}: {res.error}",))
        outcomes.append(res)
    seconds = time.perf_counter() - t0
    executor.stats.mark("battery done")
    per_task = seconds / max(1, len(tasks))
    results = task_results(tasks, outcomes, {s.name: s for s in solvers}, per_task)
    return results, outcomes, seconds, start


def battery_json(results: list[TaskResult], summary: BattSummary, meta: dict, outcomes: list[PairOutcome]) -> dict:
    """The `--results` document of a battery: run-batt's, plus `pairs` (each named `solver/task`, so that
    `gpubatch diff` names it) and `summary.pairs` (how many pairs ended in each status)."""
    doc = results_json(results, summary, meta)
    doc["pairs"] = [{"id": f"{p.solver}/{p.task}", "status": p.status, "samples": list(p.samples)} for p in outcomes]
    doc["summary"]["pairs"] = status_counts(outcomes)
    return doc


def status_counts(outcomes: list[PairOutcome]) -> dict[str, int]:
    """How many pairs ended in each status, in STATUSES order."""
    counts = dict.fromkeys(STATUSES, 0)
    for p in outcomes:
        counts[p.status] += 1
    return counts
