"""Long-mode fuzzing (`make fuzz`, `python -m tests.reliability.fuzz --minutes 30`): the four generators of
`gen` through the oracles of `checks`, round after round, with hypothesis choosing the inputs, and a fault case
(a signal at a random moment) every few rounds; prints and writes the counts.

Exit 0 when no oracle failed; 1 with the failures listed (each names the folder kept for it).
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis.errors import HypothesisException

from . import checks, gen



def _round(name: str, strategy, check, root: Path, examples: int, counts: dict, failures: list) -> None:
    """`examples` inputs of one generator through its check (hypothesis shrinks a failing one)."""
    seq = iter(range(10**9))

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              derandomize=False, print_blob=True)
    @given(value=strategy)
    def run(value):
        folder = checks.fresh(root / name, next(seq))
        counts[name] += check(folder, value)
        counts["runs"] += 1
        shutil.rmtree(folder, ignore_errors=True)

    try:
        run()
    except (checks.Failure, AssertionError, HypothesisException, Exception) as exc:  # noqa: BLE001 - report all
        failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:2000]}")
        counts["failures"] += 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--minutes", type=float, default=1.0)
    ap.add_argument("--examples", type=int, default=60, help="inputs per generator per round")
    ap.add_argument("--report", type=Path, default=None, help="write the counts as JSON here")
    ap.add_argument("--keep", type=Path, default=None, help="work folder (default: a temporary one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="comma-separated generators (default: all)")
    args = ap.parse_args(argv)
    from gpubatch.cli import common

    common.HARD_EXIT = False  # an in-process run must never end the fuzzer
    root = args.keep or Path(tempfile.mkdtemp(prefix="gpubatch-fuzz-"))
    counts = {"python_files": 0, "config_files": 0, "arc_task_files": 0, "kaggle_pairs": 0, "signal_faults": 0,
              "runs": 0, "failures": 0}
    failures: list[str] = []
    plan = [("python_files", gen.source_trees, lambda f, v: checks.check_analyze(f, v, seed=len(v))),
            ("config_files", gen.config_doc(), checks.check_config),
            ("arc_task_files", gen.arc_folder(), checks.check_arc),
            ("kaggle_pairs", gen.kaggle_pair(), checks.check_kaggle)]
    if args.only:
        plan = [p for p in plan if p[0] in args.only.split(",")]
    rng = random.Random(args.seed)
    t0 = time.monotonic()
    end = t0 + args.minutes * 60
    rounds = 0
    while time.monotonic() < end:
        for name, strategy, check in plan:
            _round(name, strategy, check, root, args.examples, counts, failures)
            if time.monotonic() >= end:
                break
        rounds += 1
        if rounds % 3 == 0 and time.monotonic() < end:
            from .test_fuzz import _signal_case

            folder = checks.fresh(root / "signals", rounds)
            try:
                _signal_case(folder, rng)
                counts["signal_faults"] += 1
                shutil.rmtree(folder, ignore_errors=True)
            except Exception as exc:  # noqa: BLE001
                failures.append(f"signal: {type(exc).__name__}: {exc}")
                counts["failures"] += 1
        print(f"[{time.monotonic() - t0:7.0f} s] " + ", ".join(f"{k} {v:,}" for k, v in counts.items()), flush=True)
    generated = sum(counts[k] for k in ("python_files", "config_files", "arc_task_files", "kaggle_pairs"))
    report = {**counts, "generated_inputs": generated, "seconds": round(time.monotonic() - t0, 1),
              "failure_messages": failures}
    print(json.dumps({k: v for k, v in report.items() if k != "failure_messages"}))
    for line in failures:
        print("FAILED", line, file=sys.stderr)
    if args.report:
        args.report.write_text(json.dumps(report, indent=1) + "\n")
    if not failures and args.keep is None:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
