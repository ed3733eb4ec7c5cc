"""Score run-batt's attempts under several rankings of the same search: one search per dataset, then each
ranking picks the two attempts per test output from the same fits and partial fits. Rankings are chosen on
training tasks; evaluation is run to report.

usage: python benchmarks/rank_variants.py [--datasets arc1-train,arc1-eval] [--depth 3] [--tasks N]
                                          [--overlays N] [--device cpu|cuda] [--out F.json]
                                          [--records F.json]
`--records` writes every task's records in `default`'s order (kind, program, length, votes, learned step,
unseen cells, demos matched, whether the copy's, whether of the predicted sizes, and per test output a hash
of the grid, whether its colours are seen (`ranking.seen_colours`), and whether it is right):
rankings can then be studied on the CPU without searching again.
Rankings: `default` (run-batt's: the task's and its colour-normalised copy's fits together, those whose
test outputs all have the predicted sizes first, then by `ranking.rank_key`, lookups before the fits of 3 steps or
more (`ranking.LONG_FIT`); then overlays, partial fits and guesses, each kind followed by the copy's); the
variants that list kinds keep lookups after every fit: `no-overlays` (fits, lookups, partial fits, guesses);
`overlays-last` (fits, lookups, partial fits, guesses, overlays); `no-partials` (fits, lookups, overlays,
guesses); `no-guesses` (no partial rule fit's majority guess, `rule(f=size_major)`); `no-lookups`;
`lookups-first` (before the fits); `lookups-last` (after everything); `lookups-after-fits` (after every fit,
run-batt's ranking before `ranking.LONG_FIT`); `lookups-before-2` (before the fits of 2 steps and more, not 3);
`paint-before-3` (only the painted ones before the fits of 3 steps); `partials-half-step` and
`partials-one-step` (a partial rule fit ranked with the complete fits as half a step or one step longer, not
after them); `unseen-early` (the rule fits with unseen test cells among the other fits, before the lookups and
overlays: run-batt's ranking before 2026-11-30);
`colours-any` (`default`'s records, but an output of a colour from nowhere, in no demo output's added
colours and not in its test input, not put after the others); `size-any` (fits by `ranking.rank_key` alone,
whatever the sizes of their test outputs);
`no-norm` (the task's own records only, not its colour-normalised copy's); `norm-last` (all of the copy's
after all of the task's own); `fits-apart` (the copy's fits after the task's); `copy-by-votes` (the copy's
fits and the task's of one length by votes, not the task's first).
"""
from __future__ import annotations

import argparse
import json
import time
import zlib
from datetime import date
from pathlib import Path

from gpubatch.arc import batt, ranking
from gpubatch.arc.learned import LAST
from gpubatch.arc.search import SearchConfig
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine.backend import cupy_backend, numpy_backend


def _own(st) -> list:
    """The task's own records, without its colour-normalised copy's."""
    return [r for kind in ranking.record_kinds(st) for r in kind]


def _fits_apart(st) -> list:
    """The copy's fits after all of the task's own fits, then the rest as in `default`."""
    own, copy = ranking.by_kind(st)
    return own[0] + copy[0] + [r for a, b in zip(own[1:], copy[1:]) for r in a + b]


def _copy_by_votes(st) -> list:
    """As `default`, but a copy's fit and the task's own of the same length ranked by votes alone."""
    fits, *rest = ranking.merged_kinds(st)
    return sorted(fits, key=lambda f: ranking.rank_key(f)[:4] + ranking.rank_key(f)[5:]) + [r for k in rest for r in k]


def _kinds_in(*which: int):
    """A ranking of `default`'s kinds (0 fits, 1 lookups, 2 overlays, 3 partial fits, 4 guesses) in this
    order, the others left out."""
    def rank(st) -> list:
        kinds = ranking.merged_kinds(st)
        return [r for k in which for r in kinds[k]]
    return rank


def _paint_before_3(st) -> list:
    """`default`, but only the painted lookups before the fits of 3 steps or more, the others after every fit."""
    fits, lookups, *rest = ranking.merged_kinds(st)
    painted = [f for f in lookups if f.text.endswith(", paint)")]
    return ranking.attempt_order((fits, painted, [f for f in lookups if f not in painted], *rest), 3)


def _partials_by_length(step: float):
    """`default`, but a partial rule fit (unseen test cells kept) ranked with the complete fits as one of
    `step` more steps, not after every complete fit (exact or up to a map of the same group)."""
    def key(f) -> tuple:
        k = ranking.rank_key(f)
        group = 1 if f.cmap is not None or f.rule in LAST else 0
        return (group, f.length + (step if f.unseen else 0), f.unseen) + k[3:]

    def rank(st) -> list:
        fits, *rest = ranking.merged_kinds(st)
        fits = sorted(fits, key=lambda f: (not ranking.sized(f, st.sizes), key(f)))
        return ranking.attempt_order((fits, *rest), unseen_late=False)
    return rank


def _size_any(st) -> list:
    fits, *rest = ranking.merged_kinds(st)
    return sorted(fits, key=ranking.rank_key) + [r for k in rest for r in k]


RANKINGS = {
    "default": ranking.ranked_records,
    "no-norm": _own,
    "norm-last": lambda st: _own(st) + ranking.normalised_records(st),
    "fits-apart": _fits_apart,
    "copy-by-votes": _copy_by_votes,
    "no-overlays": _kinds_in(0, 1, 3, 4),
    "overlays-last": _kinds_in(0, 1, 3, 4, 2),
    "no-partials": _kinds_in(0, 1, 2, 4),
    "no-guesses": _kinds_in(0, 1, 2, 3),
    "no-lookups": _kinds_in(0, 2, 3, 4),
    "lookups-first": _kinds_in(1, 0, 2, 3, 4),
    "lookups-last": _kinds_in(0, 2, 3, 4, 1),
    "size-any": _size_any,
    "lookups-before-2": lambda st: ranking.attempt_order(ranking.merged_kinds(st), 2),
    "lookups-after-fits": _kinds_in(0, 1, 2, 3, 4),
    "paint-before-3": _paint_before_3,
    "partials-half-step": _partials_by_length(0.5),
    "partials-one-step": _partials_by_length(1),
    "unseen-early": lambda st: ranking.attempt_order(ranking.merged_kinds(st), unseen_late=False),
    "colours-any": ranking.ranked_records,  # `default`'s order, outputs of colours from nowhere not put last
}


KINDS = ("fit", "lookup", "overlay", "partial", "guess")


def task_records(st, gs) -> list[dict]:
    """`default`'s records of one task, with what a ranking may read and whether each test output is right."""
    kinds = ranking.merged_kinds(st)
    kind_of = {id(r): k for k, recs in zip(KINDS, kinds) for r in recs}
    want = [[list(r) for r in g] for g in st.task.test_outputs or ()]
    seen = [ranking.seen_colours(st.task, i) for i in range(len(st.task.test_inputs))]
    out = []
    for r in ranking.attempt_order(kinds):
        fit = batt._fit(r, gs)
        out.append({"kind": kind_of[id(r)], "program": fit.program, "length": r.length, "votes": r.votes,
                    "level": r.level, "rule": r.rule, "cmap": r.cmap is not None, "unseen": r.unseen,
                    "matched": r.matched, "normalised": r.normalised, "sized": ranking.sized(r, st.sizes),
                    "outputs": [None if g is None else zlib.crc32(str(g).encode()) for g in r.outputs],
                    "seen": [g is not None and ranking.colours_seen(g, seen[i])
                             for i, g in enumerate(r.outputs) if i < len(seen)],
                    "right": [g is not None and i < len(want) and g == want[i] for i, g in enumerate(r.outputs)]})
    return out


def measure(dataset: str, backend, cfg: SearchConfig, n: int, records: dict | None = None) -> dict:
    tasks = load_tasks(dataset)[0]
    tasks = tasks[:n] if n else tasks
    states = []
    real = batt._result
    spent = [0.0]  # seconds writing records, left out of the search's time

    def keep(st, gs, *args):  # the search's task states, for re-ranking after the run
        states.append(st)
        if records is not None:
            t = time.perf_counter()
            records[st.task.id] = task_records(st, gs)
            spent[0] += time.perf_counter() - t
        return real(st, gs, *args)

    batt._result = keep
    try:
        t0 = time.perf_counter()
        results = batt.search_shard(tasks, backend, cfg)
        seconds = time.perf_counter() - t0 - spent[0]
    finally:
        batt._result = real
    evals = sum(r.evaluations for r in results)
    out = {"dataset": dataset, "tasks": len(tasks), "seconds": round(seconds, 2), "records_s": round(spent[0], 2),
           "evaluations": evals,
           "evals_per_s": round(evals / seconds),
           "test_outputs": sum(len(st.task.test_outputs or ()) for st in states)}
    solved = {}
    for name, rank in RANKINGS.items():
        right = 0
        for st in states:
            _, correct = ranking.attempts(st.task, [f.outputs for f in rank(st)], name != "colours-any")
            right += sum(correct or ())
            solved.setdefault(name, {})[st.task.id] = sum(correct or ())
        out[name] = right
    out["solved"] = {t: n for t, n in solved["default"].items() if n}  # test outputs right, by task
    out["overlay_tasks"] = sum(bool(st.overlays) for st in states)
    out["overlay_only_tasks"] = sum(bool(st.overlays) and not st.fits for st in states)
    for name in RANKINGS:  # which tasks each ranking wins or loses against the default
        if name != "default":
            out[f"{name}_vs_default"] = {t: solved[name][t] - n for t, n in solved["default"].items()
                                         if solved[name][t] != n}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--datasets", default="arc1-train,arc1-eval")
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=0)
    ap.add_argument("--max-states", type=int, default=2_000_000)
    ap.add_argument("--deep-states", type=int, default=SearchConfig.deep_states,
                    help="states explored per task at each level past the third")
    ap.add_argument("--overlays", type=int, default=SearchConfig.overlays, help="bases and layers kept per kind")
    ap.add_argument("--colour-norm", type=int, default=1, help="1: search colour-normalised copies too")
    ap.add_argument("--norm-shallower", type=int, default=SearchConfig.norm_shallower,
                    help="levels fewer than --depth that the copies are searched to")
    ap.add_argument("--device", default="cuda", choices=("cpu", "cuda"))
    ap.add_argument("--out")
    ap.add_argument("--records", help="write every task's records here (JSON, by dataset and task)")
    a = ap.parse_args()
    backend = cupy_backend(0) if a.device == "cuda" else numpy_backend()
    cfg = SearchConfig(depth=a.depth, max_states=a.max_states, deep_states=a.deep_states, overlays=a.overlays,
                       colour_norm=bool(a.colour_norm), norm_shallower=a.norm_shallower)
    if a.device == "cuda":
        batt._warm_search(backend, cfg)
    doc = {"date": date.today().isoformat(), "device": a.device, "depth": a.depth, "deep_states": a.deep_states,
           "overlays": a.overlays,
           "colour_norm": a.colour_norm, "norm_shallower": a.norm_shallower,
           "runs": []}
    records: dict = {}
    for d in a.datasets.split(","):
        doc["runs"].append(measure(d, backend, cfg, a.tasks, records.setdefault(d, {}) if a.records else None))
    for run in doc["runs"]:
        print(json.dumps(run))
    if a.out:
        Path(a.out).write_text(json.dumps(doc, indent=1) + "\n")
    if a.records:
        Path(a.records).write_text(json.dumps(records) + "\n")


if __name__ == "__main__":
    main()
