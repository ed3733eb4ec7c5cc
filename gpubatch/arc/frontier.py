"""The next level of a group's search (`FrontierBook`, a mixin of `search.GroupSearch`): one level's candidates
deduplicated against each other and every earlier level, each task's most promising states (`promise`) kept up
to its state budget, then canonical order, and the new level stored sorted by (primitive, parent). All on the
device: nothing here depends on chunk sizes or on the tasks sharing the batch.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fits import host
from .grids import CELLS, GridBatch

_UNSCORED = 1 << 15  # `promise` of a state with no wrong-cell count (above any demo set's cells)


@dataclass
class Level:
    parent: np.ndarray  # index into the previous level
    prim: np.ndarray
    task: np.ndarray  # task index within the group
    grids: GridBatch | None = None


class FrontierBook:
    """Choosing and storing the next level (a mixin of GroupSearch: reads `levels`, `seen`, `ts`, `prims`, `cfg`,
    `K`, `xp`; `_count_votes` comes from `fits.FitBook`, `materialize` from the search)."""

    def _next_level(self, level: int, cand: list[tuple]) -> None:
        """Deduplicate the candidates of level + 1 against each other and every earlier level, keep each
        task's best-scored states (then canonical order) up to its state budget, store the new level sorted by
        (primitive, parent) so that recomputing a chunk of it takes few primitive calls. All on the device."""
        xp, T, P = self.xp, len(self.ts), len(self.prims)
        if cand:
            keys, parents, prims, score = (xp.concatenate([c[k] for c in cand]) for k in range(4))
        else:
            keys, parents, prims, score = (xp.zeros(0, d) for d in (xp.uint64, xp.int64, xp.int32, xp.int64))
        # canonical order (primitive, then parent), whatever the chunks were: a task's states, and so its
        # results, do not depend on which tasks share its batch, on the device or on the chunk size
        span = int(parents.max()) + 1 if len(parents) else 1
        canon = xp.argsort(prims.astype(xp.int64) * span + parents, kind="stable")
        keys, parents, prims, score = keys[canon], parents[canon], prims[canon], score[canon]
        order = xp.argsort(keys, kind="stable")  # stable: equal keys keep the canonical order
        sk = keys[order]
        head = xp.ones(len(sk), bool)
        head[1:] = sk[1:] != sk[:-1]
        starts = xp.flatnonzero(head)
        uniq, first = sk[starts], order[starts]
        self._count_votes(level + 1, uniq, xp.diff(xp.concatenate([starts, xp.asarray([len(sk)])])))
        new = ~sorted_member(xp, uniq, self.seen)
        self.seen = xp.sort(xp.concatenate([self.seen, uniq[new]]))
        first = xp.sort(first[new])  # canonical order
        parents, prims, score = parents[first], prims[first], score[first]
        tasks = xp.asarray(self.levels[level].task)[parents]
        # each task keeps `allowed` new states, the most promising first (`promise`), then canonical order;
        # levels past the third have a budget of their own, so that depth 4 is not starved by depth 3
        runs = P - sum(prim.family.first for prim in self.prims)  # primitives that run past depth 1
        if level >= 2:  # the new level is expanded into level 4 or deeper
            allowed = xp.full(T, self.cfg.deep_states // max(1, runs), xp.int64)
        else:
            used = xp.asarray(np.array([st.states for st in self.ts], np.int64))
            allowed = xp.maximum(0, (self.cfg.max_states - used) // max(1, runs))
        deeper = xp.asarray(np.array([(self.cfg.depth if st.depth is None else st.depth) > level + 1
                                      for st in self.ts]))
        allowed = xp.where(deeper, allowed, 0)  # a task searched to a lesser depth keeps no states past it
        by_task = xp.argsort(tasks.astype(xp.int64) * (1 << 40) + score, kind="stable")
        per_task = xp.bincount(tasks, minlength=T)
        rank = xp.empty(len(tasks), xp.int64)
        rank[by_task] = xp.arange(len(tasks)) - (xp.cumsum(per_task) - per_task)[tasks[by_task]]
        keep = rank < allowed[tasks]
        for t in np.flatnonzero(host(xp, (per_task > allowed) & deeper)):
            self.ts[int(t)].stopped = "state budget"
        parents, prims, tasks = parents[keep], prims[keep], tasks[keep]
        lv = Level(host(xp, parents), host(xp, prims), host(xp, tasks))  # still (primitive, parent) order
        self.levels.append(lv)
        if len(lv.task) * self.K * CELLS <= self.cfg.store_bytes:
            lv.grids = self.materialize(level + 1, np.arange(len(lv.task)))


def promise(xp, K: int, score, wrong):
    """How promising each new state is, lower first: the shape score's shortfall (demo pairs whose output lacks
    the target's shape, and more where it is not even near it), then (where every demo output has it and the
    test outputs the predicted sizes) wrong demo cells, else last."""
    cells = xp.where(wrong >= 0, xp.minimum(wrong, _UNSCORED - 1), _UNSCORED).ravel().astype(xp.int64)
    return (2 * K - score.ravel()).astype(xp.int64) * (_UNSCORED + 1) + cells


def sorted_member(xp, a, sorted_b):
    """Whether each element of `a` is in the sorted array `sorted_b`."""
    if not len(sorted_b):
        return xp.zeros(len(a), bool)
    pos = xp.minimum(xp.searchsorted(sorted_b, a), len(sorted_b) - 1)
    return sorted_b[pos] == a
