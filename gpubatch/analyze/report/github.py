"""GitHub Actions workflow commands: one annotation per finding.

The one escaping layer of this format: `_data` for the message, `_prop` for property values (file, title),
which also escapes `,` and `:` so a file name cannot end a property or inject another annotation.
A file name that is not valid UTF-8 is written with backslash escapes.
"""
from collections.abc import Iterator

from .columns import char_col

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _text(s: str) -> str:
    """Undecodable bytes of a file name (kept as surrogates) as backslash escapes; other text unchanged."""
    return s.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


def _data(s: str) -> str:
    return _text(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def chunks(result, root=None) -> Iterator[str]:
    for f in result.findings:
        end = f",endLine={f.end_line}" if f.end_line else ""
        yield (f"::{_LEVEL[f.severity]} file={_prop(f.path)},line={f.line},col={char_col(f.path, f.line, f.col)}"
               f"{end},title={_prop(f.code)}::{_data(f.code + ' ' + f.message)}\n")
