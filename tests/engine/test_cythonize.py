"""The Cython builder: a module compiled under its own full name loads from the cache folder and behaves as its
source; a bad cache is no cache; a failed build leaves nothing; a missing toolchain is one clear error."""
from __future__ import annotations

import importlib
import sys

import pytest

from gpubatch.engine import cythonize
from gpubatch.engine.cythonize import BuildError, build, load_manifest, toolchain

try:
    toolchain()
    MISSING = ""
except BuildError as exc:
    MISSING = str(exc)
needs_toolchain = pytest.mark.skipif(bool(MISSING), reason=f"no Cython toolchain: {MISSING}")

SOURCE = '''
from .helper import twice


def first(items):
    return next(iter(items))


def doubled(xs):
    return tuple(twice(x) for x in xs)
'''


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package `cypkg` with a pure `mod` and `helper`, importable from tmp_path."""
    pkg = tmp_path / "src" / "cypkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("def twice(x):\n    return 2 * x\n")
    (pkg / "mod.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    yield pkg
    for name in [n for n in sys.modules if n == "cypkg" or n.startswith("cypkg.")]:
        del sys.modules[name]


@needs_toolchain
def test_a_built_module_loads_first_on_the_package_path_and_equals_its_source(package, tmp_path):
    folder = tmp_path / "cache" / "key"
    manifest = build({"cypkg.mod": package / "mod.py"}, folder, jobs=1)
    assert manifest["modules"] == ["cypkg.mod"] and load_manifest(folder) == manifest
    assert not list(folder.glob("*.c")) and not [p for p in folder.parent.iterdir() if p != folder]
    pkg = importlib.import_module("cypkg")
    pkg.__path__.insert(0, str(folder))
    mod = importlib.import_module("cypkg.mod")
    assert not mod.__file__.endswith(".py") and mod.__name__ == "cypkg.mod"
    assert mod.doubled([1, 2, 3]) == (2, 4, 6) and mod.first((7, 8)) == 7  # its relative import resolved
    with pytest.raises(StopIteration):
        mod.first(())


@needs_toolchain
def test_a_bad_cache_is_no_cache(package, tmp_path):
    folder = tmp_path / "cache" / "key"
    manifest = build({"cypkg.mod": package / "mod.py"}, folder, jobs=1)
    lib = next(n for n in manifest["files"] if n != "manifest.json")
    with open(folder / lib, "r+b") as f:
        f.seek(100)
        f.write(b"\0garbage\0")
    assert load_manifest(folder) is None
    (folder / lib).unlink()
    assert load_manifest(folder) is None
    (folder / "manifest.json").write_text("{not json")
    assert load_manifest(folder) is None
    assert load_manifest(tmp_path / "nowhere") is None


@needs_toolchain
def test_a_failed_build_says_why_and_leaves_nothing(package, tmp_path):
    (package / "broken.py").write_text("def f(:\n    pass\n")
    folder = tmp_path / "cache" / "key"
    with pytest.raises(BuildError, match="failed"):
        build({"cypkg.mod": package / "mod.py", "cypkg.broken": package / "broken.py"}, folder, jobs=2)
    assert not folder.exists() and list((tmp_path / "cache").iterdir()) == []


def test_no_cython_is_one_clear_error(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "Cython", None)  # import fails
    with pytest.raises(BuildError, match="Cython is not installed"):
        toolchain()
    with pytest.raises(BuildError, match="Cython is not installed"):
        build({"cypkg.mod": tmp_path / "mod.py"}, tmp_path / "cache" / "key")
    assert not (tmp_path / "cache").exists()


def test_no_c_compiler_is_one_clear_error(monkeypatch):
    pytest.importorskip("Cython")
    monkeypatch.setattr(cythonize.sysconfig, "get_config_var",
                        lambda name: "no-such-cc-anywhere" if name == "CC" else None)
    with pytest.raises(BuildError, match="no C compiler: no-such-cc-anywhere"):
        toolchain()
