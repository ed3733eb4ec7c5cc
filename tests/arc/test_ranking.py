"""Attempts: two distinct outputs per test input in rank order, an output of a colour from nowhere (not in its
test input, and added by no demo output to its input) after every other, and the fact that rule rests on,
checked on real tasks."""
import pytest

from gpubatch.arc.fits import FitRecord
from gpubatch.arc.ranking import attempt_order, attempts, colours_seen, seen_colours
from gpubatch.arc.tasks import Task, load_tasks


def grid(rows):
    return tuple(tuple(r) for r in rows)


TASK = Task("t", ((grid([[1, 0]]), grid([[2, 0]])),), (grid([[3, 3]]),), (grid([[2, 3]]),))
FOREIGN = [[0, 3]]  # 0: not in the test input, and no demo output adds it (its input has it)
A, B, C = [[2, 3]], [[3, 2]], [[3, 3]]  # A: the right output


def test_an_output_of_a_colour_seen_nowhere_comes_after_the_others():
    preds, correct = attempts(TASK, [[FOREIGN], [B], [A], [C]])
    assert preds == ((B, A),) and correct == (True,)
    preds, correct = attempts(TASK, [[FOREIGN], [B], [C], [A]])
    assert preds == ((B, C),) and correct == (False,)


def test_such_an_output_still_fills_an_empty_attempt():
    assert attempts(TASK, [[FOREIGN], [A]])[0] == ((A, FOREIGN),)
    assert attempts(TASK, [[FOREIGN], [None]])[0] == ((FOREIGN,),)
    assert attempts(TASK, [[FOREIGN], [FOREIGN], [A]])[0] == ((A, FOREIGN),)  # distinct outputs only


def test_switched_off_the_order_is_the_records():
    assert attempts(TASK, [[FOREIGN], [A], [B]], late_colours=False)[0] == ((FOREIGN, A),)


def test_seen_colours_are_the_test_input_and_what_demo_outputs_add():
    assert seen_colours(TASK, 0) == {2, 3}
    two = Task("u", ((grid([[1]]), grid([[1, 4]])), (grid([[5]]), grid([[6]]))), (grid([[8]]),))
    assert seen_colours(two, 0) == {4, 6, 8}
    assert colours_seen(A, {2, 3}) and not colours_seen(FOREIGN, {2, 3})


@pytest.mark.parametrize("dataset", ["arc1-train", "arc1-eval"])
def test_no_known_test_output_holds_a_colour_from_nowhere(dataset):
    tasks, _ = load_tasks(dataset)
    assert len(tasks) == 400
    for t in tasks:
        for i, want in enumerate(t.test_outputs):
            assert colours_seen(want, seen_colours(t, i)), t.id


def test_rule_fits_that_keep_unseen_test_cells_come_after_the_overlays():
    # a table fit that must keep cells whose key no demo showed guesses them; lookups and overlays explain
    # every cell, so they come first (ARC-AGI-1 training: +3 tasks, none lost, in ranking's comment)
    def rec(level, order, **kw):
        return FitRecord(level, order, None, [], **kw)

    short, guessing, long_ = rec(1, 0), rec(0, 1, rule="size", unseen=3), rec(3, 2)
    lookup, overlay, partial, guess = rec(0, 3), rec(2, 4), rec(1, 5, matched=1), rec(0, 6, rule="size_major")
    kinds = ([short, guessing, long_], [lookup], [overlay], [partial], [guess])
    assert attempt_order(kinds) == [short, lookup, long_, overlay, guessing, partial, guess]
    assert attempt_order(kinds, unseen_late=False) == [short, guessing, lookup, long_, overlay, partial, guess]
