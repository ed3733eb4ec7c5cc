"""Fits up to a colour map: a search state whose demo outputs become the targets under one one-to-one
colour map shared by all demo pairs (`0d3d703e`: 3->4, 1->5, 2->6). The map is learned from the demos and
applied to the test outputs; colours the demos never show keep their colour. Maps that merge colours are
not accepted: with them any state of the right shape would "fit" a one-colour target.

`map_fits` checks every state of a batch at once: on the GPU one warp per state ORs, for each colour of the
state's demo outputs, the bit of the target colour in the same cell, then tests that each colour saw at most
one target colour and no two colours the same one; the NumPy version counts (colour, target colour) pairs
with one bincount.
"""
from __future__ import annotations

import numpy as np

from .grids import CELLS, NCOL, PAD, GridBatch
from .kernels import _blocks, _compiled

_SRC = r"""
extern "C" __global__ void colour_map_fits(const unsigned char* __restrict__ C, const int* __restrict__ ch,
    const int* __restrict__ cw, const unsigned char* __restrict__ T, const int* __restrict__ th,
    const int* __restrict__ tw, const long long* __restrict__ task, const bool* __restrict__ demo, int K,
    bool* __restrict__ out, long long n) {
  long long s = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (s >= n) return;
  long long t = task[s];
  unsigned int m[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  bool ok = true;
  for (int k = 0; k < K && ok; ++k) {
    if (!demo[t * K + k]) continue;
    long long cr = s * K + k, tr = t * K + k;
    if (ch[cr] <= 0 || ch[cr] != th[tr] || cw[cr] != tw[tr]) { ok = false; break; }
    const unsigned char* a = C + cr * 900;
    const unsigned char* b = T + tr * 900;
    for (int c = lane; c < 900; c += 32) {
      unsigned char x = a[c];
      #pragma unroll
      for (int col = 0; col < 10; ++col) m[col] |= (x == col) ? (1u << b[c]) : 0u;
    }
  }
  #pragma unroll
  for (int col = 0; col < 10; ++col)
    for (int off = 16; off > 0; off >>= 1) m[col] |= __shfl_down_sync(0xffffffffu, m[col], off);
  if (lane == 0) {
    unsigned int used = 0;
    #pragma unroll
    for (int col = 0; col < 10; ++col) {
      ok &= __popc(m[col]) <= 1 && !(used & m[col]);  // a function, and one-to-one
      used |= m[col];
    }
    out[s] = ok;
  }
}
"""


def map_fits(C: GridBatch, tgt: GridBatch, task, demo, K: int):
    """bool [n]: whether state s (rows s*K .. s*K+K-1 of C) maps onto its task's demo targets (rows of
    `tgt` from task[s]*K, `demo[task, K]` marking the demo rows) under one colour function."""
    xp = C.xp
    n = len(C) // K
    if xp is not np:
        out = xp.zeros(n, bool)
        if n:
            _compiled("colour_map_fits", _SRC)(
                (_blocks(n * 32, 256),), (256,),
                (xp.ascontiguousarray(C.data), xp.ascontiguousarray(C.h, dtype=xp.int32),
                 xp.ascontiguousarray(C.w, dtype=xp.int32), xp.ascontiguousarray(tgt.data),
                 xp.ascontiguousarray(tgt.h, dtype=xp.int32), xp.ascontiguousarray(tgt.w, dtype=xp.int32),
                 xp.ascontiguousarray(task, dtype=xp.int64), xp.ascontiguousarray(demo, dtype=bool),
                 np.int32(K), out, np.int64(n)))
        return out
    task = np.asarray(task, np.int64)
    trows = (task.reshape(n, 1) * K + np.arange(K)).ravel()
    dm = np.asarray(demo)[task]  # [n, K]
    ch, cw = C.h.reshape(n, K), C.w.reshape(n, K)
    shape_ok = (((ch > 0) & (ch == tgt.h[trows].reshape(n, K)) & (cw == tgt.w[trows].reshape(n, K))) | ~dm).all(1)
    out = np.zeros(n, bool)
    sel = np.flatnonzero(shape_ok)  # only states of the right shapes need their cells compared
    if len(sel):
        rows = trows.reshape(n, K)[sel].ravel()
        out[sel] = _one_to_one(C.data.reshape(n, K, CELLS)[sel], tgt.data[rows].reshape(len(sel), K, CELLS), dm[sel])
    return out


def _one_to_one(a, b, dm):
    """NumPy: whether each state's demo cells `a` [m, K, 900] map one-to-one onto `b`. Each demo pair alone
    is a necessary condition that rules most states out for a K-th of the work, so those filters run first."""
    m, K = dm.shape
    alive = np.arange(m)
    for k in range(K):
        rows = alive[dm[alive, k]]
        if len(rows):
            bad = rows[~_pairs_one_to_one(a[rows, k:k + 1], b[rows, k:k + 1], np.ones((len(rows), 1), bool))]
            alive = alive[~np.isin(alive, bad)]
    out = np.zeros(m, bool)
    if len(alive):
        out[alive] = _pairs_one_to_one(a[alive], b[alive], dm[alive])
    return out


def _pairs_one_to_one(a, b, dm):
    n, K = dm.shape
    pairs = a.astype(np.int64) * (PAD + 1) + b
    spare = (PAD + 1) ** 2  # a bin for the cells of rows that are not demos
    pairs = np.where(dm.reshape(n, K, 1), pairs, spare) + np.arange(n).reshape(n, 1, 1) * (spare + 1)
    seen = np.bincount(pairs.ravel(), minlength=n * (spare + 1)).reshape(n, spare + 1)[:, :spare] > 0
    seen = seen.reshape(n, PAD + 1, PAD + 1)[:, :NCOL]
    return (seen.sum(axis=2) <= 1).all(axis=1) & (seen.sum(axis=1) <= 1).all(axis=1)


def learn_map(outputs: list, targets: list) -> dict[int, int] | None:
    """The one-to-one colour map taking every output grid onto its target (lists of rows), or None."""
    m: dict[int, int] = {}
    for out, want in zip(outputs, targets):
        if out is None or len(out) != len(want) or len(out[0]) != len(want[0]):
            return None
        for ro, rw in zip(out, want):
            for a, b in zip(ro, rw):
                if m.setdefault(a, b) != b:
                    return None
    return m if len(set(m.values())) == len(m) else None


def map_text(m: dict[int, int]) -> str:
    """`3>4 1>5` (colours that keep their colour are left out)."""
    return " ".join(f"{a}>{b}" for a, b in sorted(m.items()) if a != b)


def apply_map(grid, m: dict[int, int]):
    return None if grid is None else [[m.get(v, v) for v in row] for row in grid]


__all__ = ["apply_map", "learn_map", "map_fits", "map_text"]
