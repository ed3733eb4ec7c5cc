"""`path:line:col: CODE message`, one finding a line (columns 1-based characters, as ruff prints them)."""
from .columns import char_col


def render(result, root=None) -> str:
    return "".join(f"{f.path}:{f.line}:{char_col(f.path, f.line, f.col)}: {f.code} {f.message}\n"
                   for f in result.findings)
