"""Fit records of a search: states whose demo outputs match the targets exactly or up to a colour map, their
votes (how many programs reach them) and the canonical program that represents each.

`FitBook` is mixed into `search.GroupSearch`: it reads the group's targets (`tgt`, `tgt_hash`, `demo`), its
hashing constants (`mult`, `salt`) and writes `fit_by_key` and each task's `fits`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .colourmap import apply_map, learn_map, map_fits, map_text

MAPPED_CAP = 20  # after a level with this many fits up to a colour map, a task takes no more
_MAPPED = 0x5BD1E9955BD1E995  # mixed into the key of a fit up to a colour map: never the exact fit's key


@dataclass
class FitRecord:
    level: int
    order: int
    path: tuple[int, int, int] | None  # (level, index in level, primitive) of the state's last step
    outputs: list
    votes: int = 1
    text: str | None = None  # programs from a battery file carry their own text
    cmap: str | None = None  # a fit up to this colour map (`3>4 1>5`), learned from the demos
    state: int = 0  # the state's key (its key in `fit_by_key` is mixed with _MAPPED for a colour-map fit)


class FitBook:
    """Recording fits (a mixin of GroupSearch)."""

    def _fits(self, level, ids, task_h, pi, C, hashes, valid, task_d=None, text=None, mapped=False) -> None:
        """Record the states whose demo outputs match the targets, all hits at once: exactly (by hash,
        confirmed cell by cell) or, with `mapped`, only up to one colour map (checked cell by cell on the
        device, then learned on the host). A state seen before gets a vote; a new one its test outputs."""
        xp, K = self.xp, self.K
        task_d = xp.asarray(task_h) if task_d is None else task_d
        ok = valid & ((hashes == self.tgt_hash[task_d]) | ~self.demo[task_d]).all(axis=1)
        if mapped:  # tasks with MAPPED_CAP such fits take no more
            ok = map_fits(C, self.tgt, task_d, self.demo, K) & ~ok & self.map_open[task_d]
        hit = xp.flatnonzero(ok)
        if not len(hit):
            return
        hit_t = task_d[hit]
        col = xp.arange(K)
        if mapped:
            confirmed = xp.ones(len(hit), bool)
        else:  # a hash match is not trusted alone
            same = C.take((hit.reshape(-1, 1) * K + col).ravel()).equals(
                self.tgt.take((hit_t.reshape(-1, 1) * K + col).ravel())).reshape(-1, K)
            confirmed = (same | ~self.demo[hit_t]).all(axis=1)
        states = (hashes[hit] * self.mult).sum(axis=1, dtype=xp.uint64) ^ self.salt[hit_t]
        pending: dict[int, list] = {}  # key -> [index in batch, state key, votes], in hit order
        for k, good, state in zip(host(xp, hit), host(xp, confirmed), host(xp, states)):
            key = int(state) ^ (_MAPPED if mapped else 0)
            if not good:
                continue
            prev = self.fit_by_key.get(key)
            if prev is not None:
                prev.votes += 1
                if (not text and prev.path is not None and prev.level == level
                        and (pi, int(ids[k])) < (prev.path[2], prev.path[1])):
                    prev.path = (level, int(ids[k]), pi)  # the canonical program, whatever the batching
            elif key in pending:
                pending[key][2] += 1
            else:
                pending[key] = [int(k), int(state), 1]
        if not pending:
            return
        ks = np.array([v[0] for v in pending.values()])
        grids = C.take(xp.asarray((ks.reshape(-1, 1) * K + np.arange(K)).ravel())).to_lists()
        for j, (key, (k, state, votes)) in enumerate(pending.items()):
            st = self.ts[int(task_h[k])]
            n = len(st.task.train)
            outs, cm = grids[j * K + n:(j + 1) * K], None
            if mapped:
                m = learn_map(grids[j * K:j * K + n], [b for _, b in st.task.train])
                if m is None:
                    continue
                outs, cm = [apply_map(g, m) for g in outs], map_text(m)
            rec = FitRecord(level, self.order, None if text else (level, int(ids[k]), pi), outs, votes,
                            text=text, cmap=cm, state=state)
            self.order += 1
            self.fit_by_key[key] = rec
            st.fits.append(rec)

    def _count_votes(self, level: int, uniq, counts) -> None:
        """Programs that reach a fitting state of `level` vote for it: its number of candidates."""
        recs = [r for r in self.fit_by_key.values() if r.level == level]
        if not recs or not len(uniq):
            return
        xp = self.xp
        want = xp.asarray(np.array([r.state for r in recs], np.uint64))
        pos = xp.minimum(xp.searchsorted(uniq, want), len(uniq) - 1)
        hits = host(xp, xp.where(uniq[pos] == want, counts[pos], 0))
        for rec, c in zip(recs, hits):
            if c:
                rec.votes = int(c)


def host(xp, a):
    """`a` as a NumPy array (a device-to-host copy on the GPU)."""
    return a if xp is np else xp.asnumpy(a)
