"""C901 under mccabe's definition, as ruff and flake8 count it, over a whole batch at once on `xp`.

A function starts at 1 and adds, for every statement anywhere in its body (nested functions and classes
included): 1 per if / elif, for, while and nested def; per try, its handlers plus 1 with `else`; per match,
its cases less an unguarded catch-all last case. Expressions (boolean operators, if-expressions,
comprehensions) and asserts add nothing, unlike radon's count. Each block's own statements are one bincount;
nested blocks are added to their enclosing ones level by level, deepest first.
"""
from __future__ import annotations

from .batched import weight_tables
from .nodes import F_LAST_IRREFUTABLE, KIND

BASE, CA, CB = weight_tables({"If": (1, 0, 0), "For": (1, 0, 0), "AsyncFor": (1, 0, 0), "While": (1, 0, 0),
                              "FunctionDef": (1, 0, 0), "AsyncFunctionDef": (1, 0, 0), "Try": (0, 1, 1),
                              "TryStar": (0, 1, 1), "Match": (0, 1, 0)})


def block_depths(xp, block_owner):
    """How many blocks enclose each block (0 at module level): one gather per level of nesting."""
    depth = xp.zeros(len(block_owner), xp.int64)
    cur = block_owner
    while len(cur) and bool((cur >= 0).any()):
        inside = cur >= 0
        depth += inside
        cur = xp.where(inside, block_owner[xp.maximum(cur, 0)], -1)
    return depth


def mccabe_complexity(xp, nodes: dict, blocks: dict, const=None):
    """mccabe complexity of every block (classes too: their body's count, which C901 does not report)."""
    const = const or xp.asarray
    kind, owner = nodes["kind"], nodes["owner"]
    nb = len(blocks["owner"])
    w = const(BASE)[kind] + const(CA)[kind] * nodes["a"] + const(CB)[kind] * nodes["b"]
    match = KIND.get("Match", -1)
    w = w - ((kind == match) & ((nodes["flags"] & F_LAST_IRREFUTABLE) > 0))
    w = xp.where(owner < 0, 0, w)
    total = xp.bincount(xp.where(owner >= 0, owner, nb), weights=w, minlength=nb + 1)[:nb].astype(xp.int64)
    depth = block_depths(xp, blocks["owner"])
    for level in range(int(depth.max()) if nb else 0, 0, -1):
        at = depth == level
        up = xp.bincount(xp.where(at, blocks["owner"], nb), weights=xp.where(at, total, 0), minlength=nb + 1)
        total = total + up[:nb].astype(xp.int64)
    return 1 + total
