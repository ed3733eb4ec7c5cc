"""Partial fits: states that reproduce some of a task's demo outputs, not all, and whose test outputs have the
predicted sizes (`size`). They rank after every fit, most demos matched first, then the shorter program, then
canonical order (primitive, then parent state), so a task that no program fits still gets attempts, and a
task with one fit gets a second.

`PartialBook` is mixed into `search.GroupSearch`. Every chunk of an expansion hands it the `partial` scores
of `statescore` (demos matched, 0 for no partial fit); the device keeps, per task, the first `keep` distinct
states in rank order, and only those travel to the host. Keeping the first few distinct states of each chunk
and merging them on the host gives the first few of the whole level, whatever the chunk size, so results do
not depend on the device or on the tasks sharing a batch.
"""
from __future__ import annotations

import numpy as np

from .fits import FitRecord, host


class PartialBook:
    """Recording partial fits (a mixin of GroupSearch: reads `ts`, `K`, `xp`, `prims`, `cfg`, `rows`)."""

    def _partials(self, level: int, ids: np.ndarray, task_d, partial, keys, G) -> None:
        """Take the best partial fits of one chunk: `partial`/`keys` are [P, m] device arrays over the chunk's
        states `ids` (tasks `task_d`), `G` the chunk's parent grids."""
        keep = self.cfg.partial_fits
        if not keep:
            return
        xp = self.xp
        P, m = partial.shape
        flat = partial.ravel()
        idx = xp.flatnonzero(flat)
        if not len(idx):
            return
        prim, k, matched, key = idx // m, idx % m, flat[idx], keys.ravel()[idx]
        task = task_d[k].astype(xp.int64)
        # rank order: task, most demos matched, primitive, parent state (k grows with the state's index)
        order = xp.argsort(((task * (self.K + 1) + (self.K - matched)) * P + prim) * m + k)
        sk = key[order]
        by_key = xp.argsort(sk, kind="stable")
        head = xp.ones(len(sk), bool)
        head[1:] = sk[by_key[1:]] != sk[by_key[:-1]]
        first = order[xp.sort(by_key[head])]  # each distinct state once, where it ranks first
        t = task[first]
        rank = xp.arange(len(first)) - xp.searchsorted(t, t)
        first = first[rank < keep]
        got = host(xp, xp.stack([prim[first], k[first], matched[first].astype(xp.int64),
                                 key[first].astype(xp.int64)]))
        self._merge_partials(level, ids, got, G)

    def _merge_partials(self, level: int, ids: np.ndarray, got: np.ndarray, G) -> None:
        """Merge one chunk's candidates (rows: primitive, index in chunk, demos matched, key) into each task's
        best `keep`; grids are computed only for those that enter."""
        keep, K = self.cfg.partial_fits, self.K
        lv_task = self.levels[level - 1].task
        enter: dict[int, list] = {}
        for pi, k, matched, key in got.T.tolist():
            t = int(lv_task[ids[k]])
            st = self.ts[t]
            if key in st.partial_keys:
                continue
            rank = (-matched, level, pi, int(ids[k]))
            if len(st.partials) >= keep and rank >= st.partials[-1][0]:
                continue
            rec = FitRecord(level, 0, (level, int(ids[k]), pi), [], state=key, matched=matched)
            st.partials.append((rank, rec))
            st.partials.sort(key=lambda e: e[0])
            st.partial_keys[key] = rec
            for _, old in st.partials[keep:]:
                st.partial_keys.pop(old.state, None)
            del st.partials[keep:]
            enter.setdefault(pi, []).append((k, rec, st))
        for pi, recs in enter.items():
            live = [(k, rec, st) for k, rec, st in recs if st.partial_keys.get(rec.state) is rec]  # not pushed out
            if not live:
                continue
            lists = self.prims[pi](G.take(self.rows(np.array([k for k, _, _ in live])))).to_lists()
            for j, (_, rec, st) in enumerate(live):
                rec.outputs = lists[j * K + len(st.task.train):(j + 1) * K]
