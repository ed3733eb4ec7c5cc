"""Flatten one syntax tree into the node table: one row per node (kind, parent, spans, owner block, what
radon's visitors skip, counts and flags the rules need, qualified-name hashes). `tensorize` calls it on every
parsed file; the vocabulary of the columns is in `nodes`."""
from __future__ import annotations

import ast
import functools
import hashlib

import numpy as np

from .nodes import (
    DEAD_CLASS_HEAD,
    DEAD_SIGNATURE,
    F_AFTER_ELSE,
    F_AFTER_FINALLY,
    F_BARE_EXCEPT,
    F_BOOL,
    F_BYTES,
    F_CMP_BOOL,
    F_CMP_NONE,
    F_EQ,
    F_LAST_IRREFUTABLE,
    F_NONE,
    F_STR,
    KIND,
    OP_VALUES,
    R_DEF_ARGS,
    R_DEFAULT,
    R_EXEMPT_DEFAULT,
    R_IN_DEFAULT,
    R_LAMBDA_ARGS,
    R_LAMBDA_DEFAULT,
    qhash,
)

_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.Match)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPOUND_T = frozenset(_COMPOUND)
_KEYWORD_T = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, *([ast.TryStar] if hasattr(ast, "TryStar")
                                                                            else [])})  # with else: / finally:
_NAMED = {ast.Attribute: "attr", ast.FunctionDef: "name", ast.AsyncFunctionDef: "name", ast.ClassDef: "name",
          ast.arg: "arg", ast.keyword: "arg", ast.alias: "name"}
_OPERATED = {ast.BinOp: "op", ast.UnaryOp: "op", ast.BoolOp: "op", ast.AugAssign: "op"}
_SPECIAL = frozenset({ast.Try, ast.BoolOp, ast.For, ast.AsyncFor, ast.While, ast.comprehension, ast.Match,
                      ast.ExceptHandler, ast.Constant, ast.Compare, ast.Call, ast.Import, ast.ImportFrom,
                      *_NAMED, *_OPERATED}
                     | ({ast.TryStar} if hasattr(ast, "TryStar") else set()))
# Contexts (Load/Store/Del) and operator tokens carry no metric or rule: not flattened (a third of all nodes).
# Fields that never hold a node are not visited at all.
_NOT_NODES = frozenset({"ctx", "op", "ops", "id", "attr", "arg", "asname", "module", "level", "is_async",
                        "conversion", "type_comment", "kind", "tag"})
_POS, _SPECIAL_T, _DEF_T, _CONTEXT_T = 1, 2, 4, 8
_NAME, _CONST = ast.Name, ast.Constant
_NAME_KIND, _CONST_KIND = KIND["Name"], KIND["Constant"]
_INFO: dict[type, tuple[int, tuple[str, ...], int]] = {}
_OP = {t: i + 1 for i, t in enumerate(sorted((s for b in (ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
                                              for s in b.__subclasses__()), key=lambda t: t.__name__))}


def _type_info(t: type) -> tuple[int, tuple[str, ...], int]:
    """(kind, fields that may hold nodes, flag bits) of a node type, computed once per type."""
    fields = () if t is ast.Constant else tuple(f for f in t._fields if f not in _NOT_NODES)
    what = ((_POS if "lineno" in t._attributes else 0) | (_SPECIAL_T if t in _SPECIAL else 0)
            | (_DEF_T if t in _DEFS else 0)
            | (_CONTEXT_T if t in _COMPOUND_T or t in _KEYWORD_T or t in (ast.Assert, ast.arguments, ast.Lambda)
               else 0))
    _INFO[t] = info = (KIND.get(t.__name__, 0), fields, what)
    return info


class Flatten:
    """One pass over the tree: a row per node, a block per function or class (radon's ownership rules)."""

    def __init__(self) -> None:
        self.rows: list[list[int]] = []
        self.blocks: list[list] = []
        self.aliases: dict[str, str] = {}
        self.calls: list[tuple[int, str]] = []  # resolved through the file's imports once the walk is done
        self.values: dict = {}  # a name's or constant's text -> its number here (hashed once the walk is done)
        self.compared: list[tuple[int, int, int, int]] = []  # (Compare row, operand line, col, flag)

    def _special(self, node: ast.AST, t: type, row: list[int]) -> None:
        if t in _NAMED:
            row[14] = self.values.setdefault(getattr(node, _NAMED[t]), len(self.values)) + OP_VALUES
            return
        elif t in _OPERATED:
            row[14] = _OP[type(node.op)]
            if t is not ast.BoolOp:
                return
        if t is ast.Try or t.__name__ == "TryStar":
            row[8], row[9] = len(node.handlers), int(bool(node.orelse))
        elif t is ast.BoolOp:
            row[8] = len(node.values)
        elif t in (ast.For, ast.AsyncFor, ast.While):
            row[9] = int(bool(node.orelse))
        elif t is ast.comprehension:
            row[8] = len(node.ifs)
        elif t is ast.Match:
            row[8] = len(node.cases)
            row[9] = int(any(getattr(c.pattern, "pattern", False) is None for c in node.cases))
            last = node.cases[-1]
            row[11] |= F_LAST_IRREFUTABLE if last.guard is None and _irrefutable(last.pattern) else 0
        elif t is ast.ExceptHandler:
            if node.type is None and not _reraises(node):
                row[11] |= F_BARE_EXCEPT  # like ruff: a bare except that re-raises is fine
        elif t is ast.Constant:
            v = node.value
            row[11] |= F_NONE if v is None else F_BOOL if isinstance(v, bool) else F_STR if type(v) is str else \
                F_BYTES if type(v) is bytes else 0
            row[14] = self.values.setdefault((type(v), v), len(self.values)) + OP_VALUES
        elif t is ast.Compare:
            row[8], row[9] = len(node.ops), functools.reduce(lambda acc, op: acc | 1 << _OP[type(op)], node.ops, 0)
            if any(type(op) in _EQ_OPS for op in node.ops):
                row[11] |= F_EQ
                self._literal_comparisons(node)
            row[14] = functools.reduce(lambda acc, op: (acc * 37 + _OP[type(op)]) % (OP_VALUES - 1) + 1, node.ops, 0)
        elif t is ast.Call:
            name = _dotted(node.func)
            if name:
                self.calls.append((len(self.rows) - 1, name))
        elif t is ast.Import:
            row[13] = qhash(node.names[0].name)
            for a in node.names:
                self.aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif t is ast.ImportFrom and node.module:
            row[13] = qhash(node.module)
            if node.level == 0:
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"

    def _literal_comparisons(self, node: ast.Compare) -> None:
        """The operands ruff's E711 / E712 report: with == or != beside them, and the operand across it not a
        constant other than None / True / False / `...` (the left one is checked against the first op only)."""
        operands = [node.left, *node.comparators]
        me = len(self.rows) - 1
        for i, op in enumerate(node.ops):
            if type(op) not in _EQ_OPS:
                continue
            marks = [operands[i + 1]] if not _constant_non_singleton(operands[i]) else []
            if i == 0 and not _constant_non_singleton(operands[1]):
                marks.append(operands[0])
            for e in marks:
                if type(e) is ast.Constant and (e.value is None or type(e.value) is bool):
                    self.compared.append((me, e.lineno, e.col_offset, F_CMP_NONE if e.value is None else F_CMP_BOOL))

    def mark_comparisons(self) -> None:
        """Flag the compared literals' rows (written after their Compare's, among its children)."""
        rows = self.rows
        for me, line, col, flag in self.compared:
            j = me + 1
            while not (rows[j][1] == me and rows[j][2] == line and rows[j][3] == col):
                j += 1
            rows[j][11] |= flag

    def walk(self, node: ast.AST, parent: int, owner: int, dead: int, role: int, nest: int) -> None:
        t = type(node)
        info = _INFO.get(t) or _type_info(t)
        kind, fields, what = info
        rows = self.rows
        me = len(rows)
        if what & _POS:
            row = [kind, parent, node.lineno, node.col_offset, node.end_lineno or 0, node.end_col_offset or 0,
                   owner, dead, 0, 0, role, 0, nest, 0, 0]
        else:
            row = [kind, parent, 0, 0, 0, 0, owner, dead, 0, 0, role, 0, nest, 0, 0]
        rows.append(row)
        if what & _SPECIAL_T:
            self._special(node, t, row)
        if what & _DEF_T and not dead:
            self._walk_def(node, t, me, owner)
            return
        if role or what & _CONTEXT_T:  # roles, nesting or dead code change for the children: the full rules
            self._walk_children(node, t, fields, me, owner, dead, role, nest)
            return
        walk = self.walk  # the common case: children inherit everything
        number = self.values.setdefault
        for field_name in fields:
            value = getattr(node, field_name, None)
            for child in value if type(value) is list else (value,):
                ct = type(child)
                if ct is _NAME:  # leaves (half of all nodes) are written here, without a call
                    rows.append([_NAME_KIND, me, child.lineno, child.col_offset, child.end_lineno or 0,
                                 child.end_col_offset or 0, owner, dead, 0, 0, 0, 0, nest, 0,
                                 number(child.id, len(self.values)) + OP_VALUES])
                elif ct is _CONST:
                    v = child.value
                    rows.append([_CONST_KIND, me, child.lineno, child.col_offset, child.end_lineno or 0,
                                 child.end_col_offset or 0, owner, dead, 0, 0, 0,
                                 F_NONE if v is None else F_BOOL if v is True or v is False
                                 else F_STR if type(v) is str else F_BYTES if type(v) is bytes else 0, nest, 0,
                                 number((type(v), v), len(self.values)) + OP_VALUES])
                elif isinstance(child, ast.AST):
                    walk(child, me, owner, dead, 0, nest)

    def _walk_children(self, node, t, fields, me: int, owner: int, dead: int, role: int, nest: int) -> None:
        child_nest = nest + 1 if t in _COMPOUND_T else nest
        child_dead = dead or int(t is ast.Assert)
        defaults: set = set()
        exempt: set = set()
        if t is ast.arguments and role in (R_DEF_ARGS, R_LAMBDA_ARGS):
            defaults = {id(d) for d in node.defaults} | {id(d) for d in node.kw_defaults if d is not None}
            if role == R_DEF_ARGS:
                exempt = self._immutably_annotated(node)
        default_role = R_DEFAULT if role == R_DEF_ARGS else R_LAMBDA_DEFAULT
        inner_role = R_IN_DEFAULT if role in (R_DEFAULT, R_IN_DEFAULT, R_LAMBDA_DEFAULT) and t is not ast.Lambda else 0
        lambda_args = node.args if t is ast.Lambda else None
        elif_child = (node.orelse[0] if t is ast.If and len(node.orelse) == 1 and type(node.orelse[0]) is ast.If
                      else None)
        after = _keyword_lines(node, t) if t in _KEYWORD_T else None
        for field_name in fields:
            value = getattr(node, field_name, None)
            for child in (value if isinstance(value, list) else (value,)):
                if not isinstance(child, ast.AST):
                    continue
                child_role = (R_EXEMPT_DEFAULT if exempt and id(child) in exempt
                              else default_role if defaults and id(child) in defaults
                              else R_LAMBDA_ARGS if child is lambda_args else inner_role)
                at = len(self.rows)
                self.walk(child, me, owner, child_dead, child_role, nest if child is elif_child else child_nest)
                if after and id(child) in after:
                    self.rows[at][11] |= after[id(child)]

    def _immutably_annotated(self, args: ast.arguments) -> set[int]:
        """ids of the defaults whose parameter is annotated with an immutable type (`Sequence[int]`, `str | None`):
        ruff's B006 and B008 let those be."""
        positional = [*args.posonlyargs, *args.args]
        pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults),
                 *((a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None)]
        return {id(d) for a, d in pairs if a.annotation is not None and self._immutable(a.annotation)}

    def _immutable(self, e: ast.AST) -> bool:
        t = type(e)
        if t is ast.Name or t is ast.Attribute:
            return self._resolve(_dotted(e)) in _IMMUTABLE_TYPES
        if t is ast.Subscript:
            name = self._resolve(_dotted(e.value))
            inner = e.slice.elts if type(e.slice) is ast.Tuple else None
            if name in _IMMUTABLE_GENERICS:
                return True
            if name == "typing.Union":
                return inner is not None and all(self._immutable(x) for x in inner)
            if name == "typing.Optional":
                return self._immutable(e.slice)
            if name in ("typing.Annotated", "typing_extensions.Annotated"):
                return bool(inner) and self._immutable(inner[0])
            return False
        if t is ast.BinOp:
            return type(e.op) is ast.BitOr and self._immutable(e.left) and self._immutable(e.right)
        return t is ast.Constant and e.value is None

    def _resolve(self, name: str) -> str:
        """A dotted name through the file's imports so far ("" when it is not a plain name). An attribute of a
        name that no import binds belongs to a local value, not to a module: it resolves to nothing known."""
        head, _, rest = name.partition(".")
        if not rest:
            return self.aliases.get(head, head)
        if head not in self.aliases:
            return f"<local>.{name}"
        full = f"{self.aliases[head]}.{rest}"
        return full[9:] if full.startswith("builtins.") else full  # `builtins.eval` is `eval`

    def _walk_def(self, node, t, me: int, owner: int) -> None:
        kind = "C" if t is ast.ClassDef else "F"
        params = 0 if kind == "C" else _params(node.args)
        self.blocks.append([kind, node.name, node.lineno, node.col_offset, node.end_lineno or node.lineno,
                            owner, params, me])
        inner = len(self.blocks) - 1
        for fname, value in ast.iter_fields(node):
            for child in (value if isinstance(value, list) else (value,)):
                if isinstance(child, ast.AST):
                    in_body = fname == "body"
                    self.walk(child, me, inner if in_body else owner,
                              0 if in_body else DEAD_CLASS_HEAD if kind == "C" else DEAD_SIGNATURE,
                              R_DEF_ARGS if fname == "args" else 0, 0)

    def resolve_calls(self) -> None:
        for row, name in self.calls:
            self.rows[row][13] = qhash(self._resolve(name))

    def value_hashes(self) -> tuple[np.ndarray, np.ndarray]:
        """The 62-bit hash (at least OP_VALUES) of each numbered name or constant, in number order: the same
        text gets the same value in every file and process. Second, each constant's Halstead operand: equal
        where Python's `==` is (1, 1.0 and True; a string and the name it spells), as radon's sets compare."""
        out = np.empty(len(self.values), np.int64)
        operand = np.zeros(len(self.values), np.int64)
        for key, i in self.values.items():
            try:
                text = (key if type(key) is str else f"{key[0].__name__}:{key[1]!r}" if type(key) is tuple
                        else repr(key))  # None: a `**kwargs` keyword
            except ValueError:  # an int too long for repr (sys.set_int_max_str_digits)
                text = f"{key[0].__name__}:{key[1].bit_length()}"
            out[i] = (qhash(text) & ((1 << 61) - 1)) | (1 << 61)
            if type(key) is tuple:
                operand[i] = _operand_key(key[1], text)
        return out, operand


def _operand_key(v, text: str) -> int:
    """A constant's Halstead operand: a string as the name it spells; other values above every name's, numbers
    by value across int, float, bool and complex."""
    if type(v) is str:  # `qhash(v)` of a name's text, and a lone surrogate (`"\ud800"`) passes too
        digest = hashlib.blake2b(v.encode("utf-8", "surrogatepass"), digest_size=8).digest()
        return (int.from_bytes(digest, "little", signed=True) & ((1 << 61) - 1)) | (1 << 61)
    if type(v) is complex and v.imag == 0:
        v = v.real
    if type(v) is float and v.is_integer():
        v = int(v)
    if type(v) in (int, bool):
        text = f"number:{int(v)}" if abs(v) < 1 << 64 else text
    return (qhash(text) & ((1 << 61) - 1)) | (1 << 62)


_EQ_OPS = (ast.Eq, ast.NotEq)
# ruff's immutable annotations (B006 / B008 exemptions): plain types, and generics whatever their arguments
_IMMUTABLE_GENERICS = frozenset({"tuple", *(f"collections.abc.{n}" for n in (
    "ByteString", "Collection", "Container", "Iterable", "Mapping", "Reversible", "Sequence", "Set")),
    *(f"typing.{n}" for n in ("AbstractSet", "ByteString", "Callable", "Collection", "Container", "FrozenSet",
                              "Iterable", "Literal", "Mapping", "Never", "NoReturn", "Reversible", "Sequence",
                              "Tuple"))})
_IMMUTABLE_TYPES = _IMMUTABLE_GENERICS | {"bool", "bytes", "complex", "float", "frozenset", "int", "object", "range",
                                          "str", "collections.abc.Sized", "typing.LiteralString", "typing.Sized"}


def _constant_non_singleton(e: ast.AST) -> bool:
    """A literal other than None / True / False / `...`, or a tuple of literals (ruff's reading)."""
    return _constant(e) and not (type(e) is ast.Constant and (e.value is None or e.value is ... or type(e.value) is bool))


def _constant(e: ast.AST) -> bool:
    if type(e) is ast.Tuple:
        return all(_constant(x) for x in e.elts)
    return type(e) is ast.Constant


def _keyword_lines(node: ast.AST, t: type) -> dict[int, int]:
    """The statements that follow an `else:` or `finally:` line (an `elif` is an if of its own, in the same
    column as the if it continues), by id: their flag."""
    out = {}
    orelse = getattr(node, "orelse", None)
    if orelse and not (t is ast.If and type(orelse[0]) is ast.If and orelse[0].col_offset == node.col_offset
                       and len(orelse) == 1):
        out[id(orelse[0])] = F_AFTER_ELSE
    final = getattr(node, "finalbody", None)
    if final:
        out[id(final[0])] = F_AFTER_FINALLY
    return out


def _reraises(handler: ast.ExceptHandler) -> bool:
    """Whether the handler's body re-raises with a bare `raise` at its top level (as ruff exempts it)."""
    return any(isinstance(n, ast.Raise) and n.exc is None for n in handler.body)


def _irrefutable(pattern: ast.AST) -> bool:
    """Whether a case pattern matches anything (`_`, a capture, an alternative of them): mccabe's C901, as ruff
    counts it, does not count such a last case."""
    if isinstance(pattern, ast.MatchAs):
        return pattern.pattern is None or _irrefutable(pattern.pattern)
    return isinstance(pattern, ast.MatchOr) and any(_irrefutable(p) for p in pattern.patterns)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return ""


def _params(args: ast.arguments) -> int:
    return (len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs) + (args.vararg is not None)
            + (args.kwarg is not None))
