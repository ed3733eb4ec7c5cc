"""The duplicates stage of the analyze job (`--duplicates`): after every file's report, one clone search over
all of them, on the run's GPU when it has one, else NumPy; each group becomes a GB301 finding at each of its
members (the others as related places), subject to select/ignore, per-file ignores and `noqa` like any rule."""
from __future__ import annotations

import dataclasses
import time

from .clones.groups import CloneGroup
from .clones.search import find_clones

MAX_RELATED = 10  # other copies named by each copy's finding (a group of n would make n^2 otherwise); the
# JSON report's `duplicates` lists every copy


def _others(group: CloneGroup, k: int, n: int) -> list:
    """The first n members but member k (a few, whatever the group's size: each copy's finding is O(n))."""
    return [m for i, m in enumerate(group.members[:n + 1]) if i != k][:n]


def _message(group: CloneGroup, k: int) -> str:
    shown = ", ".join(f"{m.path}:{m.line}-{m.end_line}" for m in _others(group, k, 3))
    rest = len(group.members) - 4
    more = f" and {rest} more" if rest > 0 else ""
    similar = f", {group.similarity:.0%} similar" if group.kind == 3 else ""
    return (f"Duplicate code ({group.kind_name}{similar}, {len(group.members)} copies, "
            f"{group.members[k].end_line - group.members[k].line + 1} lines): also at {shown}{more}")


def add_duplicates(result, executor, policy) -> None:
    """Search `result.files` for clones; add the groups to `result.duplicates` and their findings to the files'
    reports (a file with an error has no features and takes no part)."""
    from ..engine import numpy_backend
    from .model import Finding

    t0 = time.perf_counter()
    reports = [r for r in result.files if r.features is not None]
    backend = executor.backend or numpy_backend()  # the run's GPU once started, else NumPy
    groups = find_clones(backend, [r.features for r in reports], [r.path for r in reports], policy.duplicates)
    nodes = sum(len(r.features) for r in reports)
    executor.stats.for_op("duplicates", "gpu" if backend.is_gpu else "cpu").add_batch(
        len(reports), time.perf_counter() - t0, work=nodes)
    result.duplicates = groups
    quiet = {r.path: set(r.features.quiet.tolist()) for r in reports}  # 0: the whole file (`# ruff: noqa`)
    added: dict[str, list[Finding]] = {}
    level, enabled = policy.level("GB301"), {p: policy.enabled("GB301", p) for p in quiet}
    for group in groups:
        for k, m in enumerate(group.members):
            if not enabled[m.path] or quiet[m.path] & {0, m.line}:
                continue
            related = tuple((o.path, o.line, o.end_line) for o in _others(group, k, MAX_RELATED))
            added.setdefault(m.path, []).append(
                Finding(m.path, m.line, 0, "GB301", _message(group, k), level, m.end_line, 0, related))
    result.files = [dataclasses.replace(r, findings=tuple(sorted(r.findings + tuple(added[r.path]),
                                                                 key=lambda x: (x.line, x.col, x.code))))
                    if r.path in added else r for r in result.files]
