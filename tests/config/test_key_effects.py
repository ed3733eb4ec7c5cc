"""Every config key has an observable effect: one behaviour test per key, each setting the key the way a user
does (a config file), and a test that walks the schema and fails for a key without one (`test_<key>`)."""
import json
import os
import sys
import time

import pytest
from typer.testing import CliRunner

from gpubatch.cli import app
from gpubatch.config import GPUConfigManager
from gpubatch.config.schema import SCHEMA
from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, Selection, StatsCollector, numpy_backend, run_batch

from ..engine.helpers import FakeGpu

runner = CliRunner()
HERE = sys.modules[__name__]


def test_every_key_has_a_behaviour_test():
    missing = [k for k in SCHEMA if not callable(getattr(HERE, "test_" + k.replace(".", "_"), None))]
    assert not missing, f"config keys without a behaviour test: {missing}"


# -- helpers -------------------------------------------------------------------------------------------
def _literal(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_literal(x)}" for k, x in v.items()) + "}"
    return json.dumps(v)


def config(tmp_path, **keys) -> str:
    """A config file setting dotted keys (`gpu__batch__max_size=3` for gpu.batch.max_size)."""
    tables: dict[str, list[str]] = {}
    for name, value in keys.items():
        table, key = name.replace("__", ".").rsplit(".", 1)
        tables.setdefault(table, []).append(f"{key} = {_literal(value)}")
    path = tmp_path / "k.toml"
    path.write_text("".join(f"[{t}]\n" + "\n".join(lines) + "\n" for t, lines in tables.items()))
    return str(path)


def cfg(tmp_path, **keys) -> GPUConfigManager:
    return GPUConfigManager.load(config(tmp_path, **keys), env={}, discover=False)


def tree(tmp_path, files: dict[str, str]):
    root = tmp_path / "src"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def analyze(tmp_path, files: dict[str, str], *args, **keys):
    """Run `gpubatch analyze` on a small tree with these keys; (exit code, JSON report, stats JSON)."""
    root = tree(tmp_path, files) if files else tmp_path / "src"
    keys.setdefault("analyze__cache", False)
    stats = tmp_path / "stats.json"
    result = runner.invoke(app, ["analyze", str(root), "--format", "json", "--config", config(tmp_path, **keys),
                                 "--stats-json", str(stats), "--no-progress", "-q", *args])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.stdout[result.stdout.index("{"):])
    return result.exit_code, report, json.loads(stats.read_text())


def codes(report) -> set[str]:
    return {f["code"] for f in report["findings"]}


def files_of(report) -> set[str]:
    return {os.path.basename(f["path"]) for f in report["files"]}


def analyze_stats(st) -> dict:
    return next(o for o in st["ops"] if o["op"] == "analyze")


SIX = {f"m{i}.py": f"x{i} = {i}\n" for i in range(6)}


# -- gpu.* ---------------------------------------------------------------------------------------------
def test_gpu_device(tmp_path):
    code = runner.invoke(app, ["analyze", str(tree(tmp_path, SIX)), "--no-cache", "-q",
                               "--config", config(tmp_path, gpu__device="cuda")]).exit_code
    from gpubatch.engine import probe_cuda

    assert code == (0 if probe_cuda().gpus else 2)  # cuda: the GPU or exit 2, never a quiet CPU run


def test_gpu_enabled(tmp_path):
    result = runner.invoke(app, ["analyze", str(tree(tmp_path, SIX)), "--no-cache", "--device", "cuda",
                                 "--config", config(tmp_path, gpu__enabled=False)])
    assert result.exit_code == 2 and "gpu.enabled = false" in result.output


def _pid(items, backend):
    return [os.getpid() for _ in items]


def test_gpu_count(tmp_path):
    settings = EngineSettings.from_config(cfg(tmp_path, gpu__count=2, gpu__batch__initial_size=2,
                                              gpu__batch__dynamic_sizing=False))
    with BatchExecutor(replace_device(settings), Selection("numpy")) as ex:
        pids = set(ex.run_all(BatchOp("pid", _pid), range(12)))
    assert ex.runner.name == "processes" and len(pids) == 2 and os.getpid() not in pids


def replace_device(settings: EngineSettings) -> EngineSettings:
    from dataclasses import replace

    return replace(settings, device="cpu")


def test_gpu_memory_max_fraction(tmp_path):
    caps = [EngineSettings.from_config(cfg(tmp_path, gpu__memory__max_fraction=f)).sizer(1000).memory_cap(10**9)
            for f in (0.2, 0.8)]
    assert caps == [200_000, 800_000]


def test_gpu_memory_cache_size(tmp_path, monkeypatch):
    """analyze's rule and metric tables come from the device cache: uploaded once a run, hits after."""
    from gpubatch.engine import backend as backend_mod
    from gpubatch.engine.backend import GpuInfo
    from gpubatch.engine.memory import DeviceCache

    def fake_cupy_backend(index, cache_size=0, max_bytes=None, max_fraction=None):
        gpu = FakeGpu()
        gpu.cache = DeviceCache(cache_size, max_bytes) if cache_size else None
        return gpu

    monkeypatch.setattr(backend_mod, "cupy_backend", fake_cupy_backend)
    found = Selection("cupy", gpus=(GpuInfo(0, "fake", 1 << 30, 1 << 30, 1, "9.0"),))
    for size, hits in ((64, True), (0, False)):
        from gpubatch.analyze.job import Policy, run_analyze
        from gpubatch.analyze.batched import Thresholds

        settings = EngineSettings.from_config(cfg(tmp_path, gpu__memory__cache_size=size, gpu__batch__initial_size=2,
                                                  gpu__batch__dynamic_sizing=False, gpu__device="cuda"))
        root = tree(tmp_path, SIX)
        with BatchExecutor(settings, found, runner="local") as ex:
            run_analyze(sorted(root.iterdir()), ex, Policy(Thresholds()), jobs=1)
        assert (ex.stats.cache["hits"] > 0) is hits and (ex.stats.cache["misses"] > 0) is hits


def test_gpu_memory_keep_in_vram(tmp_path, monkeypatch):
    """false: run-batt keeps no search level's grids on the device (each is recomputed from the inputs)."""
    import gpubatch.arc.batt as batt

    seen = []
    real = batt.run_batt

    def spy(tasks, ex, scfg, *a, **kw):
        seen.append(scfg.store_bytes)
        return real(tasks, ex, scfg, *a, **kw)

    monkeypatch.setattr(batt, "run_batt", spy)
    for keep in (True, False):
        result = runner.invoke(app, ["run-batt", "--tasks", "1", "--depth", "1", "--device", "cpu", "-q",
                                     "--config", config(tmp_path, gpu__memory__keep_in_vram=keep)])
        assert result.exit_code in (0, 1), result.output
    assert seen[0] > 0 and seen[1] == 0


def _batches(tmp_path, **keys):
    st = analyze_stats(analyze(tmp_path, SIX, **keys)[2])
    return st["batches"], st["max_batch"]


def test_gpu_batch_enabled(tmp_path):
    assert _batches(tmp_path, gpu__batch__enabled=False) == (6, 1)


def test_gpu_batch_initial_size(tmp_path):
    assert _batches(tmp_path, gpu__batch__initial_size=2, gpu__batch__dynamic_sizing=False) == (3, 2)


def test_gpu_batch_min_size(tmp_path):
    assert _batches(tmp_path, gpu__batch__initial_size=1, gpu__batch__min_size=3,
                    gpu__batch__dynamic_sizing=False) == (2, 3)


def test_gpu_batch_max_size(tmp_path):
    assert _batches(tmp_path, gpu__batch__max_size=4)[1] == 4


def test_gpu_batch_dynamic_sizing(tmp_path):
    def sizes(dynamic):
        sizer = EngineSettings.from_config(cfg(tmp_path, gpu__batch__initial_size=2,
                                                gpu__batch__dynamic_sizing=dynamic)).sizer()
        out = []
        for _ in range(3):
            n = sizer.next_size()
            out.append(n)
            sizer.observe(n, n / (1000 * len(out)))  # throughput rises with size
        return out

    assert sizes(True) == [2, 4, 8] and sizes(False) == [2, 2, 2]


SMALL = BatchOp("small", lambda items, b: [b.label for _ in items], work=len, cpu_threshold=0)


def _device_of(tmp_path, **keys) -> str:
    settings = EngineSettings.from_config(cfg(tmp_path, **keys))
    return run_batch(SMALL, [1, 2], FakeGpu(), numpy_backend(), settings, StatsCollector()).results[0]


def test_gpu_performance_cpu_threshold(tmp_path):
    assert _device_of(tmp_path, gpu__performance__cpu_threshold=10) == "cpu"
    assert _device_of(tmp_path, gpu__performance__cpu_threshold=1) == "cuda:0"


def test_gpu_performance_dynamic_dispatch(tmp_path):
    assert _device_of(tmp_path, gpu__performance__cpu_threshold=10, gpu__performance__dynamic_dispatch=False) == "cuda:0"
    from gpubatch.engine import select_device

    lazy = EngineSettings.from_config(cfg(tmp_path, gpu__performance__dynamic_dispatch=True))
    eager = EngineSettings.from_config(cfg(tmp_path, gpu__performance__dynamic_dispatch=False))
    calls = []

    def probe():
        calls.append(1)
        from gpubatch.engine.backend import Probe
        return Probe(reason="none here")

    select_device("auto", eager.enabled, 1, probe=probe, lazy=eager.dynamic_dispatch)
    assert calls == [1]  # without dispatch by work, auto probes CUDA at once
    assert lazy.dynamic_dispatch and not eager.dynamic_dispatch


EVENTS: list = []


def _prep(items):
    EVENTS.append("prepare")
    return items


def _run(items, backend):
    EVENTS.append("run")
    return list(items)


def test_gpu_performance_prefetch(tmp_path):
    op = BatchOp("prefetched", _run, prepare=_prep)
    orders = []
    for depth in (1, 3):
        EVENTS.clear()
        settings = EngineSettings.from_config(cfg(tmp_path, gpu__performance__prefetch=depth, gpu__batch__initial_size=1,
                                                  gpu__batch__dynamic_sizing=False, gpu__device="cpu"))
        with BatchExecutor(settings, Selection("numpy"), runner="local") as ex:
            ex.run_all(op, range(5))
        orders.append(EVENTS.index("run"))  # batches prepared before the first runs
    assert orders == [1, 3]
    EVENTS.clear()  # an op with large prepared batches caps the key (analyze: 2)
    with BatchExecutor(settings, Selection("numpy"), runner="local") as ex:
        ex.run_all(BatchOp("capped", _run, prepare=_prep, prefetch=2), range(5))
    ahead = [EVENTS[:i].count("prepare") - EVENTS[:i].count("run") for i in range(len(EVENTS) + 1)]
    assert max(ahead) <= 2 and EVENTS.count("run") == 5  # never more than 2 prepared and not yet run


# -- analyze.* -----------------------------------------------------------------------------------------
def test_analyze_jobs(tmp_path, monkeypatch):
    import gpubatch.analyze.parsers as parsers
    from gpubatch.analyze.job import SMALL_RUN

    pools = []
    real = parsers.worker_pool
    monkeypatch.setattr(parsers, "worker_pool", lambda n, *a, **kw: pools.append(n) or real(n, *a, **kw))
    many = {f"m{i}.py": f"x{i} = {i}\n" for i in range(SMALL_RUN + 1)}
    analyze(tmp_path, many, analyze__jobs=1)
    assert pools == []  # one job: parsed in this process
    analyze(tmp_path, {}, analyze__jobs=2)
    assert pools == [2]
    analyze(tmp_path / "few", SIX, analyze__jobs=2)
    assert pools == [2]  # a handful of files: parsed here, no pool started


def test_analyze_max_file_bytes(tmp_path):
    assert "E902" in codes(analyze(tmp_path, {"big.py": "x = 1\n" * 20}, analyze__max_file_bytes=50)[1])
    assert "E902" not in codes(analyze(tmp_path, {}, analyze__max_file_bytes=5000)[1])


NESTED = ("def f(a, b, c):\n    if a:\n        if b:\n            if c:\n                return 1\n"
          "    return 2\n")


def _threshold(tmp_path, key: str, code: str, low: int, high: int) -> None:
    assert code in codes(analyze(tmp_path, {"f.py": NESTED}, **{f"analyze__{key}": low})[1])
    assert code not in codes(analyze(tmp_path, {}, **{f"analyze__{key}": high})[1])


def test_analyze_max_complexity(tmp_path):
    _threshold(tmp_path, "max_complexity", "C901", 2, 10)


def test_analyze_complexity(tmp_path):
    """radon counts boolean operators, mccabe (ruff's C901) nested functions."""
    src = {"f.py": "def f(a, b):\n    def g():\n        pass\n    return a and b or a\n\n\n"
                   "def h(a):\n    def i():\n        pass\n    def j():\n        pass\n"}
    found = {k: [f["message"] for f in analyze(tmp_path, src, analyze__complexity=k, analyze__max_complexity=2)[1]
                 ["findings"] if f["code"] == "C901"] for k in ("radon", "mccabe")}
    assert found == {"radon": ["`f` is too complex (3 > 2)"], "mccabe": ["`h` is too complex (3 > 2)"]}


GATED = {"g.py": "def f(a):\n" + "    if a:\n        pass\n" * 6}  # complexity 7: rank B


def _gate(tmp_path, key: str, line: str) -> None:
    code, report, _ = analyze(tmp_path, GATED, **{f"analyze__{key}": "A"})
    assert code == 1 and len(report["summary"]["gates"]) == 1 and line in report["summary"]["gates"][0]
    code, report, _ = analyze(tmp_path, {}, **{f"analyze__{key}": "B"})
    assert code == 0 and report["summary"]["gates"] == []


def test_analyze_max_absolute(tmp_path):
    _gate(tmp_path, "max_absolute", "has a rank of B")


def test_analyze_max_modules(tmp_path):
    _gate(tmp_path, "max_modules", "module")


def test_analyze_max_average(tmp_path):
    _gate(tmp_path, "max_average", "average complexity is ranked B")


def test_analyze_max_function_lines(tmp_path):
    _threshold(tmp_path, "max_function_lines", "GB101", 3, 100)


def test_analyze_max_nesting(tmp_path):
    _threshold(tmp_path, "max_nesting", "GB102", 2, 5)


def test_analyze_max_params(tmp_path):
    _threshold(tmp_path, "max_params", "GB103", 2, 8)


def test_analyze_max_batch_files(tmp_path):
    assert _batches(tmp_path, analyze__max_batch_files=2) == (3, 2)


def _aged(tmp_path, files: dict[str, str]):
    """The tree written a minute ago: not "racily clean", so the stat index takes its files."""
    root = tree(tmp_path, files)
    for p in root.rglob("*.py"):
        os.utime(p, (time.time() - 60, time.time() - 60))
    return root


def test_analyze_cache(tmp_path):
    _aged(tmp_path, SIX)
    for on, cached in ((True, 6), (False, 0)):
        analyze(tmp_path, {}, analyze__cache=on, analyze__cache_dir=str(tmp_path / "c"))
        report = analyze(tmp_path, {}, analyze__cache=on, analyze__cache_dir=str(tmp_path / "c"))[1]
        assert report["timings"]["cached_files"] == cached
        if on:
            assert list((tmp_path / "c").rglob("index/*.idx")) and not list((tmp_path / "c").rglob("*.bin"))
            (tmp_path / "c").rename(tmp_path / "old")


def test_analyze_cache_content(tmp_path):
    """Files just written are not indexed (racily clean); the content cache serves them on the second run."""
    for on, cached in ((True, 6), (False, 0)):
        cache = str(tmp_path / f"c{on}")
        analyze(tmp_path, SIX, analyze__cache_content=on, analyze__cache=True, analyze__cache_dir=cache)
        report = analyze(tmp_path, {}, analyze__cache_content=on, analyze__cache=True, analyze__cache_dir=cache)[1]
        assert report["timings"]["cached_files"] == cached


def test_analyze_cache_dir(tmp_path):
    analyze(tmp_path, SIX, analyze__cache=True, analyze__cache_dir=str(tmp_path / "here"))
    assert (tmp_path / "here").is_dir() and any((tmp_path / "here").iterdir())


def test_analyze_respect_gitignore(tmp_path):
    files = {"a.py": "x = 1\n", "b.py": "y = 2\n", ".gitignore": "b.py\n"}
    assert files_of(analyze(tmp_path, files, analyze__respect_gitignore=True)[1]) == {"a.py"}
    assert files_of(analyze(tmp_path, {}, analyze__respect_gitignore=False)[1]) == {"a.py", "b.py"}


def test_analyze_default_excludes(tmp_path):
    files = {"a.py": "x = 1\n", "build/b.py": "y = 2\n"}
    assert files_of(analyze(tmp_path, files, analyze__default_excludes=True)[1]) == {"a.py"}
    assert files_of(analyze(tmp_path, {}, analyze__default_excludes=False)[1]) == {"a.py", "b.py"}


def test_analyze_include(tmp_path):
    assert files_of(analyze(tmp_path, SIX, analyze__include=["m1.py"])[1]) == {"m1.py"}


def test_analyze_exclude(tmp_path):
    assert "m1.py" not in files_of(analyze(tmp_path, SIX, analyze__exclude=["m1.py"])[1])


BAD = {"bad.py": "try:\n    eval('1')\nexcept:\n    pass\n"}


def test_analyze_select(tmp_path):
    assert codes(analyze(tmp_path, BAD, analyze__select=["E7"])[1]) == {"E722"}


def test_analyze_ignore(tmp_path):
    assert codes(analyze(tmp_path, BAD, analyze__ignore=["S"])[1]) == {"E722"}


def test_analyze_fail_on(tmp_path):
    warn = {"w.py": "try:\n    pass\nexcept:\n    pass\n"}
    assert analyze(tmp_path, warn, analyze__fail_on="warning")[0] == 1
    assert analyze(tmp_path, {}, analyze__fail_on="error")[0] == 0


def test_analyze_severity(tmp_path):
    warn = {"w.py": "try:\n    pass\nexcept:\n    pass\n"}
    code, report, _ = analyze(tmp_path, warn, analyze__severity={"E722": "error"})
    assert code == 1 and report["findings"][0]["severity"] == "error"


def test_analyze_per_file_ignores(tmp_path):
    assert codes(analyze(tmp_path, BAD, analyze__per_file_ignores={"*bad.py": ["S307"]})[1]) == {"E722"}


def test_analyze_rules_banned_calls(tmp_path):
    src = {"c.py": "import os\nos.system('ls')\n"}
    assert "GB201" in codes(analyze(tmp_path, src, analyze__rules__banned_calls=["os.system"])[1])
    assert "GB201" not in codes(analyze(tmp_path, {}, analyze__rules__banned_calls=[])[1])


def test_analyze_rules_banned_imports(tmp_path):
    src = {"c.py": "import pickle\n"}
    assert "GB202" in codes(analyze(tmp_path, src, analyze__rules__banned_imports=["pickle"])[1])


# -- batt.* --------------------------------------------------------------------------------------------
def _task(tmp_path, name: str, flip: bool) -> None:
    grid = [[1, 2], [3, 4]]
    out = [r[::-1] for r in grid] if flip else grid
    (tmp_path / "tasks").mkdir(exist_ok=True)
    (tmp_path / "tasks" / f"{name}.json").write_text(json.dumps(
        {"train": [{"input": grid, "output": out}], "test": [{"input": grid, "output": out}]}))


def batt(tmp_path, **keys) -> dict:
    _task(tmp_path, "a", True)
    _task(tmp_path, "b", False)
    keys.setdefault("batt__dataset", str(tmp_path / "tasks"))
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run-batt", "--device", "cpu", "-q", "--no-progress", "--results", str(out),
                                 "--config", config(tmp_path, **keys)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(out.read_text())


def test_batt_dataset(tmp_path):
    assert [t["id"] for t in batt(tmp_path, batt__depth=0)["tasks"]] == ["a", "b"]


def test_batt_tasks(tmp_path):
    assert [t["id"] for t in batt(tmp_path, batt__tasks=1, batt__depth=0)["tasks"]] == ["a"]


def test_batt_depth(tmp_path):
    shallow, deep = (batt(tmp_path, batt__depth=d)["summary"]["evaluations"] for d in (0, 1))
    assert shallow == 4 and deep > 500 * shallow  # depth 0: the inputs only; depth 1: every primitive on them


def test_batt_max_states(tmp_path):
    assert batt(tmp_path, batt__depth=2, batt__max_states=5)["summary"]["stopped"] == [["state budget", 2]]


def test_batt_partial_fits(tmp_path):
    flip = [[[1, 2, 0], [0, 3, 3]], [[4, 0, 0], [0, 5, 6]]]  # two demos flipped, a third that nothing makes
    train = [{"input": g, "output": [r[::-1] for r in g]} for g in flip]
    train.append({"input": [[7, 7, 1], [2, 0, 0]], "output": [[9, 8, 9], [8, 9, 8]]})
    test = [[3, 0, 5], [6, 6, 0]]
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "p.json").write_text(json.dumps(
        {"train": train, "test": [{"input": test, "output": [r[::-1] for r in test]}]}))
    on, off = (batt(tmp_path, batt__dataset=str(tmp_path / "part"), batt__depth=1, batt__partial_fits=n)["tasks"][0]
               for n in (8, 0))
    assert on["partials"][0]["matched"] == 2 and on["correct"] == [True]
    assert off["partials"] == [] and off["correct"] == [False]


def test_batt_overlays(tmp_path):
    from tests.arc.test_overlays import _task as overlay_task

    task = overlay_task()
    (tmp_path / "over").mkdir()
    (tmp_path / "over" / "o.json").write_text(json.dumps(
        {"train": [{"input": a, "output": b} for a, b in task.train],
         "test": [{"input": task.test_inputs[0], "output": task.test_outputs[0]}]}))
    on, off = (batt(tmp_path, batt__dataset=str(tmp_path / "over"), batt__depth=1, batt__overlays=n)["tasks"][0]
               for n in (16, 0))
    assert on["overlays"] and on["overlays"][0]["program"].startswith("overlay(")
    assert off["overlays"] == []


def _swap_tasks(tmp_path) -> str:
    """A folder holding the task only a colour-normalised copy solves (`tests/arc/test_colournorm.py`)."""
    from tests.arc.test_colournorm import _swap_task

    task = _swap_task()
    (tmp_path / "swap").mkdir(exist_ok=True)
    (tmp_path / "swap" / "s.json").write_text(json.dumps(
        {"train": [{"input": a, "output": b} for a, b in task.train],
         "test": [{"input": task.test_inputs[0], "output": task.test_outputs[0]}]}))
    return str(tmp_path / "swap")


def test_batt_colour_norm(tmp_path):
    on, off = (batt(tmp_path, batt__dataset=_swap_tasks(tmp_path), batt__depth=1, batt__colour_norm=flag)["tasks"][0]
               for flag in (True, False))
    assert on["correct"] == [True] and any(f["program"].startswith("colournorm | ") for f in on["fits"])
    assert off["correct"] == [False] and not any(f["program"].startswith("colournorm") for f in off["fits"])


def test_batt_colour_norm_shallower(tmp_path):
    deep, shallow = (batt(tmp_path, batt__dataset=_swap_tasks(tmp_path), batt__depth=2,
                          batt__colour_norm_shallower=n)["tasks"][0] for n in (0, 1))
    assert deep["states"] > shallow["states"]  # the copy searched to depth 2, then to depth 1


def test_batt_deep_states(tmp_path):
    # the budget of levels 1-3 leaves room past level 1's states of the 2 x 2 grid (116 a task, each expanded by
    # every primitive that runs past depth 1), so that levels 2 and 3 are kept and level 4 has parents
    deep, none = (batt(tmp_path, batt__depth=4, batt__max_states=120_000, batt__deep_states=n)["tasks"][0]
                  for n in (5_000, 0))
    assert deep["states"] > none["states"]  # level 4 explored from the kept level-3 states, then not at all


def _solvers_run(tmp_path, **keys):
    """run-batt --solvers (one arc-dsl solver, `vmirror`, on task a) under a config file setting `keys`."""
    _task(tmp_path, "a", True)
    (tmp_path / "s.py").write_text("def solve_a(I):\n    O = vmirror(I)\n    return O\n")
    out = tmp_path / "r.json"
    result = runner.invoke(app, ["run-batt", "--device", "cpu", "--no-progress", "--results", str(out), "--solvers",
                                 str(tmp_path / "s.py"), "--config",
                                 config(tmp_path, batt__dataset=str(tmp_path / "tasks"), **keys)])
    return result, (json.loads(out.read_text()) if out.is_file() else None)


def test_batt_compiled(tmp_path, monkeypatch):
    monkeypatch.delenv("GPUBATCH_BATT__COMPILED", raising=False)  # tests run the pure primitives by default
    result, doc = _solvers_run(tmp_path, batt__compiled="off")
    assert result.exit_code == 0 and doc["run"]["primitives"] == "python" and doc["summary"]["pairs"]["solved"] == 1
    monkeypatch.setitem(sys.modules, "Cython", None)  # no toolchain: auto says why and runs; on is a usage error
    result, doc = _solvers_run(tmp_path, batt__compiled="auto")
    assert result.exit_code == 0 and "arc-dsl primitives in pure Python: Cython is not installed" in result.output
    result, _ = _solvers_run(tmp_path, batt__compiled="on")
    assert result.exit_code == 2 and "batt.compiled = on" in result.output


def test_batt_compiled_dir(tmp_path, monkeypatch):
    """The build goes under the folder named (a stand-in build: the real one is tests/arc/test_arcdsl_native.py)."""
    import gpubatch.arc.arcdsl as package
    from gpubatch.arc.arcdsl import native
    from gpubatch.engine import cythonize

    def fake_build(sources, folder, jobs=0):
        folder.mkdir(parents=True)
        (folder / "x.so").write_bytes(b"x")
        digest = cythonize._sha(folder / "x.so")
        (folder / cythonize.MANIFEST).write_text(json.dumps({"files": {"x.so": digest}}))

    monkeypatch.delenv("GPUBATCH_BATT__COMPILED", raising=False)
    monkeypatch.setenv(native.ENV, "")  # restored (unset) afterwards, as is the package's path
    monkeypatch.setattr(package, "__path__", list(package.__path__))
    monkeypatch.setattr(cythonize, "toolchain", lambda: ("3.0", ["cc"]))
    monkeypatch.setattr(cythonize, "build", fake_build)
    monkeypatch.setattr(native, "_already_pure", lambda: [])
    result, _ = _solvers_run(tmp_path, batt__compiled_dir=str(tmp_path / "cache"))
    built = list((tmp_path / "cache").iterdir())
    flat = "".join(result.output.split())  # the note as Rich wraps it, at any width
    assert result.exit_code == 0 and len(built) == 1 and f"cachedin{built[0]}" in flat, result.output
    assert f"compilingthearc-dslprimitivesonceinto{built[0]}" in flat  # said before the build starts
    result, _ = _solvers_run(tmp_path, batt__compiled_dir=str(tmp_path / "cache"))  # a hit: no build, no note
    assert result.exit_code == 0 and "compiled the arc-dsl" not in result.output
    (built[0] / "x.so").write_bytes(b"y")  # a bad cache is no cache: rebuilt, with one warning
    result, _ = _solvers_run(tmp_path, batt__compiled_dir=str(tmp_path / "cache"))
    flat = "".join(result.output.split())
    assert result.exit_code == 0 and "faileditschecksumsandwasrebuilt" in flat and "compiledthearc-dsl" in flat
    assert (built[0] / "x.so").read_bytes() == b"x"


def test_batt_time_budget_s(tmp_path):
    assert batt(tmp_path, batt__depth=1, batt__time_budget_s=0.0)["summary"]["stopped"] == [["time budget", 2]]


# -- bench.* -------------------------------------------------------------------------------------------
def bench(tmp_path, *args, **keys) -> dict:
    out = tmp_path / "b.json"
    result = runner.invoke(app, ["bench", "--device", "cpu", "-q", "--json", str(out), *args,
                                 "--config", config(tmp_path, **keys)])
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text())


def test_bench_suite(tmp_path):
    data = bench(tmp_path, "--cases", "1,d0", bench__suite="batt", bench__warmup=0, batt__dataset=_tasks(tmp_path))
    assert data["suite"] == "batt" and data["summary"][0]["tasks"] == 1


def _tasks(tmp_path) -> str:
    _task(tmp_path, "a", True)
    return str(tmp_path / "tasks")


def test_bench_repeats(tmp_path):
    data = bench(tmp_path, "--cases", "xor_u8", bench__repeats=5)
    assert {len(m["samples"]) for m in data["measurements"] if m["mode"] == "batched"} == {5}


def test_bench_warmup(tmp_path, monkeypatch):
    import gpubatch.bench.runner as bench_runner

    seen = []
    real = bench_runner.timed
    monkeypatch.setattr(bench_runner, "timed", lambda fn, xp, repeats, warmup: seen.append(warmup)
                        or real(fn, xp, repeats, warmup))
    bench(tmp_path, "--cases", "xor_u8", bench__warmup=4)
    assert 4 in seen


# -- cluster.* -----------------------------------------------------------------------------------------
def test_cluster_address(tmp_path, dask_cluster):
    settings = EngineSettings.from_config(cfg(tmp_path, cluster__address=dask_cluster, gpu__device="cpu"))
    with BatchExecutor(settings, Selection("numpy")) as ex:
        assert ex.runner.name == "dask" and ex.run_all(SMALL, [1, 2, 3]) == ["cpu"] * 3


def test_cluster_workers(tmp_path):
    pytest.importorskip("distributed")
    settings = EngineSettings.from_config(cfg(tmp_path, cluster__address="local", cluster__workers=3,
                                              gpu__device="cpu"))
    with BatchExecutor(settings, Selection("numpy")) as ex:
        assert ex.runner.width == 3
        assert len(ex.runner.client.scheduler_info()["workers"]) == 3  # the workers the cluster started


def test_cluster_retries(tmp_path, dask_cluster):
    from ..engine.test_cluster import _dies_on_7

    settings = EngineSettings.from_config(cfg(tmp_path, cluster__address=dask_cluster, cluster__retries=0,
                                              gpu__device="cpu", gpu__batch__initial_size=8))
    with BatchExecutor(settings, Selection("numpy")) as ex:
        ex.run_all(BatchOp("dies", _dies_on_7), range(8))
    assert ex.stats.for_op("dies", "cpu").worker_restarts == 1  # no second try on the cluster


# -- analyze.duplicates ----------------------------------------------------------------------------------
_COPY = ('def load(path, mode="r"):\n    """Read."""\n    import os\n    with open(path, mode) as fh:\n'
         '        data = fh.read()\n    if not data:\n        raise ValueError("empty: " + path)\n'
         '    lines = [x.strip() for x in data.splitlines() if x.strip()]\n'
         '    return {"lines": lines, "count": len(lines)}\n')


def _groups(tmp_path, files, **keys) -> list:
    keys.setdefault("analyze__duplicates__enabled", True)
    return analyze(tmp_path, files, **keys)[1].get("duplicates", [])


def test_analyze_duplicates_enabled(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY}
    assert _groups(tmp_path, files, analyze__duplicates__enabled=False) == []
    assert len(_groups(tmp_path, files)) == 1


def test_analyze_duplicates_min_lines(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY}
    assert len(_groups(tmp_path, files, analyze__duplicates__min_lines=8)) == 1
    assert _groups(tmp_path, files, analyze__duplicates__min_lines=12) == []


def test_analyze_duplicates_min_nodes(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY}
    assert len(_groups(tmp_path, files, analyze__duplicates__min_nodes=30)) == 1
    assert _groups(tmp_path, files, analyze__duplicates__min_nodes=80, analyze__duplicates__lines=False) == []


def test_analyze_duplicates_lines(tmp_path):
    # seven equal code lines: the line pass reports them whatever min_nodes says
    files = {"a.py": _COPY, "b.py": _COPY}
    assert len(_groups(tmp_path, files, analyze__duplicates__min_nodes=80)) == 1
    assert _groups(tmp_path, files, analyze__duplicates__min_nodes=80, analyze__duplicates__lines=False) == []


def test_analyze_duplicates_min_nodes_renamed(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY.replace("data", "text").replace("lines", "rows")}
    assert _groups(tmp_path, files, analyze__duplicates__min_nodes_renamed=80,
                   analyze__duplicates__min_nodes=80) == []
    assert [g["kind"] for g in _groups(tmp_path, files, analyze__duplicates__min_nodes_renamed=20,
                                       analyze__duplicates__min_nodes=80)] == ["renamed"]


def test_analyze_duplicates_min_similarity(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY.replace("    lines = [", "    print(path)\n    lines = [")}
    assert [g["kind"] for g in _groups(tmp_path, files, analyze__duplicates__min_similarity=0.8)] == ["near-miss"]
    assert "near-miss" not in [g["kind"] for g in _groups(tmp_path, files, analyze__duplicates__min_similarity=1.0)]


def test_analyze_duplicates_max_gap(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY.replace("    lines = [", "    print(path)\n    lines = [")}
    assert [g["kind"] for g in _groups(tmp_path, files, analyze__duplicates__max_gap=12)] == ["near-miss"]
    assert "near-miss" not in [g["kind"] for g in _groups(tmp_path, files, analyze__duplicates__max_gap=0)]


def test_analyze_duplicates_ignore_docstrings(tmp_path):
    doc = '"""' + "\n".join(f"line {i} of a long text" for i in range(20)) + '\n"""\nx = 1\n'
    files = {"a.py": doc, "b.py": doc.replace("x = 1", "y = [2]")}
    assert _groups(tmp_path, files) == []
    assert len(_groups(tmp_path, files, analyze__duplicates__ignore_docstrings=False)) == 1


def test_analyze_duplicates_ignore_imports(tmp_path):
    imports = "".join(f"import mod{i}\n" for i in range(12))
    files = {"a.py": imports, "b.py": imports + "x = 1\n"}
    assert _groups(tmp_path, files) == []
    assert len(_groups(tmp_path, files, analyze__duplicates__ignore_imports=False)) == 1


def test_analyze_duplicates_ignore_signatures(tmp_path):
    files = {"a.py": _COPY, "b.py": _COPY.replace('def load(path, mode="r"):', "async def fetch(path, mode):")}
    assert [g["members"][1]["line"] for g in _groups(tmp_path, files)] == [1]  # from the def
    assert [g["members"][1]["line"] for g in _groups(tmp_path, files,
                                                     analyze__duplicates__ignore_signatures=False)] == [4]
