"""Output-size prediction: rules fitted to each task's demos give its test outputs' sizes, for many tasks in one
batch; the same on NumPy and CuPy."""
import numpy as np
import pytest

from gpubatch.arc.size import FEATURES, predict_for_tasks
from gpubatch.arc.tasks import Task


def grid(h, w, fill=0, spots=()):
    g = [[fill] * w for _ in range(h)]
    for r, c, v in spots:
        g[r][c] = v
    return tuple(tuple(row) for row in g)


def task(pairs, tests):
    return Task("t", tuple((grid(*i), grid(*o)) for i, o in pairs), tuple(grid(*t) for t in tests))


def framed(h, w, top, left, bh, bw):
    """A grid of zeros with a block of colour 3 at (top, left) of size bh x bw."""
    return grid(h, w, 0, [(top + r, left + c, 3) for r in range(bh) for c in range(bw)])


def divided(n):
    """n x n cells of 2 x 2, divided by lines of colour 5."""
    size = 3 * n - 1
    return grid(size, size, 0, [(r, c, 5) for r in range(size) for c in range(size) if r % 3 == 2 or c % 3 == 2])


def test_rules_fitted_to_the_demos_give_each_tests_size():
    tasks = [
        task([((3, 4), (3, 4)), ((5, 2), (5, 2))], [(7, 6)]),  # as large as the input
        task([((3, 4), (2, 2)), ((5, 6), (2, 2))], [(9, 9)]),  # constant
        task([((3, 4), (6, 8)), ((2, 2), (4, 4))], [(5, 1), (20, 2)]),  # doubled (but past 30: the input's)
        task([((3, 4), (4, 3)), ((5, 2), (2, 5))], [(6, 1)]),  # transposed
        task([((4, 6), (2, 6)), ((8, 3), (4, 3))], [(10, 5), (6, 6)]),  # rows halved, columns kept
    ]
    sizes, fit = predict_for_tasks(tasks)
    assert sizes == [[(7, 6)], [(2, 2)], [(10, 2), (20, 4)], [(1, 6)], [(5, 5), (3, 6)]]
    assert [r.describe() for r in fit.rows] == ["h", "constant", "h * 2", "w", "h / 2"]


def test_sizes_read_from_what_the_grids_hold():
    boxes = Task("b", ((framed(9, 9, 1, 2, 3, 2), grid(3, 2)), (framed(8, 10, 4, 4, 2, 5), grid(2, 5))),
                 (framed(12, 12, 0, 0, 4, 7),))
    cells = Task("c", ((divided(2), grid(2, 2)), (divided(3), grid(3, 3))), (divided(4),))
    runs = Task("r", ((grid(4, 2, 0, [(2, 0, 1), (3, 0, 1)]), grid(2, 2)),
                      (grid(6, 3, 0, [(1, 1, 2), (2, 1, 2), (4, 2, 7)]), grid(5, 3))),
                (grid(5, 5, 0, [(1, 1, 4), (3, 3, 4)]),))
    sizes, fit = predict_for_tasks([boxes, cells, runs])
    assert sizes == [[(4, 7)], [(4, 4)], [(5, 5)]]  # rows: runs of equal rows merged (4 -> 2, 6 -> 5)
    assert [fit.rows[k].describe() for k in range(3)] == ["box_h", "cells_r", "runs_r"]


def test_a_constant_beside_a_features_dimension_takes_that_features_other_dimension():
    """The box's width is 3 in both demos: the constant fits the columns, but the rows follow the box, so the
    columns do too (a test box 4 wide gives 4 columns, not 3)."""
    boxed = Task("k", ((framed(9, 9, 1, 2, 2, 3), grid(2, 3)), (framed(10, 10, 3, 1, 5, 3), grid(5, 3))),
                 (framed(12, 12, 2, 2, 4, 4),))
    sizes, fit = predict_for_tasks([boxed])
    assert sizes == [[(4, 4)]]
    assert (fit.rows[0].describe(), fit.cols[0].describe()) == ("box_h", "box_w")


def test_a_row_as_long_as_the_input_has_coloured_cells():
    """d631b094's kind: the output lists the input's cells that are not 0, whatever colour is most common."""
    coloured = Task("n", ((grid(3, 3, 0, [(0, 1, 2), (2, 2, 2)]), grid(1, 2, 2)),
                          (grid(3, 3, 0, [(0, 0, 7), (1, 1, 7), (2, 0, 7)]), grid(1, 3, 7))),
                    (grid(3, 3, 4, [(0, 0, 0), (1, 1, 0), (2, 2, 0), (2, 1, 0)]),))
    sizes, fit = predict_for_tasks([coloured])
    assert sizes == [[(1, 5)]] and fit.cols[0].describe() == "filled"


def test_a_column_as_tall_as_the_inputs_most_common_colour_is_common():
    """9af7a82c's kind: each colour's cells stacked in a column, the tallest as tall as the most common colour
    has cells (the background's count too: 3 cells of 1 in a 3 x 3 grid make the column 3 tall)."""
    def counted(cells):  # a grid of 3 columns: row by row, the given colours
        return tuple(tuple(cells[r * 3:r * 3 + 3]) for r in range(len(cells) // 3))
    one = counted([1, 1, 2, 1, 2, 3, 1, 2, 1])  # 1: 5 cells, 2: 3, 3: 1
    two = counted([4, 4, 4, 4, 2, 2, 4, 3, 3, 4, 1, 1])  # 4: 6 cells
    test = counted([5, 5, 5, 6, 5, 5, 7, 8, 9])  # 5: 5 cells
    demos = ((one, grid(5, 3)), (two, grid(6, 4)))
    sizes, fit = predict_for_tasks([Task("m", demos, (test,))])
    assert fit.rows[0].describe() == "major" and sizes[0][0][0] == 5


def test_a_constant_beside_a_feature_gives_way_to_that_feature_for_a_square():
    """5ecac7f7's kind (ARC-AGI-2 training): the output is a square as tall as the input; every demo is 5 rows,
    so a constant 5 fits the columns too, but the columns follow the rows' rule: a 6-row test gives 6 x 6."""
    sizes, fit = predict_for_tasks([task([((5, 17), (5, 5)), ((5, 9), (5, 5))], [(6, 20)])])
    assert sizes == [[(6, 6)]] and (fit.rows[0].describe(), fit.cols[0].describe()) == ("h", "h")


def test_a_row_as_long_as_the_input_skewed_down_its_rows():
    """3cd86f4f's kind (ARC-AGI-2 training): each row shifted one further than the one above, so the output is
    h + w - 1 wide."""
    sizes, fit = predict_for_tasks([task([((4, 9), (4, 12)), ((6, 6), (6, 11)), ((7, 4), (7, 10))],
                                         [(4, 1), (10, 2)])])
    assert sizes == [[(4, 4), (10, 11)]] and fit.cols[0].describe() == "h+w - 1"


def test_a_task_no_rule_fits_keeps_the_inputs_size():
    odd = task([((3, 3), (7, 1)), ((4, 4), (2, 9))], [(5, 6)])
    sizes, fit = predict_for_tasks([odd, task([((2, 2), (2, 2))], [(3, 3)])])
    assert sizes == [[(5, 6)], [(3, 3)]] and fit.rows[0] is None and fit.cols[0] is None
    assert predict_for_tasks([]) == ([], predict_for_tasks([])[1])
    assert "objects" in FEATURES


@pytest.mark.gpu
def test_cupy_predicts_the_same_sizes_on_arc_training_tasks():
    cupy = pytest.importorskip("cupy")
    from gpubatch.arc.tasks import load_tasks

    tasks = load_tasks("arc1-train")[0]
    assert predict_for_tasks(tasks, cupy) == predict_for_tasks(tasks, np)
