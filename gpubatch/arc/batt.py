"""The run-batt job: search and battery evaluation per device, predictions, scoring, submission and results.

Tasks travel through the engine as items: one batch is one shard of tasks searched together on one device,
so `--gpus N` spreads shards over N worker processes and results come back in task order.
"""
from __future__ import annotations

import functools
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable

from ..engine import Backend, BatchExecutor, BatchOp, ItemFailure
from . import firsts
from .colournorm import normalise, renamings
from .fits import FitRecord
from .programs import Program
from .ranking import attempt_order, attempts, merged_kinds
from .search import GroupSearch, SearchConfig, TaskState, builtin_primitives
from .tasks import Task, TaskProblem
from .warmup import mark_warm, precompile, sample_grids


@dataclass(frozen=True)
class Fit:
    program: str
    length: int
    votes: int
    matched: int = 0  # a partial fit: the demo outputs it reproduces (not all); 0 for a fit


@dataclass(frozen=True)
class TaskResult:
    """What the run found for one task (frozen: results are data)."""

    id: str
    fits: tuple[Fit, ...]
    predictions: tuple[tuple[Any, ...], ...]  # per test input: up to 2 grids (lists of rows)
    correct: tuple[bool, ...] | None
    states: int
    evaluations: int
    seconds: float
    stopped: str | None
    error: str | None = None
    partials: tuple[Fit, ...] = ()  # the best partial fits (`partials`), ranked after every fit and overlay
    overlays: tuple[Fit, ...] = ()  # overlays of several states that reproduce every demo (`overlays`)
    guesses: tuple[Fit, ...] = ()  # partial rule fits' unseen cells in their majority colour, tried last
    lookups: tuple[Fit, ...] = ()  # demo outputs chosen by a feature of the input (`lookup`), after the fits

    @property
    def demo_fit(self) -> bool:
        return bool(self.fits)


@dataclass(frozen=True)
class BattSummary:
    tasks: int
    demo_fit: int
    test_outputs: int
    test_correct: int
    overfit: int
    seconds: float
    evaluations: int
    skipped: int = 0
    failed: int = 0
    start_seconds: float = 0.0  # readying the devices (workers, kernels) before the timed search
    stopped: tuple[tuple[str, int], ...] = ()  # (reason, tasks): tasks whose search a budget cut short

    @property
    def accuracy(self) -> float:
        return self.test_correct / self.test_outputs if self.test_outputs else 0.0

    @property
    def evals_per_s(self) -> float:
        return self.evaluations / self.seconds if self.seconds > 0 else 0.0


def search_shard(tasks: list[Task], backend: Backend, cfg: SearchConfig, programs: tuple[Program, ...] = (),
                 enumerate_builtin: bool = True, stats=None, status=None) -> list[TaskResult]:
    """Search one shard of tasks on one backend; results in the shard's order. `status(text)`, if given,
    hears where the search is: group, depth and states expanded (for a progress display)."""
    prims = builtin_primitives()
    if not cfg.chunk_grids:
        free = backend.free_memory()
        auto = 4096 if free is None else int(min(1 << 18, max(1024, free * 0.5 // 32_768)))
        cfg = replace(cfg, chunk_grids=auto)
    states = [TaskState(t) for t in tasks]
    if cfg.colour_norm and enumerate_builtin:  # a task's normalised copy is searched beside it (`colournorm`)
        for st in states[:len(tasks)]:
            st.norm = normalise(st.task)
            if st.norm is not None:
                st.view = TaskState(st.norm.task, depth=copy_depth(cfg), copy=True)
                states.append(st.view)
    groups: dict[int, list[int]] = defaultdict(list)
    for i, st in enumerate(states):
        groups[len(st.task.train) + len(st.task.test_inputs)].append(i)
    out: dict[int, TaskResult] = {}
    t0 = time.perf_counter()
    order = sorted(groups.items())
    grids = [K * len(members) for K, members in order]
    for wave in firsts.waves(grids, firsts.per_grid(prims), firsts.cap_for(backend)):
        w0 = time.perf_counter()
        searches = [GroupSearch([states[i] for i in order[g][1]], order[g][0], prims, backend, cfg, t0, stats)
                    for g in wave]
        if enumerate_builtin and cfg.depth:  # the inputs' own primitives, once for the wave's groups
            firsts.share_first(searches, backend, stats)
        shared = (time.perf_counter() - w0) / sum(grids[g] for g in wave)
        for j, g in enumerate(wave):
            gs, searches[j] = searches[j], None  # a finished group's stored levels are freed before the next's
            g0 = time.perf_counter() - shared * grids[g]
            K, members = order[g]
            if status is not None:
                head = f"group {g + 1}/{len(groups)} ({len(members)} tasks of {K} grids)"
                gs.status = lambda text, head=head: status(f"{head}, {text}")
            gs.check_level0()
            if programs:
                gs.run_battery(programs)
            if enumerate_builtin:
                for level in range(cfg.depth):
                    if not gs.expand(level):
                        break
            gs.compose()
            per_task = (time.perf_counter() - g0) / len(members)
            for i in members:
                if i < len(tasks):
                    st = states[i]
                    done = st.states + 1 + (st.view.states + 1 if st.view is not None else 0)
                    out[i] = _result(st, gs, per_task * (1 + (st.view is not None)), done * K)
    return [out[i] for i in range(len(tasks))]


def _result(st: TaskState, gs: GroupSearch, seconds: float, evals: int) -> TaskResult:
    kinds = merged_kinds(st)
    fits, lookups, overlays, partials, guesses = kinds
    preds, correct = attempts(st.task, [f.outputs for f in attempt_order(kinds)])
    states = st.states + (st.view.states if st.view is not None else 0)
    stopped = st.stopped or (st.view.stopped if st.view is not None else None)
    return TaskResult(st.task.id, tuple(_fit(f, gs) for f in fits[:20]), preds, correct, states, evals, seconds,
                      stopped, partials=tuple(_fit(f, gs) for f in partials),
                      overlays=tuple(_fit(f, gs) for f in overlays), guesses=tuple(_fit(f, gs) for f in guesses),
                      lookups=tuple(_fit(f, gs) for f in lookups))


def _fit(f: FitRecord, gs: GroupSearch) -> Fit:
    """A fit record as the results show it: its program's text, length, votes and demos matched; a fit of the
    colour-normalised copy reads `colournorm | ...`."""
    text = f.text or gs.program_text(f.path) or "identity"
    if f.learned is not None:
        text = (text + " | " if text != "identity" else "") + f.learned
    if f.normalised:
        text = "colournorm | " + text
    return Fit(text, f.length, f.votes, f.matched)


def _search_op(items: list[Task], backend: Backend, cfg: SearchConfig, programs: tuple, builtin: bool,
               status=None):
    try:
        return search_shard(items, backend, cfg, programs, builtin, backend.stats, status)
    except MemoryError:
        raise  # the engine splits the shard and retries
    except Exception as exc:  # one broken task must not sink the shard: the engine bisects it
        if len(items) == 1 and not backend.is_gpu:  # on a GPU, the engine retries the task on the CPU first
            return [ItemFailure.of(exc)]
        raise


CELLS = 900  # cells of a grid in the search's [N, 30, 30] batches, whatever its own size
# dispatch by work (`--device auto`), measured on the H100 box (2026-11-26): whole commands on NumPy and on the
# GPU cross near 37 training tasks at depth 1 (20 tasks: 2.6 s against 3.3 s; 50: 4.4 s against 3.8 s), about
# 80M cell evaluations; past that the GPU saves nearly all of the search's NumPy time
CPU_THRESHOLD = 80_000_000
GPU_GAIN = 0.95


def search_work(tasks: list[Task], cfg: SearchConfig, programs: int = 0) -> float:
    """The search op's work: grid cells times primitive applications, up to the state budget per level, for
    each task and its colour-normalised copy."""
    return float(CELLS * sum(_grids(t) * (_per_grid(cfg, programs) + _copy_work(t, cfg)) for t in tasks))


def _per_grid(cfg: SearchConfig, programs: int = 0, depth: int | None = None) -> int:
    """Primitive applications per grid of one search to `depth` (the config's by default)."""
    P = len(builtin_primitives())
    depth = cfg.depth if depth is None else depth
    return sum(min(P ** d, cfg.max_states if d <= 3 else cfg.deep_states) for d in range(1, depth + 1)) + programs + 1


def copy_depth(cfg: SearchConfig) -> int:
    """The depth a colour-normalised copy is searched to: `norm_shallower` levels less, at least 1."""
    return max(1, cfg.depth - cfg.norm_shallower) if cfg.depth else 0


def _copy_work(t: Task, cfg: SearchConfig) -> int:
    """Primitive applications per grid of the task's colour-normalised copy (0 where it has none)."""
    if not cfg.colour_norm or not cfg.depth or renamings(t) is None:
        return 0
    return _per_grid(cfg, depth=copy_depth(cfg))


def _grids(t: Task) -> int:
    return len(t.train) + len(t.test_inputs)


GROUP_COST = 25  # fixed work of one K-group on one device, in grids (about 0.5 s on a warm H100, 2026-11-26)


def device_pieces(costs: list[int], keys: list[int], pieces: int, group_cost: float = GROUP_COST
                  ) -> tuple[list[int], list[int]]:
    """Task order and piece sizes for `pieces` devices: tasks sorted by `keys` (their number of grids: the
    search's K-groups), cut into contiguous pieces so that the costliest piece costs least, where a piece
    costs its tasks' `costs` plus `group_cost` for each distinct key in it (a group's fixed work on a device)."""
    order = sorted(range(len(costs)), key=lambda i: (keys[i], i))
    if not order:
        return [], []
    c = [costs[i] for i in order]
    k = [keys[i] for i in order]

    def cut(limit: float) -> list[int] | None:  # greedy: each piece takes tasks while it stays within limit
        sizes, load, start = [], 0.0, 0
        for pos in range(len(c)):
            add = c[pos] + (group_cost if pos == start or k[pos] != k[pos - 1] else 0)
            if pos > start and load + add > limit:
                sizes.append(pos - start)
                start, load = pos, c[pos] + group_cost
            else:
                load += add
            if load > limit or len(sizes) >= pieces:
                return None
        return sizes + [len(c) - start]

    lo = max(c) + group_cost
    hi = sum(c) + group_cost * len(set(k))
    while hi - lo > 1e-6 * hi:  # the least limit the greedy cut meets, to a part in a million
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if cut(mid) is not None else (mid, hi)
    return order, cut(hi)


def run_batt(tasks: list[Task], executor: BatchExecutor, cfg: SearchConfig, programs: tuple = (),
             builtin: bool = True, devices: int = 1) -> tuple[list[TaskResult], float, float]:
    """Search every task through the engine; returns results in task order, the search's wall time and
    the time spent readying the devices before it (worker start, kernel compilation and loading).

    With several devices, the tasks are dealt in one piece per device, cut so that the costliest piece costs
    least (a search costs about its task's number of grids, plus a fixed amount for each K-group a device
    searches): the slowest piece sets the wall time of a multi-GPU run."""
    # the depth-level status reaches the progress display when the search runs in this process; worker
    # processes (--gpus N) report per finished piece only
    status = getattr(executor.progress, "status", None) if executor.runner.name in ("sync", "local") else None
    op = BatchOp("search", functools.partial(_search_op, cfg=cfg, programs=tuple(programs), builtin=builtin,
                                             status=status), warm=functools.partial(_warm_search, cfg=cfg),
                 work=functools.partial(search_work, cfg=cfg if builtin else replace(cfg, depth=0),
                                        programs=len(programs)),
                 cpu_threshold=CPU_THRESHOLD, gpu_gain=GPU_GAIN)
    grids = [_grids(t) for t in tasks]
    if devices > 1:
        per_grid = _per_grid(cfg)  # a task with a colour-normalised copy costs a little more
        costs = [g * (per_grid + _copy_work(t, cfg)) / per_grid for g, t in zip(grids, tasks)]
        order, sizes = device_pieces(costs, grids, devices)
    else:
        order, sizes = list(range(len(tasks))), []
    start = executor.warm(op, work=op.work(tasks))
    executor.stats.mark("devices ready")
    t0 = time.perf_counter()
    results: list = [None] * len(tasks)
    dealt = [tasks[i] for i in order]
    for i, res in zip(order, executor.run_all(op, dealt, total=len(tasks), label="tasks", sizes=sizes)):
        if isinstance(res, ItemFailure):  # a failed task scores 0 of its test outputs: it stays in the denominator
            task = tasks[i]
            wrong = None if task.test_outputs is None else tuple(False for _ in task.test_inputs)
            res = TaskResult(task.id, (), tuple(() for _ in task.test_inputs), wrong, 0, 0, 0.0, None,
                             error=f"{res.kind}: {res.error}")
        results[i] = res
    executor.stats.mark("search done")
    return results, time.perf_counter() - t0, start


def _warm_search(backend: Backend, cfg: SearchConfig) -> None:
    """On a GPU, compile and load every kernel the search runs, before the timed work: the primitives' kernels
    in worker processes where CuPy's cache is cold (`warmup`), then a depth-2 search of one small made-up task
    (its first level keeps 3 states); nothing of it is kept."""
    if not backend.is_gpu:
        return
    grids = sample_grids()
    task = Task("warm-up", tuple((g, g[::-1]) for g in grids[:2]), (grids[2],))
    prims = builtin_primitives()
    precompile(backend, prims)
    search_shard([task], backend, replace(cfg, depth=min(2, cfg.depth), max_states=4 * len(prims)))
    mark_warm(backend, prims)


def summarize(results: list[TaskResult], seconds: float, skipped: int = 0, start: float = 0.0) -> BattSummary:
    outs = sum(len(r.correct) for r in results if r.correct is not None)
    right = sum(sum(r.correct) for r in results if r.correct is not None)
    overfit = sum(1 for r in results if r.fits and r.correct is not None and not all(r.correct))
    stops = Counter(r.stopped for r in results if r.stopped)
    return BattSummary(len(results), sum(r.demo_fit for r in results), outs, right, overfit, seconds,
                       sum(r.evaluations for r in results), skipped, sum(1 for r in results if r.error), start,
                       tuple(sorted(stops.items())))


def submission(tasks: list[Task], results: list[TaskResult], problems: Iterable[TaskProblem] = ()) -> dict:
    """ARC Prize submission.json: every task, one entry per test input; unsolved -> the input twice. A task
    skipped as unusable is there too, from what its test inputs still give (ARC Prize's scoring fails a
    submission that lacks a task of its challenges file), sorted in among the others by id."""
    out = {}
    for task, res in zip(tasks, results):
        entries = []
        for i, inp in enumerate(task.test_inputs):
            grid_in = [list(r) for r in inp]
            preds = list(res.predictions[i]) if i < len(res.predictions) else []
            a1 = preds[0] if preds else grid_in
            a2 = preds[1] if len(preds) > 1 else a1
            entries.append({"attempt_1": a1, "attempt_2": a2})
        out[task.id] = entries
    for p in problems:
        if p.kind == "skipped" and p.test_inputs and p.id not in out:
            out[p.id] = [{"attempt_1": [list(r) for r in g], "attempt_2": [list(r) for r in g]} for g in p.test_inputs]
    return dict(sorted(out.items()))


_TIMING_FIELDS = ("seconds", "start_seconds")


def results_json(results: list[TaskResult], summary: BattSummary, extra: dict) -> dict:
    """The `--results` document: outcomes (`summary`, `tasks`), then `timings` and the `run`'s settings apart,
    so that two runs of the same work on any device differ only there (`gpubatch diff` compares the rest)."""
    outcome = {k: v for k, v in asdict(summary).items() if k not in _TIMING_FIELDS}
    tasks = [{k: v for k, v in asdict(r).items() if k not in _TIMING_FIELDS} for r in results]
    timings = {"seconds": summary.seconds, "start_seconds": summary.start_seconds,
               "evals_per_s": summary.evals_per_s, "tasks": {r.id: r.seconds for r in results}}
    return {"summary": {**outcome, "accuracy": summary.accuracy}, "tasks": tasks, "timings": timings, "run": extra}


__all__ = ["BattSummary", "Fit", "TaskResult", "device_pieces", "run_batt", "search_shard", "submission", "summarize"]
