"""Per-task pools of the best few search states under some ranking, distinct by a key (partial fits, overlay
candidates).

Every chunk of an expansion offers its candidates: the device keeps, per task, the first `keep` distinct ones
in rank order (`first_distinct`), and only those travel to the host, where a `Pool` per task merges them. A
state that ranks among the first `keep` distinct states of a whole level also ranks so within its own chunk,
so the merged pools do not depend on the chunk size, the device or the tasks sharing a batch.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

NO_LIMIT = np.iinfo(np.int64).max


def first_distinct(xp, order, key, task, keep: int):
    """Indices into the candidate arrays: per task (`task`, int64), the first `keep` candidates of distinct
    `key` (salted by task: never equal between tasks) in the order of `order` (int64, unique per candidate,
    task-major)."""
    order = xp.argsort(order)
    sk = key[order]
    by_key = xp.argsort(sk, kind="stable")
    head = xp.ones(len(sk), bool)
    head[1:] = sk[by_key[1:]] != sk[by_key[:-1]]
    first = order[xp.sort(by_key[head])]  # each distinct key once, where it ranks first
    t = task[first]
    rank = xp.arange(len(first)) - xp.searchsorted(t, t)
    return first[rank < keep]


def entry_limits(pools: list[Pool], level: int, P: int, n_level: int) -> np.ndarray:
    """Per pool, the largest order `(major * P + primitive) * n_level + parent` that a candidate of `level`
    (states of a level of `n_level` states, `P` primitives) may have and still enter it; ranks are (major,
    level, primitive, parent). Candidates above it are dropped on the device before anything else."""
    out = np.full(len(pools), NO_LIMIT, np.int64)
    for i, pool in enumerate(pools):
        w = pool.worst()
        if w is not None:
            major, lvl, pi, parent = w
            out[i] = (major * P + pi) * n_level + parent - 1 if lvl == level else major * P * n_level - 1
    return out


def within(xp, major, limits, task_d, ids, P: int, n_level: int):
    """bool [P, m]: which candidates (`major` [P, m] over a chunk's states `ids`, of tasks `task_d`) may still
    enter their task's pool (`limits` from `entry_limits`, one per task)."""
    order = (major.astype(xp.int64) * P + xp.arange(P, dtype=xp.int64).reshape(-1, 1)) * n_level
    return order + xp.asarray(ids, dtype=xp.int64) <= xp.asarray(limits)[task_d]


class Pool:
    """One task's best `keep` records, best rank first, one per key; iterates as (rank, record)."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.items: list[tuple[tuple, Any]] = []
        self.ranks: dict[Any, tuple] = {}  # key -> rank of its record
        self.keys: dict[tuple, Any] = {}  # rank -> key

    def __iter__(self) -> Iterator[tuple[tuple, Any]]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    def worst(self) -> tuple | None:
        """The rank a newcomer must beat, None while the pool has room."""
        return self.items[-1][0] if self.items and len(self.items) >= self.keep else None

    def offer(self, rank: tuple, key, make) -> Any | None:
        """Enter the record `make()` under `rank` if it ranks among the best `keep` (a record of the same key
        ranked lower is replaced); the new record, or None."""
        held = self.ranks.get(key)
        if held is not None and held <= rank:
            return None
        if held is None and len(self.items) >= self.keep and (not self.items or rank >= self.items[-1][0]):
            return None
        if held is not None:
            self._drop([e for e in self.items if e[0] == held])
        rec = make()
        self.items.append((rank, rec))
        self.items.sort(key=lambda e: e[0])
        self.ranks[key], self.keys[rank] = rank, key
        self._drop(self.items[self.keep:])
        return rec

    def _drop(self, entries: list) -> None:
        for rank, _ in entries:
            del self.ranks[self.keys.pop(rank)]
        self.items = [e for e in self.items if e[0] in self.keys]

    def holds(self, rank: tuple) -> bool:
        """Whether the record entered under `rank` is still in the pool."""
        return rank in self.keys
