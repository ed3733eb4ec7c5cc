"""What the search needs to know of every new state, in one pass over its K grids.

For each state (the K grids one program produces for one task): whether all K grids are valid; whether its
demo outputs equal the task's targets exactly (cell by cell); whether they equal them only up to a one-to-one
colour map (see `colourmap`); its 64-bit key (the grid hashes mixed by position and salted by task, for
deduplication); its shape score (two for each demo pair whose output has the target's shape, one where it is
near it: a side equal, or both sides multiples or divisors of the target's); and, for a valid
state that is no fit, on how many demo pairs its output equals the target when its test outputs have the
predicted sizes (a partial fit, ranked after every fit: `partials`). For the overlays (`overlays`): for a
state that is no exact fit but has the targets' shapes and the predicted test sizes, its wrong demo cells,
and whether it is right wherever it is not 0 (a layer of colour, scored by those cells) or wherever it
differs from its task's input (a layer of edits); and a key of its demo grids alone.

The search asks this of every primitive on every chunk, so on the GPU it is one kernel, one warp per state
reading each grid once, instead of some twenty small launches and a host-side confirmation. The NumPy
version is the reference and gives identical results (the grid hash is `GridBatch.hash64`'s).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from .colourmap import map_fits
from .grids import CELLS, GridBatch, row_counts, word_mult_device


@dataclass(frozen=True)
class Targets:
    """A search group's per-task constants, on the search's device."""

    grids: GridBatch  # [T * K] demo outputs (row t * K + k); height 0 on test rows
    demo: Any  # bool [T, K]: row k of task t is a demo pair
    mult: Any  # uint64 [K]: position multipliers of the state key
    salt: Any  # uint64 [T]: per-task salt of the state key
    size_h: Any = None  # int32 [T * K]: a test row's predicted output height (-1: none; demo rows -1)
    size_w: Any = None  # int32 [T * K]: the same for widths
    inputs: GridBatch | None = None  # [T * K] the tasks' input grids, demos then tests (edit layers need them)

    def sizes(self):
        """(size_h, size_w), arrays of -1 (no prediction) where the targets hold none."""
        if self.size_h is not None:
            return self.size_h, self.size_w
        none = self.grids.xp.full(len(self.grids), -1, self.grids.xp.int32)
        return none, none


class Scores(NamedTuple):
    """Per state: see `score_states`."""

    exact: Any
    valid: Any
    key: Any
    score: Any
    mapped: Any
    partial: Any
    wrong: Any
    cover_nz: Any
    cover_edit: Any
    demo_key: Any


def score_states(C: GridBatch, task, tg: Targets, open_, out=None, use_kernel: bool = True) -> Scores:
    """Scores per state of `C` ([n * K] grids, state-major); `task[n]` indexes the targets; `open_[T]` says
    which tasks still take fits up to a colour map (`mapped` is False for the others, for exact fits and for
    states with an invalid grid, as `exact` is). `partial` is the number of demo outputs equal to their
    targets for a valid state that is neither exact nor mapped and whose test grids have the predicted sizes,
    else 0. A valid state that is not exact but has every demo target's shape and the predicted test sizes is
    an overlay candidate: `wrong` is its demo cells unequal to the targets' (-1 for the others); `cover_nz`
    its cells not 0 if all of them are right, `cover_edit` its cells unequal to the input's if all of them are
    right and every grid has its input's shape (else 0); `demo_key` is the key of the demo grids alone. `out`,
    if given, is ten arrays of length n to write the results into."""
    xp = C.xp
    if xp is not np and use_kernel:
        return _score_cuda(C, task, tg, open_, out)
    res = score_states_xp(C, task, tg, open_)
    if out is None:
        return res
    for dst, src in zip(out, res):
        dst[...] = src
    return Scores(*out)


def _near(xp, ch, cw, th, tw, demo):
    """Demo grids whose shape is the target's or near it, one step from it: one side equal, or both sides
    multiples of the target's, or both divisors of them (a half, a third, a scaled copy)."""
    ok = (ch > 0) & (th > 0) & demo
    ch1, cw1, th1, tw1 = (xp.maximum(a, 1) for a in (ch, cw, th, tw))
    mult = ((ch1 % th1) == 0) & ((cw1 % tw1) == 0)
    div = ((th1 % ch1) == 0) & ((tw1 % cw1) == 0)
    return ok & ((ch == th) | (cw == tw) | mult | div)


def score_states_xp(C: GridBatch, task, tg: Targets, open_) -> Scores:
    """Array-module reference: the same results from whole-batch array operations."""
    xp = C.xp
    K = tg.demo.shape[1]
    n = len(C) // K
    demo = tg.demo[task]
    trows = (xp.asarray(task).reshape(n, 1) * K + xp.arange(K)).reshape(-1)
    ch, cw = C.h.reshape(n, K), C.w.reshape(n, K)
    valid = (ch > 0).all(axis=1)
    th, tw = tg.grids.h[trows].reshape(n, K), tg.grids.w[trows].reshape(n, K)
    shaped = (ch > 0) & (ch == th) & (cw == tw) & demo
    score = shaped.sum(axis=1, dtype=xp.int32) + _near(xp, ch, cw, th, tw, demo).sum(axis=1, dtype=xp.int32)
    shape_ok = (shaped | ~demo).all(axis=1)
    rows = xp.flatnonzero(shaped.ravel())  # only grids of the target's shape need their cells compared
    cells = C.data.reshape(-1, CELLS)[rows]
    ne = cells != tg.grids.data.reshape(-1, CELLS)[trows[rows]]
    bad = row_counts(xp, ne)  # wrong cells per grid
    same = xp.zeros(n * K, bool)
    same[rows] = bad == 0
    matched = same.reshape(n, K).sum(axis=1, dtype=xp.int32)
    exact = valid & shape_ok & (matched == demo.sum(axis=1))
    hashes = C.hash64().reshape(n, K)
    key = (hashes * tg.mult).sum(axis=1, dtype=xp.uint64) ^ tg.salt[task]
    mapped = map_fits(C, tg.grids, task, tg.demo, K) & xp.asarray(open_)[task] & valid & ~exact
    sh, sw = (a[trows].reshape(n, K) for a in tg.sizes())
    size_ok = (demo | (sh < 0) | ((ch == sh) & (cw == sw))).all(axis=1)
    partial = xp.where(valid & size_ok & ~exact & ~mapped, matched, 0).astype(xp.int32)
    dkey = (hashes * tg.mult * demo).sum(axis=1, dtype=xp.uint64) ^ tg.salt[task]
    comp = valid & shape_ok & size_ok & ~exact  # overlay candidates: all their demo grids are in `rows`
    keep = comp[rows // K]
    wrong, cnz, ced = _layer_counts(C, comp, rows[keep], cells[keep], ne[keep], bad[keep], trows, tg, K)
    return Scores(exact, valid, key, score, mapped, partial, wrong, cnz, ced, dkey)


def _layer_counts(C: GridBatch, comp, rows, cells, ne, bad, trows, tg: Targets, K: int):
    """(wrong, cover_nz, cover_edit) of the overlay candidates `comp` from their demo grids `rows` (their
    `cells`, where they are wrong `ne` and how many are wrong `bad`); -1, 0, 0 for every other state."""
    xp = C.xp
    n = len(comp)
    owner = rows // K

    def per_state(v):
        return xp.bincount(owner, weights=v, minlength=n).astype(xp.int32)
    wrong = xp.where(comp, per_state(bad), -1).astype(xp.int32)
    # cells not 0 (padding, PAD, is not 0 either: taken off) and those of them that are wrong
    act = per_state(row_counts(xp, cells != 0) - (CELLS - C.h[rows] * C.w[rows]))
    cnz = xp.where(comp & (per_state(row_counts(xp, ne & (cells != 0))) == 0) & (act > 0), act, 0)
    ced = xp.zeros(n, xp.int32)
    if tg.inputs is not None:
        src = tg.inputs
        ch, cw = C.h.reshape(n, K), C.w.reshape(n, K)
        same = ((ch == src.h[trows].reshape(n, K)) & (cw == src.w[trows].reshape(n, K))).all(axis=1)
        ed = cells != src.data.reshape(-1, CELLS)[trows[rows]]
        act = per_state(row_counts(xp, ed))
        ced = xp.where(comp & same & (per_state(row_counts(xp, ed & ne)) == 0) & (act > 0), act, 0)
    return wrong, cnz.astype(xp.int32), ced.astype(xp.int32)


_SRC = r"""
extern "C" __global__ void score_states(const unsigned char* __restrict__ data, const int* __restrict__ h,
    const int* __restrict__ w, const unsigned long long* __restrict__ wmult, const long long* __restrict__ task,
    const unsigned char* __restrict__ tdata, const int* __restrict__ th, const int* __restrict__ tw,
    const bool* __restrict__ demo, const unsigned long long* __restrict__ kmult,
    const unsigned long long* __restrict__ salt, const bool* __restrict__ open, const int* __restrict__ ph,
    const int* __restrict__ pw, const unsigned char* __restrict__ idata, const int* __restrict__ ih,
    const int* __restrict__ iw, bool has_inputs, int K, bool* exact_out, bool* valid_out,
    unsigned long long* key_out, int* score_out, bool* mapped_out, int* partial_out, int* wrong_out,
    int* cnz_out, int* ced_out, unsigned long long* dkey_out, long long n) {
  long long s = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (s >= n) return;
  long long t = task[s];
  bool valid = true, shape_ok = true, size_ok = true, edit_ok = has_inputs;
  int score = 0, demos = 0, matched = 0;
  for (int k = 0; k < K; ++k) {  // shapes first: every lane reads the same few words
    long long g = s * K + k, r = t * K + k;
    int gh = h[g];
    valid = valid && gh > 0;
    if (has_inputs) edit_ok = edit_ok && gh == ih[r] && w[g] == iw[r];
    if (demo[r]) {
      int eh = th[r], ew = tw[r], gw = w[g];
      bool same = gh > 0 && gh == eh && gw == ew;
      int gh1 = max(gh, 1), gw1 = max(gw, 1), eh1 = max(eh, 1), ew1 = max(ew, 1);
      bool near = gh > 0 && eh > 0 && (gh == eh || gw == ew || (gh1 % eh1 == 0 && gw1 % ew1 == 0)
                                       || (eh1 % gh1 == 0 && ew1 % gw1 == 0));
      score += (same ? 1 : 0) + (near ? 1 : 0);
      demos += 1;
      shape_ok = shape_ok && same;
    } else if (ph[r] >= 0) {
      size_ok = size_ok && gh == ph[r] && w[g] == pw[r];
    }
  }
  const bool want_map = shape_ok && valid && open[t];
  const bool layer = shape_ok && valid && size_ok;  // an overlay candidate, unless it proves exact
  edit_ok = edit_ok && layer;
  unsigned int m[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  unsigned long long key = 0, dkey = 0;
  int wrong = 0, nz_act = 0, nz_bad = 0, ed_act = 0, ed_bad = 0;  // bits: 8 a cell
  for (int k = 0; k < K; ++k) {
    long long g = s * K + k, r = t * K + k;
    const unsigned int* d = reinterpret_cast<const unsigned int*>(data + g * 900);
    const unsigned int* b = reinterpret_cast<const unsigned int*>(tdata + r * 900);
    const unsigned int* z = reinterpret_cast<const unsigned int*>(idata + r * 900);
    const bool cmp = demo[r] && h[g] > 0 && h[g] == th[r] && w[g] == tw[r];  // the same for every lane
    bool eq = true;
    unsigned long long acc = 0;
    for (int c = lane; c < 225; c += 32) {
      unsigned int x = d[c];
      acc += (unsigned long long)x * wmult[c];
      if (cmp) {
        unsigned int y = b[c];
        eq = eq && x == y;
        if (layer) {
          unsigned int ne = __vcmpne4(x, y), nz = __vcmpne4(x, 0u) & __vcmpne4(x, 0x0a0a0a0au);
          wrong += __popc(ne);
          nz_act += __popc(nz);
          nz_bad += __popc(nz & ne);
          if (edit_ok) {
            unsigned int ed = __vcmpne4(x, z[c]);
            ed_act += __popc(ed);
            ed_bad += __popc(ed & ne);
          }
        }
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
      if (demo[r]) dkey += (gh > 0 ? acc : 0ull) * kmult[k];
    }
  }
  if (layer) {  // the same for every lane of the warp
    for (int off = 16; off > 0; off >>= 1) {
      wrong += __shfl_down_sync(0xffffffffu, wrong, off);
      nz_act += __shfl_down_sync(0xffffffffu, nz_act, off);
      nz_bad += __shfl_down_sync(0xffffffffu, nz_bad, off);
      ed_act += __shfl_down_sync(0xffffffffu, ed_act, off);
      ed_bad += __shfl_down_sync(0xffffffffu, ed_bad, off);
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
    bool cand = layer && !exact;
    exact_out[s] = exact;
    valid_out[s] = valid;
    key_out[s] = key ^ salt[t];
    score_out[s] = score;
    mapped_out[s] = mapped;
    partial_out[s] = valid && size_ok && !exact && !mapped ? matched : 0;
    wrong_out[s] = cand ? wrong >> 3 : -1;
    cnz_out[s] = cand && nz_act > 0 && nz_bad == 0 ? nz_act >> 3 : 0;
    ced_out[s] = cand && edit_ok && ed_act > 0 && ed_bad == 0 ? ed_act >> 3 : 0;
    dkey_out[s] = dkey ^ salt[t];
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
               cupy.empty(n, bool), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int32),
               cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.uint64))
    if n:
        c = cupy.ascontiguousarray
        src = tg.inputs if tg.inputs is not None else tg.grids  # read only where inputs are given
        _compiled("score_states", _SRC)((_blocks(n * 32, 256),), (256,), (
            c(C.data), c(C.h, dtype=cupy.int32), c(C.w, dtype=cupy.int32), word_mult_device(),
            c(task, dtype=cupy.int64),
            c(tg.grids.data), c(tg.grids.h, dtype=cupy.int32), c(tg.grids.w, dtype=cupy.int32),
            c(tg.demo, dtype=bool), c(tg.mult, dtype=cupy.uint64), c(tg.salt, dtype=cupy.uint64),
            c(open_, dtype=bool), *(c(a, dtype=cupy.int32) for a in tg.sizes()),
            c(src.data), c(src.h, dtype=cupy.int32), c(src.w, dtype=cupy.int32), np.bool_(tg.inputs is not None),
            np.int32(K), *out, np.int64(n)))
    return Scores(*out)
