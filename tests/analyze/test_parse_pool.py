"""The parser pool: files come back in order and equal to parsing them in this process, whatever the pool does
underneath; parsers are replaced after `ROTATE` chunks each, and a replacement pool never runs beside the one it
replaces (their memory would add up)."""
import numpy as np
import pytest

import gpubatch.analyze.parse as parse
import gpubatch.analyze.parsers as parsers

SOURCES = ["def f(x):\n    return x + 1\n", "class A:\n    def m(self):\n        pass\n", "x = [1, 2]\n",
           "def g(:\n", "import os\nprint(os.sep)\n"]


def _tree(tmp_path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        p = tmp_path / f"m{i:03}.py"
        p.write_text(f"# {i}\n" + SOURCES[i % len(SOURCES)])
        paths.append(str(p))
    return paths


def _same(a, b) -> bool:
    if (a.path, a.sha, a.error, a.blocks, a.raw, a.node_count) != (b.path, b.sha, b.error, b.blocks, b.raw,
                                                                    b.node_count):
        return False
    return not a.node_count or np.array_equal(a.wide(), b.wide())


@pytest.mark.parametrize("jobs", [2, 4])  # one group of parsers; two, replaced in turn
def test_rotated_parsers_give_every_file_in_order(tmp_path, monkeypatch, jobs):
    paths = _tree(tmp_path, 40)
    here = list(parse.parsed(paths, 1, 1_000_000, None))
    ended = []

    class Checked(parsers._Successor):
        def __init__(self, old, size, preload):
            self.procs = list(old._processes.values())
            super().__init__(old, size, preload)

        def _run(self, old, size, preload):
            old.shutdown(wait=True)
            ended.append(not any(p.is_alive() for p in self.procs))  # the old workers exited first
            super()._run(old, size, preload)

    monkeypatch.setattr(parse, "ROTATE", 2)
    monkeypatch.setattr(parsers, "_Successor", Checked)
    pooled = list(parse.parsed(paths, jobs, 1_000_000, None, chunk=3))
    assert [f.path for f in pooled] == paths
    assert all(_same(a, b) for a, b in zip(pooled, here))
    assert sum(f.error is not None for f in pooled) == 8  # the broken source, every fifth file
    assert len(ended) >= 2 and all(ended)
    if jobs == 2:
        assert len(ended) == 3  # 14 chunks, 4 a pool (2 parsers x 2)
