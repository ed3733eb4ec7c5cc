"""Study run-batt's ranking offline from the records `rank_variants.py --records` writes: per dataset, the
test outputs right in the two attempts, those right anywhere among a task's records (what a better ranking
could reach at most), the rank of the first right distinct output, and the kind of record that holds it.
`--by-support` also scores the fits re-ranked by how many fits predict the same test outputs (a tie-break
within one program length), the variant measured and not adopted in docs/benchmarks.md.

`--unseen-late` re-ranks records written before 2026-11-30 as run-batt ranks since (`ranking.attempt_order`).

usage: python benchmarks/rank_records.py RECORDS.json[.gz] [--by-support] [--list] [--unseen-late]
"""
from __future__ import annotations

import argparse
import gzip
import json
from collections import Counter


def attempt_order(recs: list[dict], i: int) -> list[dict]:
    """The first record of each distinct output for test output i, in record order, those of colours from
    nowhere after the others where the records say so (as `ranking.attempts` orders them)."""
    firsts: dict = {}  # output hash -> its first record
    for r in recs:
        h = r["outputs"][i]
        if h is not None and h not in firsts:
            firsts[h] = r
    return sorted(firsts.values(), key=lambda r: not r.get("seen", [True] * (i + 1))[i])  # stable


def attempts_right(recs: list[dict]) -> int:
    """Test outputs whose two attempts (`attempt_order`'s first two) hold the right one."""
    if not recs:
        return 0
    return sum(any(r["right"][i] for r in attempt_order(recs, i)[:2]) for i in range(len(recs[0]["outputs"])))


def first_right(recs: list[dict], i: int) -> tuple[int, str] | None:
    """(rank in `attempt_order`, record kind) of the first right output for test output i, or None."""
    for k, r in enumerate(attempt_order(recs, i), 1):
        if r["right"][i]:
            return k, r["kind"]
    return None


def by_support(recs: list[dict]) -> list[dict]:
    """The fits of one length ordered by how many fits predict the same test outputs; other records stay."""
    support = Counter(tuple(r["outputs"]) for r in recs if r["kind"] == "fit")
    pos = {id(r): k for k, r in enumerate(recs)}
    fits = iter(sorted((r for r in recs if r["kind"] == "fit"),
                       key=lambda r: (r["length"], -support[tuple(r["outputs"])], pos[id(r)])))
    return [next(fits) if r["kind"] == "fit" else r for r in recs]


def unseen_late(recs: list[dict]) -> list[dict]:
    """Records written before 2026-11-30 in run-batt's ranking since: the fits with unseen test cells after the
    overlays, before the partial fits (records of that code are in this order already)."""
    def tier(r: dict) -> int:
        if r["kind"] == "fit" and r["unseen"]:
            return 1
        return 0 if r["kind"] in ("fit", "lookup", "overlay") else 2
    return sorted(recs, key=tier)  # stable: the order within each tier stays


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records")
    ap.add_argument("--by-support", action="store_true")
    ap.add_argument("--list", action="store_true", help="list the outputs right only below the two attempts")
    ap.add_argument("--unseen-late", action="store_true", help="re-rank older records as run-batt does since")
    a = ap.parse_args()
    opener = gzip.open if a.records.endswith(".gz") else open
    with opener(a.records, "rt") as f:
        data = json.load(f)
    for dataset, tasks in data.items():
        if a.unseen_late:
            tasks = {tid: unseen_late(recs) for tid, recs in tasks.items()}
        right = sum(attempts_right(recs) for recs in tasks.values())
        ranks, kinds, below = Counter(), Counter(), []
        for tid, recs in tasks.items():
            for i in range(len(recs[0]["outputs"]) if recs else 0):
                hit = first_right(recs, i)
                if hit:
                    ranks[min(hit[0], 10)] += 1
                    kinds[hit[1]] += 1
                    if hit[0] > 2:
                        below.append(f"{tid}[{i}] at {hit[0]}")
        line = {"dataset": dataset, "right": right, "anywhere": sum(ranks.values()),
                "rank (10: 10 or more)": dict(sorted(ranks.items())), "kind": dict(kinds)}
        if a.by_support:
            line["by_support"] = sum(attempts_right(by_support(recs)) for recs in tasks.values())
        print(json.dumps(line))
        if a.list and below:
            print("  below the attempts: " + ", ".join(below))


if __name__ == "__main__":
    main()
