"""Mutation fuzz of the arc-dsl interpreter: arc-dsl's own solvers, changed in ways that keep them well typed,
run by the oracle and by ours on the same grids; every sample must agree (the same value, or both raise).

A mutant swaps a primitive for another of the same annotated signature, a constant for another of its type, or a
variable for an earlier one: solvers no one wrote, so values reach primitives in kinds and sizes the shared
solvers never make (a set of objects to `rot270`, a grid as a patch). Samples left out of the comparison, each
counted: values holding functions (compared by identity), samples that read a frozenset of functions (its order
is the functions' addresses: arc-dsl differs from itself, `docs/arcdsl.md`), our `TooLarge` bound, and mutants
the oracle takes more than a few seconds over. `python -m tests.arc.mutants --seed 1 --count 5000` runs it by
hand; `test_arcdsl_mutants.py` runs a fixed few in CI.
"""
from __future__ import annotations

import argparse
import ast
import inspect
import json
import random
import signal
import typing
from dataclasses import dataclass, field

from gpubatch.arc.arcdsl.interp import SampleError, run_solver
from gpubatch.arc.arcdsl.prims_base import CONSTANTS
from gpubatch.arc.arcdsl.solvers import parse_solvers
from tests.arc.oracle import SOLVERS_FILE, oracle


@dataclass
class Tally:
    """What a fuzz run compared and left out, and the mutants whose samples differed (their source)."""

    mutants: int = 0
    agreed: int = 0
    functions: int = 0
    function_sets: int = 0
    too_large: int = 0
    slow: int = 0
    differences: list[str] = field(default_factory=list)


_BY_TYPE: dict[type, list[str]] = {}  # the constants by type, in CONSTANTS' order (a seed gives the same mutants)
for _name, _value in CONSTANTS.items():
    _BY_TYPE.setdefault(type(_value), []).append(_name)


class _Slow(Exception):
    """The oracle took longer than the mutant's budget."""


def _alternatives(dsl) -> dict[str, list[str]]:
    """Each primitive's name -> the other primitives with the same annotated parameter and return types."""
    groups: dict[str, list[str]] = {}
    for name, fn in vars(dsl).items():
        if inspect.isfunction(fn) and fn.__module__ == dsl.__name__:
            try:
                key = repr(tuple(typing.get_type_hints(fn).values()))
            except Exception:  # noqa: BLE001 - an annotation that does not resolve: the primitive stays
                continue
            groups.setdefault(key, []).append(name)
    return {n: [m for m in names if m != n] for names in groups.values() for n in names}


def mutate(fn: ast.FunctionDef, rng: random.Random, alternatives: dict[str, list[str]]) -> ast.FunctionDef:
    """A copy of the solver with one to three names swapped for others of the same kind."""
    fn = ast.parse(ast.unparse(fn)).body[0]
    assigns = [s for s in fn.body if isinstance(s, ast.Assign)]
    for _ in range(rng.randint(1, 3)):
        k = rng.randrange(len(assigns))
        names = [n for n in ast.walk(assigns[k].value) if isinstance(n, ast.Name)]
        if not names:
            continue
        node = rng.choice(names)
        node.id = rng.choice(_swaps(node.id, alternatives, ["I"] + [a.targets[0].id for a in assigns[:k]]))
    return fn


def _swaps(name: str, alternatives: dict, earlier: list[str]) -> list[str]:
    """What a name may become: a primitive of its signature, a constant of its type, an earlier variable."""
    if alternatives.get(name):
        return alternatives[name]
    if name in CONSTANTS:
        return _BY_TYPE[type(CONSTANTS[name])]
    return earlier if name == "I" or name.startswith("x") else [name]


def holds_function(value, depth: int = 0) -> bool:
    """Whether the value is or holds a function (three levels down): such values compare by identity."""
    if callable(value):
        return True
    return isinstance(value, (tuple, frozenset)) and depth < 3 and any(
        holds_function(e, depth + 1) for e in list(value)[:64])


def _oracle_runs(fn: ast.FunctionDef, grids: list, namespace: dict, seconds: int) -> list:
    """The oracle's output per grid (or the exception it raised); _Slow past `seconds` in all."""
    def stop(*_):
        raise _Slow

    code = dict(namespace)
    exec(compile(ast.Module([fn], []), "<mutant>", "exec"), code)  # noqa: S102 - arc-dsl's own solver, mutated
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        out = []
        for g in grids:
            try:
                out.append(code[fn.name](g))
            except _Slow:
                raise
            except BaseException as exc:  # noqa: BLE001 - RecursionError and MemoryError are outcomes too
                out.append(exc)
        return out
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _reads_function_set(fn: ast.FunctionDef, grid, namespace: dict) -> bool:
    """Whether the oracle, line by line on `grid`, makes a frozenset that holds functions."""
    env = {"I": grid}
    for stmt in fn.body:
        if not isinstance(stmt, ast.Assign):
            return False
        try:
            value = env[stmt.targets[0].id] = eval(compile(ast.Expression(stmt.value), "<line>", "eval"),  # noqa: S307
                                                   namespace, env)
        except Exception:  # noqa: BLE001 - the line raised there: nothing after it runs
            return False
        if isinstance(value, frozenset) and holds_function(value):
            return True
    return False


def _agree(ours, theirs) -> bool:
    if isinstance(theirs, BaseException):
        return isinstance(ours, SampleError)
    return not isinstance(ours, SampleError) and ours == theirs and type(ours) is type(theirs) and (
        not isinstance(ours, frozenset) or list(ours) == list(theirs))


def fuzz(tasks: dict, seed: int, count: int, others: int = 2, seconds: int = 5) -> Tally:
    """`count` mutants (seeded), each on its own task's inputs and on `others` random tasks' inputs."""
    dsl, _ = oracle()
    namespace = {**vars(dsl), **CONSTANTS}
    alternatives = _alternatives(dsl)
    solvers = [f for f in ast.parse(SOLVERS_FILE.read_text()).body
               if isinstance(f, ast.FunctionDef) and f.name[len("solve_"):] in tasks]
    ids, rng, tally = sorted(tasks), random.Random(seed), Tally()
    for _ in range(count):
        fn = mutate(rng.choice(solvers), rng, alternatives)
        picked = [fn.name[len("solve_"):]] + rng.sample(ids, others)
        grids = [g for t in picked for g in [i for i, _ in tasks[t].train] + list(tasks[t].test_inputs)]
        try:
            theirs = _oracle_runs(fn, grids, namespace, seconds)
        except _Slow:
            tally.slow += 1
            continue
        tally.mutants += 1
        _compare(tally, fn, picked, grids, run_solver(parse_solvers(ast.unparse(fn))[0], grids), theirs, namespace)
    return tally


def _compare(tally: Tally, fn: ast.FunctionDef, picked: list, grids: list, ours: list, theirs: list,
             namespace: dict) -> None:
    """Each sample agreed or left out (by cause) in `tally`; the mutant kept at its first difference."""
    for k, (a, b) in enumerate(zip(ours, theirs)):
        if holds_function(b):
            tally.functions += 1
        elif isinstance(a, SampleError) and a.error.startswith("TooLarge") and not isinstance(b, BaseException):
            tally.too_large += 1
        elif _agree(a, b):
            tally.agreed += 1
        elif _reads_function_set(fn, grids[k], namespace):
            tally.function_sets += 1
        else:
            tally.differences.append(f"# tasks {picked}, sample {k}: ours {a!r:.200}, arc-dsl's {b!r:.200}\n"
                                     + ast.unparse(fn))
            return


def main() -> None:
    from gpubatch.arc.tasks import load_tasks

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()
    tasks = {t.id: t for t in load_tasks("arc1-train")[0]}
    tally = fuzz(tasks, args.seed, args.count)
    for text in tally.differences:
        print(text, end="\n\n")
    print(json.dumps({k: v for k, v in vars(tally).items() if k != "differences"}
                     | {"differences": len(tally.differences)}))


if __name__ == "__main__":
    main()
