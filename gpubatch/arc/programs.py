"""Programs: compositions of primitives with a text form that parses back.

`rot90 | replace(a=1,b=2) | crop_largest(conn=8)`; positional arguments follow the family's parameter order
(`replace(1,2)`). A battery file holds one program per line; `#` starts a comment.

A program may end in a learned step, `rule(f=nbhd)`: a local rule read off each task's demo pairs (see
`rules`). It is not a grid-to-grid primitive (it needs the task), so calling a program runs its steps only.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .dsl import REGISTRY, Primitive
from .grids import GridBatch
from .learned import NAMES

_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\((.*)\))?\s*$")


class ProgramError(ValueError):
    """A program's text names an unknown primitive or a bad parameter."""


@dataclass(frozen=True)
class Program:
    steps: tuple[Primitive, ...]
    rule: str | None = None  # a learned last step: the feature kind of a local rule

    @property
    def text(self) -> str:
        words = [p.text for p in self.steps] + ([f"rule(f={self.rule})"] if self.rule else [])
        return " | ".join(words) if words else "identity"

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


def _parse_rule(text: str) -> str:
    m = re.match(r"^\s*rule\s*\(\s*(?:f\s*=\s*)?([A-Za-z0-9_]+)\s*\)\s*$", text)
    if not m or m.group(1) not in NAMES:
        raise ProgramError(f"cannot parse {text.strip()!r}: expected rule(f=KIND), KIND one of {', '.join(NAMES)}")
    return m.group(1)


def parse_program(text: str) -> Program:
    steps = [s for s in text.split("|") if s.strip()]
    is_rule = [bool(m) and m.group(1) == "rule" for m in map(_CALL.match, steps)]
    rule = _parse_rule(steps.pop()) if is_rule and is_rule.pop() else None
    if any(is_rule):
        raise ProgramError("rule(...) must be the program's last step")
    prims = tuple(parse_step(s) for s in steps)
    return Program(tuple(p for p in prims if p.name != "identity"), rule)


def read_programs(path: str | Path) -> list[Program]:
    """Programs of a battery file; a bad line raises ProgramError naming the file and line number."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
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
