"""The ruff-coded rules on modern, annotated code: ruff's exemptions (immutable annotations, calls that make
mutable values, stubs, literal comparisons in chains, file-level `# ruff: noqa`), by hand and against ruff."""
import json
import subprocess

from .test_analyze import analyze, codes
from .test_mccabe import _ruff

CODES = ("E722", "B006", "B008", "S307", "S102", "E711", "E712")
TYPED = '''\
import collections
import typing as t
from collections.abc import Sequence
from typing import Annotated, List, Optional

def ok(a: Sequence[int] = [], b: Optional[t.Mapping] = {}, c: str | None = g(), d: Annotated[tuple, 1] = h(),
       e: t.Literal[1] = [], f=frozenset(), g=lambda: g()): ...
def bad(a: List[int] = [], b: "Sequence[int]" = [], c=set(), d=collections.deque(), e: list = g(), *,
        f=print(g()), g=datetime.date(1, 1, 1)): ...
x = y == None
z = None == 1 == y
w = (
    y
    == True
)
v = y is None == w is None
u = builtins.eval("1")
'''
# bad: B006 for [] (List is mutable), "Sequence[int]" (a string is not read), set(), collections.deque();
# B008 for g() (list), print and its g(), and datetime.date (no import makes it a module)
EXPECTED = [("typed.py", 8, "B006"), ("typed.py", 8, "B006"), ("typed.py", 8, "B006"), ("typed.py", 8, "B006"),
            ("typed.py", 8, "B008"), ("typed.py", 9, "B008"), ("typed.py", 9, "B008"), ("typed.py", 9, "B008"),
            ("typed.py", 10, "E711"), ("typed.py", 13, "E712")]  # `None == 1 == y`: beside a literal, no E711


def test_ruff_exemptions_by_hand(tmp_path):
    res = analyze(tmp_path, {"typed.py": TYPED, "stub.pyi": "def f(a: dict = {}, b=g()): ...\n",
                             "quiet.py": "# ruff: noqa: S307\neval('1')\nexec('1')\n",
                             "silent.py": "x = 1\n    # flake8: noqa\neval('1')\n",
                             "trailing.py": "eval('1')  # ruff: noqa\n"}, select=CODES)
    assert [c for c in codes(res) if c[0] == "typed.py"] == EXPECTED  # `builtins` is not imported: no S307
    assert [c for c in codes(res) if c[0] != "typed.py"] == [  # stubs: no B006; file-level noqa by code
        ("quiet.py", 3, "S102"), ("stub.pyi", 1, "B008"), ("trailing.py", 1, "S307")]
    e712 = next(f for f in res.findings if f.code == "E712")
    assert (e712.line, e712.col) == (13, 4)  # at the comparison, as ruff reports it


def test_rules_equal_ruff(tmp_path):
    res = analyze(tmp_path, {"typed.py": TYPED, "stub.pyi": "def f(a: dict = {}, b=g()): ...\n",
                             "quiet.py": "# ruff: noqa: S307\neval('1')\nexec('1')\n"}, select=CODES)
    out = subprocess.run([*_ruff(), "check", "--no-cache", "--isolated", "--output-format", "json", "--select",
                          ",".join(CODES), str(tmp_path)], capture_output=True, text=True)
    theirs = sorted((d["filename"], d["location"]["row"], d["location"]["column"] - 1, d["code"])
                    for d in json.loads(out.stdout))
    ours = sorted((f.path, f.line, f.col, f.code) for f in res.findings)
    assert ours == theirs
