"""Machine-readable results: summary, per-file metrics and blocks, every finding (the outcomes), the clone groups
under --duplicates, then `timings` (seconds, cached files): two runs of the same tree agree on everything but
`timings`, which `gpubatch diff` leaves out. Records are built field by field (a shallow dict per dataclass):
`dataclasses.asdict` deep-copies every value and cost more than the encoding on large reports. Each file's
record is built as it is written (`layout.chunks`): the whole document never exists at once (it took 0.6 GB
beside the reports of a 25k-file tree)."""
from collections.abc import Iterator

from ..halstead import report
from .layout import chunks as _layout
from .summary import summary


def _flat(obj) -> dict:
    """A dataclass record's fields (its instance dict: the dataclasses here have no slots or extra
    attributes), without `asdict`'s deep copy or a getattr per field."""
    return dict(obj.__dict__)


def _block(b) -> dict:
    out = b._asdict()
    if b.halstead:
        out["halstead"] = report(*b.halstead)
    else:
        del out["halstead"]
    return out


def _finding(f) -> dict:
    return _flat(f) | {"related": [list(r) for r in f.related]}


def _group(g) -> dict:
    return {"kind": g.kind_name, "similarity": g.similarity, "members": [_flat(m) for m in g.members]}


def chunks(result, root=None) -> Iterator[str]:
    files = ({"path": r.path, "error": r.error, "nodes": r.nodes, "raw": r.raw, **r.metrics,
              "blocks": [_block(b) for b in r.blocks]} for r in result.files)
    outcomes = summary(result)
    timings = {"seconds": outcomes.pop("seconds"), "cached_files": outcomes.pop("cached_files")}
    doc = {"summary": outcomes, "files": files, "findings": (_finding(f) for f in result.findings)}
    if result.duplicates:
        doc["duplicates"] = (_group(g) for g in result.duplicates)
    yield from _layout(doc | {"timings": timings}, 2)
    yield "\n"
