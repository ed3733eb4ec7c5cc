"""Fused CUDA kernels for the primitives that read a few neighbours of each cell, and for `finish`.

On the array module these primitives take five to fifteen whole-batch temporaries each (shifted copies,
masks, int32 cumulative sums), which made them the slowest steps of the search; here each is one pass that
reads the grid once and writes only its output, PAD outside the grid included. The array-module code in
`dsl/other.py` and `dsl/registry.finish` stays the NumPy path and the reference these kernels are tested
against (tests/arc/test_dsl_gpu.py runs both on the ARC grids and compares every cell).
"""
from __future__ import annotations

import numpy as np

from .grids import CELLS, MAX, GridBatch
from .kernels import _blocks, _compiled, background

_PROLOGUE = r"""
extern "C" __global__ void NAME(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, const int* __restrict__ bgs, int p0, int p1,
    unsigned char* __restrict__ dst, int* __restrict__ hout, int* __restrict__ wout, long long ncells) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ncells) return;
  long long b = t / 900;
  int c = (int)(t - b * 900), i = c / 30, j = c - i * 30;
  int h = hin[b], w = win[b];
  if (!(h >= 1 && h <= 30 && w >= 1 && w <= 30)) { h = 0; w = 0; }
  if (c == 0) { hout[b] = h; wout[b] = w; }
  if (i >= h || j >= w) { dst[t] = 10; return; }
  const unsigned char* d = src + b * 900;
  int bg = bgs ? bgs[b] : 0;
  unsigned char v = d[c];
"""

# per-cell bodies: `v` is the cell, `d` its grid, (i, j) inside an h x w grid, bg its background, p0/p1 params
_BODIES = {
    # symmetrize: p0 = axis (0 h: top-bottom, 1 v: left-right, 2 hv: left-right, top-bottom, half turn), p1 = c
    "stencil_symmetrize": r"""
  #define FILL(x, m) (((x) == p1 && (m) != p1) ? (m) : (x))
  int ii = h - 1 - i, jj = w - 1 - j;
  if (p0 == 0) { unsigned char m = d[ii * 30 + j]; dst[t] = FILL(v, m); return; }
  if (p0 == 1) { unsigned char m = d[i * 30 + jj]; dst[t] = FILL(v, m); return; }
  unsigned char a = v, bb = d[i * 30 + jj], cc = d[ii * 30 + j], dd = d[ii * 30 + jj];
  unsigned char a1 = FILL(a, bb), b1 = FILL(bb, a), c1 = FILL(cc, dd), d1 = FILL(dd, cc);
  unsigned char a2 = FILL(a1, c1), d2 = FILL(d1, b1);
  dst[t] = FILL(a2, d2);
""",
    # shift by (p0, p1) rows and columns: the cell reads (i - p0, j - p1); off the grid reads background
    "stencil_shift": r"""
  int si = i - p0, sj = j - p1;
  unsigned char x = (si >= 0 && si < 30 && sj >= 0 && sj < 30) ? d[si * 30 + sj] : 10;
  dst[t] = x == 10 ? (unsigned char)bg : x;
""",
    # outline: a background cell with a non-background 8-neighbour becomes colour p1
    "stencil_outline": r"""
  bool near = false;
  if (v == bg) {
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        int si = i + di, sj = j + dj;
        if ((di || dj) && si >= 0 && si < 30 && sj >= 0 && sj < 30) {
          unsigned char x = d[si * 30 + sj];
          near |= (x != bg && x < 10);
        }
      }
  }
  dst[t] = near ? (unsigned char)p1 : v;
""",
    # hollow: a non-background cell whose four neighbours are all non-background becomes background
    "stencil_hollow": r"""
  #define FG(si, sj) ((si) >= 0 && (si) < 30 && (sj) >= 0 && (sj) < 30 && d[(si) * 30 + (sj)] != bg \
                      && d[(si) * 30 + (sj)] < 10)
  bool inner = v != bg && FG(i - 1, j) && FG(i + 1, j) && FG(i, j - 1) && FG(i, j + 1);
  dst[t] = inner ? (unsigned char)bg : v;
""",
}

_BODIES["stencil_connect"] = r"""
  // a 0 cell between two nearest non-0 cells of one colour along its row (p0 0 or 2) or, failing that, its
  // column (p0 1 or 2), or along its diagonal, failing that its anti-diagonal (p0 3), takes that colour
  // (p1 < 0) or colour p1
  if (v != 0) { dst[t] = v; return; }
  int val = -1;
  if (p0 == 3) {
    for (int anti = 0; anti < 2 && val < 0; ++anti) {
      int dj = anti ? -1 : 1;  // the step towards the far end: (+1, +1) on a diagonal, (+1, -1) on an anti-diagonal
      int a = i - 1, b = j - dj, e = i + 1, f = j + dj;
      while (a >= 0 && b >= 0 && b < w && d[a * 30 + b] == 0) { --a; b -= dj; }
      while (e < h && f >= 0 && f < w && d[e * 30 + f] == 0) { ++e; f += dj; }
      if (a >= 0 && b >= 0 && b < w && e < h && f >= 0 && f < w && d[a * 30 + b] == d[e * 30 + f])
        val = d[a * 30 + b];
    }
  }
  if (p0 == 0 || p0 == 2) {
    int l = j - 1, r = j + 1;
    while (l >= 0 && d[i * 30 + l] == 0) --l;
    while (r < w && d[i * 30 + r] == 0) ++r;
    if (l >= 0 && r < w && d[i * 30 + l] == d[i * 30 + r]) val = d[i * 30 + l];
  }
  if (val < 0 && (p0 == 1 || p0 == 2)) {
    int u = i - 1, e = i + 1;
    while (u >= 0 && d[u * 30 + j] == 0) --u;
    while (e < h && d[e * 30 + j] == 0) ++e;
    if (u >= 0 && e < h && d[u * 30 + j] == d[e * 30 + j]) val = d[u * 30 + j];
  }
  dst[t] = val < 0 ? 0 : (p1 < 0 ? (unsigned char)val : (unsigned char)p1);
"""

_BODIES["stencil_ray"] = r"""
  // a background cell takes the colour of the nearest non-background cell behind it, against the ray's
  // step (p0 rows, p1 columns): every non-background cell shines along the step until the next one
  unsigned char x = v;
  for (int si = i - p0, sj = j - p1; v == bg && si >= 0 && si < h && sj >= 0 && sj < w; si -= p0, sj -= p1) {
    unsigned char y = d[si * 30 + sj];
    if (y != bg) { x = y; break; }
  }
  dst[t] = x;
"""

_BODIES["stencil_extend"] = r"""
  // a background cell takes the colour of the nearest tip behind it against a step, the steps in ray's order
  // (`ref.RAY_STEPS`), the first that reaches one winning: a tip is a non-background cell with one
  // non-background cell among its 8 neighbours, and it shines only away from that neighbour
  const int SI[8] = {1, -1, 0, 0, 1, 1, -1, -1}, SJ[8] = {0, 0, -1, 1, 1, -1, 1, -1};
  unsigned char x = v;
  for (int k = 0; k < 8 && v == bg && x == v; ++k) {
    int p = SI[k], q = SJ[k], si = i - p, sj = j - q;
    while (si >= 0 && si < h && sj >= 0 && sj < w && d[si * 30 + sj] == bg) { si -= p; sj -= q; }
    if (!(si >= 0 && si < h && sj >= 0 && sj < w)) continue;
    int n = 0, ni = 0, nj = 0;
    for (int a = -1; a <= 1; ++a)
      for (int b = -1; b <= 1; ++b) {
        int yi = si + a, yj = sj + b;
        if ((a || b) && yi >= 0 && yi < h && yj >= 0 && yj < w && d[yi * 30 + yj] != bg) { ++n; ni = a; nj = b; }
      }
    if (n == 1 && ni == -p && nj == -q) x = d[si * 30 + sj];
  }
  dst[t] = x;
"""

_BODIES["stencil_corner_ray"] = r"""
  // as stencil_ray along a diagonal step (p0, p1), but the nearest non-background cell behind shines only if it
  // is a corner towards the step: neither (si + p0, sj) nor (si, sj + p1) is a non-background cell
  unsigned char x = v;
  for (int si = i - p0, sj = j - p1; v == bg && si >= 0 && si < h && sj >= 0 && sj < w; si -= p0, sj -= p1) {
    unsigned char y = d[si * 30 + sj];
    if (y == bg) continue;
    int ai = si + p0, bj = sj + p1;
    bool in_col = ai >= 0 && ai < h && d[ai * 30 + sj] != bg;
    bool in_row = bj >= 0 && bj < w && d[si * 30 + bj] != bg;
    if (!in_col && !in_row) x = y;
    break;
  }
  dst[t] = x;
"""

# gravity: one thread per line (a column for down/up, a row for left/right) of each grid; p0 = direction
_GRAVITY_SRC = r"""
extern "C" __global__ void stencil_gravity(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, const int* __restrict__ bgs, int p0, int p1,
    unsigned char* __restrict__ dst, int* __restrict__ hout, int* __restrict__ wout, long long nlines) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= nlines) return;
  long long b = t / 30;
  int line = (int)(t - b * 30);
  int h = hin[b], w = win[b];
  if (!(h >= 1 && h <= 30 && w >= 1 && w <= 30)) { h = 0; w = 0; }
  if (line == 0) { hout[b] = h; wout[b] = w; }
  const unsigned char* d = src + b * 900;
  unsigned char* o = dst + b * 900;
  bool cols = p0 < 2;  // 0 down, 1 up: along a column; 2 left, 3 right: along a row
  int len = cols ? h : w, other = cols ? w : h;
  int step = cols ? 30 : 1, base = cols ? line : line * 30;
  if (h <= 0 || line >= other) { for (int k = 0; k < 30; ++k) o[base + k * step] = 10; return; }
  unsigned char bg = (unsigned char)bgs[b], buf[30];
  int n = 0;
  for (int k = 0; k < len; ++k) { unsigned char x = d[base + k * step]; if (x != bg && x < 10) buf[n++] = x; }
  int first = (p0 == 0 || p0 == 3) ? len - n : 0;  // down and right stack at the far end
  for (int k = 0; k < 30; ++k)
    o[base + k * step] = k >= len ? 10 : (k >= first && k < first + n) ? buf[k - first] : bg;
}
"""

# halves_logic: mode = axis * 4 + op (axis 0 top/bottom, 1 left/right; op 0 and, 1 or, 2 xor, 3 nor)
_HALVES_SRC = r"""
extern "C" __global__ void halves_logic(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, int mode, int colour, unsigned char* __restrict__ dst,
    int* __restrict__ hout, int* __restrict__ wout, long long ncells) {
  long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= ncells) return;
  long long b = t / 900;
  int c = (int)(t - b * 900), i = c / 30, j = c - i * 30;
  const unsigned char* d = src + b * 900;
  int h = hin[b], w = win[b], axis = mode >> 2, op = mode & 3;
  int n = axis == 0 ? h : w, half = n / 2;
  bool ok = h >= 1 && h <= 30 && w >= 1 && w <= 30 && half >= 1;
  if (ok && (n & 1)) {  // an odd size splits only around a one-colour middle line
    int len = axis == 0 ? w : h;
    unsigned char first = axis == 0 ? d[half * 30] : d[half];
    for (int k = 1; k < len; ++k) ok &= (axis == 0 ? d[half * 30 + k] : d[k * 30 + half]) == first;
  }
  int H = ok ? (axis == 0 ? half : h) : 0, W = ok ? (axis == 0 ? w : half) : 0;
  if (c == 0) { hout[b] = H; wout[b] = W; }
  if (i >= H || j >= W) { dst[t] = 10; return; }
  int off = n - half;
  bool x = d[i * 30 + j] != 0, y = (axis == 0 ? d[(i + off) * 30 + j] : d[i * 30 + j + off]) != 0;
  bool r = op == 0 ? (x && y) : op == 1 ? (x || y) : op == 2 ? (x != y) : !(x || y);
  dst[t] = r ? (unsigned char)colour : 0;
}
"""

_FINISH_SRC = r"""
extern "C" __global__ void finish_grids(const unsigned char* __restrict__ src, const int* __restrict__ hsrc,
    const int* __restrict__ hin, const int* __restrict__ win, unsigned char* __restrict__ dst,
    int* __restrict__ hout, int* __restrict__ wout, long long nquads) {
  long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nquads) return;
  long long b = q / 225;
  int c0 = (int)(q - b * 225) * 4;
  int H = hin[b], W = win[b];
  bool ok = hsrc[b] > 0 && H >= 1 && H <= 30 && W >= 1 && W <= 30;
  if (!ok) { H = 0; W = 0; }
  uchar4 v = *reinterpret_cast<const uchar4*>(src + b * 900 + c0);
  unsigned char x[4] = {v.x, v.y, v.z, v.w};
  #pragma unroll
  for (int e = 0; e < 4; ++e) { int c = c0 + e, i = c / 30, j = c - i * 30; if (i >= H || j >= W) x[e] = 10; }
  *reinterpret_cast<uchar4*>(dst + b * 900 + c0) = make_uchar4(x[0], x[1], x[2], x[3]);
  if (c0 == 0) { hout[b] = H; wout[b] = W; }
}
"""


# component sizes (and whether each component touches the grid's border) from labels: one block per grid,
# counters in shared memory, instead of a whole-batch bincount over B x 901 bins
_COMPONENT_SRC = r"""
extern "C" __global__ void component_stats(const short* __restrict__ lab, const int* __restrict__ hin,
    const int* __restrict__ win, int* __restrict__ size, unsigned char* __restrict__ touch) {
  __shared__ int cnt[900];
  __shared__ unsigned char edge[900];
  const long long b = blockIdx.x;
  const short* L = lab + b * 900;
  const int h = hin ? hin[b] : 0, w = win ? win[b] : 0;
  for (int c = threadIdx.x; c < 900; c += blockDim.x) { cnt[c] = 0; edge[c] = 0; }
  __syncthreads();
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    int l = L[c];
    if (l < 0) continue;
    atomicAdd(&cnt[l], 1);
    int i = c / 30, j = c - i * 30;
    if (touch && (i == 0 || j == 0 || i == h - 1 || j == w - 1)) edge[l] = 1;
  }
  __syncthreads();
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    int l = L[c];
    size[b * 900 + c] = l >= 0 ? cnt[l] : 0;
    if (touch) touch[b * 900 + c] = l >= 0 ? edge[l] : 0;
  }
}
"""


def component_stats(lab, h=None, w=None):
    """(size of each cell's component, int32 [B, 900], 0 where unlabelled; and, given h and w, whether
    that component touches the grid's border, bool [B, 900], else None). CuPy only; `objects.sizes` and
    `objects._enclosed` hold the array-module versions."""
    import cupy

    n = lab.shape[0]
    size = cupy.empty((n, CELLS), cupy.int32)
    touch = cupy.empty((n, CELLS), cupy.uint8) if h is not None else None
    if n:
        hh = cupy.ascontiguousarray(h, dtype=cupy.int32) if h is not None else 0
        ww = cupy.ascontiguousarray(w, dtype=cupy.int32) if w is not None else 0
        _compiled("component_stats", _COMPONENT_SRC)(
            (n,), (128,), (cupy.ascontiguousarray(lab, dtype=cupy.int16), hh, ww, size,
                           touch if touch is not None else 0))
    return size, (touch.view(cupy.bool_) if touch is not None else None)


def _args(g: GridBatch):
    import cupy

    n = len(g)
    out = GridBatch(cupy.empty((n, MAX, MAX), cupy.uint8), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int32))
    return out, (cupy.ascontiguousarray(g.data), cupy.ascontiguousarray(g.h, dtype=cupy.int32),
                 cupy.ascontiguousarray(g.w, dtype=cupy.int32))


def stencil(g: GridBatch, name: str, p0: int = 0, p1: int = 0, needs_bg: bool = True) -> GridBatch:
    """Run one per-cell kernel of `_BODIES` over every grid (CuPy only)."""
    kern = _compiled(name, _PROLOGUE.replace("NAME", name) + _BODIES[name] + "}\n")
    out, (data, h, w) = _args(g)
    n = len(g)
    if n:
        bg = background(g) if needs_bg else 0
        kern((_blocks(n * CELLS, 256),), (256,),
             (data, h, w, bg, np.int32(p0), np.int32(p1), out.data, out.h, out.w, np.int64(n * CELLS)))
    return out


def gravity_cuda(g: GridBatch, direction: int) -> GridBatch:
    """Gravity towards 0 down, 1 up, 2 left, 3 right (CuPy only)."""
    out, (data, h, w) = _args(g)
    n = len(g)
    if n:
        _compiled("stencil_gravity", _GRAVITY_SRC)(
            (_blocks(n * MAX, 128),), (128,),
            (data, h, w, background(g), np.int32(direction), np.int32(0), out.data, out.h, out.w,
             np.int64(n * MAX)))
    return out


def halves_cuda(g: GridBatch, axis: int, op: int, colour: int) -> GridBatch:
    """`compose.halves_logic` in one pass (CuPy only)."""
    out, (data, h, w) = _args(g)
    n = len(g)
    if n:
        _compiled("halves_logic", _HALVES_SRC)(
            (_blocks(n * CELLS, 256),), (256,),
            (data, h, w, np.int32(axis * 4 + op), np.int32(colour), out.data, out.h, out.w, np.int64(n * CELLS)))
    return out


_BOXES_SRC = r"""
extern "C" __global__ void boxes_fill(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, unsigned char* __restrict__ dst, int* __restrict__ hout,
    int* __restrict__ wout) {
  // one block per grid: each colour's bounding box and cell count in shared memory, then every cell
  __shared__ int lo_r[10], hi_r[10], lo_c[10], hi_c[10], cnt[10];
  long long b = blockIdx.x;
  const unsigned char* d = src + b * 900;
  unsigned char* o = dst + b * 900;
  int h = hin[b], w = win[b];
  if (!(h >= 1 && h <= 30 && w >= 1 && w <= 30)) { h = 0; w = 0; }
  if (threadIdx.x < 10) {
    lo_r[threadIdx.x] = 99; hi_r[threadIdx.x] = -1; lo_c[threadIdx.x] = 99; hi_c[threadIdx.x] = -1;
    cnt[threadIdx.x] = 0;
  }
  if (threadIdx.x == 0) { hout[b] = h; wout[b] = w; }
  __syncthreads();
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    int i = c / 30, j = c - (c / 30) * 30;
    int v = d[c];
    if (i < h && j < w && v >= 1 && v <= 9) {
      atomicMin(&lo_r[v], i); atomicMax(&hi_r[v], i); atomicMin(&lo_c[v], j); atomicMax(&hi_c[v], j);
      atomicAdd(&cnt[v], 1);
    }
  }
  __syncthreads();
  for (int c = threadIdx.x; c < 900; c += blockDim.x) {
    int i = c / 30, j = c - (c / 30) * 30;
    unsigned char v = d[c];
    if (i >= h || j >= w) { o[c] = 10; continue; }
    if (v == 0)
      for (int k = 1; k <= 9; ++k)
        if (cnt[k] >= 2 && i >= lo_r[k] && i <= hi_r[k] && j >= lo_c[k] && j <= hi_c[k]) { v = k; break; }
    o[c] = v;
  }
}
"""


def boxes_cuda(g: GridBatch) -> GridBatch:
    """`other.boxes` with one thread block per grid (CuPy only)."""
    out, (data, h, w) = _args(g)
    n = len(g)
    if n:
        _compiled("boxes_fill", _BOXES_SRC)((n,), (128,), (data, h, w, out.data, out.h, out.w))
    return out


def finish_cuda(src: GridBatch, out: GridBatch) -> GridBatch:
    """`registry.finish` in one pass: invalidate bad results, PAD outside each grid (CuPy only)."""
    import cupy

    n = len(out)
    res = GridBatch(cupy.empty((n, MAX, MAX), cupy.uint8), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int32))
    if n:
        nquads = n * (CELLS // 4)
        _compiled("finish_grids", _FINISH_SRC)(
            (_blocks(nquads, 256),), (256,),
            (cupy.ascontiguousarray(out.data), cupy.ascontiguousarray(src.h, dtype=cupy.int32),
             cupy.ascontiguousarray(out.h, dtype=cupy.int32), cupy.ascontiguousarray(out.w, dtype=cupy.int32),
             res.data, res.h, res.w, np.int64(nquads)))
    return res


__all__ = ["component_stats", "finish_cuda", "gravity_cuda", "halves_cuda", "stencil"]
