"""What clone detection sees of a file: its syntax nodes in source order, each as two keys.

`shape` forgets names and literals but keeps node kinds and operators (equal shapes: a type-2 clone, copied
and renamed); `exact` keeps them too (equal exact keys: a type-1 copy). Imports, docstrings (and every other
statement that is a lone string), def and class signatures and nodes without a position are left out, as
pylint's similarity checker leaves out imports, docstrings, signatures and comments (comments are not in the
tree at all). Computed for a whole batch of files at once from the node table the parser and its cache
already hold.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from ..nodes import F_AFTER_ELSE, F_AFTER_FINALLY, F_STR, F_TEXT, KIND, OP_VALUES, qhash
from .detect import order_by


def _table(ids) -> np.ndarray:
    """A lookup table over node kinds: `table[kind]` is a membership test in one gather (np.isin sorts)."""
    out = np.zeros(max(KIND.values()) + 1, bool)
    out[np.asarray(list(ids), np.int64)] = True
    return out


_IMPORTS = _table(KIND[k] for k in ("Import", "ImportFrom", "alias") if k in KIND)
# nodes whose own text may end on a later line than it starts: an attribute, a parameter or a keyword argument
# covers the expression under it, which follows it in source order, so its end would stretch the copy's range
# over lines the copy does not hold (an attribute of a string over 25 lines)
_LEAVES = _table(KIND[k] for k in ("Name", "Constant") if k in KIND)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
TEXT_WEIGHT = 4  # nodes per text line of a multi-line string (its first too where it opens it): a short line of code
_DEFS = _table(KIND[k] for k in ("FunctionDef", "AsyncFunctionDef", "ClassDef") if k in KIND)
_SHAPE_OF = np.arange(max(KIND.values()) + 1)  # kind -> the kind its shape is read as
for _a, _s in (("AsyncWith", "With"), ("AsyncFor", "For"), ("TryStar", "Try")):
    if _a in KIND and _s in KIND:
        _SHAPE_OF[KIND[_a]] = KIND[_s]
_TWIN = _SHAPE_OF != np.arange(len(_SHAPE_OF))
_TWIN_MARK = np.uint64(0x5A5A_A5A5_0F0F_F0F0)
_STMTS = _table(i for k, i in KIND.items() if isinstance(getattr(ast, k, None), type)
                and issubclass(getattr(ast, k), ast.stmt))


def text_keys(texts: np.ndarray, sub: np.ndarray) -> np.ndarray:
    """The exact keys of a text line's nodes: from its text's hash (`tensorize.text_hash`) and each node's place
    in the line (0 to TEXT_WEIGHT - 1)."""
    return mix(mix(texts.astype(np.uint64) ^ np.uint64(0x5851F42D4C957F2D)) + sub.astype(np.uint64))


def mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on uint64 arrays: well-spread keys for the window hashes (xp-generic)."""
    x = x ^ (x >> np.uint64(30))
    x = x * _M1
    x = x ^ (x >> np.uint64(27))
    x = x * _M2
    return x ^ (x >> np.uint64(31))


# the keys of an `else:` line and a `finally:` line (no node kind's: kinds are keyed below 2**20 before the mix)
_KEYWORD_KEYS = mix(np.asarray([qhash("else:"), qhash("finally:")], np.int64).astype(np.uint64) | np.uint64(1 << 63))


@dataclass(frozen=True)
class Features:
    """One file's kept nodes in source order."""

    shape: np.ndarray  # uint64 key of kind and operator
    exact: np.ndarray  # uint64 key of kind, operator, name or constant
    line: np.ndarray  # int32 first line of the node
    last: np.ndarray  # int32 last line the node itself covers (its end for a leaf, its first line otherwise)
    quiet: np.ndarray  # int32 lines whose `noqa` silences GB301 (a copy starting there is not reported)

    def __len__(self) -> int:
        return len(self.shape)

    def to_bytes(self) -> bytes:
        head = np.asarray([len(self), len(self.quiet)], "<i8").tobytes()
        return head + b"".join(np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
                               for a in (self.shape, self.exact, self.line, self.last, self.quiet))

    @classmethod
    def from_bytes(cls, blob: bytes) -> "Features":
        n, q = (int(x) for x in np.frombuffer(blob, "<i8", count=2))
        if n < 0 or q < 0 or len(blob) != 16 + 24 * n + 4 * q:
            raise ValueError("damaged clone features")
        k = np.frombuffer(blob, "<u8", offset=16, count=2 * n)
        lines = np.frombuffer(blob, "<i4", offset=16 + 16 * n, count=2 * n + q)
        return cls(k[:n], k[n:], lines[:n], lines[n:2 * n], lines[2 * n:])


def below(root: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Mask of every node under a node of the mask `root` (not the roots themselves): one array pass per level
    of the deepest such subtree."""
    up = np.maximum(parent, 0)
    under = (parent >= 0) & root[up]
    while True:
        grown = under | (under[up] & (parent >= 0))
        if np.array_equal(grown, under):
            return under
        under = grown


def _header_roots(kind: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """Mask of the children of a def or class that are not statements: its decorators, parameters, return
    annotation, bases and keywords."""
    return (parent >= 0) & _DEFS[kind[np.maximum(parent, 0)]] & ~_STMTS[kind]


def header_first_line(roots: np.ndarray, parent: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Each node's first line, but for a def or class the first line of its header, where its decorators
    start: the first line of its header's children (`_header_roots`; an expression starts no later than any
    node under it)."""
    root = roots & (line > 0)
    first = line.copy()
    np.minimum.at(first, parent[root], line[root])
    return first


def closing_lines(kind: np.ndarray, parent: np.ndarray, line: np.ndarray, end: np.ndarray) -> np.ndarray:
    """Per node, the last line of any expression over several lines that it ends (its last node in the node
    table's pre-order): a copy that holds an expression's last node holds its closing bracket's line too. The
    last descendant is found by following last children, by pointer doubling (a few array passes)."""
    n = len(parent)
    child = np.flatnonzero(parent >= 0)
    follow = np.arange(n)
    np.maximum.at(follow, parent[child], child)
    while True:
        further = follow[follow]
        if np.array_equal(further, follow):
            break
        follow = further
    opened = ~_STMTS[kind] & (end > line) & (follow != np.arange(n))
    out = np.zeros(n, np.int64)
    np.maximum.at(out, follow[opened], end[opened])
    return out


def _opens_its_line(file: np.ndarray, line: np.ndarray, col: np.ndarray) -> np.ndarray:
    """Per node, in source order: whether no kept node of its file starts on its line at a smaller column (a
    string that opens its line: a row of a table in brackets, a text block's quotes alone; not one after `x = `).
    Each line's first node has its least column."""
    head = np.ones(len(line), bool)
    head[1:] = (file[1:] != file[:-1]) | (line[1:] != line[:-1])
    return col == col[np.flatnonzero(head)][np.cumsum(head) - 1]


def batch_features(nodes: dict, nfiles: int, ignore_docstrings: bool = True, ignore_imports: bool = True,
                   quiet: list | None = None, string_lines: list | None = None,
                   ignore_signatures: bool = True) -> list[Features]:
    """Every file's features from a batch's concatenated node columns (`batched.concat`), with no loop over
    nodes: a few masks and one split. With `ignore_signatures` (pylint's option of that name), a def or class
    is one node that says only "def" or "class": its name, decorators, parameters and bases are left out, so
    code copied under another signature (a method made a function, sync made async) still reads as a copy."""
    kind, line, flags, parent = nodes["kind"], nodes["line"], nodes["flags"], nodes["parent"]
    keep = line > 0
    start = line  # where a node starts for its copy: a def or class left without its header, at its decorators
    if ignore_signatures:  # a header: every child of a def or class that is not a statement, and all below it
        roots = _header_roots(kind, parent)
        keep &= ~(roots | below(roots, parent))
        start = header_first_line(roots, parent, line)
    if ignore_imports:
        keep &= ~_IMPORTS[kind]
    if ignore_docstrings:
        lone = (kind == KIND["Constant"]) & (flags & F_STR != 0) & (parent >= 0)
        lone &= kind[np.maximum(parent, 0)] == KIND["Expr"]
        keep[lone] = False
        keep[parent[lone]] = False
    val = nodes["val"].astype(np.uint64)
    op = np.where(nodes["val"] < OP_VALUES, val, np.uint64(0))
    if ignore_signatures:  # a def is a def, sync or async, whatever its name
        is_def = _DEFS[kind]
        val = np.where(is_def, np.uint64(0), val)
        op = np.where(is_def, np.uint64(0), op)
        kind = np.where(kind == KIND["AsyncFunctionDef"], KIND["FunctionDef"], kind)
    # `async with`, `async for` and `try: ... except*` have the shape of `with`, `for` and `try` (code copied
    # into its async or exception-group twin is a renamed copy); their exact keys still differ
    is_twin = _TWIN[kind]
    kind = np.where(is_twin, _SHAPE_OF[kind], kind)
    shape = mix(kind.astype(np.uint64) * np.uint64(1 << 20) + op)
    exact = mix(shape ^ val ^ np.where(is_twin, _TWIN_MARK, np.uint64(0)))
    end = np.maximum(nodes["end_line"], line)
    # an f-string over several lines is text, compared line by line as it reads, placeholders included; its
    # parts are left out (before Python 3.12 each of them spans the whole f-string, and the names of its
    # placeholders, one a line, would read as a run of copies of itself)
    in_text = below((kind == KIND["JoinedStr"]) & (end > line), parent)
    keep &= ~in_text
    last = np.maximum(np.where(_LEAVES[kind], end, line), closing_lines(kind, parent, line, end))
    text = ((kind == KIND["Constant"]) & (flags & F_TEXT != 0)) | (kind == KIND["JoinedStr"])
    idx = np.flatnonzero(keep)
    # source order (line, column; a parent before the child that starts where it does), as a reader and a
    # token-based tool see it: a dict's keys and values interleave, decorators come before their def
    idx = idx[order_by(np, nodes["file"][idx], start[idx], nodes["col"][idx], stable=True)]
    # a string, bytes or f-string over several lines counts TEXT_WEIGHT nodes for each line after its first (a
    # copied text block is as long as it looks, and min_nodes of text is min_nodes / TEXT_WEIGHT lines), keyed by
    # that line's text; and for its first line too where the string opens that line (`_string_lines` has its
    # text), so that a copy may start on a table's first row at one place and on its second at another
    n_lines = np.where(text[idx], end[idx] - line[idx] + 1, 1)
    own = (n_lines > 1) & _opens_its_line(nodes["file"][idx], start[idx], nodes["col"][idx])
    spread = np.where(own, n_lines * TEXT_WEIGHT, 1 + (n_lines - 1) * TEXT_WEIGHT)
    idx, own = np.repeat(idx, spread), np.repeat(own, spread)
    step = np.arange(len(idx)) - np.repeat(np.cumsum(spread) - spread, spread)
    # the place of each node among its string's lines, as if every line had TEXT_WEIGHT nodes
    virtual = np.where(own | (step == 0), step, step + TEXT_WEIGHT - 1)
    sub = virtual % TEXT_WEIGHT
    in_string = n_lines.repeat(spread) > 1
    exact_k = mix(exact[idx] + step.astype(np.uint64))
    line_k = (start[idx] + virtual // TEXT_WEIGHT).astype(np.int32)
    if string_lines and any(string_lines):  # each line of such a string keyed by its text, where it is known
        heads = np.flatnonzero(in_string & (sub == 0))
        file_k = nodes["file"][idx[heads]]
        texts = np.asarray([string_lines[f].get(ln, 0) for f, ln in zip(file_k.tolist(), line_k[heads].tolist())],
                           np.int64)
        by_line = np.zeros(len(idx), np.int64)
        by_line[heads] = texts
        spread_k = np.flatnonzero(in_string)
        texts = by_line[spread_k - sub[spread_k]]  # a line's other nodes take its text too
        known = texts != 0
        exact_k[spread_k[known]] = text_keys(texts[known], sub[spread_k[known]])
    # a string's rows end on their own line, but its last row where the string does, or on the closing bracket
    # of the expression it ends (a copy that ends with the string holds that bracket's line, as after code)
    tail = step == np.repeat(spread, spread) - 1
    last_k = np.where(in_string & ~tail, line_k, last[idx]).astype(np.int32)
    # the lines of such a string after its first (and its first where it opens it) are text, not code: a renamed
    # copy must keep them as they are
    shape_k = np.where((step > 0) | own, exact_k, shape[idx])
    file_k = nodes["file"][idx]
    # an `else:` or `finally:` line, which holds no node, as a row of its own just before the statement after
    # it, on the line before that statement's (the keyword's own line unless comments come between)
    word = np.where(step == 0, flags[idx] & (F_AFTER_ELSE | F_AFTER_FINALLY), 0)
    at = np.flatnonzero(word)
    if len(at):
        key = np.where(word[at] & F_AFTER_ELSE, _KEYWORD_KEYS[0], _KEYWORD_KEYS[1])
        on = line_k[at] - 1
        shape_k, exact_k = np.insert(shape_k, at, key), np.insert(exact_k, at, key)
        line_k, last_k, file_k = np.insert(line_k, at, on), np.insert(last_k, at, on), np.insert(file_k, at, file_k[at])
    cuts = np.searchsorted(file_k, np.arange(1, nfiles))
    parts = zip(*(np.split(a, cuts) for a in (shape_k, exact_k, line_k, last_k)))
    quiet = quiet or [()] * nfiles
    return [Features(*p, np.asarray(q, np.int32)) for p, q in zip(parts, quiet)]
