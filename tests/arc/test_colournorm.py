"""Colour normalisation (`gpubatch.arc.colournorm`): renamings, fixed colours, answers mapped back, and a task
that only the normalised copy solves."""
from __future__ import annotations

from gpubatch.arc.batt import search_shard
from gpubatch.arc.colournorm import fixed_colours, normalise, permutation
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import Task
from gpubatch.engine.backend import numpy_backend


def _boxed(outer: int, inner: int, at: tuple[int, int], size: int = 8):
    """A grid of 0s with a 4x4 square of `outer` around a 2x2 centre of `inner`; and that square cropped with
    its two colours swapped (the task's output)."""
    g = [[0] * size for _ in range(size)]
    r0, c0 = at
    for r in range(4):
        for c in range(4):
            g[r0 + r][c0 + c] = inner if 1 <= r <= 2 and 1 <= c <= 2 else outer
    out = [[outer if g[r0 + r][c0 + c] == inner else inner for c in range(4)] for r in range(4)]
    return tuple(map(tuple, g)), tuple(map(tuple, out))


def _swap_task() -> Task:
    # each colour plays both roles across the demos: no one colour map of the whole task fits them
    demos = (_boxed(3, 5, (1, 2)), _boxed(5, 7, (3, 0)), _boxed(7, 3, (0, 4)))
    test_in, test_out = _boxed(6, 1, (2, 3))
    return Task("swap", demos, (test_in,), (test_out,))


def test_permutation_ranks_free_colours_by_count_then_first_cell() -> None:
    g = ((0, 0, 0, 4), (0, 7, 7, 4), (0, 2, 0, 0))
    perm = permutation(g, frozenset({0}))
    assert sorted(perm) == list(range(10))
    assert perm[0] == 0  # fixed
    # 4 and 7 have two cells each, 4 seen first; then 2; the absent colours fill the rest in order
    assert (perm[4], perm[7], perm[2]) == (1, 2, 3)
    assert [perm[c] for c in (1, 3, 5, 6, 8, 9)] == [4, 5, 6, 7, 8, 9]


def test_fixed_colours_are_in_every_input_or_new_in_an_output() -> None:
    t = Task("t", ((((0, 1),), ((0, 9),)), (((0, 2),), ((2, 9),))), (((0, 3),),))
    assert fixed_colours(t) == {0, 9}


def test_no_copy_where_every_pair_gets_the_same_renaming() -> None:
    same = Task("t", ((((0, 1, 1),), ((2, 2, 2),)), (((1, 0, 1),), ((2, 2, 2),))), (((1, 1, 0),),))
    assert normalise(same) is None


def test_copy_renames_pairs_alike_and_undo_restores_the_colours() -> None:
    task = _swap_task()
    view = normalise(task)
    assert view is not None and view.task.test_outputs is None  # the test outputs never reach the search
    assert len({o for _, o in view.task.train}) == 1  # every demo output reads the same once renamed
    renamed = [list(r) for r in view.task.test_inputs[0]]
    assert view.undo(0, renamed) == [list(r) for r in task.test_inputs[0]]
    assert view.undo(0, None) is None


def test_a_task_only_the_normalised_copy_solves() -> None:
    task = _swap_task()
    backend = numpy_backend()
    cfg = SearchConfig(depth=1, max_states=10_000)
    [without] = search_shard([task], backend, SearchConfig(depth=1, max_states=10_000, colour_norm=False))
    [with_copy] = search_shard([task], backend, cfg)
    assert without.correct == (False,)
    assert with_copy.correct == (True,)
    assert with_copy.predictions[0][0] == [list(r) for r in task.test_outputs[0]]
    assert any(f.program.startswith("colournorm | ") for f in with_copy.fits)
    assert with_copy.states > without.states  # the copy's states are counted with the task's



def test_the_copy_finds_what_it_finds_searched_alone() -> None:
    """The copy's states are keyed apart from the task's (same task id, a salt of its own). Keyed alike, a
    grid both reached was dropped from one of them, depending on the tasks sharing a chunk: e98196ab's copy
    lost an overlay, and one GPU and two gave different results."""
    from gpubatch.arc.tasks import load_tasks

    [task], _ = load_tasks("arc1-train", 0, ["e98196ab"])
    backend = numpy_backend()
    [alone] = search_shard([normalise(task).task], backend, SearchConfig(depth=1, colour_norm=False))
    [both] = search_shard([task], backend, SearchConfig(depth=1))
    for kind in ("fits", "overlays", "partials"):
        found = [f.program for f in getattr(both, kind) if f.program.startswith("colournorm | ")]
        assert found == ["colournorm | " + f.program for f in getattr(alone, kind)], kind
    assert both.overlays
