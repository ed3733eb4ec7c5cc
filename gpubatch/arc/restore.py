"""Symmetry restoration: cells of a 'mask' colour take the colour the grid's mirror symmetries give them.

Many ARC tasks hide part of a symmetric picture under one colour and ask for the picture (or just the hidden
patch) back. The symmetries tried are fixed, in this order: top-bottom mirrors, left-right mirrors,
transposes across a diagonal and across an anti-diagonal, each with its axis up to OFFSET cells either side
of the grid's centre, then half turns about points up to one cell from the centre (the pictures of ARC
tasks are often cut off the grid unevenly, so the axis need not be the grid's own). A symmetry holds when
at least half of the known (non-mask) cells have a known image and none of them disagrees with it. Then, for
ROUNDS rounds, each holding symmetry in order gives every mask cell whose image is known that image's
colour (each step reads the grid as it was before the step), so images of images count too. A grid is
restored only if its mask cells are at most half of it and none is left; otherwise the result is invalid.

Meant for a task's inputs (the search applies it at depth 1 only). NumPy: whole-batch array code with one
pass over the 37 symmetries, on the grids a colour applies to; it is the reference of the CUDA kernel (one
thread block per grid, the grid in shared memory, one launch per call), and tests/arc/test_dsl_gpu.py holds
the kernel to it on every grid of the corpus.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .grids import CELLS, MAX, PAD, GridBatch
from .kernels import _compiled, memo

OFFSET = 3
ROUNDS = 3


def symmetries() -> list[tuple[str, int, int]]:
    """The symmetries in the order they are tried: (kind, offset, second offset for half turns)."""
    out = [(kind, o, 0) for kind in ("h", "v", "t", "a") for o in range(-OFFSET, OFFSET + 1)]
    return out + [("r", o, p) for o in (-1, 0, 1) for p in (-1, 0, 1)]


def image(kind: str, o: int, p: int, i, j, h, w):
    """Row and column of the image of cell (i, j) of an h x w grid (works on ints and arrays alike)."""
    if kind == "h":
        return h - 1 + o - i, j
    if kind == "v":
        return i, w - 1 + o - j
    if kind == "t":  # across the line i - j = d through the centre
        d = (h - w) // 2 + o
        return j + d, i - d
    if kind == "a":  # across the line i + j = s through the centre
        s = (h + w - 2) // 2 + o
        return s - j, s - i
    return h - 1 + o - i, w - 1 + p - j


def restore(g: GridBatch, c: int) -> tuple:
    """(restored data [B, 900], ok [B]): see the module docstring; memoized on the batch per colour."""
    return memo(g, ("restore", c), lambda: _restore(g, c))


def _restore(g: GridBatch, c: int) -> tuple:
    if g.xp is not np:
        return _restore_cuda(g, c)
    n = len(g)
    d = g.data.reshape(n, CELLS)
    hidden = (d == c).sum(axis=1)
    active = (g.h > 0) & (hidden > 0) & (2 * hidden <= g.h * g.w)
    out, ok = d.copy(), np.zeros(n, bool)
    sel = np.flatnonzero(active)  # only the grids it can apply to
    if len(sel):
        out[sel], ok[sel] = _fill(d[sel], g.h[sel], g.w[sel], c)
    return out, ok


def _fill(d, h, w, c: int) -> tuple:
    """Restore NumPy grids [m, 900] that each have hidden cells, at most half: (data, ok [m])."""
    m = len(d)
    cells = np.arange(CELLS, dtype=np.int32)
    i, j = cells // MAX, cells % MAX
    hh, ww = h.astype(np.int32).reshape(m, 1), w.astype(np.int32).reshape(m, 1)
    known = (d < PAD) & (d != c)
    n_known = known.sum(axis=1)
    maps = []
    for kind, o, p in symmetries():
        si, sj = image(kind, o, p, i, j, hh, ww)
        inside = (si >= 0) & (si < hh) & (sj >= 0) & (sj < ww) & (d < PAD)
        src = np.where(inside, si * MAX + sj, 0)
        img = np.take_along_axis(d, src, axis=1)
        both = inside & known & (img != c)
        holds = ~(both & (img != d)).any(axis=1) & (2 * both.sum(axis=1) >= n_known)
        rows = np.flatnonzero(holds)
        if len(rows):  # each symmetry fills only the grids where it holds
            maps.append((rows, src[rows], inside[rows]))
    out = d.copy()
    for _ in range(ROUNDS):
        for rows, src, usable in maps:
            sub = out[rows]
            img = np.take_along_axis(sub, src, axis=1)
            out[rows] = np.where((sub == c) & usable & (img != c), img, sub)
    return out.astype(np.uint8), ~(out == c).any(axis=1)


_KIND_CODE = {"h": 0, "v": 1, "t": 2, "a": 3, "r": 4}


@lru_cache(maxsize=1)
def _source() -> str:
    """The kernel's CUDA source, built once (the symmetry table written into it)."""
    table = ", ".join(f"{{{_KIND_CODE[k]}, {o}, {p}}}" for k, o, p in symmetries())
    return r"""
__device__ __forceinline__ int fdiv2(int x) { return x >= 0 ? x / 2 : -((1 - x) / 2); }

__device__ __forceinline__ void image(int kind, int o, int p, int i, int j, int h, int w, int &a, int &b) {
  if (kind == 0) { a = h - 1 + o - i; b = j; }
  else if (kind == 1) { a = i; b = w - 1 + o - j; }
  else if (kind == 2) { int d = fdiv2(h - w) + o; a = j + d; b = i - d; }
  else if (kind == 3) { int s = fdiv2(h + w - 2) + o; a = s - j; b = s - i; }
  else { a = h - 1 + o - i; b = w - 1 + p - j; }
}

extern "C" __global__ void restore_fill(const unsigned char* src, const int* hs, const int* ws, int c,
                                        unsigned char* dst, bool* ok) {
  const int SYM[NSYM][3] = {TABLE};
  __shared__ unsigned char g[900], out[900];
  __shared__ bool holds[NSYM];
  __shared__ int hidden, known, total[NSYM];
  const int b = blockIdx.x, h = hs[b], w = ws[b];
  if (threadIdx.x == 0) { hidden = 0; known = 0; }
  for (int s = threadIdx.x; s < NSYM; s += blockDim.x) total[s] = 0;
  __syncthreads();
  int mh = 0, mk = 0;
  for (int k = threadIdx.x; k < 900; k += blockDim.x) {
    unsigned char v = src[b * 900 + k];
    g[k] = v; out[k] = v;
    mh += v == c; mk += v < 10 && v != c;
  }
  if (mh) atomicAdd(&hidden, mh);
  if (mk) atomicAdd(&known, mk);
  __syncthreads();
  const bool active = h > 0 && hidden > 0 && 2 * hidden <= h * w;
  if (active) {
    for (int s = 0; s < NSYM; ++s) {  // uniform loop: every thread takes part in each reduction
      int bad = 0, agree = 0;
      for (int k = threadIdx.x; k < 900; k += blockDim.x) {
        int i = k / 30, j = k - i * 30, a, bb;
        image(SYM[s][0], SYM[s][1], SYM[s][2], i, j, h, w, a, bb);
        unsigned char v = g[k];
        if (v < 10 && v != c && a >= 0 && a < h && bb >= 0 && bb < w) {
          unsigned char x = g[a * 30 + bb];
          if (x != c) { agree += 1; bad |= x != v; }
        }
      }
      if (agree) atomicAdd(&total[s], agree);
      bad = __syncthreads_or(bad);  // also orders the adds before the read below
      if (threadIdx.x == 0) holds[s] = !bad && 2 * total[s] >= known;
    }
    __syncthreads();  // holds[] written by thread 0
    for (int round = 0; round < ROUNDS; ++round) {
      for (int s = 0; s < NSYM; ++s) {
        if (!holds[s]) continue;  // shared value: uniform
        unsigned char nv[8];
        int n = 0;
        for (int k = threadIdx.x; k < 900; k += blockDim.x, ++n) {
          int i = k / 30, j = k - i * 30, a, bb;
          image(SYM[s][0], SYM[s][1], SYM[s][2], i, j, h, w, a, bb);
          unsigned char v = out[k];
          nv[n] = v;
          if (v == c && g[k] < 10 && a >= 0 && a < h && bb >= 0 && bb < w) {
            unsigned char x = out[a * 30 + bb];
            if (x != c) nv[n] = x;
          }
        }
        __syncthreads();  // every step reads the grid as it was before it
        n = 0;
        for (int k = threadIdx.x; k < 900; k += blockDim.x, ++n) out[k] = nv[n];
        __syncthreads();
      }
    }
  }
  int left = 0;
  for (int k = threadIdx.x; k < 900; k += blockDim.x) {
    left |= out[k] == c;
    dst[b * 900 + k] = out[k];
  }
  left = __syncthreads_or(left);
  if (threadIdx.x == 0) ok[b] = active && !left;
}
""".replace("NSYM", str(len(symmetries()))).replace("TABLE", table).replace("ROUNDS", str(ROUNDS))


def _restore_cuda(g: GridBatch, c: int) -> tuple:
    """One thread block per grid (128 threads, at most 8 cells each), the grid in shared memory."""
    import cupy

    n = len(g)
    out, ok = cupy.empty((n, CELLS), cupy.uint8), cupy.empty(n, cupy.bool_)
    if n:
        _compiled("restore_fill", _source())((n,), (128,), (
            cupy.ascontiguousarray(g.data), cupy.ascontiguousarray(g.h, dtype=cupy.int32),
            cupy.ascontiguousarray(g.w, dtype=cupy.int32), np.int32(c), out, ok))
    return out, ok


def restored(g: GridBatch, c: int) -> GridBatch:
    """The restored grids; invalid (height 0) where restoration does not apply or leaves mask cells."""
    xp = g.xp
    out, ok = restore(g, c)
    return GridBatch(out.reshape(-1, MAX, MAX), xp.where(ok, g.h, 0).astype(xp.int32), g.w)


__all__ = ["OFFSET", "ROUNDS", "image", "restore", "restored", "symmetries"]
