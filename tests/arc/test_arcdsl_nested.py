"""Nested calls in a solver (`x = f(g(a))`, `return f(x)`): arc-dsl's own solvers with every variable used once
inlined into its use give, sample by sample, what their flat form gives (the flat form is the one checked
against arc-dsl itself, in test_arcdsl_oracle.py)."""
from __future__ import annotations

import ast
from collections import Counter

import pytest

from gpubatch.arc.arcdsl.interp import SampleError, run_solver
from gpubatch.arc.arcdsl.solvers import parse_solvers
from tests.arc.oracle import MISSING, SOLVERS_FILE

pytestmark = pytest.mark.skipif(not SOLVERS_FILE.is_file(), reason=MISSING)


class _Inline(ast.NodeTransformer):
    def __init__(self, values: dict):
        self.values = values

    def visit_Name(self, node):
        return self.values.pop(node.id, node) if isinstance(node.ctx, ast.Load) else node


def _nested(fn: ast.FunctionDef) -> ast.FunctionDef:
    """`fn` with each call whose variable is read once moved into that read (the return included)."""
    reads = Counter(n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load))
    values, body = {}, []
    for stmt in fn.body:
        stmt = _Inline(values).visit(stmt)
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Call) and reads[stmt.targets[0].id] == 1:
            values[stmt.targets[0].id] = stmt.value
            continue
        body.append(stmt)
    fn.body = body
    return fn


def _outputs(result):
    return ["error" if isinstance(v, SampleError) else v for v in result]


def test_nested_calls_give_what_the_flat_form_gives():
    from gpubatch.arc.tasks import load_tasks

    tree = ast.parse(SOLVERS_FILE.read_text())
    fns = [f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("solve_")]
    flat = {s.name: s for s in parse_solvers(SOLVERS_FILE.read_text())}
    nested_src = "\n\n".join(ast.unparse(_nested(f)) for f in fns)
    nested = parse_solvers(nested_src)
    calls_nested = sum(isinstance(a, ast.Call) for n in ast.walk(ast.parse(nested_src)) if isinstance(n, ast.Call)
                       for a in n.args)
    assert calls_nested > 500  # the rewrite really nests
    assert [s.unsupported for s in nested] == [flat[s.name].unsupported for s in nested]
    tasks, _ = load_tasks("arc1-train")
    by_id = {t.id: t for t in tasks}
    compared = 0
    for s in nested:
        if s.unsupported or s.task_id not in by_id:
            continue
        task = by_id[s.task_id]
        grids = [g for g, _ in task.train] + list(task.test_inputs)
        assert _outputs(run_solver(s, grids)) == _outputs(run_solver(flat[s.name], grids)), s.name
        compared += 1
    assert compared == len(flat)


def test_inner_calls_come_first_and_name_nothing_a_solver_can_read():
    (s,) = parse_solvers("def solve_x(I):\n    x1 = hconcat(hmirror(I), vmirror(rot90(I)))\n"
                         "    return hconcat(x1, x1)\n")
    assert s.unsupported is None
    names = [ln.target for ln in s.lines]
    assert names[-1] == "O." and s.result == "O."
    order = [ln.func.value for ln in s.lines]
    assert order == ["hmirror", "rot90", "vmirror", "hconcat", "hconcat"]
    assert all(not n.isidentifier() for n in names if n != "x1")
    (bad,) = parse_solvers("def solve_y(I):\n    x1 = hmirror(f(I))\n    return x1\n")
    assert "unknown name 'f'" in bad.unsupported and bad.unsupported.startswith("line 2")
