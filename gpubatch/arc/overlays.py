"""Overlays: an output that no single program produces, composed of several search states stacked by masks.

A *base* is a state with the demo targets' shapes and the predicted test sizes that is wrong on some demo
cells (fewest first); the task's input and an empty grid of 0s are bases too. A *layer* is such a state that
is right on every demo cell where it is active: a colour layer is active where it is not 0, an edit layer
where it differs from its task's input (most active cells first). An overlay puts layers over a
base, the first chosen on top: a cell takes the value of the first layer active there, else the base's. On
the demos every layer is right where it is active, so the overlay reproduces every demo output exactly when
the layers together cover the base's wrong cells. For each base, layers are chosen greedily (the one covering
most still-wrong cells first, at most `MAX_LAYERS`); overlays that reproduce every demo rank after every fit,
shortest description first (the programs' steps, plus one per layer), and before partial fits.

`OverlayBook` is mixed into `search.GroupSearch`. During the search, each chunk's `statescore` results feed
three per-task `pools.Pool`s (bases, colour layers, edit layers, distinct by their demo grids); the device
keeps the first few of each per task and only those travel to the host. `compose` runs once per group after
the search: the pieces left in the pools get their grids (recomputed from the search's levels), and each
task's overlays are found on the host: its pools hold a few dozen states at most.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .fits import FitRecord, host
from .grids import CELLS
from .pools import entry_limits, first_distinct, within

MAX_LAYERS = 3
KEEP = 4  # overlays kept per task
BASE, COLOUR, EDIT = 0, 1, 2


@dataclass
class Piece:
    """A state in an overlay pool: its program (path in the search, None for the input) and its K grids."""

    level: int
    path: tuple[int, int, int] | None
    data: np.ndarray | None = None  # [K, 30, 30], computed once the search is done
    h: np.ndarray | None = None
    w: np.ndarray | None = None

    def grid(self, k: int) -> np.ndarray:
        return self.data[k, :self.h[k], :self.w[k]]


class OverlayBook:
    """Overlay pools and composition (a mixin of GroupSearch: reads `ts`, `K`, `xp`, `prims`, `cfg`, `rows`,
    `levels`, `targets`, `inp`, `program_text`)."""

    def _overlay_pools(self, level: int, ids: np.ndarray, task_d, sc) -> None:
        """Offer one chunk's overlay candidates: `sc` holds [P, m] device arrays (`statescore.Scores`) over the
        chunk's states `ids` (tasks `task_d`)."""
        keep = self.cfg.overlays
        if not keep:
            return
        xp, K = self.xp, self.K
        P, m = sc.wrong.shape
        cap = K * CELLS + 1
        # a candidate ranked below a full pool's last cannot enter: dropped before anything is gathered
        n_level = len(self.levels[level - 1].task)
        limits = np.stack([entry_limits(st.overlay_pools, level, P, n_level) for st in self.ts], axis=1)
        dkey = sc.demo_key.ravel()
        rows = []
        for kind, score in ((BASE, sc.wrong), (COLOUR, sc.cover_nz), (EDIT, sc.cover_edit)):
            major = score if kind == BASE else cap - score
            ok = (score > 0) & within(xp, major, limits[kind], task_d, ids, P, n_level)
            idx = xp.flatnonzero(ok.ravel())
            if not len(idx):
                continue
            major = major.ravel()[idx].astype(xp.int64)
            prim, k = idx // m, idx % m
            task = task_d[k].astype(xp.int64)
            first = first_distinct(xp, ((task * (cap + 1) + major) * P + prim) * m + k, dkey[idx], task, keep)
            rows.append(xp.stack([xp.full(len(first), kind, xp.int64), prim[first], k[first], major[first],
                                  dkey[idx][first].astype(xp.int64)]))
        if rows:
            lv_task = self.levels[level - 1].task
            for kind, pi, k, major, key in host(xp, xp.concatenate(rows, axis=1)).T.tolist():
                st, parent = self.ts[int(lv_task[ids[k]])], int(ids[k])
                path = (level, parent, pi)
                st.overlay_pools[kind].offer((major, level, pi, parent), key, lambda path=path: Piece(level, path))

    def _fill_pieces(self) -> None:
        """Compute the grids of every piece left in the pools: per level, the parents of all its pieces
        recomputed once from the search's levels, then one primitive call per primitive."""
        by_level: dict[int, list[Piece]] = {}
        for st in self.ts:
            for pool in st.overlay_pools:
                for _, p in pool:
                    by_level.setdefault(p.level, []).append(p)
        K = self.K
        for level, pieces in sorted(by_level.items()):
            parents = np.unique(np.array([p.path[1] for p in pieces]))
            grids = self.materialize(level - 1, parents)
            by_prim: dict[int, list[Piece]] = {}
            for p in pieces:
                by_prim.setdefault(p.path[2], []).append(p)
            for pi, group in sorted(by_prim.items()):
                at = np.searchsorted(parents, np.array([p.path[1] for p in group]))
                out = self.prims[pi](grids.take(self.rows(at))).to(np)
                for j, p in enumerate(group):
                    sl = slice(j * K, (j + 1) * K)
                    p.data, p.h, p.w = out.data[sl], out.h[sl], out.w[sl]

    def compose(self) -> None:
        """Each task's overlays that reproduce every demo output, best first, into its `overlays`."""
        if not self.cfg.overlays:
            return
        self._fill_pieces()
        K = self.K
        tgt, inp = self.targets.grids.to(np), self.inp.to(np)
        for t, st in enumerate(self.ts):
            sl = slice(t * K, (t + 1) * K)
            found = compose_task(st, Piece(0, None, inp.data[sl], inp.h[sl], inp.w[sl]),
                                 [tgt.data[t * K + k, :tgt.h[t * K + k], :tgt.w[t * K + k]]
                                  for k in range(len(st.task.train))])
            st.overlays = [self._overlay_record(parts) for parts in found]

    def _overlay_record(self, found) -> FitRecord:
        """A fit record for one overlay: its test outputs, text and description length."""
        length, base, layers, outputs = found
        text = "overlay(" + "; ".join([self._piece_text(base)] + [
            ("colour " if kind == COLOUR else "edit ") + self._piece_text(p) for kind, p in layers]) + ")"
        return FitRecord(length, 0, None, outputs, text=text)

    def _piece_text(self, p: Piece | None) -> str:
        if p is None:
            return "zeros"
        return "input" if p.path is None else self.program_text(p.path)


def compose_task(st, inp: Piece, targets: list[np.ndarray]) -> list[tuple]:
    """The overlays of one task that reproduce every demo output: (length, base, layers, test outputs),
    shortest first, distinct test outputs, at most KEEP. `st` holds the pools and the predicted sizes."""
    n, K = len(targets), len(inp.h)
    bases: list[Piece | None] = [p for _, p in st.overlay_pools[BASE]]
    layers = [(COLOUR, p) for _, p in st.overlay_pools[COLOUR]] + [(EDIT, p) for _, p in st.overlay_pools[EDIT]]
    if _fits_shapes(inp, targets, st.sizes):
        bases.append(inp)
        if all(((g != 0) <= (g == y)).all() for g, y in zip((inp.grid(k) for k in range(n)), targets)):
            layers.append((COLOUR, inp))
    bases.append(None)  # an empty grid of 0s of the targets' shapes
    if not layers:
        return []
    want = np.concatenate([y.ravel() for y in targets])

    def cells(p: Piece) -> np.ndarray:
        return np.concatenate([p.grid(k).ravel() for k in range(n)])

    act = np.stack([_active(kind, cells(p), cells(inp)) for kind, p in layers])
    tests = [tuple(p.grid(k).shape for k in range(n, K)) for _, p in layers]
    found = []
    for b in bases:
        shape = tuple(b.grid(k).shape for k in range(n, K)) if b is not None else (
            tuple(st.sizes) if st.sizes is not None else None)
        ok = np.array([shape is None or s == shape for s in tests])
        rem = (cells(b) if b is not None else np.zeros_like(want)) != want
        chosen: list[int] = []
        while rem.any() and len(chosen) < MAX_LAYERS:
            gain = np.where(ok, (act & rem).sum(axis=1), 0)
            best = int(np.argmax(gain))
            if not gain[best]:
                break
            chosen.append(best)
            rem &= ~act[best]
            ok &= np.array([s == tests[best] for s in tests])  # every layer's test outputs of one shape
        if rem.any() or not chosen:
            continue
        parts = [layers[i] for i in chosen]
        length = (b.level if b is not None else 0) + sum(p.level + 1 for _, p in parts)
        found.append((length, len(found), b, parts, _stack(b, parts, inp, n, K)))
    found.sort(key=lambda f: f[:2])
    out, seen = [], []
    for length, _, b, parts, outputs in found:
        if outputs not in seen:
            seen.append(outputs)
            out.append((length, b, parts, outputs))
    return out[:KEEP]


def _active(kind: int, cells: np.ndarray, inp: np.ndarray) -> np.ndarray:
    """Where a layer's cells are active: not 0 (a colour layer), unlike the input's (an edit layer)."""
    return cells != 0 if kind == COLOUR else cells != inp


def _fits_shapes(p: Piece, targets: list[np.ndarray], sizes) -> bool:
    """Whether `p`'s demo grids have the targets' shapes and its test grids the predicted sizes."""
    n = len(targets)
    if any(p.grid(k).shape != y.shape for k, y in enumerate(targets)):
        return False
    return sizes is None or all(p.grid(n + j).shape == tuple(s) for j, s in enumerate(sizes))


def _stack(base: Piece | None, parts: list, inp: Piece, n: int, K: int) -> list:
    """The overlay's test outputs (lists of rows): the layers over the base, the first chosen on top."""
    outs = []
    for k in range(n, K):
        top = parts[0][1].grid(k)
        g = base.grid(k).copy() if base is not None else np.zeros_like(top)
        for kind, p in reversed(parts):
            x = p.grid(k)
            mask = _active(kind, x, inp.grid(k))
            g[mask] = x[mask]
        outs.append(g.tolist())
    return outs
