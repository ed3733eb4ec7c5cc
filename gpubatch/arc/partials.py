"""Partial fits: states that reproduce some of a task's demo outputs, not all, and whose test outputs have the
predicted sizes (`size`). They rank after every fit, most demos matched first, then the shorter program, then
canonical order (primitive, then parent state), so a task that no program fits still gets attempts, and a
task with one fit gets a second.

`PartialBook` is mixed into `search.GroupSearch`. Every chunk of an expansion hands it the `partial` scores
of `statescore` (demos matched, 0 for no partial fit), which pass through a per-task `pools.Pool`.
"""
from __future__ import annotations

import numpy as np

from .fits import FitRecord, host
from .pools import entry_limits, first_distinct, within


class PartialBook:
    """Recording partial fits (a mixin of GroupSearch: reads `ts`, `K`, `xp`, `prims`, `cfg`, `rows`)."""

    def _partials(self, level: int, ids: np.ndarray, task_d, partial, keys, G) -> None:
        """Take the best partial fits of one chunk: `partial`/`keys` are [P, m] device arrays over the chunk's
        states `ids` (tasks `task_d`), `G` the chunk's parent grids."""
        keep = self.cfg.partial_fits
        if not keep:
            return
        xp, K = self.xp, self.K
        P, m = partial.shape
        n_level = len(self.levels[level - 1].task)
        limits = entry_limits([st.partials for st in self.ts], level, P, n_level)
        ok = (partial > 0) & within(xp, K - partial, limits, task_d, ids, P, n_level)
        idx = xp.flatnonzero(ok.ravel())
        if not len(idx):
            return
        prim, k, matched, key = idx // m, idx % m, partial.ravel()[idx], keys.ravel()[idx]
        task = task_d[k].astype(xp.int64)
        # rank order: task, most demos matched, primitive, parent state (k grows with the state's index)
        first = first_distinct(xp, ((task * (K + 1) + (K - matched)) * P + prim) * m + k, key, task, keep)
        got = host(xp, xp.stack([prim[first], k[first], matched[first].astype(xp.int64),
                                 key[first].astype(xp.int64)]))
        self._merge_partials(level, ids, got, G)

    def _merge_partials(self, level: int, ids: np.ndarray, got: np.ndarray, G) -> None:
        """Merge one chunk's candidates (rows: primitive, index in chunk, demos matched, key) into each task's
        best `keep`; grids are computed only for those that enter."""
        K = self.K
        lv_task = self.levels[level - 1].task
        enter: dict[int, list] = {}
        for pi, k, matched, key in got.T.tolist():
            st = self.ts[int(lv_task[ids[k]])]
            rank = (K - matched, level, pi, int(ids[k]))
            rec = st.partials.offer(rank, key, lambda path=(level, int(ids[k]), pi), key=key, matched=matched:
                                    FitRecord(level, 0, path, [], state=key, matched=matched))
            if rec is not None:
                enter.setdefault(pi, []).append((k, rank, rec, st))
        for pi, recs in enter.items():
            live = [(k, rec, st) for k, rank, rec, st in recs if st.partials.holds(rank)]  # not pushed out
            if not live:
                continue
            lists = self.prims[pi](G.take(self.rows(np.array([k for k, _, _ in live])))).to_lists()
            for j, (_, rec, st) in enumerate(live):
                rec.outputs = lists[j * K + len(st.task.train):(j + 1) * K]
