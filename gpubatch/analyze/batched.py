"""Metrics and rules over a whole batch of files' node arrays at once, written against `xp`.

Complexity follows `radon cc` (6.x): a block starts at 1 and adds, for nodes its visitor reaches, 1 per
if / if-expression / assert, 1 (+1 with `else`) per for / while, handlers (+1 with `else`) per try, values-1 per
boolean operator, 1 + ifs per comprehension, cases (minus a capture-all case) per match. A class is its body's
decisions + its methods' complexities, averaged over methods as radon reports it. Every sum is one bincount
over the batch; every rule is one mask over the batch.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .nodes import (COLUMNS, F_BARE_EXCEPT, F_CMP_BOOL, F_CMP_NONE, KIND, R_DEFAULT, R_IN_DEFAULT, R_LAMBDA_DEFAULT,
                    qhash)
from .tensorize import FileTensors


def weight_tables(spec: dict[str, tuple[int, int, int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per node kind, (base, per `a`, per `b`) of a complexity count: a node weighs base + ca * a + cb * b."""
    tables = tuple(np.zeros(max(KIND.values()) + 1, np.int64) for _ in range(3))
    for name, row in spec.items():
        if name in KIND:
            for table, v in zip(tables, row):
                table[KIND[name]] = v
    return tables


BASE, CA, CB = weight_tables({"If": (1, 0, 0), "IfExp": (1, 0, 0), "Assert": (1, 0, 0), "For": (1, 0, 1),
                              "AsyncFor": (1, 0, 1), "While": (1, 0, 1), "Try": (0, 1, 1), "BoolOp": (-1, 1, 0),
                              "comprehension": (1, 1, 0), "Match": (0, 1, -1)})
MUTABLE = np.asarray([KIND[k] for k in ("List", "Dict", "Set", "ListComp", "DictComp", "SetComp") if k in KIND],
                     np.int64)
IMMUTABLE_CALLS = np.asarray([qhash(n) for n in ("tuple", "frozenset", "int", "float", "complex", "bool", "str", "bytes",
                                      "range", "types.MappingProxyType", "re.compile",
                                      "operator.attrgetter", "operator.itemgetter", "operator.methodcaller",
                                      "decimal.Decimal", "fractions.Fraction", "pathlib.Path", "datetime.timedelta",
                                      "datetime.date", "datetime.datetime")], np.int64)
# calls that make a mutable value: B006 as a literal would be (ruff), not B008
MUTABLE_CALLS = np.asarray([qhash(n) for n in ("dict", "list", "set", *(f"collections.{c}" for c in (
    "Counter", "OrderedDict", "defaultdict", "deque", "ChainMap", "UserDict", "UserList", "UserString")),
    "weakref.WeakKeyDictionary", "weakref.WeakSet", "weakref.WeakValueDictionary")], np.int64)


@dataclass(frozen=True)
class Thresholds:
    max_complexity: int = 10
    max_function_lines: int = 100
    max_nesting: int = 5
    max_params: int = 8
    banned_calls: tuple[str, ...] = ()
    banned_imports: tuple[str, ...] = ()
    complexity: str = "radon"  # C901's definition: "radon" (radon cc) or "mccabe" (mccabe, ruff, flake8)


class Block(NamedTuple):
    """A function (F), method (M) or class (C) and its metrics. A named tuple, not a dataclass: a warm run over a
    large tree rebuilds hundreds of thousands of them from the index, and a tuple is built several times faster."""

    kind: str  # F function, M method, C class
    name: str
    line: int
    col: int
    end_line: int
    complexity: int
    params: int
    nesting: int
    halstead: tuple[int, ...] = ()  # a function's or method's h1, h2, N1, N2 (radon hal), body only


def concat(files: list[FileTensors]):
    """One set of arrays for the batch: node columns with global parent/owner indices, and block tables."""
    counts = np.asarray([ft.node_count for ft in files], np.int64)
    nblocks = np.asarray([len(ft.blocks) for ft in files], np.int64)
    tables = [ft for ft in files if ft.node_count]
    node_off = np.repeat(np.cumsum(counts) - counts, counts)
    block_off = np.repeat(np.cumsum(nblocks) - nblocks, counts)
    # each column gathered contiguous, as int64 whatever type a file's column came in: every metric and rule then
    # reads 8 bytes a node instead of a cache line (strided views of one row table made the batch's NumPy ops 3-5x
    # slower), and no whole-batch row table is built beside the columns (it doubled the batch's memory)
    nodes = {c: np.concatenate([ft.nodes[c] for ft in tables], dtype=np.int64) if tables
             else np.zeros(0, np.int64) for c in COLUMNS}
    nodes["parent"] = np.where(nodes["parent"] >= 0, nodes["parent"] + node_off, -1)
    nodes["owner"] = np.where(nodes["owner"] >= 0, nodes["owner"] + block_off, -1)
    nodes["file"] = np.repeat(np.arange(len(files)), counts)
    rows = [b for ft in files for b in ft.blocks]
    bfile = np.repeat(np.arange(len(files)), nblocks)
    boff = np.repeat(np.cumsum(nblocks) - nblocks, nblocks)
    noff = np.repeat(np.cumsum(counts) - counts, nblocks)
    owner = np.asarray([b[5] for b in rows], np.int64)
    blocks = {"is_class": np.asarray([b[0] == "C" for b in rows], bool),
              "owner": np.where(owner >= 0, owner + boff, -1) if len(rows) else owner,
              "params": np.asarray([b[6] for b in rows], np.int64),
              "node": np.asarray([b[7] for b in rows], np.int64) + noff, "file": bfile}
    return nodes, blocks


def radon_weights(xp, nodes: dict, const=None):
    """Each node's decisions as radon cc counts them (0 where its visitor does not go)."""
    const = const or xp.asarray
    kind = nodes["kind"]
    w = const(BASE)[kind] + const(CA)[kind] * nodes["a"] + const(CB)[kind] * nodes["b"]
    w = xp.where(kind == KIND.get("Match", -1), xp.maximum(w, 0), w)
    return xp.where(nodes["dead"] > 0, 0, w)


def block_metrics(xp, nodes: dict, blocks: dict, const=None):
    """Complexity, nesting depth and lines of every block; arrays on `xp`. `const` uploads the constant
    tables (the backend's content-keyed device cache: one upload per run, not per batch)."""
    owner = nodes["owner"]
    nb = len(blocks["owner"])
    w = xp.where(owner < 0, 0, radon_weights(xp, nodes, const))
    own = xp.bincount(xp.where(owner >= 0, owner, nb), weights=w, minlength=nb + 1)[:nb].astype(xp.int64)
    is_class = blocks["is_class"]
    complexity = 1 + own
    methods = (~is_class) & (blocks["owner"] >= 0) & is_class[xp.maximum(blocks["owner"], 0)]
    cls_of = xp.where(methods, blocks["owner"], nb)
    method_sum = xp.bincount(cls_of, weights=xp.where(methods, complexity, 0), minlength=nb + 1)[:nb]
    n_methods = xp.bincount(cls_of, minlength=nb + 1)[:nb]
    real = complexity + method_sum.astype(xp.int64)
    avg = xp.where(n_methods > 0, (real // xp.maximum(n_methods, 1)) + (n_methods > 1), real)
    complexity = xp.where(is_class, avg, complexity)
    # deepest statement nesting per block: segment max via sort
    key = xp.where(owner >= 0, owner, nb) * 4096 + xp.minimum(nodes["nest"], 4095)
    srt = xp.sort(key)
    last = xp.concatenate([srt[1:] // 4096 != srt[:-1] // 4096, xp.ones(1, bool)]) if len(srt) else srt > 0
    nest = xp.zeros(nb + 1, xp.int64)
    nest[srt[last] // 4096] = srt[last] % 4096
    return complexity, nest[:nb], methods


def rule_masks(xp, nodes: dict, th: Thresholds, const=None) -> dict[str, object]:
    """Node-level rules as boolean masks over the batch (`const`: as for block_metrics)."""
    const = const or xp.asarray
    kind, flags, role, qn = nodes["kind"], nodes["flags"], nodes["role"], nodes["qname"]
    is_call = kind == KIND["Call"]
    mutable_call = is_call & xp.isin(qn, const(MUTABLE_CALLS))
    in_default = (role == R_DEFAULT) | (role == R_IN_DEFAULT) | (role == R_LAMBDA_DEFAULT)
    out = {
        "E722": (kind == KIND["ExceptHandler"]) & ((flags & F_BARE_EXCEPT) > 0),
        "B006": (role == R_DEFAULT) & (xp.isin(kind, const(MUTABLE)) | mutable_call),
        "B008": in_default & is_call & ~mutable_call & ~xp.isin(qn, const(IMMUTABLE_CALLS)),
        "S307": is_call & (qn == qhash("eval")),
        "S102": is_call & (qn == qhash("exec")),
        "E711": (flags & F_CMP_NONE) > 0,
        "E712": (flags & F_CMP_BOOL) > 0,  # reported at the comparison, as ruff does
    }
    if th.banned_calls:
        out["GB201"] = is_call & xp.isin(qn, const(_hashes(th.banned_calls)))
    if th.banned_imports:
        imp = (kind == KIND["Import"]) | (kind == KIND["ImportFrom"])
        out["GB202"] = imp & xp.isin(qn, const(_hashes(th.banned_imports)))
    return out


def _hashes(names) -> np.ndarray:
    return np.asarray([qhash(n) for n in names], np.int64)


def to_device(xp, arrays: dict) -> dict:
    return {k: xp.asarray(v) for k, v in arrays.items()}


def host(xp, a) -> np.ndarray:
    return a if xp is np else xp.asnumpy(a)
