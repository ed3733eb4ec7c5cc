"""Primitives meant for a task's inputs (`first` families) run once over the inputs of several K-groups.

A shard's tasks are searched in K-groups, one after another, so a primitive applied to the inputs would run
once per group, and again when its depth-1 states are rebuilt: about 200 instances, each launched on a few
hundred small grids, where the kernel launches cost more than the work (their per-op statistics at cd41b94:
6.8 s of device time for 2,823 grids each, on one H200). Here each instance runs once on the inputs of a
wave of groups, and each group reads its own rows (`GroupSearch.given`). A wave holds as many groups as its
results fit in `cap_bytes`. Every primitive maps each grid on its own, so the grids are the same.
"""
from __future__ import annotations

from ..engine import Timeline
from .grids import CELLS, GridBatch

GPU_CAP = 1 << 30  # bytes of results held at once on a GPU
CPU_CAP = 1 << 28  # and in host memory


def waves(sizes: list[int], per_grid: int, cap_bytes: int) -> list[list[int]]:
    """Consecutive indices of `sizes` (grids per group) cut so that each wave's grids x per_grid bytes stay
    within cap_bytes; a group larger than that is a wave of its own."""
    out: list[list[int]] = []
    total = 0
    for i, n in enumerate(sizes):
        if out and (total + n) * per_grid <= cap_bytes:
            out[-1].append(i)
            total += n
        else:
            out.append([i])
            total = n
    return out


def concat(batches: list[GridBatch]) -> GridBatch:
    """One GridBatch of several, in order (same array module)."""
    xp = batches[0].xp
    return GridBatch(*(xp.concatenate([getattr(b, k) for b in batches]) for k in ("data", "h", "w")))


def share_first(searches: list, backend, stats=None) -> None:
    """Run every `first` primitive once on the inputs of all `searches` (GroupSearch objects of one wave) and
    give each search its rows; the primitives' statistics are recorded here, one batch each."""
    if not searches:
        return
    prims = searches[0].prims
    firsts = [pi for pi, p in enumerate(prims) if p.family.first]
    if not firsts:
        return
    inp = concat([gs.inp for gs in searches])
    marks = Timeline(backend, len(firsts))
    results = []
    for k, pi in enumerate(firsts):
        marks.mark(k)
        results.append(prims[pi](inp))
    marks.mark(len(firsts))
    start = 0
    for gs in searches:
        rows = slice(start, start + len(gs.inp))
        gs.given = {pi: GridBatch(r.data[rows], r.h[rows], r.w[rows]) for pi, r in zip(firsts, results)}
        start = rows.stop
    if stats is not None:
        for pi, (wall, dev) in zip(firsts, marks.intervals()):
            stats.for_op(prims[pi].name, backend.label).add_batch(len(inp), wall, dev)


def cap_for(backend) -> int:
    """Bytes of results a wave may hold on this backend."""
    return GPU_CAP if backend.is_gpu else CPU_CAP


def per_grid(prims) -> int:
    """Bytes of results one input grid takes: a grid of cells and its size, for each `first` primitive."""
    return sum(p.family.first for p in prims) * (CELLS + 8)
