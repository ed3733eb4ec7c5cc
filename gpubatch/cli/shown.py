"""Text from outside (file names, task ids, exception messages) made safe to print in a Rich line on stderr.

Rich's markup escape alone lets control characters through: a newline in a file name would start a line that
reads as a diagnostic of its own, an ESC would start a terminal escape sequence. `shown` escapes the markup and
writes every control character as a C escape (`\\n`, `\\x1b`), as the text report does for findings.
"""
import re

from rich.markup import escape

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _c_escape(m: re.Match) -> str:
    return _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}")


def shown(text: str) -> str:
    """`text` as one line of literal characters inside Rich markup: markup escaped, control characters C-escaped."""
    return escape(_CONTROL.sub(_c_escape, text))
