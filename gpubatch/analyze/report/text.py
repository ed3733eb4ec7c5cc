"""`path:line:col: CODE message`, one finding a line (columns 1-based characters, as ruff prints them)."""
from collections.abc import Iterator

from .columns import char_col


def chunks(result, root=None) -> Iterator[str]:
    for f in result.findings:
        yield f"{f.path}:{f.line}:{char_col(f.path, f.line, f.col)}: {f.code} {f.message}\n"
