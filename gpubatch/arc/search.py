"""Breadth-first program search over all selected tasks at once.

Tasks are grouped by their number of grids K (demo inputs + test inputs); a search state is the K grids a
program produces for one task. Each level applies every primitive to a chunk of the frontier of every task
in one batched call and scores the new states in one more (`statescore`: exact fit cell by cell, fit up to a
colour map, key, shape score), and keeps new states: deduplicated per task by a 64-bit content hash of all K
grids (salted by task), the shortest program first. Frontier grids are not kept beyond what memory allows:
a level is recomputed from its parent level in chunks when it is expanded. Every task stops at its state
budget (`max_states` for levels 1-3, `deep_states` for each level past them); the run stops at its time
budget. When a task's budget cannot take all of a level's new states, it keeps those whose demo outputs
come nearest the targets' shapes (the shape score: two a demo pair for the target's shape, one for a shape
one step from it), then, among states with every shape and the predicted test sizes, those with the fewest
wrong demo cells, then in canonical order
(primitive, then parent state), which does not depend on chunk sizes or on the tasks sharing the batch.
Fits, exact, up to a colour map or (for the inputs and the depth-1 states) up to a local rule, are recorded
by `fits.FitBook`; partial fits (some demos right, test outputs of the predicted sizes) by
`partials.PartialBook`; candidates for overlays of several states by `overlays.OverlayBook`; demo outputs
chosen by a feature of the input, before the search, by `lookup.LookupBook`; the next level by
`frontier.FrontierBook`. Primitives meant for the inputs (`first` families) are run once for several groups
before their searches (`firsts`), which read their rows.
"""
from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, field

import numpy as np

from ..engine import Timeline
from ..engine.procs import stop_requested
from .colournorm import NormView
from .dsl import REGISTRY, Primitive
from .fits import MAPPED_CAP, FitBook, FitRecord, hit_table, host
from .frontier import FrontierBook, Level, promise
from .grids import GridBatch
from .learned import STATE_KINDS
from .lookup import LookupBook
from .overlays import OverlayBook
from .partials import PartialBook
from .pools import Pool
from .programs import Program
from .rules import shaped
from .size import predict_sizes
from .statescore import Scores, Targets, score_states
from .tasks import MAX_GRIDS, Task

# per-op statistics of the search's own steps around the primitives: a chunk's grids recomputed from the level
# before (none where the level is stored), the fits recorded, the partial fits and the overlay pools; and the
# next level's deduplication, budget and storing
PHASES = ("search.rebuild", "search.fits", "search.partials", "search.overlays")
NEXT_LEVEL = "search.next_level"
RULE_STATES = 16_384  # states per rule_fits call: each holds a few int64 feature arrays of its K grids
# odd position multipliers of the state key, one per grid of a task (the first 64 as they always were)
_MULT = np.concatenate([np.random.default_rng(seed).integers(1, 2**62, size=n, dtype=np.uint64) for seed, n in
                        ((7, 64), (8, MAX_GRIDS - 64))]) * np.uint64(2) + np.uint64(1)


@dataclass(frozen=True)
class SearchConfig:
    depth: int = 3
    max_states: int = 200_000
    deep_states: int = 2_000_000  # states explored per task at each level past the third (depth 4 and more)
    time_budget_s: float = 600.0
    chunk_grids: int = 0  # grids per device call; 0: sized from free memory
    store_bytes: int = 1 << 30  # frontier grids kept up to this size; larger levels are recomputed
    partial_fits: int = 8  # partial fits kept per task (`partials`); 0: none
    overlays: int = 16  # bases and layers of each kind kept per task for overlays (`overlays`); 0: none
    colour_norm: bool = True  # also search each task's colour-normalised copy (`colournorm`) where it differs
    norm_shallower: int = 1  # levels fewer than `depth` that the copies are searched to


@dataclass
class TaskState:
    task: Task
    fits: list[FitRecord] = field(default_factory=list)
    states: int = 0
    stopped: str | None = None
    sizes: list | None = None  # predicted (rows, columns) of each test output; None where no size rule fits
    partials: Pool | None = None  # the best partial fits, (rank, FitRecord), best first
    overlay_pools: list | None = None  # bases, colour layers, edit layers (`overlays`), each a Pool of Pieces
    overlays: list = field(default_factory=list)  # overlays that reproduce every demo (FitRecords), best first
    lookups: list = field(default_factory=list)  # demo outputs chosen by a feature of the input (`lookup`)
    depth: int | None = None  # this task's own depth, where less than the search's
    view: TaskState | None = None  # the search of the task's colour-normalised copy (`colournorm`), if any
    norm: NormView | None = None  # that copy's renaming of each grid pair
    copy: bool = False  # this is a colour-normalised copy: same task id, its own salt (`_salt`)


class GroupSearch(FitBook, PartialBook, OverlayBook, LookupBook, FrontierBook):
    """Search for the tasks of one K-group on one backend."""

    def __init__(self, tasks: list[TaskState], K: int, prims: list[Primitive], backend, cfg: SearchConfig,
                 clock_start: float, stats=None) -> None:
        xp = backend.xp
        self.ts, self.K, self.prims, self.backend, self.xp, self.cfg = tasks, K, prims, backend, xp, cfg
        self.t0, self.stats = clock_start, stats
        self.status = None  # status(text) hears the depth and states reached, chunk by chunk
        self.evaluations = 0
        T = len(tasks)
        grids, targets, demo = [], [], np.zeros((T, K), bool)
        for t, st in enumerate(tasks):
            st.partials, st.overlay_pools = Pool(cfg.partial_fits), [Pool(cfg.overlays) for _ in range(3)]
            n = len(st.task.train)
            grids += [a for a, _ in st.task.train] + list(st.task.test_inputs)
            targets += [b for _, b in st.task.train] + [None] * (K - n)
            demo[t, :n] = True
        host = GridBatch.from_lists(grids)
        tg = GridBatch.from_lists([g if g is not None else [[0]] for g in targets])
        tg.h[np.flatnonzero(~demo.ravel())] = 0
        self.inp = host.to(xp)
        size_h, size_w = self._predict_sizes(demo, tg.h, tg.w)
        self.targets = Targets(tg.to(xp), xp.asarray(demo), xp.asarray(_MULT[:K]),
                               xp.asarray(np.array([_salt(st.task.id, st.copy) for st in tasks], dtype=np.uint64)),
                               xp.asarray(size_h), xp.asarray(size_w), self.inp)
        self.levels = [Level(np.full(T, -1), np.full(T, -1), np.arange(T), self.inp)]
        self.demo = demo  # [T, K] on the host: which of each task's grids are demos
        self.map_open = xp.ones(T, bool)  # tasks still taking fits up to a colour map
        self.seen = xp.zeros(0, xp.uint64)  # keys of every state kept so far, sorted
        self.fit_by_key: dict[int, FitRecord] = {}
        self.rule_by_out: dict[tuple, FitRecord] = {}  # (task, level, unseen cells, test outputs) -> rule fit
        self.order = 0
        self.given: dict[int, GridBatch] = {}  # primitive index -> its grids on `inp`, computed beforehand

    def _predict_sizes(self, demo: np.ndarray, out_h, out_w) -> tuple[np.ndarray, np.ndarray]:
        """Each task's predicted test output sizes (`size`, over the group's own input batch, whose rows are
        each task's demos and then its tests), kept on its TaskState and returned as the targets' per-row
        arrays (-1 on demo rows and where no size rule fits the task's demos)."""
        T, K = demo.shape
        ph, pw, fit = predict_sizes(self.inp, np.repeat(np.arange(T), K), demo.ravel(), out_h, out_w, T)
        ruled = np.array([r is not None and c is not None for r, c in zip(fit.rows, fit.cols)], bool)
        test = (~demo & ruled.reshape(-1, 1)).ravel()
        size_h = np.where(test, host(self.xp, ph), -1).astype(np.int32)
        size_w = np.where(test, host(self.xp, pw), -1).astype(np.int32)
        for t in np.flatnonzero(ruled):
            rows = np.flatnonzero(test[t * K:(t + 1) * K]) + t * K
            self.ts[t].sizes = list(zip(size_h[rows].tolist(), size_w[rows].tolist()))
        return size_h, size_w

    # -- grids of a level ----------------------------------------------------------------------
    def rows(self, ids):
        xp = self.xp
        ids = xp.asarray(ids)
        return (ids.reshape(-1, 1) * self.K + xp.arange(self.K)).reshape(-1)

    def materialize(self, level: int, ids: np.ndarray) -> GridBatch:
        lv = self.levels[level]
        if lv.grids is not None:
            return lv.grids.take(self.rows(ids))
        K = self.K
        if not len(ids):
            return GridBatch.empty(0, self.xp)
        prims = lv.prim[ids]
        # states in primitive order (a stored level already is), so each primitive reads and writes one
        # contiguous slice: no index arrays travel to the device per primitive
        order = None if (np.diff(prims) >= 0).all() else np.argsort(prims, kind="stable")
        if order is not None:
            ids, prims = ids[order], prims[order]
        given = self.given if level == 1 else {}
        parents = None if all(int(p) in given for p in np.unique(prims)) else self.materialize(level - 1,
                                                                                             lv.parent[ids])
        out = GridBatch.empty(len(ids) * K, self.xp)
        cuts = np.flatnonzero(np.diff(prims)) + 1
        for a, b in zip(np.concatenate([[0], cuts]), np.concatenate([cuts, [len(ids)]])):
            rows, pi = slice(int(a) * K, int(b) * K), int(prims[a])
            if pi in given:  # computed on the inputs already (`firsts`)
                res = given[pi].take(self.rows(lv.parent[ids[a:b]]))
            else:
                res = self.prims[pi](parents.take(rows))
            out.data[rows], out.h[rows], out.w[rows] = res.data, res.h, res.w
        if order is not None:
            out = out.take(self.rows(np.argsort(order)))
        return out

    # -- one level -----------------------------------------------------------------------------
    def check_level0(self) -> None:
        """The inputs themselves: exact fits, fits up to a colour map or a local rule, and lookups."""
        T = len(self.ts)
        keys = self._fits(0, np.arange(T), np.arange(T), -1, self.inp)
        self.seen = self.xp.sort(keys)  # a later state equal to a task's input is no new state
        self._rule_fits(0, np.arange(T), self.inp)
        self.fit_lookups()

    def expand(self, level: int) -> bool:
        """Expand `level` into level + 1; False when the time budget stopped it."""
        xp, K, cfg = self.xp, self.K, self.cfg
        lv = self.levels[level]
        final = level + 1 >= cfg.depth
        cand: list[tuple] = []
        P = len(self.prims)
        # primitives meant for the inputs only get no results past depth 1
        skip = {pi for pi, prim in enumerate(self.prims) if level and prim.family.first}
        skip_rows = xp.asarray(np.array(sorted(skip), np.int64))
        runs = P - len(skip)
        marks = Timeline(self.backend, P + 4)  # the level's grids, each primitive, then the three books
        chunk = max(1, cfg.chunk_grids // K)
        n = len(lv.task)
        for start in range(0, n, chunk):
            if self.out_of_time():
                return False
            ids = np.arange(start, min(n, start + chunk))
            if self.status is not None:
                self.status(f"depth {level + 1}/{cfg.depth}: {start:,}/{n:,} states expanded")
            marks.mark(0)
            G = self.materialize(level, ids)
            task_h = lv.task[ids]
            task_d = xp.asarray(task_h)
            for t, c in zip(*np.unique(task_h, return_counts=True)):
                self.ts[int(t)].states += int(c) * runs
            m = len(ids)
            sc = Scores(*(xp.empty((P, m), d) for d in (bool, bool, xp.uint64, xp.int32, bool, xp.int32, xp.int32,
                                                        xp.int32, xp.int32, xp.uint64)))
            exact, valid, keys, scores, mapped, partial = sc[:6]
            if skip:
                for a, none in zip(sc, (False, False, 0, 0, False, 0, -1, 0, 0, 0)):
                    a[skip_rows] = none
            for pi, prim in enumerate(self.prims):  # no host round trip inside this loop: the device runs ahead
                marks.mark(pi + 1)
                if pi % 16 == 15 and self.out_of_time():
                    return False
                if pi in skip:
                    continue
                res = self.given[pi].take(self.rows(ids)) if level == 0 and pi in self.given else prim(G)
                score_states(res, task_d, self.targets, self.map_open, out=tuple(a[pi] for a in sc))
            marks.mark(P + 1)
            self.evaluations += runs * m * K
            hit, ex, hk = hit_table(xp, exact.ravel(), mapped.ravel(), keys.ravel())
            if len(hit):  # the host sees the hits only; grids are recomputed for fits not seen before
                self._record(level + 1, ids, task_h, hit // m, hit % m, ex, hk,
                             lambda pi, states: self.prims[pi](G.take(self.rows(states))))
            marks.mark(P + 2)
            self._partials(level + 1, ids, task_d, partial, keys, G)
            marks.mark(P + 3)
            self._overlay_pools(level + 1, ids, task_d, sc)
            marks.mark(P + 4)
            if not final:  # candidates stay on the device, in generation order (primitive-major per chunk)
                ok = valid.ravel()
                cand.append((keys.ravel()[ok], xp.tile(xp.asarray(ids), P)[ok],
                             xp.repeat(xp.arange(P, dtype=xp.int32), m)[ok], promise(xp, K, scores, sc.wrong)[ok]))
            if self.stats is not None:
                self._chunk_stats(marks.intervals(), level, skip, m * K)
        full = [t for t, st in enumerate(self.ts) if sum(f.cmap is not None for f in st.fits) >= MAPPED_CAP]
        if full:  # closed between levels, so that which fits are kept is canonical; one write to the device
            self.map_open[xp.asarray(np.array(full))] = False
        if not final:
            step = Timeline(self.backend, 1)
            step.mark(0)
            self._next_level(level, cand)
            step.mark(1)
            if self.stats is not None:
                self.stats.for_op(NEXT_LEVEL, self.backend.label).add_batch(
                    sum(len(c[0]) for c in cand), *step.intervals()[0])
            if level == 0:
                self.check_rules(1)
        return True

    def _chunk_stats(self, spans: list[tuple[float, float]], level: int, skip: set, grids: int) -> None:
        """Record one chunk's (host, device) seconds: each primitive that ran here (those given on the inputs
        were timed where they ran, `firsts`), and the phases around them (`PHASES`)."""
        label = self.backend.label
        for pi, (wall, dev) in enumerate(spans[1:len(self.prims) + 1]):
            if pi not in skip and not (level == 0 and pi in self.given):
                self.stats.for_op(self.prims[pi].name, label).add_batch(grids, wall, dev)
        for name, (wall, dev) in zip(PHASES, [spans[0]] + spans[len(self.prims) + 1:]):
            self.stats.for_op(name, label).add_batch(grids, wall, dev)

    def out_of_time(self) -> bool:
        """True, and every task marked stopped, once the run's time budget is spent or an interrupt asked the
        run to stop (checked between chunks and every few primitives, so either is heeded within a fraction of
        a second)."""
        if stop_requested():
            reason = "interrupted"
        elif time.perf_counter() - self.t0 > self.cfg.time_budget_s:
            reason = "time budget"
        else:
            return False
        for st in self.ts:
            st.stopped = st.stopped or reason
        return True

    def check_rules(self, level: int) -> None:
        """Fits up to a local rule among the states of `level` (programs one step shorter than the depth
        allows, the rule being the last step) whose demo grids have their targets' shapes."""
        xp, K, tg = self.xp, self.K, self.targets
        lv = self.levels[level]
        chunk = max(1, min(RULE_STATES, self.cfg.chunk_grids // K))
        marks = Timeline(self.backend, 1)
        for start in range(0, len(lv.task), chunk):
            if self.out_of_time():
                return
            marks.mark(0)
            ids = np.arange(start, min(len(lv.task), start + chunk))
            G = self.materialize(level, ids)
            fit_shape = shaped(G, xp.asarray(lv.task[ids]), tg.grids, tg.demo).reshape(-1, K).all(axis=1)
            k = np.flatnonzero(host(xp, fit_shape))
            if len(k):
                sub = ids[k]
                paths = [(level, int(lv.parent[i]), int(lv.prim[i])) for i in sub]
                self._rule_fits(level, lv.task[sub], G.take(self.rows(k)), STATE_KINDS, paths=paths)
            marks.mark(1)
            if self.stats is not None:
                wall, dev = marks.intervals()[0]
                self.stats.for_op("rule_fits", self.backend.label).add_batch(len(k) * K, wall, dev)

    def run_battery(self, programs) -> None:
        """Evaluate hand-written programs on every task of the group; shared prefixes run once."""
        T = len(self.ts)
        ids = np.arange(T)
        cache: dict[tuple, GridBatch] = {(): self.inp}
        for prog in programs:
            steps = tuple(prog.steps)
            for n in range(1, len(steps) + 1):
                if steps[:n] not in cache:
                    cache[steps[:n]] = steps[n - 1](cache[steps[:n - 1]])
            C = cache[steps]
            self.evaluations += T * self.K
            for st in self.ts:
                st.states += 1
            if prog.rule:  # the learned step's text is added to the prefix's, as for every rule fit
                self._rule_fits(len(steps), ids, C, (prog.rule,), text=Program(prog.steps).text)
            else:
                self._fits(len(steps), ids, ids, -1, C, text=prog.text)

    def program_text(self, path: tuple[int, int, int]) -> str:
        """The program of the state at `path`, as text ("" for none: the input)."""
        return " | ".join(self.prims[s].text for s in self.program_steps(path))

    def program_steps(self, path: tuple[int, int, int]) -> list[int]:
        level, idx, pi = path
        steps = [pi] if pi >= 0 else []
        while level > 1:
            lv = self.levels[level - 1]
            steps.append(int(lv.prim[idx]))
            idx = int(lv.parent[idx])
            level -= 1
        return steps[::-1]


def _salt(task_id: str, copy: bool = False) -> int:
    """A stable 64-bit number per task id, mixed into state keys so tasks never share states. A task's
    colour-normalised copy has a salt of its own: sharing the task's, a grid both reached counted as seen for
    whichever came first, and which came first depended on the tasks sharing the batch."""
    text = task_id + ("\0colournorm" if copy else "")
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def builtin_primitives() -> list[Primitive]:
    """The enumeration's primitives, identity excluded (depth 0 already covers it)."""
    return [p for p in REGISTRY.instances() if p.name != "identity"]
