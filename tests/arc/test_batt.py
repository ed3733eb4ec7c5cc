"""run-batt on the CPU: search finds known programs, scoring, submission, CLI, the 'sync' runner equals 'local'."""
import json
import time

from typer.testing import CliRunner

from gpubatch.arc.batt import device_pieces, search_shard, submission
from gpubatch.arc.frontier import promise
from gpubatch.arc.search import (
    GroupSearch,
    SearchConfig,
    TaskState,
    builtin_primitives,
)
from gpubatch.arc.tasks import Task, load_tasks
from gpubatch.cli import app
from gpubatch.engine import numpy_backend

runner = CliRunner()


def grid(rows):
    return tuple(tuple(r) for r in rows)


def make_task(tid, fn, inputs, test):
    return Task(tid, tuple((grid(i), grid(fn(i))) for i in inputs), (grid(test),), (grid(fn(test)),))


def rot_then_swap(g):
    r = [list(x) for x in zip(*g[::-1])]
    return [[{1: 2, 2: 1}.get(v, v) for v in row] for row in r]


def test_search_finds_a_depth_two_program_and_predicts():
    t = make_task("synthetic", rot_then_swap, [[[1, 2, 0], [0, 1, 3]], [[2, 2], [1, 0], [3, 3]]], [[1, 0], [2, 2]])
    res = search_shard([t], numpy_backend(), SearchConfig(depth=2))[0]
    assert res.fits and res.fits[0].length == 2
    assert res.correct == (True,)
    assert res.predictions[0][0] == [list(r) for r in t.test_outputs[0]]


def test_identity_task_fits_at_depth_zero_and_budget_stops():
    t = make_task("same", lambda g: g, [[[1, 2]], [[3, 4]]], [[5, 6]])
    res = search_shard([t], numpy_backend(), SearchConfig(depth=2, max_states=400))[0]
    assert res.fits[0].program == "identity" and res.stopped == "state budget"


def test_a_state_equal_to_a_task_input_is_not_kept():
    t = make_task("diag", rot_then_swap, [[[1, 0], [0, 1]]], [[0, 1], [1, 1]])
    prims = builtin_primitives()
    gs = GroupSearch([TaskState(t)], 2, prims, numpy_backend(), SearchConfig(depth=2), time.perf_counter())
    gs.check_level0()
    gs.expand(0)
    kept = {prims[p].text for p in gs.levels[1].prim}
    # identity, and replacing or removing a colour the grids do not have, give the inputs again
    assert "rot90" in kept and not {"identity", "replace(a=5,b=6)", "remove(c=5)"} & kept


def test_states_kept_most_promising_first():
    import numpy as np

    # shape score (demo pairs with the target's shape, of K=3), wrong demo cells (-1: no count) per state
    score = np.array([[3, 3, 2, 3, 1]], np.int32)
    wrong = np.array([[5, -1, 0, 2, -1]], np.int32)
    order = np.argsort(promise(np, 3, score, wrong), kind="stable").tolist()
    assert order == [3, 0, 1, 2, 4]  # every shape, fewest wrong cells first; then fewer shapes


def test_submission_has_every_task_and_falls_back_to_input():
    tasks, _ = load_tasks("arc1-train", 3)
    res = search_shard(tasks, numpy_backend(), SearchConfig(depth=1))
    sub = submission(tasks, res)
    assert list(sub) == [t.id for t in tasks]
    for t in tasks:
        assert len(sub[t.id]) == len(t.test_inputs)
        assert set(sub[t.id][0]) == {"attempt_1", "attempt_2"}


def test_cli_run_batt_writes_results_and_submission(tmp_path):
    sub, resf, st = tmp_path / "submission.json", tmp_path / "results.json", tmp_path / "stats.json"
    result = runner.invoke(app, ["run-batt", "--tasks", "6", "--depth", "1", "--device", "cpu", "--no-progress",
                                 "--submission", str(sub), "--results", str(resf), "--stats-json", str(st)])
    assert result.exit_code == 0, result.output
    data = json.loads(resf.read_text())
    assert data["summary"]["tasks"] == 6 and len(data["tasks"]) == 6
    assert len(json.loads(sub.read_text())) == 6
    stats = json.loads(st.read_text())
    assert {"search", "rot90", "replace"} <= {o["op"] for o in stats["ops"]}
    # where the whole command's time went: each phase once, in order, at increasing times
    phases = [p["phase"] for p in stats["phases"]]
    assert phases == ["executor made", "tasks loaded", "devices ready", "search done", "executor closed",
                      "outputs written"]
    times = [p["at_s"] for p in stats["phases"]]
    assert times == sorted(times) and times[-1] <= data["timings"]["seconds"] + 60
    assert stats["process_start_s"] is None or stats["process_start_s"] >= 0


def test_cli_bad_programs_file_is_exit_2(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("rot90\nrot900\n")
    result = runner.invoke(app, ["run-batt", "--tasks", "2", "--programs", str(f), "--device", "cpu"])
    assert result.exit_code == 2 and "p.txt:2" in result.output


def test_cli_battery_only(tmp_path):
    f = tmp_path / "p.txt"
    f.write_text("upscale(k=3) | downscale(k=3)\nrot90\n")
    result = runner.invoke(app, ["run-batt", "--tasks", "3", "--programs", str(f), "--no-enumerate", "--device",
                                 "cpu", "--no-progress", "-v"])
    assert result.exit_code == 0, result.output


def test_cli_bad_task_skipped_exit_1(tmp_path):
    (tmp_path / "ok.json").write_text(json.dumps({"train": [{"input": [[1]], "output": [[1]]}],
                                                  "test": [{"input": [[2]], "output": [[2]]}]}))
    (tmp_path / "bad.json").write_text(json.dumps({"train": [{"input": [[1, 2], [3]], "output": [[1]]}],
                                                   "test": [{"input": [[2]]}]}))
    result = runner.invoke(app, ["run-batt", "--dataset", str(tmp_path), "--depth", "1", "--device", "cpu",
                                 "--no-progress"])
    assert result.exit_code == 1 and "skipped task bad" in result.output


def test_a_submission_names_every_task_of_a_challenges_file_the_broken_ones_too(tmp_path):
    """ARC Prize's scoring fails a submission that lacks a task of its challenges file: a skipped task keeps an
    entry per test input, its valid inputs as the attempts and a 1 x 1 grid of 0 for the others."""
    ok = {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[2]]}]}
    bad_demo = {"train": [{"input": [[1, 2], [3]], "output": [[1]]}], "test": [{"input": [[4, 5]]}, {"input": [[7]]}]}
    bad_test = {"train": [{"input": [[1]], "output": [[1]]}], "test": [{"input": [[2]]}, {"input": [[10]]}, 3]}
    challenges = {"b_ok": ok, "a_demo": bad_demo, "c_test": bad_test, "d_list": [1, 2], "e_none": {"train": []}}
    (tmp_path / "x_challenges.json").write_text(json.dumps(challenges))
    sub = tmp_path / "submission.json"
    result = runner.invoke(app, ["run-batt", "--dataset", str(tmp_path / "x_challenges.json"), "--depth", "1",
                                 "--device", "cpu", "--no-progress", "--submission", str(sub)])
    assert result.exit_code == 1, result.output
    assert "skipped task a_demo" in result.output and "skipped task e_none" in result.output
    got = json.loads(sub.read_text())
    assert list(got) == ["a_demo", "b_ok", "c_test", "d_list", "e_none"]

    def twice(g):
        return {"attempt_1": g, "attempt_2": g}

    assert got["a_demo"] == [twice([[4, 5]]), twice([[7]])]
    assert got["c_test"] == [twice([[2]]), twice([[0]]), twice([[0]])]
    assert got["d_list"] == got["e_none"] == [twice([[0]])]
    assert len(got["b_ok"]) == 1


def test_a_task_asked_for_and_absent_has_no_submission_entry(tmp_path):
    sub = tmp_path / "submission.json"
    result = runner.invoke(app, ["run-batt", "--task-ids", "00d62c1b,no-such-task", "--depth", "1", "--device",
                                 "cpu", "--no-progress", "--submission", str(sub)])
    assert result.exit_code == 1 and "no-such-task" in result.output
    assert list(json.loads(sub.read_text())) == ["00d62c1b"]


def test_list_primitives_json():
    result = runner.invoke(app, ["run-batt", "--list-primitives", "--json"])
    fams = json.loads(result.output)
    assert len(fams) >= 40 and sum(len(f["instances"]) for f in fams) >= 200
    assert all({"name", "params", "doc", "instances"} <= set(f) for f in fams)


def test_two_cpu_workers_equal_one(tmp_path):
    outs = []
    for gpus in ("1", "2"):
        f = tmp_path / f"r{gpus}.json"
        result = runner.invoke(app, ["run-batt", "--tasks", "5", "--depth", "1", "--device", "cpu", "--gpus", gpus,
                                     "--no-progress", "--results", str(f)])
        assert result.exit_code == 0, result.output
        outs.append([(t["id"], t["fits"], t["predictions"]) for t in json.loads(f.read_text())["tasks"]])
    assert outs[0] == outs[1]


def test_device_pieces_are_few_groups_of_equal_cost():
    keys = [4, 3, 4, 5, 4, 3, 7, 4, 5, 4, 3, 4]  # each task's number of grids: its cost and its group
    order, sizes = device_pieces(keys, keys, 3)
    assert sorted(order) == list(range(len(keys))) and sum(sizes) == len(keys) and len(sizes) == 3
    pieces, start = [], 0
    for n in sizes:
        pieces.append(order[start:start + n])
        start += n
    loads = [sum(keys[i] for i in p) for p in pieces]
    assert loads == [17, 16, 17]  # as equal as whole tasks allow (total 50)
    assert [sorted({keys[i] for i in p}) for p in pieces] == [[3, 4], [4], [5, 7]]  # groups stay together
    assert device_pieces(keys, keys, 1)[1] == [len(keys)]
    assert device_pieces([], [], 4) == ([], [])


def test_results_do_not_depend_on_chunking_or_shard_composition():
    """Under a binding state budget, which states a task keeps and which program represents a fit are chosen
    in a canonical order, so a task's results are the same whatever else shares its batch."""
    tasks, _ = load_tasks("arc1-train", 10)
    runs = []
    for chunk, shard in ((4096, tasks), (700, tasks), (4096, tasks[:3])):
        res = search_shard(shard, numpy_backend(), SearchConfig(depth=3, max_states=15_000, chunk_grids=chunk))
        runs.append({r.id: (r.fits, r.predictions, r.states, r.stopped) for r in res})
    assert sum(v[3] == "state budget" for v in runs[0].values()) >= 8
    assert runs[0] == runs[1]  # in discovery order, 00d62c1b's 9th fit was another program for the same state
    assert all(runs[0][k] == v for k, v in runs[2].items())


class _Recorder:
    def __init__(self):
        self.lines = []

    def start(self, label, total):
        self.lines.append(f"start {label} {total}")

    def advance(self, n):
        self.lines.append(f"advance {n}")

    def status(self, text):
        self.lines.append(text)

    def finish(self):
        self.lines.append("finish")


def test_progress_hears_depth_levels_of_an_in_process_search():
    from gpubatch.arc.batt import run_batt
    from gpubatch.engine import BatchExecutor, EngineSettings

    tasks, _ = load_tasks("arc1-train", 3)
    rec = _Recorder()
    with BatchExecutor(EngineSettings(device="cpu"), progress=rec) as ex:
        run_batt(tasks, ex, SearchConfig(depth=2, max_states=5_000))
    assert rec.lines[0] == "start tasks 3" and rec.lines[-1] == "finish"
    assert any("depth 1/2" in line for line in rec.lines) and any("depth 2/2" in line for line in rec.lines)


def test_the_search_steps_around_the_primitives_are_in_the_stats():
    from gpubatch.arc.search import NEXT_LEVEL, PHASES
    from gpubatch.engine.stats import StatsCollector

    t = make_task("synthetic", rot_then_swap, [[[1, 2, 0], [0, 1, 3]], [[2, 2], [1, 0], [3, 3]]], [[1, 0], [2, 2]])
    stats = StatsCollector()
    search_shard([t], numpy_backend(), SearchConfig(depth=2), stats=stats)
    rows = {s.op: s for s in stats.rows()}
    assert all(rows[name].batches == 2 and rows[name].items > 0 for name in PHASES)  # a chunk a level
    assert rows[NEXT_LEVEL].batches == 1 and rows["rot90"].items > 0
