"""Partial fits: a program that reproduces some demo outputs, not all, still gives attempts (after every fit),
only where its test outputs have the predicted sizes, and the same whatever the chunk size."""
from dataclasses import replace

from gpubatch.arc.batt import search_shard
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import Task
from gpubatch.engine import numpy_backend


def grid(rows):
    return tuple(tuple(r) for r in rows)


def flip(g):
    return [list(r)[::-1] for r in g]


INPUTS = [[[1, 2, 0], [0, 3, 3]], [[4, 0, 0], [0, 5, 6]], [[7, 7, 1], [2, 0, 0]]]
ODD = [[9, 8, 9], [8, 9, 8]]  # the third demo's output: no program of the search makes it
TEST = [[3, 0, 5], [6, 6, 0]]


def _task(test=TEST):
    demos = [(grid(i), grid(flip(i))) for i in INPUTS[:2]] + [(grid(INPUTS[2]), grid(ODD))]
    return Task("partial", tuple(demos), (grid(test),), (grid(flip(test)),))


def test_a_program_right_on_two_demos_of_three_gives_the_attempt():
    res = search_shard([_task()], numpy_backend(), SearchConfig(depth=1))[0]
    assert res.partials[0].program == "vmirror" and res.partials[0].matched == 2
    assert res.correct == (True,)
    # the fit (a local rule that makes anything of these small grids) predicts a 4, which the test input lacks
    # and no demo output adds to its input: that attempt comes after the partial fit's (`ranking.attempts`)
    assert res.fits[0].program == "rule(f=ring)"
    assert res.predictions[0] == (flip(TEST), [[3, 0, 5], [6, 6, 4]])


def test_no_partial_fits_when_switched_off():
    res = search_shard([_task()], numpy_backend(), SearchConfig(depth=1, partial_fits=0))[0]
    assert not res.partials and flip(TEST) not in res.predictions[0] and res.correct == (False,)


def test_partial_fits_do_not_depend_on_the_chunk_size():
    tasks = [_task(), _task([[1, 1, 2], [0, 0, 3]])]
    cfg = SearchConfig(depth=2, max_states=3_000)
    runs = [search_shard(tasks, numpy_backend(), replace(cfg, chunk_grids=c)) for c in (8, 64, 4096)]
    assert runs[0][0].partials
    same = [[replace(r, seconds=0.0) for r in run] for run in runs]
    assert same[0] == same[1] == same[2]
