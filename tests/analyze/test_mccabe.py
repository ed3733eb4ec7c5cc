"""C901 under `analyze.complexity = "mccabe"`: mccabe's count as ruff and flake8 make it, on NumPy (the CuPy
path is in test_analyze_gpu), checked by hand on each construct and against ruff itself on real code."""
import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gpubatch.analyze.batched import Thresholds
from gpubatch.analyze.discover import discover
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings

from .test_analyze import analyze

CASES = '''\
def plain(x):
    return [y for y in x if y] and x or (1 if x else 2)

def branches(x):
    while x:
        for i in x:
            if i:
                pass
            elif i > 2:
                pass
        else:
            pass
    assert x
    with x, x:
        pass

def handlers(x):
    try:
        pass
    except A:
        pass
    except B:
        pass
    else:
        pass
    finally:
        if x:
            pass

def only_finally():
    try:
        pass
    finally:
        pass

def outer(x):
    def inner():
        if x:
            pass
    class Local:
        def method(self):
            if x:
                pass
    async def agen():
        async for i in x:
            pass
        async with x:
            pass

def matches(x):
    match x:
        case 1:
            pass
        case 2 if x:
            pass
        case _:
            pass

def catch_all_guarded(x):
    match x:
        case 1:
            pass
        case _ if x:
            pass

def capture_last(x):
    match x:
        case 1:
            pass
        case 2 | (y as z):
            pass

class Top:
    def m(self, x):
        if x:
            return [i for i in x if i or x]
'''
# by hand: branches = 1 + while + for + if + elif; handlers = 1 + 2 handlers + else + the if in finally;
# outer = 1 + inner (1 + if) + method (1 + if) + agen (1 + async for): nested functions count in outer
EXPECTED = {"plain": 1, "branches": 5, "handlers": 5, "only_finally": 1, "outer": 7, "inner": 2, "method": 2,
            "agen": 2, "matches": 3, "catch_all_guarded": 3, "capture_last": 2, "m": 2}


def complexities(result) -> dict[str, int]:
    """Function name -> complexity, read off C901 findings ("`name` is too complex (N > limit)")."""
    return {f.message.split("`")[1]: int(f.message.split("(")[1].split()[0]) for f in result.findings}


def test_mccabe_counts_statements_only(tmp_path):
    res = analyze(tmp_path, {"a.py": CASES}, th={"complexity": "mccabe", "max_complexity": 1}, select=("C901",))
    assert complexities(res) == {k: v for k, v in EXPECTED.items() if v > 1}


def test_radon_stays_the_default(tmp_path):
    res = analyze(tmp_path, {"a.py": CASES}, th={"max_complexity": 1}, select=("C901",))
    got = complexities(res)
    # radon counts the boolean operators, the if-expression, the comprehension (and its if) and the assert,
    # and leaves nested functions out of the enclosing one
    assert (got["plain"], got["branches"], got["handlers"], got["m"]) == (6, 7, 5, 5) and "outer" not in got
def _ruff() -> list[str]:
    if shutil.which("ruff"):
        return ["ruff"]
    try:
        import ruff  # noqa: F401
    except ImportError:
        pytest.skip("ruff is not installed")
    return [sys.executable, "-m", "ruff"]


@pytest.mark.parametrize("tree", ["email", "asyncio", "json"])
def test_c901_equals_ruff(tree, tmp_path):
    """Real code: the stdlib packages, every function at threshold 3, against `ruff check --select C901`."""
    root = Path(sysconfig.get_paths()["stdlib"]) / tree
    files = [str(p) for p in discover([root])]
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(files, ex, Policy(Thresholds(max_complexity=3, complexity="mccabe"), select=("C901",)),
                          jobs=1)
    ours = sorted((f.path, f.line, f.message) for f in res.findings)
    out = subprocess.run([*_ruff(), "check", "--no-cache", "--isolated", "--output-format", "json", "--select",
                          "C901", "--config", "lint.mccabe.max-complexity=3", *files], capture_output=True, text=True)
    theirs = sorted((d["filename"], d["location"]["row"], d["message"]) for d in json.loads(out.stdout))
    assert len(ours) > 15
    assert ours == theirs
