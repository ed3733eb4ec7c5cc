"""Hypothesis strategies for hostile inputs: Python sources, config TOML, ARC task JSON and Kaggle file pairs.

Each strategy draws a valid base and applies mutations; where the mutations keep the input valid, the drawn
value says so, so the checks can demand the same result as a clean run (not only "no crash").
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import strategies as st

from gpubatch.config.schema import KEYS

ROOT = Path(__file__).resolve().parents[2]
_SEEDS = sorted(p for p in (ROOT / "gpubatch").rglob("*.py"))[:40]
SNIPPETS = [
    "def f(x=[]):\n    try:\n        return eval(x)\n    except:\n        return x == None\n",
    "class A:\n    def m(self, a, b=dict(), *c, **d):\n        if a == True:\n            exec('1')\n",
    "import os as o\nfrom subprocess import call\no.system('x')  # noqa: GB201\ncall('y')\n",
    "async def g():\n    async with a as b:\n        async for i in b:\n            yield [j async for j in i]\n",
    "match x:\n    case [1, *r] if r:\n        pass\n    case {'k': v}:\n        pass\n",
    "x = f'{a!r:>{w}}' + rb'\\x00' + '''\n''' \n",
    "# -*- coding: latin-1 -*-\ns = '\xe9'\n",
    "lambda: (yield)\n",
]
NASTY = [b"\x00", b"\xff\xfe", b"\xef\xbb\xbf", b"\r", b"\r\n", b"\t", b"(" * 300, b"[" * 120, b"\\", b"'''",
         b'"', b"# noqa", b"# noqa: E7", b"# type: ignore", b"\xe9", b"\x1b[31m", "\u2028".encode(), b"def", b"    ", b"if x:\n", b"lambda", b"yield", b"await", b"\n" * 50,
         b"# -*- coding: koi8-r -*-\n", b"# coding: nonsense\n", b"x" * 5000]
NAMES = ["a.py", "b c.py", "caf\u00e9.py", "x,line=1::y.py", "%41.py", "#h.py", "deep/er/z.py", "pkg/__init__.py",
         "q.pyi", "-dash.py", ".gitignore", "deep/.gitignore"]


@dataclass
class SourceFile:
    name: str
    data: bytes


@st.composite
def source_file(draw) -> SourceFile:
    """A Python file: a snippet or one of the project's files, cut and mutated at the byte level."""
    if draw(st.booleans()):
        data = draw(st.sampled_from(SNIPPETS)).encode("utf-8", "surrogateescape")
    else:
        data = draw(st.sampled_from(_SEEDS)).read_bytes()[:4000] if _SEEDS else SNIPPETS[0].encode()
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.integers(0, 4))
        at = draw(st.integers(0, len(data)))
        if kind == 0:
            data = data[:at] + draw(st.sampled_from(NASTY)) + data[at:]
        elif kind == 1:
            end = draw(st.integers(at, min(len(data), at + 200)))
            data = data[:at] + data[end:]
        elif kind == 2:
            data = data[:at] + draw(st.binary(max_size=16)) + data[at:]
        elif kind == 3:
            data = data[:at] + data[at:at + 300] * draw(st.integers(1, 3)) + data[at:]
        else:
            data = data.replace(b"\n", b"\r\n") if draw(st.booleans()) else data.expandtabs(3)
    return SourceFile(draw(st.sampled_from(NAMES)), data)


source_trees = st.lists(source_file(), min_size=1, max_size=100)


# -- config -------------------------------------------------------------------------------------------------
def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    return json.dumps(str(v))


_ANY = st.one_of(st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=False), st.text(max_size=8),
                 st.lists(st.text(max_size=4), max_size=3), st.dictionaries(st.text(max_size=4), st.text(max_size=4),
                                                                             max_size=2))


@st.composite
def _good_value(draw, key):
    if key.choices:
        return draw(st.sampled_from(key.choices))
    if key.pattern is not None:  # cluster.address: the one good value that starts no cluster
        return ""
    if key.type is bool:
        return draw(st.booleans())
    if key.type is int:
        lo, hi = int(key.min if key.min is not None else 0), int(min(key.max if key.max is not None else 10**6, 10**6))
        return draw(st.integers(lo, max(lo, hi)))
    if key.type is float:
        return draw(st.floats(key.min or 0.0, min(key.max or 1e6, 1e6)))
    if key.type is list:
        return draw(st.lists(st.sampled_from(["E7", "B006", "os.system", "*.py", "GB1"]), max_size=3))
    if key.type is dict and key.name.endswith("severity"):
        return draw(st.dictionaries(st.sampled_from(["E722", "B006", "C901"]),
                                    st.sampled_from(["info", "warning", "error"]), max_size=2))
    if key.type is dict:
        return draw(st.dictionaries(st.sampled_from(["*.py", "tests/*", "a.py"]),
                                    st.lists(st.sampled_from(["E7", "B006", "S"]), max_size=2), max_size=2))
    return draw(st.sampled_from(["x", ".gpubatch_cache"]))


@dataclass
class ConfigDoc:
    name: str  # gpubatch.toml or pyproject.toml
    data: bytes
    valid: bool  # known valid by construction (False: may or may not be)
    values: dict = field(default_factory=dict)


_SAFE = [k for k in KEYS if not k.name.startswith(("gpu.", "batt.", "bench.")) and k.name not in (
    "analyze.cache_dir", "analyze.jobs", "analyze.include", "analyze.exclude", "analyze.rules.banned_calls")]


@st.composite
def config_doc(draw) -> ConfigDoc:
    """A config file: keys from the schema with good or bad values, unknown keys, broken bytes, as a gpubatch.toml
    or a pyproject.toml table."""
    keys = draw(st.lists(st.sampled_from(_SAFE), max_size=5, unique_by=lambda k: k.name))
    values = {k.name: draw(_good_value(k)) for k in keys}
    valid = True
    if draw(st.integers(0, 3)) == 0 and keys:
        values[keys[0].name] = draw(_ANY)
        valid = False
    if draw(st.integers(0, 6)) == 0:
        values["analyze." + draw(st.text("abcxyz_", min_size=1, max_size=6))] = 1
        valid = False
    pyproject = draw(st.booleans())
    lines = ["[tool.gpubatch]" if pyproject else ""]
    lines += [f"{k} = {_toml_value(v)}" for k, v in values.items()]
    data = "\n".join(lines).encode() + b"\n"
    for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 2)) == 0 else 0):
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"[", b"=", b"\n[tool]\n", b"tool = 3\n", b"\x00", b'"']))\
            + data[at:]
        valid = False
    return ConfigDoc("pyproject.toml" if pyproject else "gpubatch.toml", data, valid, values)


# -- ARC ----------------------------------------------------------------------------------------------------
def _grid(draw, h=None, w=None):
    h = h or draw(st.integers(1, 6))
    w = w or draw(st.integers(1, 6))
    return [[draw(st.integers(0, 9)) for _ in range(w)] for _ in range(h)]


_BREAK = [
    lambda t, d: t.pop("train"), lambda t, d: t.update(train=[]), lambda t, d: t.update(test="x"),
    lambda t, d: t["train"][0].pop("output"), lambda t, d: t["train"][0].update(input=[[1, 2], [3]]),
    lambda t, d: t["train"][0].update(input=[[10]]), lambda t, d: t["train"][0].update(input=[[1.0]]),
    lambda t, d: t["train"][0].update(input=[[True]]), lambda t, d: t["train"][0].update(input=[]),
    lambda t, d: t["train"][0].update(input=[[0] * 31]), lambda t, d: t["train"][0].update(input=[[1]] * 31),
    lambda t, d: t["test"][0].update(input=None), lambda t, d: t["train"].append(7),
    lambda t, d: t["train"][0].update(output=[[-1]]), lambda t, d: t["train"][0].update(input=[["1"]]),
    lambda t, d: t["train"][0].update(input=[[2 ** 70]]),
]


@dataclass
class ArcFile:
    id: str
    data: bytes
    valid: bool
    tests: int  # test inputs of a valid task


@st.composite
def arc_task(draw, tid: str) -> ArcFile:
    """One task file: valid, structurally broken (a known mutation), or broken bytes (bad JSON, deep nesting)."""
    same = draw(st.booleans())
    pairs = []
    for _ in range(draw(st.integers(1, 4))):
        g = _grid(draw)
        pairs.append({"input": g, "output": g if same else _grid(draw)})
    tests = [{"input": _grid(draw), **({"output": _grid(draw)} if draw(st.booleans()) else {})}
             for _ in range(draw(st.integers(1, 2)))]
    t = {"train": pairs, "test": tests}
    kind = draw(st.integers(0, 5))
    if kind == 0:
        draw(st.sampled_from(_BREAK))(t, draw)
        return ArcFile(tid, json.dumps(t).encode(), False, 0)
    if kind == 1:
        junk = draw(st.sampled_from([b"{", b"\xff\xfe{}", b"[" * 50_000 + b"]" * 50_000, b"null", b"[]", b"",
                                     b'{"train": {"a": 1}, "test": []}', b"\x00"]))
        return ArcFile(tid, junk, False, 0)
    return ArcFile(tid, json.dumps(t).encode(), True, len(tests))


@st.composite
def arc_folder(draw) -> list[ArcFile]:
    n = draw(st.integers(1, 100))
    return [draw(arc_task(f"t{i:03d}")) for i in range(n)]


@dataclass
class KagglePair:
    challenges: bytes
    solutions: bytes | None
    usable: bool  # the challenges file is a JSON object (else: exit 2)
    valid_ids: set
    ids: set  # every task of a usable challenges file, the broken ones too


@st.composite
def kaggle_pair(draw) -> KagglePair:
    """A `*_challenges.json` with its `*_solutions.json`, either of unexpected shape at times."""
    files = draw(st.lists(arc_task("x"), min_size=1, max_size=6))
    chal, sol, valid = {}, {}, set()
    for i, f in enumerate(files):
        tid = f"k{i:02d}"
        try:
            raw = json.loads(f.data)
        except (ValueError, RecursionError):
            raw = f.data.decode("latin-1")
        if f.valid:
            valid.add(tid)
            sol[tid] = [p.pop("output", None) or [[0]] for p in raw["test"]]
        chal[tid] = raw
        if draw(st.integers(0, 4)) == 0:
            sol[tid] = draw(st.sampled_from([[[[1]]], "x", None, [[[1, 2], [3]]], [], {"a": 1}]))
    shape = draw(st.integers(0, 6))
    challenges = json.dumps(chal if shape else list(chal.values())).encode()
    solutions = None if shape == 1 else json.dumps(sol if shape != 2 else list(sol.values())).encode()
    return KagglePair(challenges, solutions, shape != 0, valid if shape else set(), set(chal) if shape else set())
