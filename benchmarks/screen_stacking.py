"""Screen overlay layers stacked by priority against today's overlays (`gpubatch/arc/overlays.py`), with every
built-in primitive applied once to a task's inputs as the candidate states.

Today a layer must be right on every demo cell where it is active (not 0). Stacked by priority, layers are
chosen top down and a layer needs to be right only on its active cells that no layer above it covers (as the
greedy composition of icecuber's search). Per task, bases are a grid of 0s and the 8 states with the fewest
wrong demo cells; layers are chosen greedily (most still-wrong cells covered first, up to `--layers`). Prints
how many tasks each way gets right within two distinct predictions, and the tasks only priority gets.
Choose on training tasks only.

usage: python benchmarks/screen_stacking.py RANK_VARIANTS.json [--dataset arc1-train] [--layers 4]
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from gpubatch.arc.grids import GridBatch
from gpubatch.arc.search import builtin_primitives
from gpubatch.arc.tasks import load_tasks

BASES = 8


def _states(task) -> list[list[np.ndarray]]:
    """The input and every primitive's output on all of a task's grids (demo inputs, then test inputs), distinct
    on the demos and of the demo outputs' shapes."""
    src = GridBatch.from_lists([a for a, _ in task.train] + list(task.test_inputs))
    n = len(task.train)
    shapes = [np.array(b).shape for _, b in task.train]
    out, seen = [], set()
    for grids in [src.to_arrays()] + [p(src).to_arrays() for p in builtin_primitives()]:
        if any(g is None for g in grids) or any(g.shape != s for g, s in zip(grids[:n], shapes)):
            continue
        key = b"".join(g.tobytes() for g in grids[:n])
        if key not in seen:
            seen.add(key)
            out.append(grids)
    return out


def _predictions(task, states, priority: bool, max_layers: int) -> list:
    """Distinct test predictions of the overlays that reproduce every demo output, fewest layers first."""
    n, k = len(task.train), len(task.train) + len(task.test_inputs)
    want = np.concatenate([np.array(b).ravel() for _, b in task.train])
    cells = np.stack([np.concatenate([g[i].ravel() for i in range(n)]) for g in states])
    act, right = cells != 0, cells == want
    tshape = [tuple(g[i].shape for i in range(n, k)) for g in states]
    found = []
    for b in [None] + list(np.argsort((cells != want).sum(axis=1))[:BASES]):
        rem = (np.zeros_like(want) if b is None else cells[b]) != want
        covered = np.zeros_like(rem)
        ok = np.array([b is None or s == tshape[b] for s in tshape])
        chosen: list[int] = []
        while rem.any() and len(chosen) < max_layers:
            admissible = ~(act & ~right & ~covered).any(axis=1) if priority else ~(act & ~right).any(axis=1)
            gain = np.where(ok & admissible, (act & rem).sum(axis=1), 0)
            best = int(np.argmax(gain))
            if not gain[best]:
                break
            chosen.append(best)
            rem &= ~act[best]
            covered |= act[best]
            ok &= np.array([s == tshape[best] for s in tshape])
        if rem.any() or not chosen:
            continue
        pred = []
        for i in range(n, k):
            g = states[b][i].copy() if b is not None else np.zeros_like(states[chosen[0]][i])
            for c in reversed(chosen):  # the first chosen on top
                if states[c][i].shape != g.shape:
                    break
                g[states[c][i] != 0] = states[c][i][states[c][i] != 0]
            pred.append(g.tolist())
        found.append((len(chosen), pred))
    out = []
    for _, pred in sorted(found, key=lambda f: f[0]):
        if pred not in out:
            out.append(pred)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="rank_variants.py --out JSON (its `solved` lists)")
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--layers", type=int, default=4)
    args = ap.parse_args()
    run = next(r for r in json.loads(Path(args.results).read_text())["runs"] if r["dataset"] == args.dataset)
    got: dict[str, set] = {"today": set(), "priority": set()}
    for task in load_tasks(args.dataset)[0]:
        states = _states(task) if task.test_outputs else []
        if not states:
            continue
        truth = [[list(r) for r in t] for t in task.test_outputs]
        for way, ids in got.items():
            if truth in _predictions(task, states, way == "priority", args.layers)[:2]:
                ids.add(task.id)
    extra = sorted(got["priority"] - got["today"])
    print(f"today {len(got['today'])}, priority {len(got['priority'])}; priority only: "
          + (" ".join(f"{t}{'' if t in run['solved'] else ' (unsolved now)'}" for t in extra) or "-"))


if __name__ == "__main__":
    main()
