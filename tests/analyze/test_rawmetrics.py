"""Per-file line counts follow `radon raw`'s definitions: hand-checked cases, and radon itself where installed."""
import sys

import pytest

from gpubatch.analyze.rawmetrics import FIELDS, raw_metrics

# source -> (loc, lloc, sloc, comments, multi, blank, single_comments), as radon raw 6 counts them on 3.11
CASES = {
    "": (0, 0, 0, 0, 0, 0, 0),
    "\n\n   \n": (3, 0, 0, 0, 0, 3, 0),
    "# one\n# two\nx = 1  # three\n": (3, 1, 1, 3, 0, 0, 2),
    '"""Doc."""\nx = 1\n': (2, 2, 1, 0, 0, 0, 1),
    'def f():\n    """First.\n\n    More.\n    """\n    return 1\n': (6, 3, 2, 0, 3, 1, 0),
    'r"""Raw\ndoc."""\n': (2, 1, 0, 0, 2, 0, 0),
    '"""a\nb"""  # c\n': (2, 1, 2, 1, 0, 0, 0),  # a string with a comment is code, not a docstring
    "if x: y = 1\nd = {1: 2}\ns = a[1:]\nfor i in r:\n    pass\nf = lambda: 0\nz: int = 3\n": (7, 12, 7, 0, 0, 0, 0),
    "if (n := 3) > 2:\n    pass\n": (2, 2, 2, 0, 0, 0, 0),
    "a = 1; b = 2\nif x: a; b\nc = d[1:]; e\n": (3, 6, 3, 0, 0, 0, 0),
    "x = [\n    1,  # one\n\n    2,\n]\ncall(a,\n     b)\n": (7, 2, 6, 1, 0, 1, 0),
    "y = 1 + \\\n    2\n": (2, 1, 2, 0, 0, 0, 0),
    "s = '# not a comment'\nt = \"a:b\"\n": (2, 2, 2, 0, 0, 0, 0),
    "a = 1\n\x0c\nb = 2\n": (4, 2, 2, 0, 0, 2, 0),  # str.splitlines breaks at the form feed too
    "s = 'abc\\\ndef'\n": (2, 1, 2, 0, 0, 0, 0),
    "def f(\n    a: int,\n    b: str = 'x',\n) -> int:\n    return a\n": (5, 2, 5, 0, 0, 0, 0),
    "class A: pass\n": (1, 2, 1, 0, 0, 0, 0),
}


@pytest.mark.parametrize("source", list(CASES), ids=range(len(CASES)))
def test_radon_definitions(source):
    raw, _ = raw_metrics(source)
    assert tuple(raw[k] for k in FIELDS) == CASES[source]


def test_fstring_colons_follow_the_running_tokenizer():
    raw, _ = raw_metrics("v = f'{x:>3}'\n")
    assert raw["lloc"] == (2 if sys.version_info >= (3, 12) else 1)  # 3.12 reports the format-spec colon


def test_noqa_uses_parser_line_numbers_and_real_comments():
    src = "a = 1\n\x0c\nimport os  # noqa: F401\ns = '# noqa: E501'\nb = 2  # NOQA\n"
    _, noqa = raw_metrics(src)
    assert noqa == {3: ["F401"], 5: []}  # the form feed is no line break for the parser


def test_long_strings_stay_linear():
    body = "x = 1\n" * 20_000
    raw, _ = raw_metrics('"""' + body + '"""\n' + body)
    assert raw["multi"] == 20_001 and raw["sloc"] == 20_000 and raw["lloc"] == 20_001


@pytest.mark.parametrize("source", list(CASES) + ["v = f'{x:>3}'\nw = f\"{y}\"\n", "if a: b; c\n"],
                         ids=range(len(CASES) + 2))
def test_agrees_with_radon(source):
    radon_raw = pytest.importorskip("radon.raw")
    assert raw_metrics(source)[0] == radon_raw.analyze(source)._asdict()
