"""Batched NumPy primitives == per-grid reference on ARC-AGI-1 grids and random grids of every shape.

CI takes every other ARC-AGI-1 grid (plus every random grid) to keep the suite lean; GPUBATCH_FULL_PARITY=1
checks every grid (`make fuzz` sets it)."""
import os

import pytest

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.grids import GridBatch

from .corpus import arc_grids, as_lists, random_grids

PRIMS = REGISTRY.instances()


@pytest.fixture(scope="module")
def corpus():
    """The grids, their batch, and the distinct grids with each grid's place among them (a reference runs
    once per distinct grid)."""
    arc = arc_grids()
    if not os.environ.get("GPUBATCH_FULL_PARITY"):
        arc = arc[::2]
    grids = as_lists(arc + random_grids())
    place: dict[str, int] = {}
    at = [place.setdefault(str(g), len(place)) for g in grids]
    distinct = [None] * len(place)
    for g, k in zip(grids, at):
        distinct[k] = g
    return grids, GridBatch.from_lists(grids), distinct, at


def _references(prim, distinct, at):
    done = [prim.reference(g) for g in distinct]
    return [done[k] for k in at]


@pytest.mark.parametrize("prim", PRIMS, ids=lambda p: p.text)
def test_batched_numpy_matches_reference(prim, corpus):
    grids, batch, distinct, at = corpus
    got = prim(batch).to_lists()
    want = _references(prim, distinct, at)
    bad = [k for k, (a, b) in enumerate(zip(got, want)) if a != b]
    assert not bad, f"{prim.text}: {len(bad)} of {len(grids)} grids differ, first {grids[bad[0]]}"
