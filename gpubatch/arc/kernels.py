"""The three batched building blocks of the DSL, each as one CUDA kernel with its NumPy reference beside it.

- gather: output cell (i, j) of each grid reads input cell (si, sj); covers every geometric and cropping
  primitive. Each op is four index formulas in a C/Python common subset, compiled into the kernel and
  evaluated on NumPy arrays, so both devices compute the same function;
- colour LUT: output = lut[grid, colour], a per-grid colour map (replace, swap, keep, recolour...);
- labels: connected components of every grid at once (4/8-connectivity, single/multi-colour, with or without
  the background colour), one thread block per grid in shared memory on the GPU.
Compiled kernels are memoized per (kernel, device).
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .grids import CELLS, MAX, PAD, GridBatch

_KERNELS: dict[tuple, object] = {}


def _compiled(name: str, source: str):
    import cupy

    key = (name, cupy.cuda.Device().id)
    kern = _KERNELS.get(key)
    if kern is None:
        kern = _KERNELS[key] = cupy.RawKernel(source, name, options=("-std=c++14",))
    return kern


def _blocks(n: int, threads: int) -> int:
    return (n + threads - 1) // threads


# -- gather ---------------------------------------------------------------------------------------
# (H, W, si, sj) over i, j (output cell), h, w (input size, at least 1), k1, k2 (op constants) and
# p0..p3 (per-grid parameters). `/` is integer division of non-negative values; sel(c, a, b) is c ? a : b.
GATHER: dict[str, tuple[str, str, str, str]] = {
    "identity": ("h", "w", "i", "j"),
    "rot90": ("w", "h", "h-1-j", "i"),
    "rot180": ("h", "w", "h-1-i", "w-1-j"),
    "rot270": ("w", "h", "j", "w-1-i"),
    "hmirror": ("h", "w", "h-1-i", "j"),
    "vmirror": ("h", "w", "i", "w-1-j"),
    "dmirror": ("w", "h", "j", "i"),
    "cmirror": ("w", "h", "h-1-j", "w-1-i"),
    "tophalf": ("h/2", "w", "i", "j"),
    "bottomhalf": ("h/2", "w", "h-h/2+i", "j"),
    "lefthalf": ("h", "w/2", "i", "j"),
    "righthalf": ("h", "w/2", "i", "w-w/2+j"),
    "trim": ("h-2", "w-2", "i+1", "j+1"),
    "upscale": ("h*k1", "w*k1", "i/k1", "j/k1"),
    "hupscale": ("h", "w*k1", "i", "j/k1"),
    "vupscale": ("h*k1", "w", "i/k1", "j"),
    "downscale": ("(h+k1-1)/k1", "(w+k1-1)/k1", "i*k1", "j*k1"),
    "tile": ("h*k1", "w*k2", "i%h", "j%w"),
    "hconcat_mirror": ("h", "2*w", "i", "sel(j<w, j, 2*w-1-j)"),
    "mirror_hconcat": ("h", "2*w", "i", "sel(j<w, w-1-j, j-w)"),
    "vconcat_mirror": ("2*h", "w", "sel(i<h, i, 2*h-1-i)", "j"),
    "mirror_vconcat": ("2*h", "w", "sel(i<h, h-1-i, i-h)", "j"),
    "mirror4": ("2*h", "2*w", "sel(i<h, i, 2*h-1-i)", "sel(j<w, j, 2*w-1-j)"),
    # square grids only: the grid and its quarter turns around the centre (clockwise or anticlockwise)
    "rot4": ("sel(h==w, 2*h, 0)", "2*w", "sel(i<h, sel(j<w, i, h+w-1-j), sel(j<w, j, 2*h-1-i))",
             "sel(i<h, sel(j<w, j, i), sel(j<w, h+w-1-i, 2*w-1-j))"),
    "rot4_ccw": ("sel(h==w, 2*h, 0)", "2*w", "sel(i<h, sel(j<w, i, j-w), sel(j<w, h-1-j, 2*h-1-i))",
                 "sel(i<h, sel(j<w, j, w-1-i), sel(j<w, i-h, 2*w-1-j))"),
    "crop": ("p2", "p3", "p0+i", "p1+j"),
    "canvas": ("2*h", "2*w", "sel(i<h, i, 0)", "sel(j<w, j, 0)"),  # cells past the grid are set to 0 after
    "pad_edge": ("h+2", "w+2", "sel(i<1, 0, sel(i>h, h-1, i-1))", "sel(j<1, 0, sel(j>w, w-1, j-1))"),
}

_GATHER_SRC = r"""
#define sel(c, a, b) ((c) ? (a) : (b))
extern "C" __global__ void NAME(const unsigned char* __restrict__ src, const int* __restrict__ hin,
    const int* __restrict__ win, const int* __restrict__ P, int k1, int k2,
    unsigned char* __restrict__ dst, int* __restrict__ hout, int* __restrict__ wout, long long nquads) {
  long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nquads) return;
  long long b = q / 225;
  int c0 = (int)(q - b * 225) * 4;
  int hr = hin[b], wr = win[b];
  int h = hr > 0 ? hr : 1, w = wr > 0 ? wr : 1;
  int p0 = 0, p1 = 0, p2 = 0, p3 = 0;
  if (P) { p0 = P[b * 4]; p1 = P[b * 4 + 1]; p2 = P[b * 4 + 2]; p3 = P[b * 4 + 3]; }
  int H = (HEXPR), W = (WEXPR);
  bool ok = hr > 0 && H >= 1 && H <= 30 && W >= 1 && W <= 30;
  const unsigned char* s = src + b * 900;
  unsigned char v[4];
  #pragma unroll
  for (int e = 0; e < 4; ++e) {
    int c = c0 + e, i = c / 30, j = c - i * 30;
    unsigned char x = 10;
    if (ok && i < H && j < W) {
      int si = (SIEXPR), sj = (SJEXPR);
      if (si >= 0 && si < 30 && sj >= 0 && sj < 30) x = s[si * 30 + sj];
    }
    v[e] = x;
  }
  *reinterpret_cast<uchar4*>(dst + b * 900 + c0) = make_uchar4(v[0], v[1], v[2], v[3]);
  if (c0 == 0) { hout[b] = ok ? H : 0; wout[b] = ok ? W : 0; }
}
"""


def _py(expr: str) -> str:
    return expr.replace("/", "//")


def gather(g: GridBatch, op: str, k1: int = 1, k2: int = 1, params=None, use_kernel: bool = True) -> GridBatch:
    """Apply gather op `op` to every grid; `params` is an int32 [B, 4] array (p0..p3) for `crop`."""
    xp = g.xp
    if xp is not np and use_kernel:
        return _gather_cuda(g, op, k1, k2, params)
    if xp is np and use_kernel and params is None:
        return _gather_by_shape(g, op, k1, k2)
    if xp is np and use_kernel and op == "crop":
        return _crop_numpy(g, params)
    return gather_xp(g, op, k1, k2, params)


def _crop_numpy(g: GridBatch, params) -> GridBatch:
    """NumPy fast path of `crop`: one fancy index of each grid's window (rows p0.., columns p1..), the
    cells outside the p2 x p3 result or the 30x30 array PAD, as in the formulas."""
    n = len(g)
    p = np.asarray(params, np.int64).reshape(n, 4)
    H, W = p[:, 2], p[:, 3]
    ok = (g.h > 0) & (H >= 1) & (H <= MAX) & (W >= 1) & (W <= MAX)
    k = np.arange(MAX)
    rows, cols = p[:, :1] + k, p[:, 1:2] + k  # [n, 30] source row of output row i, column of column j
    rin = ok.reshape(n, 1) & (k < H.reshape(n, 1)) & (rows >= 0) & (rows < MAX)
    cin = (k < W.reshape(n, 1)) & (cols >= 0) & (cols < MAX)
    vals = g.data[np.arange(n).reshape(n, 1, 1), np.clip(rows, 0, MAX - 1)[:, :, None],
                  np.clip(cols, 0, MAX - 1)[:, None, :]]
    data = np.where(rin[:, :, None] & cin[:, None, :], vals, np.uint8(PAD)).astype(np.uint8)
    return GridBatch(data, np.where(ok, H, 0).astype(np.int32), np.where(ok, W, 0).astype(np.int32))


@lru_cache(maxsize=65536)
def _shape_table(op: str, k1: int, k2: int, h: int, w: int) -> tuple[int, int, np.ndarray | None]:
    """(H, W, flat source index of each output cell) for one input shape, from the same formulas."""
    env = {"h": max(h, 1), "w": max(w, 1), "k1": k1, "k2": k2, "sel": np.where,
           "i": np.arange(MAX).reshape(MAX, 1), "j": np.arange(MAX).reshape(1, MAX)}
    fh, fw, fi, fj = (_py(e) for e in GATHER[op])
    H, W = int(eval(fh, {}, env)), int(eval(fw, {}, env))  # noqa: S307 - fixed formulas
    if h == 0 or not (1 <= H <= MAX and 1 <= W <= MAX):
        return 0, 0, None
    si = (eval(fi, {}, env) + np.zeros((MAX, MAX), np.int64))[:H, :W]  # noqa: S307
    sj = (eval(fj, {}, env) + np.zeros((MAX, MAX), np.int64))[:H, :W]  # noqa: S307
    return H, W, (si * MAX + sj).ravel()


def _gather_by_shape(g: GridBatch, op: str, k1: int, k2: int) -> GridBatch:
    """NumPy fast path: grids of one shape share one index table, so each shape is a single fancy index."""
    n = len(g)
    out = GridBatch.empty(n)
    flat = g.data.reshape(n, CELLS)
    key = g.h.astype(np.int64) * 64 + g.w
    uniq, inverse = np.unique(key, return_inverse=True)
    for u, (hh, ww) in enumerate(zip(uniq // 64, uniq % 64)):
        H, W, table = _shape_table(op, k1, k2, int(hh), int(ww))
        if table is None:
            continue
        sel = np.flatnonzero(inverse == u)
        out.data[sel, :H, :W] = flat[sel][:, table].reshape(len(sel), H, W)
        out.h[sel], out.w[sel] = H, W
    return out


def gather_xp(g: GridBatch, op: str, k1: int = 1, k2: int = 1, params=None) -> GridBatch:
    """Array-module version (the reference for the kernel): the formulas evaluated on broadcast arrays."""
    xp = g.xp
    n = len(g)
    hr, wr = g.h.reshape(n, 1, 1), g.w.reshape(n, 1, 1)
    env = {"h": xp.maximum(hr, 1), "w": xp.maximum(wr, 1), "k1": k1, "k2": k2,
           "i": xp.arange(MAX, dtype=xp.int32).reshape(1, MAX, 1),
           "j": xp.arange(MAX, dtype=xp.int32).reshape(1, 1, MAX), "sel": xp.where}
    if params is not None:
        for k in range(4):
            env[f"p{k}"] = params[:, k].reshape(n, 1, 1)
    fh, fw, fi, fj = (_py(e) for e in GATHER[op])
    H = eval(fh, {}, env) + xp.zeros_like(hr)  # noqa: S307 - fixed formulas from the table above
    W = eval(fw, {}, env) + xp.zeros_like(wr)  # noqa: S307
    si = eval(fi, {}, env) + xp.zeros((n, MAX, MAX), xp.int32)  # noqa: S307
    sj = eval(fj, {}, env) + xp.zeros((n, MAX, MAX), xp.int32)  # noqa: S307
    ok = (hr > 0) & (H >= 1) & (H <= MAX) & (W >= 1) & (W <= MAX)
    inside = ok & (env["i"] < H) & (env["j"] < W) & (si >= 0) & (si < MAX) & (sj >= 0) & (sj < MAX)
    flat = xp.where(inside, si * MAX + sj, 0).reshape(n, CELLS)
    vals = xp.take_along_axis(g.data.reshape(n, CELLS), flat, axis=1).reshape(n, MAX, MAX)
    data = xp.where(inside, vals, xp.uint8(PAD)).astype(xp.uint8)
    ok = ok.reshape(n)
    return GridBatch(data, xp.where(ok, H.reshape(n), 0).astype(xp.int32),
                     xp.where(ok, W.reshape(n), 0).astype(xp.int32))


def _gather_cuda(g: GridBatch, op: str, k1: int, k2: int, params) -> GridBatch:
    import cupy

    fh, fw, fi, fj = GATHER[op]
    src = (_GATHER_SRC.replace("NAME", f"gather_{op}").replace("HEXPR", fh).replace("WEXPR", fw)
           .replace("SIEXPR", fi).replace("SJEXPR", fj))
    kern = _compiled(f"gather_{op}", src)
    n = len(g)
    out = GridBatch(cupy.empty((n, MAX, MAX), cupy.uint8), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int32))
    if n == 0:
        return out
    nquads = n * (CELLS // 4)
    p = cupy.ascontiguousarray(params, dtype=cupy.int32) if params is not None else None
    kern((_blocks(nquads, 256),), (256,),
         (cupy.ascontiguousarray(g.data), cupy.ascontiguousarray(g.h, dtype=cupy.int32),
          cupy.ascontiguousarray(g.w, dtype=cupy.int32), p if p is not None else 0, np.int32(k1), np.int32(k2),
          out.data, out.h, out.w, np.int64(nquads)))
    return out


# -- colour LUT -----------------------------------------------------------------------------------
_LUT_SRC = r"""
extern "C" __global__ void colour_lut(const uchar4* __restrict__ src, const unsigned char* __restrict__ lut,
                                      uchar4* __restrict__ dst, long long nquads) {
  long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (q >= nquads) return;
  const unsigned char* t = lut + (q / 225) * 11;
  uchar4 v = src[q];
  dst[q] = make_uchar4(t[v.x], t[v.y], t[v.z], t[v.w]);
}
"""


def apply_lut(g: GridBatch, lut, use_kernel: bool = True) -> GridBatch:
    """Map colours through a per-grid table `lut[B, 11]`, or one table `lut[1, 11]` for every grid
    (entry 10, PAD, must map to PAD)."""
    xp = g.xp
    n = len(g)
    lut = xp.ascontiguousarray(lut, dtype=xp.uint8)
    if lut.shape[0] == 1 and xp is np and use_kernel:
        return GridBatch(_lookup(lut[0], g.data), g.h, g.w)
    if lut.shape[0] != n:
        lut = xp.ascontiguousarray(xp.broadcast_to(lut, (n, PAD + 1)))
    if xp is np and use_kernel:
        return _lut_by_row(g, lut)
    if not use_kernel:
        data = xp.take_along_axis(lut, g.data.reshape(n, CELLS).astype(xp.int32), axis=1)
        return GridBatch(data.reshape(n, MAX, MAX), g.h, g.w)
    out = xp.empty_like(g.data)
    nquads = n * (CELLS // 4)
    if n:
        _compiled("colour_lut", _LUT_SRC)((_blocks(nquads, 256),), (256,),
                                          (xp.ascontiguousarray(g.data), lut, out, np.int64(nquads)))
    return GridBatch(out, g.h, g.w)


def _lut_by_row(g: GridBatch, lut: np.ndarray) -> GridBatch:
    """NumPy fast path: grids that share a colour table are mapped with one small-table lookup."""
    if len(g) == 0:
        return g
    rows, inverse = np.unique(lut, axis=0, return_inverse=True)
    if len(rows) == 1:
        return GridBatch(_lookup(rows[0], g.data), g.h, g.w)
    out = np.empty_like(g.data)
    inverse = inverse.reshape(-1)
    for r, row in enumerate(rows):
        sel = np.flatnonzero(inverse == r)
        out[sel] = _lookup(row, g.data[sel])
    return GridBatch(out, g.h, g.w)


_PAIR_TABLES: dict[bytes, np.ndarray] = {}  # colour table -> its table of cell pairs (128 KiB each)
_PAIRS_FROM = 1 << 16  # cells from which a lookup goes two cells at a time (building a pair table costs ~0.3 ms)


def _lookup(row: np.ndarray, data: np.ndarray) -> np.ndarray:
    """`row[data]` for a uint8 colour table: a large array is looked up two cells at a time, through a table
    of all 65,536 cell pairs (2.3x one cell at a time on CPU2: half the index conversions and gathers)."""
    if data.size < _PAIRS_FROM or data.size % 2:
        return row[data]
    key = row.tobytes()
    pairs = _PAIR_TABLES.get(key)
    if pairs is None:
        full = np.zeros(256, np.uint8)
        full[:len(row)] = row
        code = np.arange(1 << 16)
        pairs = (full[code >> 8].astype(np.uint16) << 8) | full[code & 0xFF]  # both bytes, either byte order
        if len(_PAIR_TABLES) >= 64:
            _PAIR_TABLES.pop(next(iter(_PAIR_TABLES)))
        _PAIR_TABLES[key] = pairs
    return pairs[np.ascontiguousarray(data).reshape(-1).view(np.uint16)].view(np.uint8).reshape(data.shape)


# -- background colour ----------------------------------------------------------------------------
_COUNT_SRC = r"""
extern "C" __global__ void colour_counts(const unsigned char* __restrict__ data, int* __restrict__ counts,
                                         int* __restrict__ bg, long long n) {
  long long g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (g >= n) return;
  const unsigned char* d = data + g * 900;
  int c[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = lane; k < 900; k += 32) {
    unsigned char v = d[k];
    #pragma unroll
    for (int col = 0; col < 10; ++col) c[col] += (v == col);
  }
  #pragma unroll
  for (int col = 0; col < 10; ++col)
    for (int off = 16; off > 0; off >>= 1) c[col] += __shfl_down_sync(0xffffffffu, c[col], off);
  if (lane == 0) {
    int best = 0;
    #pragma unroll
    for (int col = 0; col < 10; ++col) { counts[g * 10 + col] = c[col]; if (c[col] > c[best]) best = col; }
    bg[g] = best;
  }
}
"""


def memo(g: GridBatch, key: tuple, compute):
    """A derived array of this batch, computed once: the primitives of one search step share many."""
    if key not in g.memo:
        g.memo[key] = compute()
    return g.memo[key]


def colour_counts(g: GridBatch):
    """Cells of each colour per grid, `[B, 10]` int (PAD not counted); memoized on the batch."""
    if "counts" not in g.memo and g.xp is not np:
        xp = g.xp
        n = len(g)
        counts, bg = xp.zeros((n, PAD), xp.int32), xp.zeros(n, xp.int32)
        if n:
            _compiled("colour_counts", _COUNT_SRC)(((n * 32 + 255) // 256,), (256,),
                                                   (xp.ascontiguousarray(g.data), counts, bg, np.int64(n)))
        g.memo["counts"], g.memo["bg"] = counts, bg
    if "counts" not in g.memo:
        xp = g.xp
        n = len(g)
        idx = (xp.arange(n, dtype=xp.int32).reshape(n, 1) * 11 + g.data.reshape(n, CELLS)).ravel()
        g.memo["counts"] = xp.bincount(idx, minlength=n * 11).reshape(n, 11)[:, :PAD]
    return g.memo["counts"]


def background(g: GridBatch):
    """Most frequent colour per grid (ties go to the smallest colour), int32 [B]; memoized on the batch."""
    if "bg" not in g.memo:
        g.memo["bg"] = colour_counts(g).argmax(axis=1).astype(g.xp.int32)
    return g.memo["bg"]


__all__ = ["GATHER", "apply_lut", "background", "colour_counts", "gather", "gather_xp", "memo"]
