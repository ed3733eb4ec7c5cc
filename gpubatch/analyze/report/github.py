"""GitHub Actions workflow commands: one annotation per finding."""
from .columns import char_col

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _esc(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def render(result, root=None) -> str:
    out = []
    for f in result.findings:
        end = f",endLine={f.end_line}" if f.end_line else ""
        out.append(f"::{_LEVEL[f.severity]} file={f.path},line={f.line},col={char_col(f.path, f.line, f.col)}{end},"
                   f"title={f.code}::{_esc(f.code + ' ' + f.message)}\n")
    return "".join(out)
