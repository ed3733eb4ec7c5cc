"""Task loading and validation; program text form and battery files."""
import json
import re

import pytest

from gpubatch.arc.grids import GridBatch
from gpubatch.arc.programs import ProgramError, parse_program, read_programs
from gpubatch.arc.tasks import TaskSourceError, check_grid, load_tasks

GOOD = {"train": [{"input": [[1, 2], [3, 4]], "output": [[3, 1], [4, 2]]}], "test": [{"input": [[5, 6], [7, 8]],
                                                                                     "output": [[7, 5], [8, 6]]}]}


def test_builtin_datasets_load_in_stable_order():
    tasks, problems = load_tasks("arc1-train", 5)
    assert [t.id for t in tasks] == sorted(t.id for t in tasks) and len(tasks) == 5 and not problems
    ev, _ = load_tasks("arc1-eval", 2)
    assert ev[0].test_outputs is not None


def test_arc1_is_the_current_arcagi_copy():
    tasks, _ = load_tasks("arc1-train")
    assert len(tasks) == 400


def test_task_ids_and_missing_ids():
    tasks, problems = load_tasks("arc1-train", ids=["007bbfb7", "nope"])
    assert [t.id for t in tasks] == ["007bbfb7"]
    assert problems[0].id == "nope"


@pytest.mark.parametrize("bad, fragment", [
    ({"train": [], "test": GOOD["test"]}, "no demonstration pairs"),
    ({"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": GOOD["test"]}, "not rectangular"),
    ({"train": [{"input": [[1, 12]], "output": [[1]]}], "test": GOOD["test"]}, "not a colour"),
    ({"train": [{"input": [[1] * 31], "output": [[1]]}], "test": GOOD["test"]}, "31 columns"),
    ({"train": [{"input": [[True]], "output": [[1]]}], "test": GOOD["test"]}, "not a colour"),
    ({"train": GOOD["train"]}, "no test inputs"),
])
def test_bad_task_is_reported_and_skipped(tmp_path, bad, fragment):
    (tmp_path / "good.json").write_text(json.dumps(GOOD))
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    (tmp_path / "broken.json").write_text("{not json")
    tasks, problems = load_tasks(str(tmp_path))
    assert [t.id for t in tasks] == ["good"]
    errors = {p.id: p.error for p in problems}
    assert fragment in errors["bad"] and "cannot read" in errors["broken"]


@pytest.mark.parametrize("grid, cell", [
    ([[1, 2], [3, True]], "(1, 1) is True"), ([[0, 9], [10, 1]], "(1, 0) is 10"), ([[1, -1]], "(0, 1) is -1"),
    ([[1], [2.0]], "(1, 0) is 2.0"), ([[1, None, 3]], "(0, 1) is None"), ([[1, "2"]], "(0, 1) is '2'"),
])
def test_check_grid_names_the_first_bad_cell(grid, cell):
    """A row of plain colours passes without a loop per cell; any other row is read cell by cell, so the error
    names the first bad cell whatever its type."""
    with pytest.raises(ValueError, match=re.escape(f"g: cell {cell}")):
        check_grid(grid, "g")


def test_check_grid_keeps_ints_and_their_subclasses_but_not_bools():
    class Colour(int):
        pass

    assert check_grid([[0, 9], [Colour(3), 4]], "g") == ((0, 9), (3, 4))
    with pytest.raises(ValueError, match="is False"):
        check_grid([[0, False]], "g")


def test_links_to_nowhere_are_reported_and_fifos_never_opened(tmp_path):
    """In a task folder, a dangling link and a link loop are tasks that cannot be read (nothing is read
    through them); a FIFO named *.json is left alone, not opened (opening it would block)."""
    import os

    (tmp_path / "good.json").write_text(json.dumps(GOOD))
    (tmp_path / "gone.json").symlink_to(tmp_path / "missing.json")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    os.mkfifo(tmp_path / "pipe.json")
    tasks, problems = load_tasks(str(tmp_path))
    assert [t.id for t in tasks] == ["good"]
    errors = {p.id: p.error for p in problems}
    assert set(errors) == {"gone", "loop"}
    assert "cannot read" in errors["gone"] and "symbolic links" in errors["loop"]


def test_kaggle_pair(tmp_path):
    ch = {"t1": {"train": GOOD["train"], "test": [{"input": [[5, 6], [7, 8]]}]}}
    (tmp_path / "x_challenges.json").write_text(json.dumps(ch))
    (tmp_path / "x_solutions.json").write_text(json.dumps({"t1": [[[7, 5], [8, 6]]]}))
    tasks, _ = load_tasks(str(tmp_path / "x_challenges.json"))
    assert tasks[0].test_outputs == (((7, 5), (8, 6)),)


def test_unknown_source():
    with pytest.raises(TaskSourceError, match="no such dataset"):
        load_tasks("arc9-train")


def test_program_text_round_trip():
    p = parse_program("rot90 | replace(1,2) | crop_largest(conn=8)")
    assert p.text == "rot90 | replace(a=1,b=2) | crop_largest(conn=8)"
    assert parse_program(p.text) == p
    g = [[1, 0], [0, 0]]
    assert p(GridBatch.from_lists([g])).to_lists()[0] == p.reference(g)


@pytest.mark.parametrize("text, fragment", [
    ("rot91", "did you mean rot90"), ("replace(1)", "missing parameter b"), ("replace(1,1)", "does nothing"),
    ("crop_largest(conn=5)", "conn=5 is not one of 4, 8"), ("tile(rows=2,cols=2,x=1)", "unknown parameter"),
])
def test_program_errors(text, fragment):
    with pytest.raises(ProgramError, match=fragment):
        parse_program(text)


def test_battery_file_line_numbers(tmp_path):
    f = tmp_path / "b.txt"
    f.write_text("# header\nrot90\n\nvmirror | rot91  # oops\n")
    with pytest.raises(ProgramError, match=r"b.txt:4: unknown primitive"):
        read_programs(f)
    f.write_text("rot90  # turn\nhmirror|vmirror\n")
    assert [p.text for p in read_programs(f)] == ["rot90", "hmirror | vmirror"]


def test_a_byte_order_mark_is_accepted(tmp_path):
    """Windows editors save UTF-8 with a BOM; a task file and a battery file saved so read as without one."""
    (tmp_path / "good.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD).encode())
    tasks, problems = load_tasks(str(tmp_path))
    assert [t.id for t in tasks] == ["good"] and not problems
    f = tmp_path / "b.txt"
    f.write_bytes(b"\xef\xbb\xbfrot90\n")
    assert [p.text for p in read_programs(f)] == ["rot90"]


def test_a_corpus_of_sub_folders_is_read_whole(tmp_path):
    """A folder per concept (ConceptARC's layout): every task under it, each named by its path from the root
    ("concept/task"); a file at the top keeps its plain name; hidden folders are left out and a bad file is
    reported under its path."""
    for rel in ("top.json", "Above/Above1.json", "Above/Above2.json", "Below/Above1.json", "Below/deep/d1.json",
                ".git/x.json"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(json.dumps(GOOD))
    (tmp_path / "Below" / "broken.json").write_text("{not json")
    tasks, problems = load_tasks(str(tmp_path))
    assert [t.id for t in tasks] == ["Above/Above1", "Above/Above2", "Below/Above1", "Below/deep/d1", "top"]
    assert [p.id for p in problems] == ["Below/broken"] and "cannot read" in problems[0].error
