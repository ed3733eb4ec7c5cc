"""Regressions: config files (encoding, shapes, value types, broken pyproject, unknown codes) and ARC inputs
(nested JSON, Kaggle shapes, bad solutions, large tasks, the accuracy denominator, --tasks with --task-ids)."""
import json

import pytest

from .helpers import cli, task, write_tasks


@pytest.mark.parametrize("name,body", [
    ("bad.toml", b"\xff\xfe[gpu]\n"),
    ("pyproject.toml", b"tool = 3\n"),
    ("pyproject.toml", b"[tool]\ngpubatch = 3\n"),
    ("bad.toml", b'[analyze.per_file_ignores]\n"*.py" = "E722"\n'),
    ("bad.toml", b'[analyze.per_file_ignores]\n"*.py" = [1]\n'),
    ("bad.toml", b"[analyze.severity]\nE722 = 3\n"),
    ("bad.toml", b"[analyze]\nselect = 'E7'\n"),
])
def test_bad_config_file_is_exit_2(tmp_path, name, body):
    cfg = tmp_path / name
    cfg.write_bytes(body)
    (tmp_path / "a.py").write_text("x = 1\n")
    res = cli("analyze", tmp_path / "a.py", "--config", cfg)
    assert res.exit_code == 2, res.output
    assert cli("config", "validate", cfg).exit_code == 2


def test_broken_pyproject_with_our_table_is_reported(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.gpubatch.analyze]\nmax_complexity = \n')
    (tmp_path / "a.py").write_text("x = 1\n")
    res = cli("analyze", "a.py", cwd=tmp_path)
    assert res.exit_code == 2 and "pyproject.toml" in res.output
    (tmp_path / "pyproject.toml").write_text('[project]\nname = \n')  # broken, but not ours: ignored
    assert cli("analyze", "a.py", cwd=tmp_path).exit_code == 0


def test_unknown_rule_code_is_warned(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    res = cli("analyze", "a.py", "--select", "E72,XYZ1", cwd=tmp_path)
    assert res.exit_code == 0 and "unknown rule code 'XYZ1'" in res.stderr and "'E72'" not in res.stderr


def _batt(tmp_path, source, *extra):
    out = tmp_path / "sub.json"
    res = cli("run-batt", "--dataset", source, "--depth", "1", "--no-progress", "--submission", out, *extra)
    return res, (json.loads(out.read_text()) if out.exists() else None)


def test_deeply_nested_json_skips_one_task(tmp_path):
    folder = write_tasks(tmp_path / "t", {"good": task(1), "deep": "[" * 100_000 + "]" * 100_000})
    res, sub = _batt(tmp_path, folder)
    assert res.exit_code == 1 and "deep" in res.stderr and set(sub) == {"good", "deep"}
    assert sub["deep"] == [{"attempt_1": [[0]], "attempt_2": [[0]]}]  # a file that cannot be read: one entry


@pytest.mark.parametrize("challenges,solutions,code,scored", [
    ([1, 2], {}, 2, None),  # challenges of the wrong shape: a usage error, one line
    ({"a": task(1), "b": "oops"}, {"a": "nope"}, 1, {"a", "b"}),  # a bad task skipped (its entry kept), a bad
    # solution: unscored
    ({"a": task(1), "b": task(2)}, [1], 1, {"a", "b"}),  # solutions of the wrong shape: all unscored
    ({"a": task(1), "b": task(2)}, {"a": [[[1]]], "b": [[[1, 2], [3]]]}, 1, {"a", "b"}),
])
def test_kaggle_files_of_unexpected_shapes(tmp_path, challenges, solutions, code, scored):
    for t in (challenges.values() if isinstance(challenges, dict) else ()):
        for pair in (t["test"] if isinstance(t, dict) else ()):
            pair.pop("output", None)  # Kaggle keeps test outputs apart
    (tmp_path / "x_challenges.json").write_text(json.dumps(challenges))
    (tmp_path / "x_solutions.json").write_text(json.dumps(solutions))
    res, sub = _batt(tmp_path, tmp_path / "x_challenges.json")
    assert res.exit_code == code, res.output
    if scored is not None:
        assert set(sub) == scored  # a bad solutions entry never drops a task from the submission


def test_task_with_many_grids_runs_and_counts(tmp_path):
    folder = write_tasks(tmp_path / "t", {"big": task(3, demos=70, size=2), "small": task(4)})
    out = tmp_path / "r.json"
    res = cli("run-batt", "--dataset", folder, "--depth", "1", "--no-progress", "--results", out)
    data = json.loads(out.read_text())
    assert res.exit_code == 0, res.output
    assert data["summary"]["failed"] == 0 and data["summary"]["test_outputs"] == 2
    assert all(t["correct"] == [True] for t in data["tasks"])


def test_failed_task_stays_in_the_accuracy_denominator(tmp_path, monkeypatch):
    from gpubatch.arc import batt

    real = batt.search_shard

    def fragile(tasks, *a, **k):
        if any(t.id == "boom" for t in tasks):
            raise RuntimeError("injected fault")
        return real(tasks, *a, **k)

    monkeypatch.setattr(batt, "search_shard", fragile)
    folder = write_tasks(tmp_path / "t", {"boom": task(5), "fine": task(6)})
    out = tmp_path / "r.json"
    res = cli("run-batt", "--dataset", folder, "--depth", "1", "--no-progress", "--results", out)
    summary = json.loads(out.read_text())["summary"]
    assert res.exit_code == 1 and summary["failed"] == 1
    assert summary["test_outputs"] == 2 and summary["test_correct"] == 1


def test_task_ids_with_tasks_limit(tmp_path):
    folder = write_tasks(tmp_path / "t", {f"t{i}": task(i) for i in range(4)})
    res = cli("run-batt", "--dataset", folder, "--depth", "0", "--no-progress", "--tasks", "1",
              "--task-ids", "t2,t3")
    assert res.exit_code == 0 and "no such task" not in res.output
    res = cli("run-batt", "--dataset", folder, "--depth", "0", "--no-progress", "--task-ids", "t2,nope")
    assert res.exit_code == 1 and "nope: no such task" in res.output and "t2: no such" not in res.output
