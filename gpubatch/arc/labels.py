"""Connected components of every grid in a batch at once.

A component's label is the flat index (row * 30 + col) of its first cell in row-major order, so labels are
deterministic and equal on both devices; cells outside any component get -1. On the GPU one thread block
labels one grid in shared memory (min-label propagation with pointer jumping until nothing changes); the
NumPy version runs the same propagation over the whole batch as array operations.
"""
from __future__ import annotations

import numpy as np

from .grids import CELLS, MAX, GridBatch
from .kernels import _compiled

NONE = CELLS  # larger than every cell index

_LABEL_SRC = r"""
extern "C" __global__ void label_grids(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, const int* __restrict__ excl, int conn8, int univalued,
    short* __restrict__ out) {
  __shared__ unsigned char col[900];
  __shared__ short lab[900];
  const int b = blockIdx.x;
  const int h = hin[b], w = win[b], ex = excl[b];
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    unsigned char v = src[(long long)b * 900 + c];
    int i = c / 30, j = c - i * 30;
    bool act = i < h && j < w && (int)v != ex;
    col[c] = act ? v : 255;
    lab[c] = act ? (short)c : (short)900;
  }
  __syncthreads();
  const int di[8] = {-1, 1, 0, 0, -1, -1, 1, 1};
  const int dj[8] = {0, 0, -1, 1, -1, 1, -1, 1};
  const int nn = conn8 ? 8 : 4;
  for (int it = 0; it < 2000; ++it) {
    int changed = 0;
    for (int c = threadIdx.x; c < 900; c += blockDim.x) {
      if (col[c] == 255) continue;
      int i = c / 30, j = c - i * 30;
      short m = lab[c];
      for (int k = 0; k < nn; ++k) {
        int ni = i + di[k], nj = j + dj[k];
        if (ni < 0 || nj < 0 || ni >= 30 || nj >= 30) continue;
        int nc = ni * 30 + nj;
        unsigned char nv = col[nc];
        if (nv == 255 || (univalued && nv != col[c])) continue;
        short l = lab[nc];
        if (l < m) m = l;
      }
      short r = lab[m];
      while (r < m) { m = r; r = lab[m]; }
      if (m < lab[c]) { lab[c] = m; changed = 1; }
    }
    if (!__syncthreads_or(changed)) break;
  }
  for (int c = threadIdx.x; c < 900; c += blockDim.x)
    out[(long long)b * 900 + c] = lab[c] == 900 ? (short)-1 : lab[c];
}
"""


def _neighbour_tables(conn8: bool):
    """For each offset: the flat neighbour index of every cell and whether it lies inside 30x30."""
    offs = [(-1, 0), (1, 0), (0, -1), (0, 1)] + ([(-1, -1), (-1, 1), (1, -1), (1, 1)] if conn8 else [])
    ii, jj = np.divmod(np.arange(CELLS), MAX)
    tables = []
    for di, dj in offs:
        ni, nj = ii + di, jj + dj
        inside = (ni >= 0) & (ni < MAX) & (nj >= 0) & (nj < MAX)
        tables.append((np.where(inside, ni * MAX + nj, 0), inside))
    return tables


def label(g: GridBatch, exclude=None, conn8: bool = False, univalued: bool = True, use_kernel: bool = True):
    """Component label per cell, int16 `[B, 900]`; `exclude[B]` is a colour left out per grid (-1: none)."""
    xp = g.xp
    n = len(g)
    excl = xp.full(n, -1, xp.int32) if exclude is None else xp.asarray(exclude, dtype=xp.int32)
    if xp is not np and use_kernel:
        out = xp.empty((n, CELLS), xp.int16)
        if n:
            _compiled("label_grids", _LABEL_SRC)((n,), (256,), (
                xp.ascontiguousarray(g.data), xp.ascontiguousarray(g.h, dtype=xp.int32),
                xp.ascontiguousarray(g.w, dtype=xp.int32), excl, np.int32(conn8), np.int32(univalued), out))
        return out
    if xp is np and use_kernel:
        try:
            return label_scipy(g, excl, conn8, univalued)
        except ImportError:
            pass
    return label_xp(g, excl, conn8, univalued)


def label_scipy(g: GridBatch, excl, conn8: bool, univalued: bool):
    """CPU fast path: the grids laid in one canvas, separated by empty rows, labelled by SciPy in C.

    Single-colour components are labelled one colour at a time. Labels are then renamed to the index of
    each component's first cell, so the result equals the GPU kernel's.
    """
    from scipy import ndimage

    n = len(g)
    cells = np.arange(CELLS)
    active = ((cells // MAX < g.h.reshape(n, 1)) & (cells % MAX < g.w.reshape(n, 1))
              & (g.data.reshape(n, CELLS) != excl.reshape(n, 1)))
    structure = np.ones((3, 3), bool) if conn8 else None
    out = np.full(n * CELLS, -1, np.int16)
    colours = range(10) if univalued else (None,)
    d = g.data.reshape(n, CELLS)
    for c in colours:
        mask = active if c is None else active & (d == c)
        sel = np.flatnonzero(mask.any(axis=1))
        if not len(sel):
            continue
        canvas = np.zeros((len(sel), MAX + 1, MAX), bool)  # a blank row under each grid separates them
        canvas[:, :MAX, :] = mask[sel].reshape(len(sel), MAX, MAX)
        lc, count = ndimage.label(canvas.reshape(len(sel) * (MAX + 1), MAX), structure=structure)
        # the mask's cells come in the same row order here and in the canvas: their labels line up
        idx = np.flatnonzero(mask)
        v = lc[lc > 0]
        first = np.empty(count + 1, np.int64)
        first[v[::-1]] = idx[::-1]  # last write wins: each label's first cell
        out[idx] = first[v] % CELLS
    return out.reshape(n, CELLS)


def label_xp(g: GridBatch, excl, conn8: bool, univalued: bool):
    """Array-module labelling: every grid's propagation step as one set of array operations."""
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS).astype(xp.int32)
    cells = xp.arange(CELLS, dtype=xp.int32)
    ii, jj = cells // MAX, cells % MAX
    active = (ii < g.h.reshape(n, 1)) & (jj < g.w.reshape(n, 1)) & (d != excl.reshape(n, 1))
    edges = []
    for idx, inside in _neighbour_tables(conn8):
        idx, inside = xp.asarray(idx), xp.asarray(inside)
        e = active & inside & active[:, idx]
        if univalued:
            e &= d == d[:, idx]
        edges.append((idx, e))
    lab = xp.where(active, cells, NONE).astype(xp.int32)
    while True:
        m = lab
        for idx, e in edges:
            m = xp.minimum(m, xp.where(e, lab[:, idx], NONE))
        ext = xp.concatenate([m, xp.full((n, 1), NONE, xp.int32)], axis=1)
        for _ in range(3):  # pointer jumping: a label's label is a smaller-or-equal label
            m = xp.take_along_axis(ext, m, axis=1)
            ext[:, :CELLS] = m
        if bool((m == lab).all()):
            break
        lab = m
    return xp.where(lab == NONE, -1, lab).astype(xp.int16)
