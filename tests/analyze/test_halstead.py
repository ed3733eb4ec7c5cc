"""Halstead counts and the maintainability index equal radon's (`radon hal`, `radon mi`), file by file and
function by function, on constructs where radon's rules are subtle and on real code; xenon's gates."""
import sysconfig
from pathlib import Path

import pytest

radon_complexity = pytest.importorskip("radon.complexity", reason="radon (a test dependency) is not installed")
from radon.metrics import h_visit, mi_visit  # noqa: E402

from gpubatch.analyze.batched import Thresholds  # noqa: E402
from gpubatch.analyze.discover import discover
from gpubatch.analyze.gates import Gates, cc_rank, gate_failures
from gpubatch.analyze.job import Policy, run_analyze
from gpubatch.engine import BatchExecutor, EngineSettings

from .test_analyze import analyze

TRICKY = '''\
import os
x = "x" + x                 # a string and the name it spells are one operand
y = 1 + 1.0 + True - (2 != 2.0)
z = a.b.c + b * -c ** 2 >= 3 in d not in e

@decorate(k + 1)            # a function's decorators and defaults are not counted
def f(p=q + 1, *, r: int = s * 2) -> t + u:
    v = p + r
    v += "\\ud800" + "x"
    def inner(w=v + 1):
        return w and v or not w
    return [i + 1 for i in range(v) if i > v] and (lambda m=n + 1: m - 1)

class K(Base + Mixin):      # a class's bases are counted
    def __init__(self):
        self.a = self.b + 1 if self.c < 2 else 3

    def __repr__(self):
        return "K" % self.a

class L:
    def __init__(self):     # same name, same context: operands shared with K.__init__
        self.a = self.b + 2
    class Inner:
        def method(self):
            return 1 + 2
'''


def _theirs(code: str):
    h = h_visit(code)
    return (h.total.h1, h.total.h2, h.total.N1, h.total.N2), {(n, r.h1, r.h2, r.N1, r.N2) for n, r in h.functions}


def _ours(rep):
    hal = rep.metrics["halstead"]
    fns = {(b.name, *b.halstead) for b in rep.blocks if b.kind != "C"}
    return (hal["h1"], hal["h2"], hal["N1"], hal["N2"]), fns


def test_tricky_constructs_equal_radon(tmp_path):
    res = analyze(tmp_path, {"t.py": TRICKY})
    rep = res.files[0]
    total, fns = _ours(rep)
    their_total, their_fns = _theirs(TRICKY)
    assert total == their_total
    assert fns <= their_fns and {f[0] for f in their_fns} - {f[0] for f in fns} == {"method"}  # nested class
    assert rep.metrics["mi"] == pytest.approx(mi_visit(TRICKY, True), abs=1e-9)
    assert rep.metrics["halstead"]["volume"] > 0 and rep.metrics["mi_rank"] == "A"


@pytest.mark.parametrize("tree", ["json", "email", "asyncio"])
def test_stdlib_equals_radon(tree):
    """Real code, every file: totals, every reported function and the maintainability index."""
    files = list(discover([Path(sysconfig.get_paths()["stdlib"]) / tree]))
    with BatchExecutor(EngineSettings(device="cpu")) as ex:
        res = run_analyze(files, ex, Policy(Thresholds()), jobs=1)
    assert len(res.files) == len(files) > 4
    for rep in res.files:
        code = Path(rep.path).read_text(encoding="utf-8")
        total, fns = _ours(rep)
        their_total, their_fns = _theirs(code)
        assert total == their_total, rep.path
        assert fns <= their_fns, rep.path
        assert rep.metrics["mi"] == pytest.approx(mi_visit(code, True), abs=1e-9), rep.path


def test_cc_rank_equals_radon():
    for v in (0, 1, 5, 5.01, 6, 10, 10.5, 20, 20.01, 30, 31, 40, 40.5, 41, 500):
        assert cc_rank(v) == radon_complexity.cc_rank(v), v


GATED = ("def f(a):\n" + "    if a:\n        pass\n" * 6 + "\n\ndef g():\n    pass\n")


def test_gates_as_xenon(tmp_path):
    res = analyze(tmp_path, {"g.py": GATED, "h.py": "def h():\n    pass\n"})
    files = sorted(res.files, key=lambda r: r.path)
    path = files[0].path
    assert gate_failures(files, Gates("A", "A", "A")) == [f'block "{path}:1 f" has a rank of B']
    assert gate_failures(files, Gates()) == [] and not Gates()
    # f is 7, g is 1: the module averages 4 (A); with a lower bar for modules nothing more fails at A
    res = analyze(tmp_path, {"g.py": GATED.replace("\n\ndef g():\n    pass\n", "")})
    one = [r for r in res.files if r.path.endswith("g.py")]
    assert gate_failures(one, Gates(max_modules="A", max_average="A")) == [
        f"module {one[0].path!r} has a rank of B", "average complexity is ranked B"]


def test_gate_flags_exit_codes_and_json(tmp_path, monkeypatch):
    import json

    from typer.testing import CliRunner

    from gpubatch.cli import app

    monkeypatch.chdir(tmp_path)
    (tmp_path / "g.py").write_text(GATED)
    run = CliRunner().invoke
    r = run(app, ["analyze", "g.py", "--no-cache", "--device", "cpu", "--max-absolute", "a", "--fail-on", "never"])
    assert r.exit_code == 1 and 'block "g.py:1 f" has a rank of B' in r.stderr
    r = run(app, ["analyze", "g.py", "--no-cache", "--device", "cpu", "--max-absolute", "B", "--format", "json"])
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["summary"]["gates"] == []
    f = doc["files"][0]
    assert f["mi_rank"] == "A" and f["halstead"]["h1"] == 0 and f["blocks"][0]["halstead"]["N1"] == 0
    assert run(app, ["analyze", "g.py", "--max-average", "Z", "--device", "cpu"]).exit_code == 2
