"""Grids the parity tests run on: every grid of ARC-AGI-1 training and evaluation, and random grids of
every shape from 1x1 to 30x30 (several colourings each)."""
from functools import lru_cache

import numpy as np


@lru_cache(maxsize=None)
def arc_grids() -> tuple:
    from gpubatch.arc.tasks import load_tasks

    grids = []
    for source in ("arc1-train", "arc1-eval"):
        tasks, problems = load_tasks(source)
        assert not problems
        for t in tasks:
            for a, b in t.train:
                grids += [a, b]
            grids += list(t.test_inputs) + list(t.test_outputs or ())
    return tuple(grids)


@lru_cache(maxsize=None)
def random_grids() -> tuple:
    rng = np.random.default_rng(2026)
    grids = []
    for h in range(1, 31):
        for w in range(1, 31):
            sparse = np.where(rng.random((h, w)) < 0.3, rng.integers(1, 10, (h, w)), 0)
            grids.append(tuple(map(tuple, sparse.tolist())))
            grids.append(tuple(map(tuple, rng.integers(0, 10, (h, w)).tolist())))
            blobs = rng.integers(0, 3, (1 + h // 3, 1 + w // 3)).repeat(3, 0).repeat(3, 1)[:h, :w]
            grids.append(tuple(map(tuple, blobs.tolist())))
    return tuple(grids)


def as_lists(grids) -> list:
    return [[list(r) for r in g] for g in grids]
