"""`path:line:col: CODE message`, one finding a line (columns 1-based characters, as ruff prints them).

A name or message holding a control character is escaped, so that every finding stays one line and the report
cannot drive a terminal (a newline in a file name would start a line that reads as a finding of its own, an ESC
would start an escape sequence): such a path is quoted as git quotes one, C escapes inside double quotes."""
import re
from collections.abc import Iterator

from .columns import char_col

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(m: re.Match) -> str:
    return _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}")


def shown_path(path: str) -> str:
    """The path as it is, or quoted with C escapes where it holds a control character."""
    if not _CONTROL.search(path):
        return path
    return '"' + _CONTROL.sub(_escape, path.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def chunks(result, root=None) -> Iterator[str]:
    for f in result.findings:
        message = _CONTROL.sub(_escape, f.message)
        yield f"{shown_path(f.path)}:{f.line}:{char_col(f.path, f.line, f.col)}: {f.code} {message}\n"
