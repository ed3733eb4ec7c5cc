"""JSON laid out for people and written fast (analyze's reports, run-batt's results): the outer levels one
entry per line, each record below them one compact line (CPython's C encoder; `indent` would send every value
through the pure-Python one, which cost most of a large run). The escaping is `json.dumps`'s: one escaping
function per format.

`chunks` yields the text piece by piece, and any iterator in the document (a generator of per-file records)
is read as a list only as it is written: a report over a large tree is never one structure in memory, nor
one string."""
import json
from collections.abc import Iterator


def _listed(obj):
    """`json.dumps`'s fallback: an iterator below the broken levels is written as the list it yields."""
    if isinstance(obj, Iterator):
        return list(obj)
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


dumps = json.JSONEncoder(default=_listed).encode  # json.dumps's settings, with the fallback


class Raw(str):
    """A record already encoded as JSON (by `dumps` and the same separators), written as it is."""


def chunks(obj, depth: int) -> Iterator[str]:
    """`obj` as JSON with its first `depth` levels of dicts, lists and iterators broken over lines."""
    if isinstance(obj, Raw):
        yield obj
        return
    if isinstance(obj, dict):
        items = ((dumps(k) + ": ", v) for k, v in obj.items())
        opening, closing = "{", "}"
    elif isinstance(obj, (list, Iterator)):
        items = (("", v) for v in obj)
        opening, closing = "[", "]"
    else:
        yield dumps(obj)
        return
    if depth <= 0:
        yield dumps(obj)
        return
    first = True
    for key, value in items:
        yield (opening + "\n" if first else ",\n") + key
        first = False
        yield from chunks(value, depth - 1)
    yield opening + closing if first else "\n" + closing


def layout(obj, depth: int) -> str:
    """The whole of `chunks(obj, depth)` as one string."""
    return "".join(chunks(obj, depth))
