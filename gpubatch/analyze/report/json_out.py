"""Machine-readable results: summary, per-file metrics and blocks, every finding (the outcomes), the clone groups
under --duplicates, then `timings` (seconds, cached files): two runs of the same tree agree on everything but
`timings`, which `gpubatch diff` leaves out. Records are built field by field (a shallow dict per dataclass):
`dataclasses.asdict` deep-copies every value and cost more than the encoding on large reports. Each file's
record is built as it is written (`layout.chunks`): the whole document never exists at once (it took 0.6 GB
beside the reports of a 25k-file tree). A file's blocks are encoded by hand, with json.dumps's separators and
escaping (one `%` template per file over the blocks' fields laid flat: 1.5-1.6 s against 1.8-2.0 s for a
format per block, over a 25k-file tree on the H200 box), and a function's Halstead record once per distinct
four counts: most functions are small, and the stdlib's 49,573 have 2,454 distinct ones. The records are made
in this process: forked workers (`engine.forkjoin`, as SARIF uses) made it faster still (1.0 s with 8), but
each copied some 45 MB of this process, whose every record they read (pages shared by many records), and the
run's peak went from 0.78 GB to 0.97 GB with 4 and 1.17 GB with 8, over the 1 GB target."""
import functools
import itertools
from collections.abc import Iterator
from json.encoder import encode_basestring_ascii as _esc

from ...jsonlayout import Raw, dumps
from ...jsonlayout import chunks as _layout
from ..halstead import report
from .summary import summary


def _flat(obj) -> dict:
    """A dataclass record's fields (its instance dict: the dataclasses here have no slots or extra
    attributes), without `asdict`'s deep copy or a getattr per field."""
    return dict(obj.__dict__)


class _Heads(dict):
    """A block's text up to its name, per kind."""

    def __missing__(self, kind):
        self[kind] = v = '{"kind": ' + _esc(kind) + ', "name": '
        return v


class _Tails(dict):
    """A block's text after its nesting, per Halstead counts (none for a class): each distinct record once."""

    def __missing__(self, counts):
        self[counts] = v = f', "halstead": {dumps(report(*counts))}}}' if counts else "}"
        return v


_HEADS, _TAILS = _Heads(), _Tails()
_ONE = '%s%s, "line": %d, "col": %d, "end_line": %d, "complexity": %d, "params": %d, "nesting": %d%s'


@functools.lru_cache(maxsize=1024)
def _template(n: int) -> str:
    return ", ".join([_ONE] * n)


def _blocks(blocks) -> str:
    """A file's blocks, comma-separated: their fields laid flat in one list, the strings replaced by slices
    (C loops), then one `%` over the whole file."""
    n = len(blocks)
    if not n:
        return ""
    flat = list(itertools.chain.from_iterable(blocks))
    flat[0::9] = map(_HEADS.__getitem__, flat[0::9])
    flat[1::9] = map(_esc, flat[1::9])
    flat[8::9] = map(_TAILS.__getitem__, flat[8::9])
    return _template(n) % tuple(flat)


def _file(r) -> Raw:
    head = dumps({"path": r.path, "error": r.error, "nodes": r.nodes, "raw": r.raw, **r.metrics})
    return Raw(f'{head[:-1]}, "blocks": [{_blocks(r.blocks)}]}}')


def _finding(f) -> dict:
    return _flat(f) | {"related": [list(r) for r in f.related]}


def _group(g) -> dict:
    return {"kind": g.kind_name, "similarity": g.similarity, "members": [_flat(m) for m in g.members]}


def chunks(result, root=None) -> Iterator[str]:
    files = map(_file, result.files)  # in this process: see the module's docstring
    outcomes = summary(result)
    timings = {"seconds": outcomes.pop("seconds"), "cached_files": outcomes.pop("cached_files")}
    doc = {"summary": outcomes, "files": files, "findings": (_finding(f) for f in result.findings)}
    if result.duplicates:
        doc["duplicates"] = (_group(g) for g in result.duplicates)
    yield from _layout(doc | {"timings": timings}, 2)
    yield "\n"
