"""Halstead counts and the maintainability index as radon computes them, over a whole batch at once on `xp`.

radon's Halstead visitor (6.x) counts, outside functions' decorators and signatures: per binary, unary or
boolean operator and augmented assignment one operator, per comparison one per operator; their direct children
are the operands. Distinct operators are operator names; distinct operands are (innermost function's name,
operand), where a name or attribute is its text, a constant its value (Python's `==`: 1, 1.0 and True alike,
a string like the name it spells) and any other expression itself. A file's report covers everything; a
function's (functions not inside another, methods included) its body, nested functions included.
Distinct counts are one sort of 64-bit keys each; totals are bincounts.
"""
from __future__ import annotations

import math

import numpy as np

from .batched import radon_weights
from .nodes import DEAD_SIGNATURE, KIND

_OPERATIONS = np.asarray([KIND[k] for k in ("BinOp", "UnaryOp", "BoolOp", "AugAssign", "Compare")], np.int64)
_NAMES = np.asarray([KIND["Name"], KIND["Attribute"]], np.int64)
_M1, _M2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xBF58476D1CE4E5B9)
FIELDS = ("h1", "h2", "N1", "N2", "vocabulary", "length", "calculated_length", "volume", "difficulty", "effort",
          "time", "bugs")


def _mix(xp, *parts):
    """One 64-bit key of several int64 columns (collisions: about n^2 / 2^64)."""
    h = xp.zeros(len(parts[0]), xp.uint64)
    for p in parts:
        h = (h ^ p.astype(xp.uint64)) * _M1
        h = (h ^ (h >> np.uint64(31))) * _M2
    return h


def _distinct(xp, group, key, ngroups: int):
    """Per group, how many distinct keys (the group is part of each key)."""
    if not len(key):
        return xp.zeros(ngroups, xp.int64)
    order = xp.argsort(key)
    k = key[order]
    first = xp.concatenate([xp.ones(1, bool), k[1:] != k[:-1]])
    return xp.bincount(group[order][first], minlength=ngroups)[:ngroups].astype(xp.int64)


def _at(xp, table, idx, missing: int = -1):
    """table[idx], and `missing` where idx is -1."""
    padded = xp.concatenate([table, xp.full(1, missing, table.dtype)])
    return padded[xp.where(idx >= 0, idx, len(table))]


def _ancestors(xp, blocks: dict):
    """Per block: its innermost function (itself or through classes; -1 at module level) and its outermost
    function (radon's reported functions: not inside another function)."""
    owner, is_fn = blocks["owner"], ~blocks["is_class"]
    nb = len(owner)
    inner = xp.where(is_fn, xp.arange(nb), -1)
    outer = inner.copy()
    cur = owner
    while nb and bool((cur >= 0).any()):
        up = cur >= 0
        fn = up & is_fn[xp.maximum(cur, 0)]
        inner = xp.where((inner < 0) & fn, cur, inner)
        outer = xp.where(fn, cur, outer)
        cur = xp.where(up, owner[xp.maximum(cur, 0)], -1)
    return inner, outer


def _counts(xp, ngroups: int, op_group, op_mask, n_ops, operand_group, operand_key):
    """(h1, h2, N1, N2) per group, from the operations' and the operands' groups (-1: counted nowhere)."""
    g = xp.where(op_group >= 0, op_group, ngroups)
    bits = ((op_mask[:, None] >> xp.arange(32, dtype=xp.int64)[None, :]) & 1).astype(bool)
    cells = (g[:, None] * 32 + xp.arange(32)[None, :])[bits]
    h1 = (xp.bincount(cells, minlength=(ngroups + 1) * 32).reshape(ngroups + 1, 32) > 0).sum(axis=1)[:ngroups]
    n1 = xp.bincount(g, weights=n_ops, minlength=ngroups + 1)[:ngroups]
    og = xp.where(operand_group >= 0, operand_group, ngroups)
    n2 = xp.bincount(og, minlength=ngroups + 1)[:ngroups]
    h2 = _distinct(xp, og, _mix(xp, og, operand_key), ngroups + 1)[:ngroups]
    return xp.stack([h1.astype(xp.int64), h2, n1.astype(xp.int64), n2.astype(xp.int64)])


def halstead_counts(xp, nodes: dict, blocks: dict, nfiles: int, const=None):
    """([4, files] h1 h2 N1 N2 per file, [4, blocks] the same per reported function (zeros elsewhere), and
    radon's total complexity per file, which the maintainability index takes). `const` uploads the constant
    tables, as for block_metrics."""
    const = const or xp.asarray
    kind, parent, owner = nodes["kind"], nodes["parent"], nodes["owner"]
    nb = len(blocks["owner"])
    op = xp.isin(kind, const(_OPERATIONS)) & (nodes["dead"] != DEAD_SIGNATURE)
    ops = xp.flatnonzero(op)
    operands = xp.flatnonzero((parent >= 0) & op[xp.maximum(parent, 0)])
    is_cmp = kind[ops] == KIND["Compare"]
    op_mask = xp.where(is_cmp, nodes["b"][ops], xp.left_shift(1, xp.minimum(nodes["val"][ops], 62)))
    n_ops = xp.where(is_cmp, nodes["a"][ops], 1)
    k = kind[operands]
    key = xp.where(xp.isin(k, const(_NAMES)), nodes["val"][operands],
                   xp.where(k == KIND["Constant"], nodes["qname"][operands], operands + 1))
    inner, outer = _ancestors(xp, blocks)
    own = owner[operands]
    fn = _at(xp, inner, own)
    name = _at(xp, nodes["val"][blocks["node"]], fn, 0)  # the function's name: radon's context
    key = _mix(xp, name, key)
    top_op, top = _at(xp, outer, owner[ops]), _at(xp, outer, own)
    file_ = nodes["file"]
    per_file = _counts(xp, nfiles, file_[ops], op_mask, n_ops, file_[operands], key)
    per_fn = _counts(xp, nb, top_op, op_mask, n_ops, top, key)
    return per_file, per_fn, _radon_total(xp, nodes, blocks, nfiles, const)


def _radon_total(xp, nodes: dict, blocks: dict, nfiles: int, const=None):
    """radon's total complexity of each file: 1 + its module-level decisions + every function and class at
    module level less one each, a class being its body's decisions plus its methods' complexities."""
    owner = nodes["owner"]
    w = radon_weights(xp, nodes, const)
    nb = len(blocks["owner"])
    module = xp.bincount(xp.where(owner < 0, nodes["file"], nfiles), weights=w, minlength=nfiles + 1)[:nfiles]
    own = xp.bincount(xp.where(owner >= 0, owner, nb), weights=w, minlength=nb + 1)[:nb]
    bowner, is_class = blocks["owner"], blocks["is_class"]
    method = (~is_class) & (bowner >= 0) & is_class[xp.maximum(bowner, 0)]
    methods = xp.bincount(xp.where(method, bowner, nb), weights=1 + own, minlength=nb + 1)[:nb]
    top = bowner < 0
    add = xp.where(top, own + xp.where(is_class, methods, 0), 0)
    per_file = xp.bincount(blocks["file"], weights=add, minlength=nfiles)[:nfiles] if nb else xp.zeros(nfiles)
    return (1 + module + per_file).astype(xp.int64)


def report(h1: int, h2: int, n1: int, n2: int) -> dict:
    """radon's HalsteadReport fields from the four counts."""
    h, n = h1 + h2, n1 + n2
    length = h1 * math.log(h1, 2) + h2 * math.log(h2, 2) if h1 and h2 else 0
    volume = n * math.log(h, 2) if h else 0
    difficulty = (h1 * n2) / float(2 * h2) if h2 else 0
    effort = difficulty * volume
    return dict(zip(FIELDS, (h1, h2, n1, n2, h, n, length, volume, difficulty, effort, effort / 18.0,
                             volume / 3000.0)))


def maintainability(volume: float, complexity: int, raw: dict) -> float:
    """radon's maintainability index (`radon mi`, multi-line strings counted as comments)."""
    sloc = raw.get("sloc", 0)
    comments = (raw.get("comments", 0) + raw.get("multi", 0)) / float(sloc) * 100 if sloc else 0
    lloc = raw.get("lloc", 0)
    if volume <= 0 or lloc <= 0:
        return 100.0
    mi = (171 - 5.2 * math.log(volume) - 0.23 * complexity - 16.2 * math.log(lloc)
          + 50 * math.sin(math.sqrt(2.46 * math.radians(comments))))
    return min(max(0.0, mi * 100 / 171.0), 100.0)


def mi_rank(score: float) -> str:
    """A above 19, B above 9, C below (radon)."""
    return "A" if score > 19 else "B" if score > 9 else "C"
