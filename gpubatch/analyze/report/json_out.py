"""Machine-readable results: summary, per-file metrics and blocks, every finding (the outcomes), the clone groups
under --duplicates, then `timings` (seconds, cached files): two runs of the same tree agree on everything but
`timings`, which `gpubatch diff` leaves out. Records are built field by field (a shallow dict per dataclass):
`dataclasses.asdict` deep-copies every value and cost more than the encoding on large reports. Each file's
record is built as it is written (`layout.chunks`): the whole document never exists at once (it took 0.6 GB
beside the reports of a 25k-file tree). A file's blocks are encoded by hand, with json.dumps's separators and
escaping, and a function's Halstead record once per distinct four counts: most functions are small, and the
stdlib's 49,573 have 2,454 distinct ones."""
import functools
from collections.abc import Iterator

from ..halstead import report
from .layout import Raw, dumps
from .layout import chunks as _layout
from .summary import summary


def _flat(obj) -> dict:
    """A dataclass record's fields (its instance dict: the dataclasses here have no slots or extra
    attributes), without `asdict`'s deep copy or a getattr per field."""
    return dict(obj.__dict__)


@functools.lru_cache(maxsize=1 << 16)
def _halstead(counts: tuple[int, ...]) -> str:
    return dumps(report(*counts))


def _block(b) -> str:
    """A block's record: its fields in `Block`'s order, then a function's Halstead record (none for a class)."""
    head = (f'{{"kind": {dumps(b.kind)}, "name": {dumps(b.name)}, "line": {b.line}, "col": {b.col}, '
            f'"end_line": {b.end_line}, "complexity": {b.complexity}, "params": {b.params}, "nesting": {b.nesting}')
    return f'{head}, "halstead": {_halstead(tuple(b.halstead))}}}' if b.halstead else head + "}"


def _file(r) -> Raw:
    head = dumps({"path": r.path, "error": r.error, "nodes": r.nodes, "raw": r.raw, **r.metrics})
    return Raw(f'{head[:-1]}, "blocks": [{", ".join(map(_block, r.blocks))}]}}')


def _finding(f) -> dict:
    return _flat(f) | {"related": [list(r) for r in f.related]}


def _group(g) -> dict:
    return {"kind": g.kind_name, "similarity": g.similarity, "members": [_flat(m) for m in g.members]}


def chunks(result, root=None) -> Iterator[str]:
    files = (_file(r) for r in result.files)
    outcomes = summary(result)
    timings = {"seconds": outcomes.pop("seconds"), "cached_files": outcomes.pop("cached_files")}
    doc = {"summary": outcomes, "files": files, "findings": (_finding(f) for f in result.findings)}
    if result.duplicates:
        doc["duplicates"] = (_group(g) for g in result.duplicates)
    yield from _layout(doc | {"timings": timings}, 2)
    yield "\n"
