"""The duplicates stage of `analyze`: every file's features joined into one set of arrays, the search and the
group building run on the backend's array module (only the groups' members become objects on the host)."""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from .detect import Segments, chain, find_segments
from .features import Features
from .groups import CloneGroup, build_groups, line_tables
from .lines import line_segments


@dataclass(frozen=True)
class CloneSettings:
    """`analyze.duplicates.*`: the smallest clone reported, and how near a near-miss must be."""

    min_lines: int = 4
    min_nodes: int = 14
    min_nodes_renamed: int = 40  # renamed copies must be longer: by shape alone, short stretches look alike
    min_similarity: float = 0.8
    max_gap: int = 12
    ignore_docstrings: bool = True
    ignore_imports: bool = True
    ignore_signatures: bool = True
    lines: bool = True  # also copies of more than min_lines equal code lines, however few nodes (pylint's rule)


def find_clones(backend, features: list[Features], paths: list[str], settings: CloneSettings) -> list[CloneGroup]:
    """Clone groups among `features` (one per path, in discovery order: the first copy is the original)."""
    counts = np.asarray([len(f) for f in features], np.int64)
    if counts.sum() == 0:
        return []
    cat = {k: np.concatenate([getattr(f, k) for f in features]) for k in ("shape", "exact", "line", "last")}
    file_of = np.repeat(np.arange(len(features), dtype=np.int64), counts)
    ends = np.cumsum(counts)
    xp = backend.xp

    def put(a: np.ndarray):
        return backend.asarray(a, cached=False)  # used once: not worth hashing for the device cache

    shape, exact, fo, starts, ends = (put(a) for a in (cat["shape"], cat["exact"], file_of, ends - counts, ends))
    parts, carriers = [], []
    for key, periodic, width in ((exact, False, settings.min_nodes), (shape, True, settings.min_nodes_renamed)):
        b0, b1, a0, a1, renamed = find_segments(xp, key, shape, exact, fo, starts, ends, width, backend.asnumpy,
                                                periodic, overlaps=not periodic)
        if periodic:  # the shape pass adds only what differs in names or constants
            b0, b1, a0, a1, renamed = (x[renamed > 0] for x in (b0, b1, a0, a1, renamed))
        copies, inner = chain(b0, b1, a0, a1, renamed, file_of[b0], file_of[a0], settings.max_gap,
                              settings.min_similarity, width)
        parts.append(copies)
        carriers.append(inner)
    line = put(cat["line"])
    if settings.lines:
        parts.append(line_segments(xp, exact, line, fo, starts, ends, settings.min_lines, backend.asnumpy))
    return build_groups(_joined(parts, put), line_tables(line, put(cat["last"]), fo), paths, settings.min_lines,
                        exact, _joined(carriers, put), settings.min_nodes_renamed)


def _joined(parts: list[Segments], put) -> Segments:
    """The rows of several `Segments` as one, on the device (`put`)."""
    return Segments(*(put(np.concatenate([getattr(p, f.name) for p in parts])) for f in fields(Segments)))
