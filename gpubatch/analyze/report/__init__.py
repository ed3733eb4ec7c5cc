"""Output formats, one module each behind one interface: `chunks(result, root=None)` yields the report's text
piece by piece, and the CLI writes each piece as it comes (a report over a large tree is never whole in memory).
`CHUNKS` maps a format's name to that function; `FORMATS` to one giving the whole text at once."""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterator

from . import github, gitlab, json_out, junit, sarif, text

CHUNKS: dict[str, Callable[..., Iterator[str]]] = {
    "text": text.chunks, "json": json_out.chunks, "sarif": sarif.chunks, "github": github.chunks,
    "gitlab": gitlab.chunks, "junit": junit.chunks}


def _whole(chunks: Callable[..., Iterator[str]], result, root=None) -> str:
    return "".join(chunks(result, root))


FORMATS: dict[str, Callable[..., str]] = {name: functools.partial(_whole, fn) for name, fn in CHUNKS.items()}
