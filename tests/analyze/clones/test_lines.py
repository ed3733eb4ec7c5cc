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


def _after_flags(src: str) -> list[tuple[int, str]]:
    """(line, "else" / "finally") of each statement the flattener marks as following such a line."""
    from gpubatch.analyze.nodes import F_AFTER_ELSE, F_AFTER_FINALLY
    from gpubatch.analyze.tensorize import FileTensors, tensorize_text

    ft = tensorize_text(FileTensors("m.py"), src)
    line, flags = ft.nodes["line"], ft.nodes["flags"]
    return [(int(ln), "else" if f & F_AFTER_ELSE else "finally") for ln, f in zip(line, flags)
            if f & (F_AFTER_ELSE | F_AFTER_FINALLY)]


def test_the_statement_after_an_else_or_finally_line_is_marked_and_an_elif_is_not():
    src = ("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    if c:\n        x = 3\n"
           "for i in y:\n    pass\nelse:\n    z = 1\n"
           "while q:\n    pass\nelse:\n    # a comment\n    z = 2\n"
           "try:\n    pass\nexcept E:\n    pass\nelse:\n    z = 3\nfinally:\n    z = 4\n")
    assert _after_flags(src) == [(6, "else"), (11, "else"), (16, "else"), (22, "else"), (24, "finally")]


ELSE_BODY = ("def {name}(self, data):\n    {pre}\n    if data:\n        self.send(data)\n    else:\n"
             "        self.close()\n    return self\n")


def test_an_else_line_counts_as_a_line_as_pylint_counts_it(tmp_path):
    # five lines to pylint (if, send, else, close, return), four with a node: under min_nodes, found by lines
    files = {"a.py": ELSE_BODY.format(name="f", pre="a = 1"), "b.py": ELSE_BODY.format(name="g", pre="b = 2")}
    res = run(tmp_path, files)
    assert [places(g) for g in res.duplicates] == [[("a.py", 3, 7), ("b.py", 3, 7)]]
    # without the else, the same four statements are a run of four lines: not more than min_lines
    plain = {k: v.replace("    else:\n        self.close()\n", "    self.close()\n") for k, v in files.items()}
    assert run(tmp_path / "plain", plain).duplicates == []


def test_an_else_block_and_code_after_the_if_are_not_the_same_code(tmp_path):
    body = "".join(f"        out.append(item.{k} * {i})\n" for i, k in enumerate("abcdefgh"))
    a = "def f(items, out):\n    for item in items:\n        if item:\n            continue\n    else:\n" + body
    b = "def f(items, out):\n    for item in items:\n        if item:\n            continue\n" + body.replace(
        "        out", "    out")
    res = run(tmp_path, {"a.py": a, "b.py": b})
    assert not [g for g in res.duplicates if g.kind_name == "exact" and places(g)[0][1] <= 2]


def test_a_run_of_lines_repeated_after_itself_pairs_sides_of_one_length(tmp_path):
    """A function written twice and three times over: where the line pass's copy of two functions after
    themselves overlaps its original, both sides lose the shared nodes alike, so the copies of one function and
    of two are two groups, each of one extent (cut on one side, it paired two functions with one and made one
    group of both)."""
    body = "def f(a, b):\n    x = a + b\n    y = x * 2\n    if y > 3:\n        return y - a\n    return x + b\n\n"
    res = run(tmp_path, {"one.py": body, "two.py": body * 2, "three.py": body * 3})
    assert sorted(places(g) for g in res.duplicates) == [
        [("one.py", 1, 6), ("three.py", 1, 6), ("three.py", 8, 13), ("three.py", 15, 20), ("two.py", 1, 6),
         ("two.py", 8, 13)],
        [("three.py", 1, 13), ("three.py", 8, 20), ("two.py", 1, 13)]]
