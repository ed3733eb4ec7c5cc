"""GridBatch: B ARC grids as one `[B, 30, 30]` uint8 array padded with a sentinel, plus heights and widths.

The sentinel PAD (10) is not a colour, so padded cells never match a colour test. A grid with height 0 is
invalid (a primitive's result that would be empty or larger than 30x30). Works on NumPy and CuPy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

MAX = 30
CELLS = MAX * MAX
PAD = 10
NCOL = 10

_rng = np.random.default_rng(0x9E3779B9)
_WORD_MULT = (_rng.integers(1, 2**63, size=CELLS // 4, dtype=np.uint64) * np.uint64(2) + np.uint64(1))


def get_xp(a: Any):
    """The array module of `a` (cupy for device arrays, numpy otherwise) without importing cupy."""
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def row_counts(xp, mask):
    """int64 [m]: the True cells of each row of a bool `[m, 900]` mask. On NumPy, 4 cells a 32-bit word are
    added at once (each byte lane sums at most 225 ones, so no lane carries): 6x `count_nonzero` on CPU2."""
    if xp is not np:
        return xp.count_nonzero(mask, axis=1)
    s = np.ascontiguousarray(mask).reshape(len(mask), CELLS).view(np.uint32).sum(axis=1, dtype=np.uint32)
    return ((s & 0xFF) + ((s >> 8) & 0xFF) + ((s >> 16) & 0xFF) + (s >> 24)).astype(np.int64)


@dataclass
class GridBatch:
    """B grids: `data[B, 30, 30]` uint8 (PAD outside each grid), `h[B]` and `w[B]` int32 (0 = invalid)."""

    data: Any
    h: Any
    w: Any
    memo: dict = field(default_factory=dict, repr=False, compare=False)  # derived arrays (background, labels)

    def __len__(self) -> int:
        return int(self.data.shape[0])

    @property
    def xp(self):
        return get_xp(self.data)

    @property
    def valid(self):
        return self.h > 0

    # -- construction and conversion ------------------------------------------------------------
    @classmethod
    def empty(cls, n: int, xp=np) -> "GridBatch":
        return cls(xp.full((n, MAX, MAX), PAD, dtype=xp.uint8), xp.zeros(n, xp.int32), xp.zeros(n, xp.int32))

    @classmethod
    def from_lists(cls, grids: Sequence[Sequence[Sequence[int]]]) -> "GridBatch":
        """From ARC JSON-style lists of rows (or 2-D NumPy arrays); callers validate beforehand."""
        out = cls.empty(len(grids))
        for k, g in enumerate(grids):
            arr = np.asarray(g, dtype=np.uint8)
            if arr.ndim != 2:
                arr = arr.reshape(len(g), -1)
            hh, ww = arr.shape
            out.data[k, :hh, :ww] = arr
            out.h[k], out.w[k] = hh, ww
        return out

    def to_lists(self) -> list[list[list[int]] | None]:
        """Back to lists of rows; None for invalid grids."""
        return [a.tolist() if a is not None else None for a in self.to_arrays()]

    def to_arrays(self) -> list[np.ndarray | None]:
        host = self.to(np)
        data, h, w = host.data, host.h, host.w
        return [data[k, :h[k], :w[k]].copy() if h[k] > 0 else None for k in range(len(h))]

    def to(self, xp) -> "GridBatch":
        """The same batch on another array module (numpy <-> cupy)."""
        if xp is self.xp:
            return self
        if xp is np:
            return GridBatch(self.xp.asnumpy(self.data), self.xp.asnumpy(self.h), self.xp.asnumpy(self.w))
        return GridBatch(xp.asarray(self.data), xp.asarray(self.h), xp.asarray(self.w))

    def take(self, index) -> "GridBatch":
        return GridBatch(self.data[index], self.h[index], self.w[index])

    def transposed(self) -> "GridBatch":
        """Rows become columns; an invalid grid (height 0) stays invalid."""
        xp = self.xp
        return GridBatch(xp.ascontiguousarray(self.data.transpose(0, 2, 1)),
                         xp.where(self.h > 0, self.w, 0).astype(xp.int32), self.h)

    # -- comparison ----------------------------------------------------------------------------
    def hash64(self, use_kernel: bool = True):
        """64-bit content hash per grid (shape included); invalid grids all hash to 0.

        A sum of 32-bit word (four cells) x position multiplier modulo 2^64, then mixed: the sum's order does
        not change it, so the GPU kernel (one warp per grid) and the NumPy version give identical bits.
        """
        xp = self.xp
        if xp is not np and use_kernel:
            return _hash_cuda(self)
        words = xp.ascontiguousarray(self.data).reshape(len(self), CELLS).view(xp.uint32)  # 225 words a grid
        if xp is np:  # the same sum (it wraps modulo 2^64 either way), in one pass without temporaries
            hsh = np.einsum("ij,j->i", words.astype(np.uint64), _WORD_MULT)
        else:
            hsh = (words.astype(xp.uint64) * xp.asarray(_WORD_MULT)).sum(axis=1, dtype=xp.uint64)
        hsh ^= self.h.astype(xp.uint64) * xp.uint64(0x9E3779B97F4A7C15)
        hsh ^= self.w.astype(xp.uint64) * xp.uint64(0xC2B2AE3D27D4EB4F)
        hsh ^= hsh >> xp.uint64(31)
        hsh *= xp.uint64(0xBF58476D1CE4E5B9)
        hsh ^= hsh >> xp.uint64(29)
        return xp.where(self.h > 0, hsh, xp.uint64(0))


_HASH_SRC = r"""
extern "C" __global__ void grid_hash(const unsigned char* __restrict__ data, const int* __restrict__ h,
    const int* __restrict__ w, const unsigned long long* __restrict__ mult, unsigned long long* out, long long n) {
  long long g = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  int lane = threadIdx.x & 31;
  if (g >= n) return;
  const unsigned int* d = reinterpret_cast<const unsigned int*>(data + g * 900);
  unsigned long long acc = 0;
  for (int c = lane; c < 225; c += 32) acc += (unsigned long long)d[c] * mult[c];
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  if (lane == 0) {
    acc ^= (unsigned long long)h[g] * 0x9E3779B97F4A7C15ull;
    acc ^= (unsigned long long)w[g] * 0xC2B2AE3D27D4EB4Full;
    acc ^= acc >> 31;
    acc *= 0xBF58476D1CE4E5B9ull;
    acc ^= acc >> 29;
    out[g] = h[g] > 0 ? acc : 0ull;
  }
}
"""
_MULT_DEVICE: dict[int, object] = {}


def word_mult_device():
    """The word multipliers of the grid hash on the current CUDA device (copied there once per device)."""
    import cupy

    dev = cupy.cuda.Device().id
    if dev not in _MULT_DEVICE:
        _MULT_DEVICE[dev] = cupy.asarray(_WORD_MULT)
    return _MULT_DEVICE[dev]


def _hash_cuda(g: "GridBatch"):
    import cupy

    from .kernels import _compiled

    n = len(g)
    out = cupy.empty(n, cupy.uint64)
    if n:
        threads = 256
        _compiled("grid_hash", _HASH_SRC)(((n * 32 + threads - 1) // threads,), (threads,), (
            cupy.ascontiguousarray(g.data), cupy.ascontiguousarray(g.h, dtype=cupy.int32),
            cupy.ascontiguousarray(g.w, dtype=cupy.int32), word_mult_device(), out, np.int64(n)))
    return out
