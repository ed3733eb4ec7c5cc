"""Batched NumPy primitives == per-grid reference on ARC-AGI-1 grids and random grids of every shape.

To keep CI lean, instance k checks the ARC-AGI-1 grids whose index is k modulo 3, and a random grid of every shape
whose colouring (sparse, dense, blobs) turns with the shape and k: a family of three or more instances checks every
grid between its instances.
GPUBATCH_FULL_PARITY=1 checks every grid with every instance (`make fuzz` sets it)."""
import os

import pytest

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.grids import GridBatch

from .corpus import arc_grids, as_lists, random_grids

PRIMS = REGISTRY.instances()
SHARES = 3  # the grids are dealt into this many shares outside full parity
COLOURINGS = 3  # random_grids' colourings of each shape: sparse, dense, blobs


def _case(grids):
    """The grids, their batch, and the distinct grids with each grid's place among them (a reference runs
    once per distinct grid)."""
    grids = as_lists(grids)
    place: dict[str, int] = {}
    at = [place.setdefault(str(g), len(place)) for g in grids]
    distinct = [None] * len(place)
    for g, k in zip(grids, at):
        distinct[k] = g
    return grids, GridBatch.from_lists(grids), distinct, at


@pytest.fixture(scope="module")
def corpus():
    """One case per share of the grids; one case of all of them under full parity."""
    arc, rand = arc_grids(), random_grids()
    if os.environ.get("GPUBATCH_FULL_PARITY"):
        return [_case(arc + rand)]
    shapes = range(len(rand) // COLOURINGS)  # random grids come as COLOURINGS colourings of each shape in turn
    return [_case(arc[k::SHARES] + tuple(rand[COLOURINGS * s + (s + k) % COLOURINGS] for s in shapes))
            for k in range(SHARES)]


def _references(prim, distinct, at):
    done = [prim.reference(g) for g in distinct]
    return [done[k] for k in at]


@pytest.mark.parametrize("k", range(len(PRIMS)), ids=[p.text for p in PRIMS])
def test_batched_numpy_matches_reference(k, corpus):
    prim = PRIMS[k]
    grids, batch, distinct, at = corpus[k % len(corpus)]
    got = prim(batch).to_lists()
    want = _references(prim, distinct, at)
    bad = [i for i, (a, b) in enumerate(zip(got, want)) if a != b]
    assert not bad, f"{prim.text}: {len(bad)} of {len(grids)} grids differ, first {grids[bad[0]]}"
