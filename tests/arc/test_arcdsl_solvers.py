"""arc-dsl solver files: read as data (never run), unsupported solvers named with line and reason, and
`run-batt --solvers` with the own and the cross battery, on one process and on worker processes alike."""
from __future__ import annotations

import itertools
import json

import pytest
from typer.testing import CliRunner

from gpubatch.arc.arcdsl.interp import SampleError, run_many, run_solver
from gpubatch.arc.arcdsl.solvers import SolverFileError, parse_solvers, read_solvers
from gpubatch.cli import app

runner = CliRunner()

FILE = '''
import os
os.system("touch SHOULD_NOT_EXIST")
from dsl import *


def solve_68b16354(I):
    """flip"""
    O = hmirror(I)
    return O


def solve_loop(I):
    x1 = I
    for k in range(2):
        x1 = hmirror(x1)
    return x1


def solve_unknown(I):
    x1 = system(I)
    return x1


def solve_keyword(I):
    O = crop(I, start=ORIGIN, dims=TWO_BY_TWO)
    return O


def solve_literals(grid):
    x1 = crop(grid, (0, 0), (2, 2))
    x2 = rbind(upscale, 2)
    x3 = x2(x1)
    x4 = x3
    return x4


def solve_noreturn(I):
    O = hmirror(I)


def helper(I):
    return I
'''


def test_solver_file_is_data_and_each_unsupported_solver_says_why(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    solvers = {s.name: s for s in parse_solvers(FILE, "f.py")}
    assert not (tmp_path / "SHOULD_NOT_EXIST").exists()
    assert set(solvers) == {"solve_68b16354", "solve_loop", "solve_unknown", "solve_keyword", "solve_literals",
                            "solve_noreturn"}
    assert solvers["solve_68b16354"].unsupported is None
    assert solvers["solve_loop"].unsupported.startswith("line 15: for statement")
    assert solvers["solve_unknown"].unsupported == ("line 21: unknown name 'system' (not a variable defined above, "
                                                    "a constant or a primitive)")
    assert solvers["solve_keyword"].unsupported == "line 26: keyword or starred arguments"
    assert "ends with `return name`" in solvers["solve_noreturn"].unsupported
    g = ((1, 2, 3), (4, 5, 6), (7, 8, 9))
    assert run_solver(solvers["solve_literals"], [g]) == [((1, 1, 2, 2), (1, 1, 2, 2), (4, 4, 5, 5), (4, 4, 5, 5))]
    out = run_solver(solvers["solve_literals"], [((1,),)])  # crop past the edge, then upscale: still a value
    assert out == [((1, 1), (1, 1))]
    bad = run_solver(parse_solvers("def solve_x(I):\n    x1 = divide(ONE, ZERO)\n    return x1\n")[0], [g, g])
    assert all(isinstance(b, SampleError) and b.line == 2 and "ZeroDivisionError" in b.error for b in bad)


def test_a_long_expression_is_quoted_short():
    long = "[" + ", ".join(["I"] * 40) + "]"
    bad = parse_solvers(f"def solve_x(I):\n    O = {long}\n    return O\n")[0].unsupported
    assert bad == f"line 2: {long[:57] + '...'!r} is not a name, an int, a boolean or a tuple of them"
    short = parse_solvers("def solve_x(I):\n    O = [I]\n    return O\n")[0].unsupported
    assert short == "line 2: '[I]' is not a name, an int, a boolean or a tuple of them"


def test_a_decorated_solver_and_a_tuple_of_variables_say_what_they_are():
    text = ("@cache\ndef solve_a(I):\n    O = vmirror(I)\n    return O\n"
            "def solve_b(I):\n    x1 = (I, ONE)\n    O = first(x1)\n    return O\n")
    a, b = parse_solvers(text)
    assert a.unsupported == "line 2: a decorated function (a decorator could change what it computes)"
    assert b.unsupported == ("line 6: '(I, ONE)': a tuple written out holds only ints and booleans "
                             "(astuple(a, b) makes a pair of variables)")
    (c,) = parse_solvers("def solve_c(I):\n    x1 = (ONE, (TWO, -3))\n    x2 = (ONE, NEG_TWO)\n"
                         "    O = add(x2, UNITY)\n    return O\n")  # arc-dsl's constants inside a tuple
    assert c.unsupported is None and c.lines[0].func.value == (1, (2, -3))
    assert run_solver(c, [((1, 2),)]) == [(2, -1)]
    (d,) = parse_solvers("def solve_d(I):\n    ONE = vmirror(I)\n    x1 = (ONE, TWO)\n    O = first(x1)\n"
                         "    return O\n")  # a variable named as a constant is the variable there, as in Python
    assert "a tuple written out holds only ints and booleans" in d.unsupported


def test_a_solvers_file_python_cannot_parse_names_no_line_it_lacks(tmp_path):
    path = tmp_path / "nul.py"
    path.write_bytes(b"def solve_x(I):\n    O = vmirror(I)\n    return O\n\0")
    with pytest.raises(SolverFileError) as err:
        read_solvers(path)
    assert "not Python" in str(err.value) and "None" not in str(err.value)
    deep = "vmirror(" * 3000 + "I" + ")" * 3000  # past the parser's own nesting limit
    with pytest.raises(SolverFileError, match="not Python"):
        parse_solvers(f"def solve_x(I):\n    O = {deep}\n    return O\n")


def test_a_call_nested_150_deep_runs_as_150_lines():
    deep = "rot90(" * 150 + "I" + ")" * 150
    (solver,) = parse_solvers(f"def solve_x(I):\n    O = {deep}\n    return O\n")
    assert solver.unsupported is None and len(solver.lines) == 150
    grid = ((1, 2), (3, 4))
    assert run_solver(solver, [grid]) == [((4, 3), (2, 1))]  # 150 quarter turns: a half turn


def test_a_name_defined_twice_is_its_last_definition(tmp_path):
    text = ("def solve_68b16354(I):\n    O = rot90(I)\n    return O\n\n"
            "def solve_68b16354(I):\n    O = hmirror(I)\n    return O\n\n"
            "def solve_3c9b0459(I):\n    O = rot180(I)\n    return O\n")
    solvers = parse_solvers(text)
    assert [(s.name, s.lineno, s.redefines) for s in solvers] == [("solve_68b16354", 5, (1,)),
                                                                   ("solve_3c9b0459", 9, ())]
    assert solvers[0].lines[0].func.value == "hmirror"
    (tmp_path / "s.py").write_text(text)
    result, out = _run(tmp_path, "own")
    assert result.exit_code == 0, result.output
    assert "solve_68b16354 is defined again at line 5" in " ".join(result.output.split())
    doc = json.loads(out.read_text())
    assert [(p["id"], p["status"]) for p in doc["pairs"]] == [("solve_68b16354/68b16354", "solved"),
                                                              ("solve_3c9b0459/3c9b0459", "solved")]


def test_a_solvers_file_saved_with_a_byte_order_mark_reads_as_python_does(tmp_path):
    f = tmp_path / "s.py"
    f.write_bytes(b"\xef\xbb\xbfdef solve_x(I):\n    O = hmirror(I)\n    return O\n")
    (solver,) = read_solvers(f)
    assert solver.name == "solve_x" and solver.unsupported is None


def test_a_solvers_file_with_a_coding_line_reads_as_python_does(tmp_path):
    """PEP 263: a latin-1 file that says so is read; without the line, its bytes are not UTF-8, and the file
    cannot be read (exit 2 in the command), as Python would refuse it."""
    body = "def solve_x(I):\n    O = hmirror(I)  # caf\xe9\n    return O\n".encode("latin-1")
    f = tmp_path / "s.py"
    f.write_bytes(b"# -*- coding: latin-1 -*-\n" + body)
    (solver,) = read_solvers(f)
    assert solver.unsupported is None
    f.write_bytes(body)
    with pytest.raises(SolverFileError, match="cannot read"):
        read_solvers(f)


def _run(tmp_path, name, *extra):
    out = tmp_path / f"{name}.json"
    result = runner.invoke(app, ["--device", "cpu", *extra, "run-batt", "--solvers", str(tmp_path / "s.py"),
                                 "--task-ids", "68b16354,3c9b0459", "--results", str(out), "--no-progress",
                                 "--battery", name])
    return result, out


def test_run_batt_solvers_own_and_cross(tmp_path):
    (tmp_path / "s.py").write_text(FILE)
    result, out = _run(tmp_path, "own")
    assert result.exit_code == 0, result.output  # the unsupported solvers name no loaded task: none is in the run
    assert "unsupported solver solve_loop" in result.output
    said = " ".join(result.output.split())  # the solvers that name no loaded task are said, not dropped in silence
    assert "own battery: 5 of 6 solvers name no loaded task and are not run (solve_loop, solve_unknown, " in said
    doc = json.loads(out.read_text())
    assert doc["run"]["battery"] == "own"
    assert [(p["id"], p["status"]) for p in doc["pairs"]] == [("solve_68b16354/68b16354", "solved")]
    assert doc["summary"]["test_correct"] == doc["summary"]["test_outputs"] == 1
    assert doc["tasks"][0]["fits"][0]["program"] == "solve_68b16354"

    result, out = _run(tmp_path, "cross", "--gpus", "2")
    assert result.exit_code == 1, result.output  # unsupported solvers ran as pairs: skipped inputs, exit 1
    doc = json.loads(out.read_text())
    pairs = {p["id"]: p["status"] for p in doc["pairs"]}
    assert len(pairs) == 12 and pairs["solve_68b16354/68b16354"] == "solved"
    lines = out.read_text().splitlines()  # a pair a line, so that a diff or grep of two runs reads per pair
    assert sum(line.startswith('{"id": "solve_') for line in lines) == 12
    assert pairs["solve_loop/3c9b0459"] == "unsupported" and pairs["solve_literals/3c9b0459"] == "wrong"
    assert "cross battery: 12 solver-task pairs: 1 solved" in " ".join(result.output.split())


def test_battery_needs_solvers_and_a_known_mode(tmp_path):
    result = runner.invoke(app, ["run-batt", "--battery", "own"])
    assert result.exit_code == 2 and "needs --solvers" in result.output
    (tmp_path / "s.py").write_text(FILE)
    result = runner.invoke(app, ["run-batt", "--solvers", str(tmp_path / "s.py"), "--battery", "both"])
    assert result.exit_code == 2 and "expected own or cross" in result.output
    (tmp_path / "broken.py").write_text("def solve_x(I:\n")
    result = runner.invoke(app, ["run-batt", "--solvers", str(tmp_path / "broken.py")])
    assert result.exit_code == 2 and "not Python" in result.output


def _batch_costs(costs: list[int], sizes: list[int]) -> list[int]:
    """What each batch of `sizes`, cut in order from `costs`, costs."""
    ends = list(itertools.accumulate(sizes))
    return [sum(costs[end - n:end]) for n, end in zip(sizes, ends)]


def test_batch_sizes_even_out_cost_and_split_the_largest_tasks():
    from gpubatch.arc.arcdsl.battery import batch_sizes

    costs = [900] * 300 + [100] * 300 + [10] * 3000  # three tasks' pairs, largest first, as battery_pairs orders
    sizes = batch_sizes(costs, 32)
    assert sum(sizes) == len(costs) and all(sizes)
    spent = _batch_costs(costs, sizes)
    target = sum(costs) / 32
    assert max(spent) <= target and 32 <= len(sizes) <= 2 * 32 + 1  # no batch above the mean: the largest split
    assert sizes[0] < 300 and sizes[-1] > sizes[0]  # the costliest pairs in small batches, the cheap in large
    assert batch_sizes([5], 64) == [1] and batch_sizes([], 8) == []


def test_batch_sizes_guide_the_tail_down_so_the_workers_end_together():
    from gpubatch.arc.arcdsl.battery import batch_sizes

    costs = [900] * 300 + [100] * 300 + [10] * 30000
    sizes = batch_sizes(costs, 4 * 16, workers=4)
    assert sum(sizes) == len(costs)
    spent = _batch_costs(costs, sizes)
    target = sum(costs) / 64
    assert max(spent) <= target and min(spent[:48]) >= target / 2  # most batches as before: about the mean
    assert all(c <= target / 4 for c in spent[-8:])  # the last ones a fraction of it
    assert spent[-8:-1] == sorted(spent[-8:-1], reverse=True)  # shrinking towards the end
    assert len(sizes) <= 3 * 64  # finer at the end only


def test_own_battery_on_a_corpus_of_sub_folders_names_tasks_by_file(tmp_path):
    """`solve_flip` names the task `shapes/flip` of a corpus whose tasks lie a folder per concept, as long as no
    other task has that file name; a name two folders share names neither, but each by its whole path."""
    g = [[1, 2], [3, 4]]
    task = {"train": [{"input": g, "output": g[::-1]}], "test": [{"input": g, "output": g[::-1]}]}
    for rel in ("shapes/flip.json", "a/twice.json", "b/twice.json"):
        (tmp_path / "corpus" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "corpus" / rel).write_text(json.dumps(task))
    (tmp_path / "s.py").write_text("def solve_flip(I):\n    O = hmirror(I)\n    return O\n\n"
                                   "def solve_twice(I):\n    O = hmirror(I)\n    return O\n")
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["--device", "cpu", "run-batt", "--solvers", str(tmp_path / "s.py"), "--dataset",
                                 str(tmp_path / "corpus"), "--results", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert doc["run"]["battery"] == "own"
    assert [(p["id"], p["status"]) for p in doc["pairs"]] == [("solve_flip/shapes/flip", "solved")]


def test_the_lines_time_each_primitive_on_the_host_a_shared_line_once():
    """The stats' host time per primitive: lines, sample evaluations (a line two solvers share, once for all
    its samples) and seconds; a function a line computed is named by the primitive that made it."""
    text = ("def solve_a(I):\n    x1 = rot90(I)\n    O = hmirror(x1)\n    return O\n\n"
            "def solve_b(I):\n    x1 = rot90(I)\n    x2 = lbind(hconcat, x1)\n    O = x2(I)\n    return O\n")
    a, b = parse_solvers(text)
    grids = [((1, 2), (3, 4)), ((5,),), ((0, 1),)]
    timings = {}
    out = run_many([(a, [0, 1]), (b, [1, 2])], grids, timings)
    assert out == run_many([(a, [0, 1]), (b, [1, 2])], grids)  # timed or not, the same values
    counts = {name: tuple(v[:2]) for name, v in timings.items()}
    assert counts == {"rot90": (1, 3), "hmirror": (1, 2), "lbind": (1, 2), "a function from lbind": (1, 2)}
    assert all(v[2] >= 0 for v in timings.values())


def test_the_battery_stats_name_each_primitive_it_ran_on_the_host(tmp_path):
    (tmp_path / "s.py").write_text(FILE)
    stats = tmp_path / "stats.json"
    result, _ = _run(tmp_path, "cross", "--stats-json", str(stats))
    assert result.exit_code == 1, result.output  # FILE's unsupported solvers: skipped inputs
    ops = {o["op"]: o for o in json.loads(stats.read_text())["ops"]}
    assert ops["arcdsl host: hmirror"]["items"] == 9  # solve_68b16354 on every sample of both tasks (5 + 4)
    assert ops["arcdsl host: a function from rbind"]["items"] == 9  # solve_literals' x3 = x2(x1)
    assert {"arcdsl host: crop", "arcdsl host: rbind", "arcdsl lines (host)"} <= set(ops)
