"""What the search needs to know of every new state, in one pass over its K grids.

For each state (the K grids one program produces for one task): whether all K grids are valid; whether its
demo outputs equal the task's targets exactly (cell by cell); whether they equal them only up to a one-to-one
colour map (see `colourmap`); its 64-bit key (the grid hashes mixed by position and salted by task, for
deduplication); its shape score (on how many demo pairs the output has the target's shape); and, for a valid
state that is no fit, on how many demo pairs its output equals the target when its test outputs have the
predicted sizes (a partial fit, ranked after every fit: `partials`).

The search asks this of every primitive on every chunk, so on the GPU it is one kernel, one warp per state
reading each grid once, instead of some twenty small launches and a host-side confirmation. The NumPy
version is the reference and gives identical results (the grid hash is `GridBatch.hash64`'s).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .colourmap import map_fits
from .grids import CELLS, GridBatch, word_mult_device


@dataclass(frozen=True)
class Targets:
    """A search group's per-task constants, on the search's device."""

    grids: GridBatch  # [T * K] demo outputs (row t * K + k); height 0 on test rows
    demo: Any  # bool [T, K]: row k of task t is a demo pair
    mult: Any  # uint64 [K]: position multipliers of the state key
    salt: Any  # uint64 [T]: per-task salt of the state key
    size_h: Any = None  # int32 [T * K]: a test row's predicted output height (-1: none; demo rows -1)
    size_w: Any = None  # int32 [T * K]: the same for widths

    def sizes(self):
        """(size_h, size_w), arrays of -1 (no prediction) where the targets hold none."""
        if self.size_h is not None:
            return self.size_h, self.size_w
        none = self.grids.xp.full(len(self.grids), -1, self.grids.xp.int32)
        return none, none


def score_states(C: GridBatch, task, tg: Targets, open_, out=None, use_kernel: bool = True):
    """(exact, valid, key, score, mapped, partial) per state of `C` ([n * K] grids, state-major); `task[n]`
    indexes the targets; `open_[T]` says which tasks still take fits up to a colour map (`mapped` is False for
    the others, for exact fits and for states with an invalid grid, as `exact` is). `partial` is the number of
    demo outputs equal to their targets for a valid state that is neither exact nor mapped and whose test
    grids have the predicted sizes, else 0. `out`, if given, is six arrays of length n to write the results
    into."""
    xp = C.xp
    if xp is not np and use_kernel:
        return _score_cuda(C, task, tg, open_, out)
    res = score_states_xp(C, task, tg, open_)
    if out is None:
        return res
    for dst, src in zip(out, res):
        dst[...] = src
    return out


def score_states_xp(C: GridBatch, task, tg: Targets, open_):
    """Array-module reference: the same six results from whole-batch array operations."""
    xp = C.xp
    K = tg.demo.shape[1]
    n = len(C) // K
    demo = tg.demo[task]
    trows = (xp.asarray(task).reshape(n, 1) * K + xp.arange(K)).reshape(-1)
    ch, cw = C.h.reshape(n, K), C.w.reshape(n, K)
    valid = (ch > 0).all(axis=1)
    shaped = (ch > 0) & (ch == tg.grids.h[trows].reshape(n, K)) & (cw == tg.grids.w[trows].reshape(n, K)) & demo
    score = shaped.sum(axis=1, dtype=xp.int32)
    shape_ok = (shaped | ~demo).all(axis=1)
    same = xp.zeros(n * K, bool)
    rows = xp.flatnonzero(shaped.ravel())  # only grids of the target's shape need their cells compared
    if len(rows):
        same[rows] = (C.data.reshape(-1, CELLS)[rows] == tg.grids.data.reshape(-1, CELLS)[trows[rows]]).all(axis=1)
    matched = same.reshape(n, K).sum(axis=1, dtype=xp.int32)
    exact = valid & shape_ok & (matched == demo.sum(axis=1))
    hashes = C.hash64().reshape(n, K)
    key = (hashes * tg.mult).sum(axis=1, dtype=xp.uint64) ^ tg.salt[task]
    mapped = map_fits(C, tg.grids, task, tg.demo, K) & xp.asarray(open_)[task] & valid & ~exact
    sh, sw = (a[trows].reshape(n, K) for a in tg.sizes())
    size_ok = (demo | (sh < 0) | ((ch == sh) & (cw == sw))).all(axis=1)
    partial = xp.where(valid & size_ok & ~exact & ~mapped, matched, 0).astype(xp.int32)
    return exact, valid, key, score, mapped, partial


_SRC = r"""
extern "C" __global__ void score_states(const unsigned char* __restrict__ data, const int* __restrict__ h,
    const int* __restrict__ w, const unsigned long long* __restrict__ wmult, const long long* __restrict__ task,
    const unsigned char* __restrict__ tdata, const int* __restrict__ th, const int* __restrict__ tw,
    const bool* __restrict__ demo, const unsigned long long* __restrict__ kmult,
    const unsigned long long* __restrict__ salt, const bool* __restrict__ open, const int* __restrict__ ph,
    const int* __restrict__ pw, int K, bool* exact_out, bool* valid_out, unsigned long long* key_out,
    int* score_out, bool* mapped_out, int* partial_out, long long n) {
  long long s = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (s >= n) return;
  long long t = task[s];
  bool valid = true, shape_ok = true, size_ok = true;
  int score = 0, demos = 0, matched = 0;
  for (int k = 0; k < K; ++k) {  // shapes first: every lane reads the same few words
    long long g = s * K + k, r = t * K + k;
    int gh = h[g];
    valid = valid && gh > 0;
    if (demo[r]) {
      bool same = gh > 0 && gh == th[r] && w[g] == tw[r];
      score += same ? 1 : 0;
      demos += 1;
      shape_ok = shape_ok && same;
    } else if (ph[r] >= 0) {
      size_ok = size_ok && gh == ph[r] && w[g] == pw[r];
    }
  }
  const bool want_map = shape_ok && valid && open[t];
  unsigned int m[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  unsigned long long key = 0;
  for (int k = 0; k < K; ++k) {
    long long g = s * K + k, r = t * K + k;
    const unsigned int* d = reinterpret_cast<const unsigned int*>(data + g * 900);
    const unsigned int* b = reinterpret_cast<const unsigned int*>(tdata + r * 900);
    const bool cmp = demo[r] && h[g] > 0 && h[g] == th[r] && w[g] == tw[r];  // the same for every lane
    bool eq = true;
    unsigned long long acc = 0;
    for (int c = lane; c < 225; c += 32) {
      unsigned int x = d[c];
      acc += (unsigned long long)x * wmult[c];
      if (cmp) {
        unsigned int y = b[c];
        eq = eq && x == y;
        if (want_map) {
          #pragma unroll
          for (int q = 0; q < 32; q += 8) {
            unsigned int xb = (x >> q) & 255u, bit = 1u << ((y >> q) & 255u);
            #pragma unroll
            for (int col = 0; col < 10; ++col) m[col] |= (xb == (unsigned int)col) ? bit : 0u;
          }
        }
      }
    }
    if (__all_sync(0xffffffffu, eq) && cmp) matched += 1;
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if (lane == 0) {
      int gh = h[g];
      acc ^= (unsigned long long)gh * 0x9E3779B97F4A7C15ull;
      acc ^= (unsigned long long)w[g] * 0xC2B2AE3D27D4EB4Full;
      acc ^= acc >> 31;
      acc *= 0xBF58476D1CE4E5B9ull;
      acc ^= acc >> 29;
      key += (gh > 0 ? acc : 0ull) * kmult[k];
    }
  }
  bool map_ok = false;
  if (want_map) {  // the same for every lane of the warp
    #pragma unroll
    for (int col = 0; col < 10; ++col)
      for (int off = 16; off > 0; off >>= 1) m[col] |= __shfl_down_sync(0xffffffffu, m[col], off);
    map_ok = true;
    unsigned int used = 0;
    #pragma unroll
    for (int col = 0; col < 10; ++col) {
      map_ok = map_ok && __popc(m[col]) <= 1 && !(used & m[col]);  // a function, and one-to-one
      used |= m[col];
    }
  }
  if (lane == 0) {
    bool exact = valid && shape_ok && matched == demos;
    bool mapped = map_ok && valid && !exact;
    exact_out[s] = exact;
    valid_out[s] = valid;
    key_out[s] = key ^ salt[t];
    score_out[s] = score;
    mapped_out[s] = mapped;
    partial_out[s] = valid && size_ok && !exact && !mapped ? matched : 0;
  }
}
"""


def _score_cuda(C: GridBatch, task, tg: Targets, open_, out):
    import cupy

    from .kernels import _blocks, _compiled

    K = int(tg.mult.shape[0])
    n = len(C) // K
    if out is None:
        out = (cupy.empty(n, bool), cupy.empty(n, bool), cupy.empty(n, cupy.uint64), cupy.empty(n, cupy.int32),
               cupy.empty(n, bool), cupy.empty(n, cupy.int32))
    if n:
        c = cupy.ascontiguousarray
        _compiled("score_states", _SRC)((_blocks(n * 32, 256),), (256,), (
            c(C.data), c(C.h, dtype=cupy.int32), c(C.w, dtype=cupy.int32), word_mult_device(),
            c(task, dtype=cupy.int64),
            c(tg.grids.data), c(tg.grids.h, dtype=cupy.int32), c(tg.grids.w, dtype=cupy.int32),
            c(tg.demo, dtype=bool), c(tg.mult, dtype=cupy.uint64), c(tg.salt, dtype=cupy.uint64),
            c(open_, dtype=bool), *(c(a, dtype=cupy.int32) for a in tg.sizes()), np.int32(K), *out,
            np.int64(n)))
    return out
