"""Solver files in arc-dsl's form, read as data (parsed with `ast`, never imported or run as Python).

A solver is `def solve_<task id>(I):` followed by straight-line assignments `x = f(a, b)` (or `x = a`) whose
names are `I`, earlier variables, arc-dsl constants, primitives or small literals (ints, booleans, tuples of
them), and ends with `return <variable>`. Calls may nest (`x = f(g(a), b)`, `return f(x)`): each inner call is
read as a line of its own just before, as Python evaluates it. Anything else makes that solver unsupported,
with its line and the reason; the file's other solvers still run.
"""
from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .registry import CONSTANTS, NAMES

PREFIX = "solve_"
_PRIMS = frozenset(NAMES)


class SolverFileError(ValueError):
    """The file cannot be read or is not Python at all (a usage error: exit 2)."""


@dataclass(frozen=True)
class Ref:
    """An argument or callee: kind "var" (a variable, I included), "prim" (a primitive) or "const"."""

    kind: str
    value: Any


@dataclass(frozen=True)
class Line:
    target: str
    func: Ref
    args: tuple[Ref, ...]  # empty with func of kind var/const/prim and `call` False: an alias `x = y`
    call: bool
    lineno: int


@dataclass(frozen=True)
class Solver:
    name: str  # the function's name
    task_id: str  # its name without `solve_`
    lineno: int
    lines: tuple[Line, ...] = ()
    result: str = ""
    unsupported: str | None = None  # "line N: reason"
    redefines: tuple[int, ...] = ()  # the lines of earlier definitions of this name, which this one replaces


class _Unsupported(Exception):
    def __init__(self, node: ast.AST, reason: str) -> None:
        super().__init__(f"line {getattr(node, 'lineno', '?')}: {reason}")


def _shown(node: ast.AST, most: int = 60) -> str:
    """The source of a node as a reason quotes it: cut to `most` characters, so that a long expression (a call
    nested a hundred deep) does not fill the report."""
    text = ast.unparse(node)
    return repr(text if len(text) <= most else text[:most - 3] + "...")


def _literal(node: ast.AST, defined: set[str]) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    if isinstance(node, ast.Tuple):
        return tuple(_element(e, node, defined) for e in node.elts)
    raise _Unsupported(node, f"{_shown(node)} is not a name, an int, a boolean or a tuple of them")


def _element(node: ast.AST, whole: ast.Tuple, defined: set[str]) -> Any:
    """One element of a tuple written out: a literal or one of arc-dsl's constants (`(ONE, TWO)`), unless a
    variable of the solver has that name."""
    if isinstance(node, ast.Name) and node.id in CONSTANTS and node.id not in defined:
        return CONSTANTS[node.id]
    if isinstance(node, (ast.Name, ast.Call)):  # a pair of computed values is a call: astuple(a, b)
        raise _Unsupported(whole, f"{_shown(whole)}: a tuple written out holds only ints and booleans "
                                         "(astuple(a, b) makes a pair of variables)")
    return _literal(node, defined)


def _ref(node: ast.AST, defined: set[str]) -> Ref:
    if isinstance(node, ast.Name):
        if node.id in defined:
            return Ref("var", node.id)
        if node.id in CONSTANTS:
            return Ref("const", CONSTANTS[node.id])
        if node.id in _PRIMS:
            return Ref("prim", node.id)
        raise _Unsupported(node, f"unknown name {node.id!r} (not a variable defined above, a constant or a "
                                 "primitive)")
    return Ref("const", _literal(node, defined))


def _lines(stmt: ast.stmt, defined: set[str]) -> list[Line]:
    """The lines of one assignment: a call nested in another (`x = f(g(a))`) becomes a line of its own before
    it, as Python evaluates them (the callee, then the arguments left to right), under a name no solver can
    write."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        raise _Unsupported(stmt, f"{type(stmt).__name__.lower()} statement: only `name = call(...)` and a final "
                                 "`return name`")
    out: list[Line] = []
    value = stmt.value
    if isinstance(value, ast.Call):
        out.append(_call(value, stmt.targets[0].id, stmt.lineno, defined, out))
    else:
        out.append(Line(stmt.targets[0].id, _ref(value, defined), (), False, stmt.lineno))
    return out


def _call(value: ast.Call, target: str, lineno: int, defined: set[str], out: list[Line]) -> Line:
    """`target = value` as a line; the lines of calls nested in it are appended to `out` first."""
    if value.keywords or any(isinstance(a, ast.Starred) for a in value.args):
        raise _Unsupported(value, "keyword or starred arguments")

    def operand(node: ast.AST, callee: bool = False) -> Ref:
        if isinstance(node, ast.Call):
            name = f"{target}.{len(out) + 1}"  # a dot: no Python name holds one
            out.append(_call(node, name, lineno, defined, out))
            return Ref("var", name)
        if callee and not isinstance(node, ast.Name):
            raise _Unsupported(value, f"{_shown(node)} is not a primitive or a variable")
        return _ref(node, defined)

    func = operand(value.func, callee=True)
    if func.kind == "const":
        raise _Unsupported(value, f"{_shown(value.func)} is not a primitive or a variable")
    return Line(target, func, tuple(operand(a) for a in value.args), True, lineno)


def _solver(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Solver:
    name, task_id = fn.name, fn.name[len(PREFIX):]
    try:
        args = fn.args
        if isinstance(fn, ast.AsyncFunctionDef):
            raise _Unsupported(fn, "an async function")
        if fn.decorator_list:
            raise _Unsupported(fn, "a decorated function (a decorator could change what it computes)")
        if len(args.args) != 1 or args.vararg or args.kwarg or args.kwonlyargs \
                or args.posonlyargs or args.defaults:
            raise _Unsupported(fn, "a solver takes exactly one argument, the input grid")
        defined = {args.args[0].arg}
        body = list(fn.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:]  # a docstring
        if not body or not isinstance(body[-1], ast.Return):
            raise _Unsupported(body[-1] if body else fn, "a solver ends with `return name`")
        lines = []
        for stmt in body[:-1]:
            for line in _lines(stmt, defined):
                lines.append(line)
                defined.add(line.target)
        ret = body[-1].value
        if isinstance(ret, ast.Call):  # `return f(x)`: the call as a last line, returned
            nested: list[Line] = []
            nested.append(_call(ret, "O.", body[-1].lineno, defined, nested))
            lines += nested
            result = "O."
        elif isinstance(ret, ast.Name) and ret.id in defined:
            result = ret.id
        else:
            raise _Unsupported(body[-1], "a solver returns a variable it defined (or its input)")
        if args.args[0].arg != "I":  # the input's own name: aliases below read it as I
            lines.insert(0, Line(args.args[0].arg, Ref("var", "I"), (), False, fn.lineno))
        return Solver(name, task_id, fn.lineno, tuple(lines), result)
    except _Unsupported as exc:
        return Solver(name, task_id, fn.lineno, unsupported=str(exc))


def parse_solvers(text: str, filename: str = "<solvers>") -> list[Solver]:
    """Every `solve_*` function of the file, in file order; other top-level statements are ignored. A name
    defined twice is its last definition, as when Python runs the file (`redefines` keeps the earlier lines)."""
    try:
        tree = ast.parse(text, filename=filename)
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        raise SolverFileError(f"{filename}: not Python: {where}{exc.msg}") from None
    except (ValueError, RecursionError, MemoryError) as exc:  # NUL bytes (ValueError in older Pythons), nesting past the parser
        raise SolverFileError(f"{filename}: not Python: {type(exc).__name__}: {exc}") from None
    found = [_solver(node) for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(PREFIX)]
    last = {s.name: i for i, s in enumerate(found)}
    earlier: dict[str, list[int]] = {}
    for i, s in enumerate(found):
        if last[s.name] != i:
            earlier.setdefault(s.name, []).append(s.lineno)
    return [replace(s, redefines=tuple(earlier[s.name])) if s.name in earlier else s
            for i, s in enumerate(found) if last[s.name] == i]


def read_solvers(path: Path) -> list[Solver]:
    """The solvers of a file (see `parse_solvers`); a file that cannot be read is a SolverFileError."""
    try:
        data = Path(path).read_bytes()
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)  # a BOM or a coding line, as Python
        text = data.decode(encoding)  # "utf-8-sig" where a BOM starts the file: decoded without it
    except (OSError, UnicodeDecodeError, LookupError, SyntaxError) as exc:
        raise SolverFileError(f"cannot read solvers file {path}: {exc}") from None
    return parse_solvers(text, str(path))
