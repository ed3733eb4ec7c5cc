"""The line pass of `analyze --duplicates` (`clones/lines.py`): pylint's duplicate-code rule, more than `min_lines`
equal code lines, however few syntax nodes they hold; and the text blocks it compares line by line."""
import numpy as np

from gpubatch.analyze.clones.features import TEXT_WEIGHT
from gpubatch.analyze.clones.lines import _BLANK_KEYS, code_lines

from .test_duplicates import places, run

KWARGS = "    return make(\n" + "".join(f"        {k}={k},\n" for k in ("alpha", "beta", "gamma", "delta", "eps")) \
    + "    )\n"  # five lines of two nodes each: under min_nodes, as pylint's R0801 still reports it


def test_more_than_min_lines_of_few_nodes_are_a_copy_as_pylint_reports_them(tmp_path):
    files = {"a.py": "def f():\n    a = 1\n" + KWARGS, "b.py": "x = 1\n\n\ndef g():\n    b = 2\n" + KWARGS}
    res = run(tmp_path, files)  # six code lines, 13 nodes
    assert [(g.kind_name, places(g)) for g in res.duplicates] == [("exact", [("a.py", 3, 9), ("b.py", 6, 12)])]
    assert run(tmp_path / "off", files, lines=False).duplicates == []


def test_min_lines_equal_lines_are_not_enough(tmp_path):
    four = KWARGS.replace("        delta=delta,\n        eps=eps,\n", "")  # pylint: more than min-similarity-lines
    files = {"a.py": "def f():\n    a = 1\n" + four, "b.py": "def g():\n    b = 2\n" + four}
    assert run(tmp_path, files).duplicates == []
    assert [places(g) for g in run(tmp_path / "three", files, min_lines=3).duplicates] == [[("a.py", 3, 7),
                                                                                            ("b.py", 3, 7)]]


def test_a_def_line_reads_def_so_a_stretch_runs_across_other_signatures(tmp_path):
    # ignore_signatures: a def line is "def" whatever its name, parameters or async; the run goes on through it
    a = "def one(a):\n    x = a\n    y = x\n    return y\n\n\ndef two(b, c=1):\n    z = 2\n    return z\n"
    b = "def uno(q, r):\n    x = a\n    y = x\n    return y\n\n\nasync def dos():\n    z = 2\n    return z\n"
    res = run(tmp_path, {"a.py": a, "b.py": b})
    assert [places(g) for g in res.duplicates] == [[("a.py", 1, 9), ("b.py", 1, 9)]]


def test_a_blank_line_in_a_text_block_is_no_line_and_bytes_are_text(tmp_path):
    rows = [f"row {k} of the table" for k in range(6)]
    a = 'T = b"""\n' + "\n".join(rows) + '\n"""\n'
    b = 'U = 1\nS = b"""\n' + "\n".join(rows[:3] + ["", "   "] + rows[3:]) + '\n"""\n'
    res = run(tmp_path, {"a.py": a, "b.py": b})
    assert [(g.kind_name, places(g)) for g in res.duplicates] == [("exact", [("a.py", 2, 8), ("b.py", 3, 11)])]


def test_a_copy_ending_in_a_string_holds_the_closing_bracket_after_it(tmp_path):
    call = "    check(\n        result,\n        'first part '\n        'second part '\n        'third part',\n    )\n"
    res = run(tmp_path, {"a.py": "def f(result):\n" + call, "b.py": "def g(result):\n    pass\n" + call})
    assert [places(g) for g in res.duplicates] == [[("a.py", 2, 7), ("b.py", 3, 8)]]


def test_code_lines_key_each_source_line_and_leave_out_blank_text():
    exact = np.asarray([5, 6, 7, 5, 6, 7, _BLANK_KEYS[0], 9, 5, 6], np.uint64)
    line = np.asarray([2, 2, 3, 4, 4, 5, 6, 6, 7, 7], np.int32)
    fo = np.asarray([0] * 8 + [1] * 2)
    key, n0, n1, lf = code_lines(np, exact, line, fo)
    assert n0.tolist() == [0, 2, 3, 5, 7, 8] and n1.tolist() == [2, 3, 5, 6, 8, 10] and lf.tolist() == [0] * 5 + [1]
    assert key[0] == key[2] == key[5] and key[1] == key[3] and len(set(key.tolist())) == 3
    assert len(_BLANK_KEYS) == TEXT_WEIGHT
