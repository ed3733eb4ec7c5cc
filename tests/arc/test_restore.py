"""Symmetry restoration: hand-checked meanings; the search applying input-only primitives at depth 1; training
tasks that the primitives restore, overlay, dedupe, crop_pick and palette solve."""
import numpy as np
import pytest

from gpubatch.arc.batt import search_shard
from gpubatch.arc.dsl import REGISTRY
from gpubatch.arc.dsl import reference as ref
from gpubatch.arc.grids import GridBatch
from gpubatch.arc.programs import parse_program
from gpubatch.arc.restore import OFFSET, image, symmetries
from gpubatch.arc.search import SearchConfig, builtin_primitives
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine import numpy_backend


def _picture(h: int, w: int) -> list[list[int]]:
    """A picture symmetric top-bottom and left-right about its centre, colours 1-8 (no 9)."""
    rng = np.random.default_rng(7)
    q = rng.integers(1, 9, ((h + 1) // 2, (w + 1) // 2))
    top = np.concatenate([q, q[:, : w // 2][:, ::-1]], axis=1)
    return np.concatenate([top, top[: h // 2][::-1]], axis=0).tolist()


def _run(out: str, grids: list) -> list:
    return REGISTRY.get("restore", c=9, out=out)(GridBatch.from_lists(grids)).to_lists()


def test_every_symmetry_is_an_involution_about_the_centre():
    for h, w in ((5, 5), (6, 9), (10, 7)):
        for kind, o, p in symmetries():
            for i in range(h):
                for j in range(w):
                    a, b = image(kind, o, p, i, j, h, w)
                    assert image(kind, o, p, a, b, h, w) == (i, j)
    assert len(symmetries()) == 4 * (2 * OFFSET + 1) + 9


def test_hidden_cells_are_restored_and_the_patch_is_their_part():
    full = _picture(9, 12)
    hidden = [row[:] for row in full]
    for i in range(2, 5):
        for j in range(1, 4):
            hidden[i][j] = 9
    assert ref.restore(hidden, 9, "grid") == full
    assert ref.restore(hidden, 9, "patch") == [row[1:4] for row in full[2:5]]
    assert _run("grid", [hidden]) == [full]
    assert _run("patch", [hidden]) == [[row[1:4] for row in full[2:5]]]


def test_an_axis_off_the_centre_is_found():
    full = _picture(12, 12)
    cut = [row[2:] for row in full]  # the left-right axis is now one cell right of the centre
    hidden = [row[:] for row in cut]
    hidden[3][8] = hidden[3][9] = 9
    assert ref.restore(hidden, 9, "grid") == cut
    assert _run("grid", [hidden]) == [cut]


def test_invalid_without_a_symmetry_or_with_too_much_hidden():
    rng = np.random.default_rng(3)
    noise = rng.integers(1, 9, (8, 8)).tolist()
    noise[0][0] = 9
    assert ref.restore(noise, 9, "grid") is None
    mostly = [[9] * 6 for _ in range(6)]
    mostly[0][0] = 1
    assert ref.restore(mostly, 9, "grid") is None  # more than half hidden
    assert ref.restore(_picture(6, 6), 9, "grid") is None  # nothing hidden
    assert _run("grid", [noise, mostly, _picture(6, 6)]) == [None, None, None]


def test_search_applies_input_primitives_at_depth_1_only():
    first = [p for p in builtin_primitives() if p.family.first]
    assert {p.name for p in first} == {"restore", "overlay", "crop_most", "palette", "parts", "fill_boxes",
                                        "diagonal", "flood", "centre_lines", "gravitate", "continue",
                                        "reverse_rings", "keep_centre", "spread", "paint_like", "elbow", "open_lines",
                                        "attract", "attach", "reflect",
                                        "mirror_around", "line_major", "keep_rect", "centre_on",
                                        "fill_fullest", "stamp_on", "continue_lines", "key_colours", "tile_band",
                                        "grow_square", "bounce", "tile_runs"}
    assert len(first) == (20 + 12 + 10 + 4 + 2 + 10 + 2 + 10 + 30 + 9 + 2 + 1 + 2 + 2 + 2 + 18 + 9 + 9 + 1 + 9 + 10 + 1
                          + 1 + 9 + 1 + 9 + 2 + 1 + 2 + 2 + 8 + 3)
    # a battery program may still use them after other steps: the restriction is the built-in search's
    assert parse_program("rot90 | restore(c=9,out=patch)").text == "rot90 | restore(c=9,out=patch)"


SOLVED_BY_INPUTS = [
    ("3631a71a", "restore(c=9)"), ("9ecd008a", "restore(c=0,out=patch)"), ("dc0a314f", "restore(c=3,out=patch)"),
    ("ff805c23", "restore(c=1,out=patch)"), ("cf98881b", "overlay(parts=lines,order=first)"),
    ("e98196ab", "overlay(parts=lines,order=first)"), ("746b3537", "dedupe"), ("eb5a1d5d", "dedupe"),
    ("0b148d64", "crop_pick(by=rare,conn=8)"), ("88a62173", "crop_pick(by=unique,conn=8)"),
    ("9af7a82c", "palette(kind=bars)"), ("f8ff0b80", "palette(kind=col)"),
    ("f8b3ba0a", "palette(kind=rest)"), ("4be741c5", "palette(kind=stripes)"), ("60b61512", "fill_boxes(c=7)"),
    ("05269061", "diagonal(dir=anti)"), ("9edfc990", "flood(c=1)"), ("41e4d17e", "centre_lines(dir=hv,c=6)"),
    ("05f2a901", "gravitate(c=8)"), ("d8c310e9", "continue(axis=h)"), ("85c4e7cd", "reverse_rings"),
    ("d23f8c26", "keep_centre(axis=v)"), ("c444b776", "spread(order=first)"),
    ("e76a88a6", "paint_like(keep=true)"), ("321b1fc6", "paint_like(keep=false)"),
    ("a2fd1cf0", "elbow(corner=lo,c=8)"), ("d4a91cb9", "elbow(corner=lo,c=4)"), ("2bee17df", "open_lines(c=3)"),
    ("a48eeaf7", "attract(c=2)"), ("1a07d186", "attach"), ("d687bc17", "attach"),
    ("6855a6e4", "reflect(c=2)"), ("f8a8fe49", "reflect(c=2)"), ("4938f0c2", "mirror_around(c=3)"),
    ("4c5c2cf0", "mirror_around(c=sym)"), ("e26a3af2", "line_major"), ("91714a58", "keep_rect"),
    ("a1570a43", "centre_on(c=3)"), ("29623171", "fill_fullest"), ("88a10436", "stamp_on(c=5)"),
    ("77fdfe62", "key_colours"), ("7c008303", "key_colours"), ("a3df8b1e", "bounce(dir=upright,axis=h)"),
    ("e21d9049", "tile_runs(axis=hv)")]


@pytest.fixture(scope="module")
def input_primitive_results():
    """All of those tasks searched in one shard, as run-batt searches many tasks at once (a task's results do not
    depend on the others in its batch: `tests/arc/test_batt.py`), each task's result by its id."""
    tasks, _ = load_tasks("arc1-train", ids=[t for t, _ in SOLVED_BY_INPUTS])
    results = search_shard(tasks, numpy_backend(), SearchConfig(depth=2, max_states=20_000))
    return {t.id: (t, r) for t, r in zip(tasks, results)}


@pytest.mark.parametrize("task_id, first", SOLVED_BY_INPUTS)
def test_training_tasks_solved_by_input_primitives(task_id, first, input_primitive_results):
    """ARC-AGI-1 training tasks: the hidden part comes back by symmetry (the whole grid or the patch), parts
    between divider lines are stacked, repeated rows and columns merge, the odd object out is cropped, colours
    are listed by count (with the most common or without it) or in the order of their stripes, objects' boxes
    are filled, diagonals repeat, regions beside a colour take it, lines cross objects' centres, a piece moves
    until it touches a colour, a pattern goes on to the edge, rings swap colours, the centre column stays, each
    part becomes all parts stacked, objects take the colours of the one patterned object of their shape, two
    cells are joined by an elbow, the open lanes of a framed grid are filled, pixels move to a block, lone
    cells move to the line of their colour, shapes are mirrored across a bracket, a shape is completed
    four-fold around a marker, noise on stripes is cleared, a block is found in noise, a shape moves into the
    frame of its corner marks, the fullest parts of a divided grid are filled, a shape is stamped on markers, a
    pattern takes the colours of the key beside it, a diagonal bounces between two walls, a cross's arms go on
    along their lines."""
    task, res = input_primitive_results[task_id]
    assert res.fits[0].program == first
    assert res.correct == (True,) * len(task.test_inputs)
    # no input-only primitive after another step (a colour-normalised copy's fit reads `colournorm | ...`: the
    # renaming is no step of the program)
    steps = [f.program.removeprefix("colournorm | ") for f in res.fits]
    assert not any(" | restore(" in p or " | overlay(" in p for p in steps)
