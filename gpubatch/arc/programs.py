"""Programs: compositions of primitives with a text form that parses back.

`rot90 | replace(a=1,b=2) | crop_largest(conn=8)`; positional arguments follow the family's parameter order
(`replace(1,2)`). A battery file holds one program per line; `#` starts a comment.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .dsl import REGISTRY, Primitive
from .grids import GridBatch

_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


class ProgramError(ValueError):
    """A program's text names an unknown primitive or a bad parameter."""


@dataclass(frozen=True)
class Program:
    steps: tuple[Primitive, ...]

    @property
    def text(self) -> str:
        return " | ".join(p.text for p in self.steps) if self.steps else "identity"

    def __len__(self) -> int:
        return len(self.steps)

    def __call__(self, g: GridBatch) -> GridBatch:
        for step in self.steps:
            g = step(g)
        return g

    def reference(self, grid):
        for step in self.steps:
            if grid is None:
                return None
            grid = step.reference(grid)
        return grid


def _value(text: str):
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(low)
    except ValueError:
        return text.strip().strip("'\"")


def parse_step(text: str) -> Primitive:
    m = _CALL.match(text)
    if not m:
        raise ProgramError(f"cannot parse {text.strip()!r}: expected name or name(arg, key=value)")
    name, args = m.group(1), m.group(2)
    fam = REGISTRY.families.get(name)
    if fam is None:
        import difflib

        close = difflib.get_close_matches(name, list(REGISTRY.families), n=1)
        raise ProgramError(f"unknown primitive {name!r}" + (f"; did you mean {close[0]}?" if close else ""))
    kwargs = {}
    parts = [a for a in (args or "").split(",") if a.strip()]
    for k, part in enumerate(parts):
        if "=" in part:
            key, val = part.split("=", 1)
            kwargs[key.strip()] = _value(val)
        elif k < len(fam.params):
            kwargs[fam.params[k].name] = _value(part)
        else:
            raise ProgramError(f"{name}: too many arguments")
    try:
        return REGISTRY.get(name, **kwargs)
    except ValueError as exc:
        raise ProgramError(str(exc)) from None


def parse_program(text: str) -> Program:
    steps = [s for s in text.split("|") if s.strip()]
    prims = tuple(parse_step(s) for s in steps)
    return Program(tuple(p for p in prims if p.name != "identity"))


def read_programs(path: str | Path) -> list[Program]:
    """Programs of a battery file; a bad line raises ProgramError naming the file and line number."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ProgramError(f"cannot read programs file {path}: {exc}") from None
    out = []
    for no, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            out.append(parse_program(text))
        except ProgramError as exc:
            raise ProgramError(f"{path}:{no}: {exc}") from None
    return out
