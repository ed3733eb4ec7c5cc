"""GridBatch: B ARC grids as one `[B, 30, 30]` uint8 array padded with a sentinel, plus heights and widths.

The sentinel PAD (10) is not a colour, so padded cells never match a colour test. A grid with height 0 is
invalid (a primitive's result that would be empty or larger than 30x30). Works on NumPy and CuPy arrays.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

MAX = 30
CELLS = MAX * MAX
PAD = 10
NCOL = 10

_rng = np.random.default_rng(0x9E3779B9)
_POS_MULT = (_rng.integers(1, 2**63, size=CELLS, dtype=np.uint64) * np.uint64(2) + np.uint64(1))


def get_xp(a: Any):
    """The array module of `a` (cupy for device arrays, numpy otherwise) without importing cupy."""
    mod = type(a).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


@dataclass
class GridBatch:
    """B grids: `data[B, 30, 30]` uint8 (PAD outside each grid), `h[B]` and `w[B]` int32 (0 = invalid)."""

    data: Any
    h: Any
    w: Any

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

    @staticmethod
    def concat(batches: Iterable["GridBatch"]) -> "GridBatch":
        bs = list(batches)
        xp = bs[0].xp
        return GridBatch(xp.concatenate([b.data for b in bs]), xp.concatenate([b.h for b in bs]),
                         xp.concatenate([b.w for b in bs]))

    # -- comparison ----------------------------------------------------------------------------
    def hash64(self):
        """64-bit content hash per grid (shape included); invalid grids all hash to 0."""
        xp = self.xp
        flat = self.data.reshape(len(self), CELLS).astype(xp.uint64)
        mult = xp.asarray(_POS_MULT)
        hsh = (flat * mult).sum(axis=1, dtype=xp.uint64)
        hsh ^= self.h.astype(xp.uint64) * xp.uint64(0x9E3779B97F4A7C15)
        hsh ^= self.w.astype(xp.uint64) * xp.uint64(0xC2B2AE3D27D4EB4F)
        hsh ^= hsh >> xp.uint64(31)
        hsh *= xp.uint64(0xBF58476D1CE4E5B9)
        hsh ^= hsh >> xp.uint64(29)
        return xp.where(self.h > 0, hsh, xp.uint64(0))

    def equals(self, other: "GridBatch"):
        """Per-grid exact equality (shape and cells); invalid grids are equal to nothing."""
        xp = self.xp
        same = (self.data == other.data).reshape(len(self), CELLS).all(axis=1)
        return same & (self.h == other.h) & (self.w == other.w) & (self.h > 0)
