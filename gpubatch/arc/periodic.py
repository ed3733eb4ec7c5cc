"""Periodic pattern completion: cells of an 'unknown' colour take the value the grid's repeating pattern has
there.

A grid's vertical period is the smallest p such that every two known cells p rows apart in a column agree
(p = h: none); its horizontal period likewise along rows. With at least one of them, the known cells of each
class (i mod py, j mod px) must all agree (else the grid is left alone); unknown cells of a class with a known
cell take its colour. Only grids whose unknown cells are at most half of them are completed: with more, a
'period' found among a few scattered cells means nothing. On the GPU one thread block completes one grid in
shared memory; the NumPy version runs each candidate period over the whole batch and is the reference the
kernel is tested against (tests/arc/test_dsl_gpu.py).

Diagonal completion (`complete_diagonal`) is the other way round: a few cells along diagonals set the colour
of every cell, so it needs each class to hold known cells of exactly one colour, and runs as array operations
on both devices.
"""
from __future__ import annotations

import numpy as np

from .grids import CELLS, MAX, PAD, GridBatch
from .kernels import _compiled

_I, _J = np.divmod(np.arange(CELLS), MAX)
_MAX_DIAGONAL = 10  # the longest diagonal period tried


def complete_periodic(g: GridBatch, c: int) -> GridBatch:
    """Every grid of the batch completed (see the module docstring); PAD outside each grid."""
    xp = g.xp
    if xp is not np:
        return _periodic_cuda(g, c)
    n = len(g)
    d = g.data
    unknown = (d == c).reshape(n, CELLS).sum(axis=1)
    out = d.copy()
    sel = np.flatnonzero((g.h > 0) & (unknown > 0) & (2 * unknown <= g.h * g.w))
    if len(sel):
        out[sel] = _complete(d[sel], g.h[sel], g.w[sel], c)
    return GridBatch(out, g.h, g.w)


def complete_diagonal(g: GridBatch, anti: bool) -> GridBatch:
    """Every cell takes the colour of its diagonal class, (i + j) mod p (`anti`) or (i - j) mod p, for the
    smallest p in 2..10 whose classes each hold non-0 cells of exactly one colour (`05269061`); invalid without
    one. One matmul counts every colour in every class of every p for the whole batch."""
    xp = g.xp
    n = len(g)
    d = g.data.reshape(n, CELLS)
    i, j = xp.asarray(_I), xp.asarray(_J)
    diag = i + j if anti else i - j + 10 * MAX  # non-negative before the modulo
    periods = range(2, _MAX_DIAGONAL + 1)
    offset = np.cumsum([0] + list(periods))
    cls = xp.concatenate([(diag % p + int(o)).reshape(CELLS, 1) == xp.arange(int(o), int(o) + p)
                          for p, o in zip(periods, offset)], axis=1).astype(xp.float32)  # [900, classes]
    colours = (d[:, :, None] == xp.arange(1, PAD, dtype=xp.uint8)).astype(xp.float32)  # [B, 900, 9]
    count = xp.matmul(colours.transpose(0, 2, 1), cls)  # [B, 9, classes]
    present = count > 0
    one = present.sum(axis=1) == 1  # [B, classes]: exactly one colour
    colour = (present.argmax(axis=1) + 1).astype(xp.uint8)
    ok = xp.stack([one[:, o:o + p].all(axis=1) for p, o in zip(periods, offset)], axis=1)  # [B, periods]
    pick = ok.argmax(axis=1)  # the smallest good period's index
    some = ok.any(axis=1) & (g.h > 0)
    p = xp.asarray(np.array(list(periods)))[pick].reshape(n, 1)
    at = xp.asarray(offset[:-1])[pick].reshape(n, 1) + diag.reshape(1, CELLS) % p
    inside = (i.reshape(1, CELLS) < g.h.reshape(n, 1)) & (j.reshape(1, CELLS) < g.w.reshape(n, 1))
    out = xp.where(inside, xp.take_along_axis(colour, at, axis=1), PAD).astype(xp.uint8)
    return GridBatch(out.reshape(n, MAX, MAX), xp.where(some, g.h, 0).astype(xp.int32), g.w)


def _first_period(s, known, size):
    """Per grid: the smallest p such that known cells p apart along axis 1 agree; `size` (h) when none."""
    m = len(s)
    first = np.full(m, MAX, np.int64)
    for p in range(1, MAX):
        todo = np.flatnonzero(first == MAX)
        if not len(todo):
            break
        a, b = s[todo], known[todo]
        bad = (b[:, :-p] & b[:, p:] & (a[:, :-p] != a[:, p:])).any(axis=(1, 2))
        first[todo[~bad]] = p
    return np.minimum(first, size)


def _complete(d, h, w, c):
    m = len(d)
    known = (d != c) & (d < PAD)
    py = _first_period(d, known, h)
    px = _first_period(d.transpose(0, 2, 1), known.transpose(0, 2, 1), w)
    flat, kn = d.reshape(m, CELLS), known.reshape(m, CELLS)
    cls = (_I % py.reshape(m, 1)) * px.reshape(m, 1) + _J % px.reshape(m, 1)
    glob = np.arange(m).reshape(m, 1) * CELLS + cls
    rep = np.full(m * CELLS, -1, np.int16)
    rep[glob[kn]] = flat[kn]
    rep_cell = rep[glob]
    consistent = ~(kn & (rep_cell != flat)).any(axis=1)
    periodic = ((py < h) | (px < w)) & consistent
    fill = (flat == c) & (rep_cell >= 0) & periodic.reshape(m, 1)
    return np.where(fill, rep_cell, flat).astype(np.uint8).reshape(m, MAX, MAX)


_SRC = r"""
extern "C" __global__ void periodic_fill(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, int unk, unsigned char* __restrict__ dst, int* __restrict__ hout,
    int* __restrict__ wout) {
  __shared__ unsigned char g[900];
  __shared__ short rep[900];
  __shared__ int count;
  const long long b = blockIdx.x;
  int h = hin[b], w = win[b];
  if (!(h >= 1 && h <= 30 && w >= 1 && w <= 30)) { h = 0; w = 0; }
  if (threadIdx.x == 0) { hout[b] = h; wout[b] = w; count = 0; }
  __syncthreads();
  int mine = 0;
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    int i = c / 30, j = c - i * 30;
    unsigned char v = (i < h && j < w) ? src[b * 900 + c] : 10;
    g[c] = v;
    mine += v == unk;
  }
  if (mine) atomicAdd(&count, mine);
  __syncthreads();
  int py = h, px = w;
  const bool work = h > 0 && count > 0 && 2 * count <= h * w;
  if (work) {
    for (int p = 1; p < h; ++p) {  // the same p for every thread: the loop and its exit are uniform
      int bad = 0;
      for (int c = threadIdx.x; c < (h - p) * 30; c += blockDim.x) {
        int i = c / 30, j = c - i * 30;
        unsigned char x = g[c], y = g[c + p * 30];
        bad |= j < w && x != unk && y != unk && x != y;
      }
      if (!__syncthreads_or(bad)) { py = p; break; }
    }
    for (int p = 1; p < w; ++p) {
      int bad = 0;
      for (int c = threadIdx.x; c < 900; c += blockDim.x) {
        int i = c / 30, j = c - i * 30;
        if (i < h && j + p < w) {
          unsigned char x = g[c], y = g[c + p];
          bad |= x != unk && y != unk && x != y;
        }
      }
      if (!__syncthreads_or(bad)) { px = p; break; }
    }
  }
  bool fill = work && (py < h || px < w);
  if (fill) {
    for (int c = threadIdx.x; c < 900; c += blockDim.x) rep[c] = -1;
    __syncthreads();
    for (int c = threadIdx.x; c < 900; c += blockDim.x) {
      int i = c / 30, j = c - i * 30;
      if (i < h && j < w && g[c] != unk) rep[(i % py) * px + j % px] = g[c];
    }
    __syncthreads();
    int bad = 0;
    for (int c = threadIdx.x; c < 900; c += blockDim.x) {
      int i = c / 30, j = c - i * 30;
      if (i < h && j < w && g[c] != unk) bad |= rep[(i % py) * px + j % px] != g[c];
    }
    fill = !__syncthreads_or(bad);
  }
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    int i = c / 30, j = c - i * 30;
    unsigned char v = g[c];
    if (fill && v == unk) {
      short r = rep[(i % py) * px + j % px];
      if (r >= 0) v = (unsigned char)r;
    }
    dst[b * 900 + c] = v;
  }
}
"""


def _periodic_cuda(g: GridBatch, c: int) -> GridBatch:
    import cupy

    n = len(g)
    out = GridBatch(cupy.empty((n, MAX, MAX), cupy.uint8), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int32))
    if n:
        _compiled("periodic_fill", _SRC)((n,), (128,), (
            cupy.ascontiguousarray(g.data), cupy.ascontiguousarray(g.h, dtype=cupy.int32),
            cupy.ascontiguousarray(g.w, dtype=cupy.int32), np.int32(c), out.data, out.h, out.w))
    return out
