"""Benchmark cases: each makes a batch of B items on an array module, runs the batched op on it, and
states the bytes it must move and the FLOPs it must do, so results can be set against the hardware peaks."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

MiB = 1 << 20


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    make: Callable[[Any, int, int], Any]  # (xp, batch, seed) -> data
    run: Callable[[Any, Any], Any]  # (xp, data) -> result
    item: Callable[[Any, int], Any]  # (data, k) -> data of item k alone (for the per-item loop)
    bytes_per_item: float
    flops_per_item: float = 0.0
    max_batch: int = 1 << 20
    quick_batch: int = 64


def _vec(n: int, dtype):
    def make(xp, b, seed):
        rng = np.random.default_rng(seed)
        if np.dtype(dtype).kind == "f":
            return [xp.asarray(rng.random((b, n), dtype=np.float32) + 0.5) for _ in range(2)]
        return [xp.asarray(rng.integers(0, np.iinfo(dtype).max, (b, n), dtype=dtype)) for _ in range(2)]
    return make


def _pair_item(d, k):
    return [a[k:k + 1] for a in d]


VEC = 1 << 20  # elements per item: 4 MiB of float32


def elementwise_cases() -> list[Case]:
    from gpubatch.engine.elementwise import binary, unary

    f = np.float32

    def b(op):
        return lambda xp, d: binary(op, d[0], d[1])

    def u(op):
        return lambda xp, d: unary(op, d[0])
    return [
        Case("add_f32", "elementwise", _vec(VEC, f), b("add"), _pair_item, 12 * VEC, VEC, 256, 2),
        Case("mul_f32", "elementwise", _vec(VEC, f), b("mul"), _pair_item, 12 * VEC, VEC, 256, 2),
        Case("square_f32", "elementwise", _vec(VEC, f), u("square"), _pair_item, 8 * VEC, VEC, 256, 2),
        Case("sqrt_f32", "elementwise", _vec(VEC, f), u("sqrt"), _pair_item, 8 * VEC, VEC, 256, 2),
        Case("exp_f32", "elementwise", _vec(VEC, f), u("exp"), _pair_item, 8 * VEC, VEC, 256, 2),
        Case("xor_u8", "elementwise", _vec(4 * VEC, np.uint8), b("xor"), _pair_item, 12 * VEC, 0, 256, 2),
        Case("xor_u32", "elementwise", _vec(VEC, np.uint32), b("xor"), _pair_item, 12 * VEC, 0, 256, 2),
    ]


def matmul_cases() -> list[Case]:
    out = []
    for n in (64, 128, 256, 512, 1024):
        def make(xp, b, seed, n=n):
            rng = np.random.default_rng(seed)
            return [xp.asarray(rng.random((b, n, n), dtype=np.float32)) for _ in range(2)]
        out.append(Case(f"matmul_{n}", "matmul", make, lambda xp, d: xp.matmul(d[0], d[1]), _pair_item,
                        3 * 4 * n * n, 2.0 * n**3, max(1, (1 << 31) // (12 * n * n)), 4))
    return out


def arc_cases(corpus: list | None = None) -> list[Case]:
    """One case per DSL family (its first instance), plus raw connected-component labelling."""
    from gpubatch.arc.dsl import REGISTRY
    from gpubatch.arc.grids import GridBatch
    from gpubatch.arc.kernels import background
    from gpubatch.arc.labels import label

    def make(xp, b, seed):
        rng = np.random.default_rng(seed)
        host = _arc_like(rng, b, corpus)
        return host.to(xp)

    def item(d, k):
        return d.take(slice(k, k + 1))

    out = []
    for fam in REGISTRY.families.values():
        if not fam.instances():
            continue  # cmap: its maps are learned by the search, never enumerated
        prim = fam.instances()[0]
        out.append(Case(f"arc_{fam.name}", f"arc/{fam.group}", make,
                        lambda xp, g, p=prim: p(GridBatch(g.data, g.h, g.w)),
                        item, 2 * 900, 0, 1 << 20, 256))

    def cc(xp, g):
        return label(g, background(GridBatch(g.data, g.h, g.w)), conn8=True, univalued=True)
    out.append(Case("arc_components", "arc/objects", make, cc, item, 900 + 1800, 0, 1 << 20, 256))
    return out


_LAST: dict = {}


def _arc_like(rng, b: int, corpus: list | None):
    """b grids: drawn from real ARC grids when a corpus is given, else random blobs of random shapes.
    The last batch made is kept, since every ARC case asks for the same one."""
    from gpubatch.arc.grids import GridBatch

    key = (b, id(corpus))
    if key in _LAST:
        return _LAST[key]
    if len(_LAST) >= 3:
        _LAST.pop(next(iter(_LAST)))
    if corpus:
        base = GridBatch.from_lists(corpus)
        _LAST[key] = base.take(rng.integers(0, len(corpus), b))
        return _LAST[key]
    out = GridBatch.empty(b)
    hs, ws = rng.integers(3, 31, b), rng.integers(3, 31, b)
    blobs = rng.integers(0, 4, (b, 10, 10)).repeat(3, 1).repeat(3, 2)
    noise = rng.integers(0, 10, (b, 30, 30))
    data = np.where(rng.random((b, 30, 30)) < 0.1, noise, blobs).astype(np.uint8)
    mask = (np.arange(30)[None, :, None] < hs[:, None, None]) & (np.arange(30)[None, None, :] < ws[:, None, None])
    out.data[:] = np.where(mask, data, 10)
    out.h[:], out.w[:] = hs, ws
    _LAST[key] = out
    return out


_STDLIB: list = []


def _stdlib_tensors() -> list:
    """The running Python's standard library, parsed once (the analyze cases' corpus)."""
    if not _STDLIB:
        import sysconfig

        from gpubatch.analyze.discover import discover
        from gpubatch.analyze.parse import parsed

        root = sysconfig.get_paths()["stdlib"]
        files = [p for p in discover([root]) if "site-packages" not in str(p)]
        _STDLIB.extend(ft for ft in parsed(files, os.cpu_count() or 1, 4_000_000, None) if ft.error is None)
    return _STDLIB


def analyze_cases() -> list[Case]:
    """The analyze stages on the standard library's node arrays: one item is one file."""
    from gpubatch.analyze.batched import Thresholds, block_metrics, concat, rule_masks, to_device

    class Files:
        """b files' arrays on the device; `take(slice(0, n))` gives the first n files' arrays."""

        def __init__(self, xp, files):
            self.xp, self.files = xp, files
            nodes, blocks = concat(files)
            self.nodes, self.blocks = to_device(xp, nodes), to_device(xp, blocks)

        def take(self, sl):
            return Files(self.xp, self.files[sl])

        def to(self, xp):
            return Files(xp, self.files)

        def __getitem__(self, k):
            return (self.nodes, self.blocks)[k]

    def make(xp, b, seed):
        files = _stdlib_tensors()
        return Files(xp, [files[i % len(files)] for i in range(b)])

    def item(d, k):
        return d.take(slice(k, k + 1))

    nodes_per_file = 3700  # mean over CPython 3.11's stdlib, for GB/s
    th = Thresholds(banned_calls=("os.system", "pickle.loads"), banned_imports=("telnetlib",))
    return [Case("analyze_metrics", "analyze", make, lambda xp, d: block_metrics(xp, *d), item,
                 nodes_per_file * 8 * 8, 0, 1 << 14, 64),
            Case("analyze_rules", "analyze", make, lambda xp, d: rule_masks(xp, d[0], th), item,
                 nodes_per_file * 8 * 6, 0, 1 << 14, 64)]


def all_cases(corpus: list | None = None) -> list[Case]:
    return elementwise_cases() + matmul_cases() + arc_cases(corpus) + analyze_cases()
