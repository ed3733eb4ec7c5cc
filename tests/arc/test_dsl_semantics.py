"""Hand-checked meanings of primitives whose reference is not obvious from the name (the parity tests then
hold the batched code to the reference)."""
import pytest

from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.dsl import reference as ref
from gpubatch.arc.grids import GridBatch

G = [[0, 0, 0, 0],
     [0, 3, 0, 0],
     [0, 0, 0, 0],
     [0, 5, 0, 0],
     [0, 0, 0, 0]]


@pytest.mark.parametrize("direction, want", [
    ("down", [[0, 0, 0, 0], [0, 3, 0, 0], [0, 3, 0, 0], [0, 5, 0, 0], [0, 5, 0, 0]]),   # 3 stops at 5
    ("up", [[0, 3, 0, 0], [0, 3, 0, 0], [0, 5, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]]),
    ("right", [[0, 0, 0, 0], [0, 3, 3, 3], [0, 0, 0, 0], [0, 5, 5, 5], [0, 0, 0, 0]]),
    ("downright", [[0, 0, 0, 0], [0, 3, 0, 0], [0, 0, 3, 0], [0, 5, 0, 3], [0, 0, 5, 0]]),
    ("upleft", [[3, 0, 0, 0], [0, 3, 0, 0], [5, 0, 0, 0], [0, 5, 0, 0], [0, 0, 0, 0]]),
    # all four diagonals from the input's cells; where rays cross, the first direction listed wins: (2, 2)
    # is reached by 3 going down-right before 5 going up-right
    ("diag", [[3, 0, 3, 0], [0, 3, 0, 5], [3, 0, 3, 0], [0, 5, 0, 3], [5, 0, 5, 0]]),
])
def test_ray(direction, want):
    assert ref.ray(G, direction) == want
    prim = next(p for p in REGISTRY.instances() if p.text == f"ray(dir={direction})")
    assert prim(GridBatch.from_lists([G])).to_lists()[0] == want


def test_crop_colour():
    g = [[0, 2, 2, 2], [0, 2, 4, 2], [0, 2, 2, 2], [1, 0, 0, 0]]
    assert ref.crop_colour(g, 2) == [[2, 2, 2], [2, 4, 2], [2, 2, 2]]
    assert ref.crop_colour(g, 7) == []  # invalid: no such colour
    prim = next(p for p in REGISTRY.instances() if p.text == "crop_colour(c=2)")
    assert prim(GridBatch.from_lists([g])).to_lists()[0] == [[2, 2, 2], [2, 4, 2], [2, 2, 2]]


def test_connect_diagonals():
    g = [[2, 0, 0, 0, 6],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 2, 0],
         [6, 0, 0, 0, 0]]
    want = [[2, 0, 0, 0, 6],
            [0, 2, 0, 6, 0],
            [0, 0, 2, 0, 0],  # the diagonal wins where both pass
            [0, 6, 0, 2, 0],
            [6, 0, 0, 0, 0]]
    assert ref.connect(g, "d", "same") == want
    prim = next(p for p in REGISTRY.instances() if p.text == "connect(dir=d,c=same)")
    assert prim(GridBatch.from_lists([g])).to_lists()[0] == want


def test_periodic_completion():
    tile = [[1, 2, 3], [4, 5, 6]]
    full = [[tile[i % 2][j % 3] for j in range(7)] for i in range(6)]
    holed = [list(r) for r in full]
    for i, j in ((0, 0), (2, 4), (3, 5), (5, 6)):
        holed[i][j] = 0
    assert ref.periodic(holed, 0) == full
    prim = next(p for p in REGISTRY.instances() if p.text == "periodic")
    assert prim(GridBatch.from_lists([holed])).to_lists()[0] == full
    # known cells that contradict every period, or too many unknown cells: left alone
    assert ref.periodic([[1, 2, 0], [3, 4, 5]], 0) == [[1, 2, 0], [3, 4, 5]]
    assert ref.periodic([[1, 0, 0], [0, 0, 0]], 0) == [[1, 0, 0], [0, 0, 0]]


def test_untile():
    assert ref.untile([[4, 5, 1, 4, 5, 1], [1, 1, 1, 1, 1, 1]]) == [[4, 5, 1], [1, 1, 1]]
    assert ref.untile([[1, 1, 1], [2, 2, 2], [1, 1, 1]]) == [[1], [2], [1]]  # 2 rows do not divide 3
    assert ref.untile([[1, 2], [3, 4]]) == []  # no repetition: invalid
    prim = next(p for p in REGISTRY.instances() if p.text == "untile")
    got = prim(GridBatch.from_lists([[[4, 5, 1, 4, 5, 1], [1, 1, 1, 1, 1, 1]]])).to_lists()[0]
    assert got == [[4, 5, 1], [1, 1, 1]]


def test_crop_fast_path_equals_formulas():
    """The NumPy `crop` fast path gives the gather formulas' result, out-of-range windows and sizes too."""
    import numpy as np

    from gpubatch.arc.kernels import gather, gather_xp

    from .corpus import random_grids, as_lists

    g = GridBatch.from_lists(as_lists(random_grids()[:600]))
    g.h[::37] = 0
    rng = np.random.default_rng(3)
    p = np.stack([rng.integers(-2, 31, len(g)), rng.integers(-2, 31, len(g)), rng.integers(-1, 32, len(g)),
                  rng.integers(-1, 32, len(g))], axis=1).astype(np.int32)
    fast, ref_ = gather(g, "crop", params=p), gather_xp(g, "crop", params=p)
    assert (fast.data == ref_.data).all() and (fast.h == ref_.h).all() and (fast.w == ref_.w).all()


def test_colour_tables_two_cells_at_a_time_equal_one_at_a_time():
    """`apply_lut`'s NumPy paths (one table, tables grouped by row; large batches through tables of cell pairs)
    give the per-cell lookup's result, PAD cells included."""
    import numpy as np

    from gpubatch.arc.kernels import apply_lut

    from .corpus import as_lists, random_grids

    g = GridBatch.from_lists(as_lists(random_grids()[:600]))
    rng = np.random.default_rng(5)
    lut = rng.integers(0, 10, (len(g), 11)).astype(np.uint8)
    lut[:, 10] = 10
    lut[::2] = lut[0]  # half the grids share one table
    want = np.take_along_axis(lut, g.data.reshape(len(g), -1).astype(np.int64), axis=1).reshape(g.data.shape)
    assert (apply_lut(g, lut).data == want).all()
    assert (apply_lut(g, lut[:1]).data == lut[0][g.data]).all()
    assert (apply_lut(g.take(np.arange(3)), lut[:3]).data == want[:3]).all()  # small: one cell at a time


def _both(text: str, grid):
    """The batched result of primitive `text` on one grid, checked equal to its reference."""
    prim = next(p for p in REGISTRY.instances() if p.text == text)
    got = prim(GridBatch.from_lists([grid])).to_lists()[0]
    assert got == prim.reference(grid)
    return got


def test_dedupe():
    assert _both("dedupe", [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 3, 4]]) == [[1, 2, 2], [3, 3, 4]]
    assert _both("dedupe", [[5, 5], [5, 5]]) == [[5]]
    assert _both("dedupe", [[1, 2], [2, 1], [1, 2]]) == [[1, 2], [2, 1], [1, 2]]  # only neighbours merge


def test_overlay_parts_split_by_divider_lines():
    # three 2x2 parts between two columns of 5; the first part's non-0 colour wins
    g = [[1, 0, 5, 2, 2, 5, 0, 0],
         [0, 0, 5, 0, 2, 5, 3, 3]]
    assert _both("overlay(parts=lines,order=first)", g) == [[1, 2], [3, 2]]
    assert _both("overlay(parts=lines,order=last)", g) == [[2, 2], [3, 3]]
    # quarters cut by a row and a column of 4 (a row of 0 is never a divider)
    q = [[1, 0, 4, 7, 0], [0, 0, 4, 0, 2], [4, 4, 4, 4, 4], [0, 0, 4, 0, 0], [3, 0, 4, 0, 0]]
    assert _both("overlay(parts=lines,order=first)", q) == [[1, 0], [3, 2]]
    assert _both("overlay(parts=lines,order=last)", q) == [[7, 0], [3, 2]]
    # dividers at irregular places, or none: invalid
    assert _both("overlay(parts=lines,order=first)", [[1, 5, 0, 0], [0, 5, 2, 0]]) is None
    assert _both("overlay(parts=lines,order=first)", [[1, 0], [0, 2]]) is None


def test_overlay_fixed_parts():
    g = [[1, 0, 0, 2, 0, 0], [0, 0, 3, 0, 4, 0]]
    assert _both("overlay(parts=v2,order=first)", g) == [[1, 0, 0], [0, 4, 3]]
    assert _both("overlay(parts=v3,order=last)", g) == [[1, 2], [4, 0]]
    assert _both("overlay(parts=h2,order=first)", g) == [[1, 0, 3, 2, 4, 0]]
    assert _both("overlay(parts=h3,order=first)", g) is None  # 2 rows do not split in three


def test_crop_pick_and_crop_most():
    g = [[1, 1, 0, 2, 0, 3],
         [0, 0, 0, 2, 0, 3],
         [4, 4, 0, 0, 0, 0],
         [0, 0, 0, 1, 1, 0]]
    # colours by cells: 1 x4, 2 x2, 3 x2, 4 x2; the 2-object is the first of the rarest colours
    assert _both("crop_pick(by=rare)", g) == [[2], [2]]
    # shapes: three horizontal pairs and two vertical pairs; none unique -> the first of the fewest (2)
    assert _both("crop_pick(by=unique)", g) == [[2], [2]]
    assert _both("crop_pick(by=common)", g) == [[1, 1]]
    h = [[5, 0, 0], [0, 0, 0], [5, 5, 0]]
    assert _both("crop_pick(by=unique)", h) == [[5]] and _both("crop_pick(by=unique,conn=8)", h) == [[5]]
    m = [[1, 1, 0, 1, 2], [1, 2, 0, 2, 2], [0, 0, 0, 0, 0]]
    assert _both("crop_most(c=2)", m) == [[1, 2], [2, 2]]
    assert _both("crop_most(c=3)", m) is None  # no object has a 3


def test_upscale_colours():
    assert _both("upscale_colours", [[1, 0], [0, 2]]) == [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 2, 2], [0, 0, 2, 2]]
    assert _both("upscale_colours", [[0, 3]]) == [[0, 3]]
    assert _both("upscale_colours", [[0, 0]]) is None


def test_keep_least_keeps_the_rarest_colour_but_the_background():
    g = [[0, 4, 0, 4], [2, 0, 0, 3], [0, 3, 0, 0]]
    assert _both("keep_least", g) == [[0, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0]]
    assert _both("keep_least", [[0, 5, 0, 6], [0, 0, 0, 0]]) == [[0, 5, 0, 0], [0, 0, 0, 0]]  # a tie: smaller
    assert _both("keep_least", [[1, 1]]) is None


def test_palette():
    g = [[3, 0, 5], [3, 5, 0], [3, 1, 0]]
    assert _both("palette(kind=col)", g) == [[3], [5], [1]]
    assert _both("palette(kind=bars)", g) == [[3, 5, 1], [3, 5, 0], [3, 0, 0]]
    assert _both("palette(kind=col)", [[0, 0]]) is None
    assert _both("palette(kind=rest)", g) == [[5], [1]]  # the most common colour left out
    assert _both("palette(kind=rest)", [[0, 4]]) is None


def test_palette_stripes_orders_colours_along_the_axis_they_change_on():
    cols = [[4, 4, 2, 2, 8], [4, 2, 2, 8, 8], [4, 4, 2, 8, 8]]  # ragged vertical stripes: a row, left to right
    assert _both("palette(kind=stripes)", cols) == [[4, 2, 8]]
    rows = [[2, 2, 2], [8, 2, 8], [8, 8, 8], [0, 5, 5]]  # horizontal ones: a column, top to bottom, 0 left out
    assert _both("palette(kind=stripes)", rows) == [[2], [8], [5]]
    assert _both("palette(kind=stripes)", [[7, 7]]) == [[7]]
    assert _both("palette(kind=stripes)", [[0]]) is None


def test_paint_like_gives_the_templates_colours_to_objects_of_its_shape():
    g = [[0, 0, 0, 0, 0, 0],
         [0, 2, 3, 0, 5, 5],
         [0, 4, 0, 0, 5, 0],
         [0, 0, 0, 0, 0, 0],
         [5, 5, 0, 0, 5, 5],
         [5, 0, 0, 0, 0, 5]]  # the bottom-right 5s are the shape mirrored: left alone
    want = [[0, 0, 0, 0, 0, 0], [0, 2, 3, 0, 2, 3], [0, 4, 0, 0, 4, 0], [0, 0, 0, 0, 0, 0],
            [2, 3, 0, 0, 5, 5], [4, 0, 0, 0, 0, 5]]
    assert _both("paint_like(keep=true)", g) == want
    cleared = [row[:] for row in want]
    cleared[1][1:3], cleared[2][1] = [0, 0], 0
    assert _both("paint_like(keep=false)", g) == cleared
    assert _both("paint_like(keep=true)", [[2, 3, 0, 4, 4]]) is None  # no object of the template's shape
    assert _both("paint_like(keep=true)", [[2, 3, 0, 5, 5, 0, 4, 1]]) is None  # two templates


def test_boxes_fill_each_colours_bounding_box():
    g = [[0, 0, 0, 0, 0], [0, 3, 0, 0, 0], [0, 0, 0, 3, 0], [5, 0, 0, 0, 0], [0, 0, 5, 0, 2]]
    want = [[0, 0, 0, 0, 0], [0, 3, 3, 3, 0], [0, 3, 3, 3, 0], [5, 5, 5, 0, 0], [5, 5, 5, 0, 2]]
    assert ref.boxes(g) == want  # a lone cell (2) has no box; 3's box is filled before 5's
    assert REGISTRY.get("boxes")(GridBatch.from_lists([g])).to_lists()[0] == want


def test_elbow_joins_two_cells_along_the_chosen_colours_row():
    g = [[0, 0, 0, 0, 0],
         [0, 8, 0, 0, 0],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 2, 0]]
    assert _both("elbow(corner=lo,c=4)", g) == [[0, 0, 0, 0, 0],   # along the row of 2 (the lower colour) to
                                                [0, 8, 0, 0, 0],   # 8's column, then up to 8
                                                [0, 4, 0, 0, 0],
                                                [0, 4, 4, 2, 0]]
    assert _both("elbow(corner=hi,c=4)", g) == [[0, 0, 0, 0, 0],   # along the row of 8 to 2's column, then
                                                [0, 8, 4, 4, 0],   # down to 2
                                                [0, 0, 0, 4, 0],
                                                [0, 0, 0, 2, 0]]
    for bad in ([[8, 0, 8]], [[8, 2, 3]], [[0, 8, 0]]):  # two cells of one colour, three cells, one cell
        assert _both("elbow(corner=lo,c=4)", bad) is None


def test_open_lines_fill_the_rows_and_columns_empty_inside_the_outer_ring():
    g = [[8, 8, 8, 8, 8],
         [2, 4, 0, 1, 8],
         [2, 0, 0, 0, 8],
         [2, 2, 0, 0, 8]]
    assert _both("open_lines(c=3)", g) == [[8, 8, 8, 8, 8],
                                           [2, 4, 3, 1, 8],   # column 2 is empty from row 1 to row 2
                                           [2, 3, 3, 3, 8],   # row 2 is empty from column 1 to column 3
                                           [2, 2, 0, 0, 8]]   # the outer ring never changes
    assert _both("open_lines(c=3)", [[1, 1, 1], [1, 5, 1], [1, 1, 1]]) is None


def test_diag_square_lays_a_row_or_column_along_the_diagonal():
    for g in ([[8, 3, 8]], [[8], [3], [8]]):
        assert _both("diag_square", g) == [[8, 0, 0], [0, 3, 0], [0, 0, 8]]
    for bad in ([[5]], [[1, 2], [3, 4]]):
        assert _both("diag_square", bad) is None


def test_extend_continues_lines_and_diagonals_past_their_tips():
    g = [[0, 0, 0, 0, 0, 0],
         [0, 2, 2, 0, 0, 0],
         [0, 0, 0, 0, 0, 0],
         [0, 0, 0, 0, 4, 0],
         [0, 0, 0, 3, 0, 0],
         [6, 0, 0, 0, 0, 0]]
    # the 2s' two tips shine left and right; 3 and 4 are each other's only neighbour: 4 shines up-right, 3
    # down-left to the grid's edge; the 6 has no neighbour and shines nowhere (nor does a cell with several)
    want = [[0, 0, 0, 0, 0, 0],
            [2, 2, 2, 2, 2, 2],
            [0, 0, 0, 0, 0, 4],
            [0, 0, 0, 0, 4, 0],
            [0, 0, 0, 3, 0, 0],
            [6, 0, 3, 0, 0, 0]]
    assert _both("extend", g) == want


def test_corner_ray_shines_from_a_shapes_corner_only():
    g = [[0, 0, 0, 0, 0, 0],
         [0, 0, 0, 0, 0, 0],
         [0, 0, 1, 1, 0, 0],
         [0, 0, 1, 1, 0, 0],
         [0, 0, 0, 0, 0, 3],
         [0, 0, 0, 0, 0, 0]]
    # up-left: only the block's top-left cell is a corner (its other cells have a 1 above or to the left),
    # so one diagonal, not three; the lone 3 is a corner every way and shines to the block, which stops it
    assert _both("corner_ray(dir=upleft)", g) == [[1, 0, 0, 0, 0, 0],
                                                  [0, 1, 0, 0, 0, 0],
                                                  [0, 0, 1, 1, 0, 0],
                                                  [0, 0, 1, 1, 3, 0],
                                                  [0, 0, 0, 0, 0, 3],
                                                  [0, 0, 0, 0, 0, 0]]
    assert _both("ray(dir=upleft)", g)[1][2] == 1  # ray: every cell of the block's edge shines
    # down-right: the block's bottom-right cell, to the grid's edge; the 3 is at the edge already
    down = _both("corner_ray(dir=downright)", g)
    assert (down[4][4], down[5][5]) == (1, 1) and down[4][2:4] == [0, 0] and sum(map(sum, down)) == 4 + 3 + 2


def test_attract_moves_each_cell_alone_next_to_the_nearest_colour_in_line():
    g = [[0, 0, 5, 0, 0, 0],
         [0, 0, 0, 0, 0, 0],
         [0, 0, 2, 2, 0, 5],
         [0, 0, 2, 2, 0, 0],
         [0, 0, 0, 0, 0, 0],
         [5, 0, 0, 0, 0, 4]]
    assert _both("attract(c=2)", g) == [[0, 0, 0, 0, 0, 0],
                                        [0, 0, 5, 0, 0, 0],   # straight down
                                        [0, 0, 2, 2, 5, 0],   # straight left
                                        [0, 0, 2, 2, 0, 0],
                                        [0, 5, 0, 0, 4, 0],   # diagonally up-right and up-left
                                        [0, 0, 0, 0, 0, 0]]
    assert _both("attract(c=2)", [[0, 5], [0, 4], [0, 2]]) is None  # the 5 would land where the 4 stays
    assert _both("attract(c=2)", [[5, 2, 0]]) is None  # nothing moves


def test_attach_moves_each_lone_cell_beside_its_own_colour():
    g = [[0, 3, 0, 0, 4, 0],
         [4, 3, 0, 3, 4, 0],
         [0, 3, 0, 0, 4, 2],
         [0, 3, 0, 0, 4, 3]]
    assert _both("attach", g) == [[0, 3, 0, 0, 4, 0],
                                  [0, 3, 3, 4, 4, 0],   # the 4 passes over the 3s; the 3 moves left
                                  [0, 3, 0, 0, 4, 0],   # no line of 2: removed
                                  [0, 3, 3, 0, 4, 0]]   # over the 4 and left: none of its colour above
    assert _both("attach", [[3, 3, 0, 0]]) is None  # no lone cell
    assert _both("attach", [[3, 3, 4, 0, 3], [0, 0, 4, 0, 0]]) is None  # the 3 would land on the 4


def test_reflect_mirrors_each_cell_across_the_nearest_cell_of_the_colour():
    g = [[0, 5, 0, 0, 0],
         [0, 0, 0, 0, 0],
         [2, 2, 2, 0, 0],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 0, 7]]
    assert _both("reflect(c=2)", g) == [[0, 0, 0, 0, 0],
                                        [0, 0, 0, 0, 0],
                                        [2, 2, 2, 0, 0],
                                        [0, 0, 0, 0, 0],
                                        [0, 5, 0, 0, 7]]   # the 5 mirrored; the 7 has no 2 in line
    assert _both("reflect(c=2)", [[5, 0, 2, 0]]) is None  # would leave the grid
    assert _both("reflect(c=2)", [[5, 2, 4]]) is None  # would land on the 4
    assert _both("reflect(c=2)", [[5, 0], [0, 2]]) is None  # nothing in line: nothing moves


def test_mirror_around_copies_shapes_across_the_centre_lines_of_a_marker():
    g = [[0, 0, 0, 0, 0],
         [0, 7, 0, 0, 0],
         [0, 0, 3, 0, 0],
         [0, 0, 0, 0, 0],
         [0, 0, 0, 0, 0]]
    want = [[0, 0, 0, 0, 0],
            [0, 7, 0, 7, 0],
            [0, 0, 3, 0, 0],
            [0, 7, 0, 7, 0],
            [0, 0, 0, 0, 0]]
    assert _both("mirror_around(c=3)", g) == want
    assert _both("mirror_around(c=sym)", g) == want  # the 3 is symmetric and has the fewest cells (the 7 ties)
    assert _both("mirror_around(c=3)", [[7, 3, 0, 0]]) == [[7, 3, 7, 0]]
    assert _both("mirror_around(c=3)", [[7, 0, 3, 0]]) is None  # the copy would leave the grid
    assert _both("mirror_around(c=3)", [[7, 3, 5]]) is None  # the copy would land on the 5
    assert _both("mirror_around(c=3)", [[0, 3, 0]]) is None  # nothing to copy


def test_line_major_gives_each_row_or_column_its_most_frequent_colour():
    g = [[1, 1, 2, 2],
         [1, 5, 2, 2],
         [1, 1, 2, 7]]
    assert _both("line_major", g) == [[1, 1, 2, 2]] * 3  # by columns: 2 cells change, by rows 6
    assert _both("line_major", [[3, 3, 4], [5, 6, 6]]) == [[3, 3, 3], [6, 6, 6]]  # by rows: 2 against 3
    assert _both("line_major", [[1, 2], [2, 1]]) == [[1, 1], [1, 1]]  # ties: the smaller colour, then rows
    assert _both("line_major", [[4, 4], [6, 6]]) is None  # nothing changes


def test_keep_rect_keeps_the_largest_solid_rectangle():
    g = [[3, 0, 5, 5, 5, 0, 0, 0],
         [0, 2, 2, 0, 0, 0, 0, 0],
         [2, 2, 2, 2, 3, 0, 0, 0],
         [2, 2, 2, 2, 0, 0, 0, 0]]
    assert _both("keep_rect", g) == [[0, 0, 0, 0, 0, 0, 0, 0],
                                     [0, 0, 0, 0, 0, 0, 0, 0],
                                     [2, 2, 2, 2, 0, 0, 0, 0],
                                     [2, 2, 2, 2, 0, 0, 0, 0]]   # 8 cells; 2 x 3 from (1, 1) is 6
    assert _both("keep_rect", [[4, 4, 0], [0, 0, 7], [0, 0, 7]]) == [[4, 4, 0], [0, 0, 0], [0, 0, 0]]  # first
    assert _both("keep_rect", [[0, 0], [6, 6]]) is None  # nothing changes


def test_centre_on_centres_the_rest_on_a_colours_box():
    g = [[3, 0, 0, 0, 0, 3],
         [1, 1, 0, 0, 0, 0],
         [0, 1, 0, 0, 0, 0],
         [0, 1, 0, 0, 0, 0],
         [3, 0, 0, 0, 0, 3]]
    assert _both("centre_on(c=3)", g) == [[3, 0, 0, 0, 0, 3],
                                          [0, 0, 1, 1, 0, 0],
                                          [0, 0, 0, 1, 0, 0],
                                          [0, 0, 0, 1, 0, 0],
                                          [3, 0, 0, 0, 0, 3]]
    assert _both("centre_on(c=3)", [[3, 0, 3], [1, 1, 0]]) is None  # off by half a cell
    assert _both("centre_on(c=3)", [[0, 3, 0], [0, 1, 0]]) is None  # it would land on the 3
    assert _both("centre_on(c=3)", [[3, 0, 3], [0, 1, 0], [3, 0, 3]]) is None  # already centred


def test_fill_fullest_fills_the_parts_with_the_most_coloured_cells():
    g = [[1, 0, 5, 1, 1, 5, 0, 0],
         [0, 0, 5, 2, 0, 5, 0, 3],
         [5, 5, 5, 5, 5, 5, 5, 5],
         [0, 0, 5, 0, 0, 5, 4, 4],
         [0, 0, 5, 0, 0, 5, 0, 4]]
    assert _both("fill_fullest", g) == [[0, 0, 5, 1, 1, 5, 0, 0],
                                        [0, 0, 5, 1, 1, 5, 0, 0],
                                        [5, 5, 5, 5, 5, 5, 5, 5],
                                        [0, 0, 5, 0, 0, 5, 4, 4],
                                        [0, 0, 5, 0, 0, 5, 4, 4]]   # two parts tie at three cells
    assert _both("fill_fullest", [[0, 5, 0], [5, 5, 5], [0, 5, 0]]) is None  # no coloured cell


def test_key_colours_paints_the_pattern_with_the_scaled_key():
    g = [[2, 3, 5, 0, 0, 0, 0],
         [4, 6, 5, 0, 0, 0, 0],
         [5, 5, 5, 5, 5, 5, 5],
         [0, 0, 5, 8, 0, 8, 8],
         [0, 0, 5, 8, 8, 0, 0],
         [0, 0, 5, 0, 8, 8, 0],
         [0, 0, 5, 8, 0, 0, 8]]
    assert _both("key_colours", g) == [[2, 0, 3, 3],
                                       [2, 2, 0, 0],
                                       [0, 4, 6, 0],
                                       [4, 0, 0, 6]]  # each 2x2 block of the mask in its key cell's colour
    corners = [[1, 5, 0, 0, 5, 2],
               [5, 5, 5, 5, 5, 5],
               [0, 5, 7, 7, 5, 0],
               [0, 5, 0, 7, 5, 0],
               [5, 5, 5, 5, 5, 5],
               [3, 5, 0, 0, 5, 4]]
    assert _both("key_colours", corners) == [[1, 2], [0, 4]]  # the key's rows and columns, dividers left out
    g[0][0] = 0  # the key's gap stays 0 in the answer
    assert _both("key_colours", g)[:2] == [[0, 0, 3, 3], [0, 0, 0, 0]]
    g[0][:2] = [0, 0]
    assert _both("key_colours", g[:2] + [[0] * 7] + g[3:]) is None  # a row of 0 divides instead: no part is of one colour
    wide = [r[:2] + [5] + r[3:] + [0] for r in g[3:]]
    assert _both("key_colours", [[2, 3, 5, 0, 0, 0, 0, 0], [5] * 8] + wide) is None  # 5 columns are no multiple of 2


def test_stamp_copies_the_shape_centred_on_each_marker():
    g = [[0, 1, 0, 0, 0, 0],
         [2, 2, 2, 0, 0, 0],
         [0, 1, 0, 0, 0, 0],
         [0, 0, 0, 0, 5, 0],
         [0, 0, 0, 0, 0, 0]]
    assert _both("stamp_on(c=5)", g) == [[0, 1, 0, 0, 0, 0],
                                      [2, 2, 2, 0, 0, 0],
                                      [0, 1, 0, 0, 1, 0],
                                      [0, 0, 0, 2, 2, 2],   # the shape's centre over the marker
                                      [0, 0, 0, 0, 1, 0]]
    assert _both("stamp_on(c=5)", [[1, 1, 0, 0, 0, 5]]) is None  # an even width has no centre cell
    assert _both("stamp_on(c=5)", [[1, 1, 1, 0, 0, 0, 0, 5]]) is None  # the copy would leave the grid


def test_continue_lines_follows_the_first_full_line_under_each_lines_colours():
    g = [[0, 0, 0, 0, 0, 0, 0],
         [3, 3, 2, 3, 3, 2, 3],  # the template: the first row without background
         [8, 8, 4, 0, 0, 0, 0],  # 3 -> 8, 2 -> 4
         [1, 0, 0, 0, 0, 0, 0],  # 3 -> 1 only: 2 becomes background
         [5, 6, 0, 0, 0, 0, 0],  # 3 -> 5 and 3 -> 6: no map, the row stays
         [0, 0, 0, 0, 0, 0, 0],
         [7, 7, 0, 7, 0, 0, 0]]  # not a run from the row's start: stays
    want = [[0, 0, 0, 0, 0, 0, 0],
            [3, 3, 2, 3, 3, 2, 3],
            [8, 8, 4, 8, 8, 4, 8],
            [1, 1, 0, 1, 1, 0, 1],
            [5, 6, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0],
            [7, 7, 0, 7, 0, 0, 0]]
    assert _both("continue_lines(axis=rows)", g) == want
    assert _both("continue_lines(axis=cols)", [list(c) for c in zip(*g)]) == [list(c) for c in zip(*want)]
    assert _both("continue_lines(axis=cols)", g) == g  # no full column


def test_tile_band_repeats_the_rows_that_hold_cells_over_the_grid_in_step():
    g = [[0, 0, 0, 0],
         [0, 0, 0, 0],
         [0, 4, 0, 0],  # the band: rows 2-3, so rows 0, 2, 4 take its first row and 1, 3 its second
         [4, 4, 4, 4],
         [0, 0, 0, 0]]
    want = [[0, 4, 0, 0], [4, 4, 4, 4], [0, 4, 0, 0], [4, 4, 4, 4], [0, 4, 0, 0]]
    assert _both("tile_band(axis=v)", g) == want
    assert _both("tile_band(axis=h)", [list(c) for c in zip(*g)]) == [list(c) for c in zip(*want)]
    assert _both("tile_band(axis=h)", g) is None  # the band of columns spans the grid: nothing to tile
    assert _both("tile_band(axis=v)", [[0, 0], [0, 0]]) is None  # no cell to tile


def test_grow_square_draws_the_rows_on_along_their_period_and_step():
    g = [[1, 1, 0, 0, 0, 0],
         [0, 1, 0, 0, 0, 0],
         [0, 0, 1, 1, 0, 0],  # every row is the one two above, moved two columns right
         [0, 0, 0, 1, 0, 0]]
    want = g + [[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]
    assert _both("grow_square(axis=v)", g) == want
    assert _both("grow_square(axis=h)", [list(c) for c in zip(*g)]) == [list(c) for c in zip(*want)]
    assert _both("grow_square(axis=h)", g) is None  # wider than high: only downwards
    assert _both("grow_square(axis=v)", [[1, 0, 0, 0], [0, 0, 1, 1], [0, 0, 0, 0]]) is None  # no period
    stripes = [[0, 3, 0, 0], [0, 3, 0, 0]]
    assert _both("grow_square(axis=v)", stripes) == stripes + [[0, 3, 0, 0], [0, 3, 0, 0]]  # period 1, no step


def test_bounce_zigzags_between_two_walls_from_each_cell():
    g = [[0, 0, 0]] * 5 + [[1, 0, 0]]
    want = [[0, 1, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0], [1, 0, 0]]  # off the right wall, then the left
    assert _both("bounce(dir=upright,axis=h)", g) == want
    assert _both("bounce(dir=upleft,axis=h)", g) == want  # off the left wall at once
    turned = [list(c) for c in zip(*g)]  # the same between the top and the bottom of the transposed grid
    assert _both("bounce(dir=downleft,axis=v)", turned) == [list(c) for c in zip(*want)]
    assert _both("bounce(dir=downright,axis=h)", g) is None  # nowhere to go: nothing changes
    crossed = [[0, 0, 0, 0], [0, 0, 0, 0], [2, 0, 0, 3]]
    got = _both("bounce(dir=upright,axis=h)", crossed)
    assert got[1] == [0, 2, 3, 0] and got[0] == [0, 3, 2, 0]  # no crossing cell here: both paths drawn
    assert _both("bounce(dir=upright,axis=h)", [[1, 1, 1, 1, 1, 1, 1, 1, 1], [0] * 9]) is None  # 9 cells: no seeds


def test_tile_runs_repeats_each_lines_run_in_step():
    g = [[0, 0, 0, 0, 0, 0, 0],
         [0, 0, 8, 0, 0, 0, 0],
         [0, 0, 3, 0, 0, 0, 0],
         [0, 8, 3, 2, 0, 0, 0],
         [0, 0, 0, 0, 0, 0, 0]]
    rows = _both("tile_runs(axis=h)", g)
    assert rows[3] == [2, 8, 3, 2, 8, 3, 2] and rows[:3] == g[:3]  # one cell alone in a row is no run
    both = _both("tile_runs(axis=hv)", g)
    assert [r[2] for r in both] == [3, 8, 3, 3, 8] and both[3] == [2, 8, 3, 2, 8, 3, 2]
    assert _both("tile_runs(axis=h)", [[1, 0, 1, 0]]) is None  # two runs in the row: not one to tile
    assert _both("tile_runs(axis=v)", [[1, 2, 3]]) is None
