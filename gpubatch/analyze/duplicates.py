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


SHOWN = 3  # other copies a finding's message names


class _Told:
    """What a group's findings say: each copy's related places and message. Every copy past the first few
    names the same others, so those are made once per group (a group of 44 copies makes 44 findings)."""

    def __init__(self, group: CloneGroup):
        self.group = group
        places = [(m.path, m.line, m.end_line) for m in group.members[:MAX_RELATED + 1]]
        self.places = places
        self.related = tuple(places[:MAX_RELATED])
        self.shown = _shown(places[:SHOWN])
        rest = len(group.members) - SHOWN - 1
        similar = f", {group.similarity:.0%} similar" if group.kind == 3 else ""
        self.head = f"Duplicate code ({group.kind_name}{similar}, {len(group.members)} copies, "
        self.more = f" and {rest} more" if rest > 0 else ""

    def related_to(self, k: int) -> tuple:
        return self.related if k >= MAX_RELATED else tuple(p for i, p in enumerate(self.places) if i != k)[:MAX_RELATED]

    def message(self, k: int) -> str:
        m = self.group.members[k]
        shown = self.shown if k >= SHOWN else _shown([p for i, p in enumerate(self.places[:SHOWN + 1]) if i != k])
        return f"{self.head}{m.end_line - m.line + 1} lines): also at {shown}{self.more}"


def _shown(places) -> str:
    return ", ".join(f"{path}:{a}-{b}" for path, a, b in places)


def add_duplicates(result, executor, policy) -> None:
    """Search `result.files` for clones; add the groups to `result.duplicates` and their findings to the files'
    reports (a file with an error has no features and takes no part)."""
    from ..engine import numpy_backend
    from ..engine.ops import is_oom
    from .model import Finding

    t0 = time.perf_counter()
    reports = [r for r in result.files if r.features is not None]
    backend = executor.backend or numpy_backend()  # the run's GPU once started, else NumPy
    feats, paths = [r.features for r in reports], [r.path for r in reports]
    fell_back = False
    try:
        groups = find_clones(backend, feats, paths, policy.duplicates)
    except Exception as exc:  # the device's memory cannot hold the search: NumPy gives the same groups
        if not (backend.is_gpu and is_oom(exc)):
            raise
        backend.release()
        result.warnings.append(f"duplicates: the GPU ran out of memory ({type(exc).__name__}); searched on the CPU")
        backend, fell_back = numpy_backend(), True
        groups = find_clones(backend, feats, paths, policy.duplicates)
    nodes = sum(len(f) for f in feats)
    st = executor.stats.for_op("duplicates", "gpu" if backend.is_gpu else "cpu")
    st.add_batch(len(reports), time.perf_counter() - t0, work=nodes)
    st.cpu_fallbacks += fell_back
    result.duplicates = groups
    # a copy's finding is left out where GB301 is off for its file, or `noqa` holds its line or the whole file (0)
    quiet = {r.path: set(r.features.quiet.tolist()) if policy.enabled("GB301", r.path) else None for r in reports}
    added: dict[str, list[Finding]] = {}
    level = policy.level("GB301")
    for group in groups:
        told = _Told(group)
        for k, m in enumerate(group.members):
            q = quiet[m.path]
            if q is None or q and (0 in q or m.line in q):
                continue
            added.setdefault(m.path, []).append(
                Finding(m.path, m.line, 0, "GB301", told.message(k), level, m.end_line, 0, told.related_to(k)))
    result.files = [_with(r, added[r.path]) if r.path in added else r for r in result.files]


def _with(report, more: list):
    """`report` with the findings `more` among its own, in order of line, column and code."""
    return dataclasses.replace(report, findings=tuple(sorted(report.findings + tuple(more), key=_where)))


def _where(f) -> tuple:
    return f.line, f.col, f.code
