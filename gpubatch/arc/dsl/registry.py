"""Primitive families, their parameters, concrete instances and the text form `name(k=v, ...)`.

A family is one batched function plus a per-grid reference written independently for clarity; an instance
fixes its parameters. Results that would be empty or larger than 30x30 are invalid (height 0), never errors.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..grids import MAX, PAD, GridBatch

Grid = list[list[int]]


@dataclass(frozen=True)
class Param:
    """A parameter: its name, the values the built-in enumeration expands, and its default if any."""

    name: str
    values: tuple[Any, ...]
    default: Any = None
    doc: str = ""
    accepts: Callable[[Any], bool] | None = None  # free-form values (never enumerated): this validates them


@dataclass(frozen=True)
class Family:
    name: str
    group: str
    doc: str
    batched: Callable[..., GridBatch]
    reference: Callable[..., Grid | None]
    params: tuple[Param, ...] = ()
    padded: bool = False  # the batched function already writes PAD and validity itself
    skip: Callable[[dict], bool] = field(default=lambda kw: False)
    first: bool = False  # costly and meant for a task's inputs: the built-in search applies it at depth 1 only

    def instances(self) -> list["Primitive"]:
        combos = itertools.product(*(p.values for p in self.params))
        out = []
        for values in combos:
            kw = dict(zip((p.name for p in self.params), values))
            if not self.skip(kw):
                out.append(Primitive(self, tuple(kw.items())))
        return out


def _fmt(v: Any) -> str:
    return ("true" if v else "false") if isinstance(v, bool) else str(v)


@dataclass(frozen=True)
class Primitive:
    """A family with its parameters fixed: callable on a GridBatch, with a per-grid reference."""

    family: Family
    args: tuple[tuple[str, Any], ...] = ()

    @property
    def kwargs(self) -> dict[str, Any]:
        return dict(self.args)

    @property
    def name(self) -> str:
        return self.family.name

    @property
    def text(self) -> str:
        defaults = {p.name: p.default for p in self.family.params}
        shown = [f"{k}={_fmt(v)}" for k, v in self.args if defaults.get(k) is None or defaults[k] != v]
        return f"{self.name}({','.join(shown)})" if shown else self.name

    def __call__(self, g: GridBatch) -> GridBatch:
        out = self.family.batched(g, **self.kwargs)
        return out if self.family.padded else finish(g, out)

    def reference(self, grid: Grid) -> Grid | None:
        out = self.family.reference([list(r) for r in grid], **self.kwargs)
        if not out or not out[0] or len(out) > MAX or len(out[0]) > MAX:
            return None
        return out

    def __str__(self) -> str:
        return self.text


def finish(src: GridBatch, out: GridBatch) -> GridBatch:
    """Invalidate results of invalid inputs or with sizes outside 1..30, and write PAD outside each grid."""
    xp = out.xp
    if xp is not np:
        from ..stencils import finish_cuda

        return finish_cuda(src, out)
    n = len(out)
    ok = (src.h > 0) & (out.h >= 1) & (out.h <= MAX) & (out.w >= 1) & (out.w <= MAX)
    h = xp.where(ok, out.h, 0).astype(xp.int32)
    w = xp.where(ok, out.w, 0).astype(xp.int32)
    r = xp.arange(MAX, dtype=xp.int32)
    inside = (r < h.reshape(n, 1)).reshape(n, MAX, 1) & (r < w.reshape(n, 1)).reshape(n, 1, MAX)
    data = np.full((n, MAX, MAX), PAD, np.uint8)  # one masked copy: 3x faster than where() and a cast
    np.copyto(data, out.data, where=inside, casting="unsafe")
    return GridBatch(data, h, w)


class Registry:
    """All families by name; instances in a stable order."""

    def __init__(self) -> None:
        self.families: dict[str, Family] = {}
        self._instances: tuple[Primitive, ...] | None = None  # made once: 4 ms a call, and work estimates call often

    def add(self, fam: Family) -> Family:
        if fam.name in self.families:
            raise ValueError(f"duplicate primitive family {fam.name}")
        self.families[fam.name] = fam
        self._instances = None
        return fam

    def instances(self) -> list[Primitive]:
        if self._instances is None:
            self._instances = tuple(p for fam in self.families.values() for p in fam.instances())
        return list(self._instances)

    def get(self, name: str, **kwargs: Any) -> Primitive:
        fam = self.families[name]
        args = []
        for p in fam.params:
            value = kwargs.pop(p.name, p.default)
            if value is None:
                raise ValueError(f"{name}: missing parameter {p.name}")
            if p.accepts is not None:
                if not p.accepts(value):
                    raise ValueError(f"{name}: {p.name}={_fmt(value)} is not valid ({p.doc})")
            elif value not in p.values:
                choices = ", ".join(_fmt(v) for v in p.values)
                raise ValueError(f"{name}: {p.name}={_fmt(value)} is not one of {choices}")
            args.append((p.name, value))
        if kwargs:
            raise ValueError(f"{name}: unknown parameter {', '.join(kwargs)}")
        prim = Primitive(fam, tuple(args))
        if fam.skip(prim.kwargs):
            raise ValueError(f"{prim.text}: this combination does nothing and is not a primitive")
        return prim


REGISTRY = Registry()


def family(name: str, group: str, reference: Callable, params: tuple[Param, ...] = (), padded: bool = False,
           skip: Callable[[dict], bool] | None = None, first: bool = False) -> Callable:
    """Decorator: register a batched function (its docstring's first line is the family's doc)."""
    def deco(fn: Callable[..., GridBatch]) -> Callable[..., GridBatch]:
        doc = (fn.__doc__ or "").strip().splitlines()[0]
        REGISTRY.add(Family(name, group, doc, fn, reference, params, padded, skip or (lambda kw: False), first))
        return fn
    return deco
