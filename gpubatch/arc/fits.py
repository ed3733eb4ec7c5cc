"""Fit records of a search: states whose demo outputs match the targets exactly or up to a colour map, their
votes (how many programs reach them) and the canonical program that represents each.

`FitBook` is mixed into `search.GroupSearch`: it reads the group's `targets`, `map_open`, `prims` and writes
`fit_by_key` and each task's `fits`. Which states fit is decided on the device (`statescore`); the host sees
only the hits, and recomputes grids only for fits it has not seen before.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .colourmap import apply_map, learn_map, map_text
from .learned import KINDS, LEARNERS, MAJOR, NAMES
from .statescore import score_states

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
    rule: str | None = None  # a fit up to a local rule of this feature kind (`rules`), learned from the demos
    unseen: int = 0  # a rule fit's test cells whose feature no demo showed (kept as they are): a partial fit
    matched: int = 0  # a partial fit (`partials`): the demo outputs it reproduces, not all; 0 for a fit
    normalised: bool = False  # found on the task's colour-normalised copy; outputs mapped back (`colournorm`)

    @property
    def length(self) -> int:
        """Steps of the fit's program; a learned last step (colour map, rule) counts as one."""
        return self.level + (self.learned is not None)

    @property
    def learned(self) -> str | None:
        """The learned last step's text, if the fit has one (`cmap(m=3>4)`, `rule(f=nbhd)`)."""
        if self.cmap is not None:
            return f"cmap(m={self.cmap})"
        return f"rule(f={self.rule})" if self.rule is not None else None


_RULE_ORDER = {name: i for i, name in enumerate(KINDS)}


def _canon(path: tuple[int, int, int], rule: str | None) -> tuple:
    """The order in which a rule fit's programs compete to represent it (last primitive, parent state, then the
    rules in the order one state's are fitted): the first one a search happens to meet would depend on how
    tasks and states were batched."""
    return path[2], path[1], _RULE_ORDER.get(rule or "", len(_RULE_ORDER))


class FitBook:
    """Recording fits (a mixin of GroupSearch)."""

    def _fits(self, level, ids, task_h, pi, C, text=None):
        """Record the fits among the states of one batch `C` (level 0, a battery program); their keys."""
        xp = self.xp
        sc = score_states(C, xp.asarray(task_h), self.targets, self.map_open)
        exact, key, mapped = sc.exact, sc.key, sc.mapped
        hits = hit_table(xp, exact, mapped, key)
        if len(hits[0]):
            self._record(level, ids, task_h, np.full(len(hits[0]), pi), *hits,
                         lambda _, states: C.take(self.rows(states)), text)
        return key

    def _rule_fits(self, level, ids, C, kinds=KINDS, text=None, paths=None) -> None:
        """Record the fits up to a learned rule among the states of one batch `C` (one state per entry of
        `ids`, the task of each): each rule of `kinds` (`learned.NAMES`) that fits a task adds its
        predictions, or a vote if a fit of that level and as many unseen cells predicted the same; a second
        prediction of one learner (`nbhd_major`) only where it differs from the first. `paths[k]` is state
        k's (level, parent, primitive); by default the task's input."""
        xp, K, tg = self.xp, self.K, self.targets
        by_learner: dict[str, list[str]] = {}
        for name in kinds:
            by_learner.setdefault(NAMES[name], []).append(name)
        for learner, names in by_learner.items():
            ok, unseen, preds = LEARNERS[learner](C, xp.asarray(ids), tg.grids, tg.demo)
            hits = np.flatnonzero(host(xp, ok))
            if not len(hits):
                continue
            unseen = host(xp, unseen)[hits]
            outs_of: dict[int, list] = {}  # each hit's test outputs by the learner's own rule
            for name in names:
                guess = name != learner  # a second prediction: only where some test cell was unseen
                sub = np.flatnonzero(unseen > 0) if guess else np.arange(len(hits))
                if not len(sub):
                    continue
                lists = preds[name].take(self.rows(hits[sub])).to_lists()
                for j, i in enumerate(sub):
                    k = int(hits[i])
                    t = int(ids[k])
                    outs = lists[j * K + len(self.ts[t].task.train):(j + 1) * K]
                    if guess and outs_of.get(i) == outs:
                        continue  # the same prediction: no second fit
                    outs_of.setdefault(i, outs)
                    self._rule_record(level, t, k, name, int(unseen[i]), outs, text, paths)

    def _rule_record(self, level, t, k, name, unseen, outs, text, paths) -> None:
        st = self.ts[t]
        key = (t, level, unseen, repr(outs), name.endswith(MAJOR))  # a guess never votes for a fit, nor back
        prev = self.rule_by_out.get(key)
        path = None if text else (paths[k] if paths is not None else (level, t, -1))
        if prev is not None:
            prev.votes += 1
            if path is not None and prev.path is not None and _canon(path, name) < _canon(prev.path, prev.rule):
                prev.path, prev.rule = path, name  # the canonical program and rule, whatever the batching
            return
        rec = FitRecord(level, self.order, path, outs, text=text, rule=name, unseen=unseen)
        self.rule_by_out[key] = rec
        st.fits.append(rec)
        self.order += 1

    def _record(self, level, ids, task_h, prim, state_ix, exact, keys, grids_of, text=None) -> None:
        """Record hits (host arrays: primitive, index in batch, exact or only mapped, state key), taken in
        canonical order: primitive, exact before mapped, state. A state seen before gets a vote (and the
        canonical program); a new one its test outputs, from `grids_of(primitive, states)` once per primitive."""
        K = self.K
        pending: dict[int, list] = {}  # key -> [primitive, index in batch, state key, votes, mapped]
        for j in np.lexsort((state_ix, ~exact, prim)):
            pi, k, state, ex = int(prim[j]), int(state_ix[j]), int(keys[j]), bool(exact[j])
            key = state ^ (0 if ex else _MAPPED)
            prev = self.fit_by_key.get(key)
            if prev is not None:
                prev.votes += 1
                if (not text and prev.path is not None and prev.level == level
                        and (pi, int(ids[k])) < (prev.path[2], prev.path[1])):
                    prev.path = (level, int(ids[k]), pi)  # the canonical program, whatever the batching
            elif key in pending:
                pending[key][3] += 1
            else:
                pending[key] = [pi, k, state, 1, not ex]
        grids: dict[int, list] = {}
        for pi in dict.fromkeys(v[0] for v in pending.values()):
            new = [key for key, v in pending.items() if v[0] == pi]
            lists = grids_of(pi, np.array([pending[key][1] for key in new])).to_lists()
            for j, key in enumerate(new):
                grids[key] = lists[j * K:(j + 1) * K]
        for key, (pi, k, state, votes, mapped) in pending.items():
            st = self.ts[int(task_h[k])]
            n = len(st.task.train)
            outs, cm = grids[key][n:], None
            if mapped:
                m = learn_map(grids[key][:n], [b for _, b in st.task.train])
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


def hit_table(xp, exact, mapped, keys):
    """The hits of flat device arrays, as host arrays (flat index, exact, key): one transfer."""
    idx = xp.flatnonzero(exact | mapped)
    both = host(xp, xp.stack([idx.astype(xp.uint64), exact[idx].astype(xp.uint64), keys[idx]]))
    return both[0].astype(np.int64), both[1].astype(bool), both[2]
