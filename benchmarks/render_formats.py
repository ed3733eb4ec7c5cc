"""How long each report format takes to render, apart from the analysis: one cold analysis of a tree in this
process (all cores), then every format rendered from the same result, best of `--repeats`, with the share of
the analysis it adds; for the formats that fingerprint findings, the fingerprints alone too. `--profile FMT`
prints where one format's rendering goes. The figure for the target (rendering at most 10% of a cold run) is
`analyze_variants.py`'s `render_s`, timed inside whole CLI runs; this one says what to shorten. `--serial`
renders each format a second time with no forked workers (`engine.forkjoin`), timed, and checks the same text.

    python benchmarks/render_formats.py --tree /usr/lib/python3.12 --copies 44 --json out.json
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from auto_vs_devices import scratch_tree  # noqa: E402

from gpubatch.analyze.batched import Thresholds  # noqa: E402
from gpubatch.analyze.discover import discover  # noqa: E402
from gpubatch.analyze.job import Policy, run_analyze  # noqa: E402
from gpubatch.analyze.report import CHUNKS, columns, fingerprint  # noqa: E402
from gpubatch.engine import BatchExecutor, EngineSettings, forkjoin  # noqa: E402


def _cold() -> None:
    """Forget what an earlier rendering read or worked out (as a new process would): every memo of the
    formats' modules (older code has other ones)."""
    for module in (columns, fingerprint, *(sys.modules[fn.__module__] for fn in CHUNKS.values())):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def render(fmt: str, result, out: Path) -> float:
    _cold()
    t0 = time.perf_counter()
    with open(out, "w", encoding="utf-8") as fh:
        for piece in CHUNKS[fmt](result):
            fh.write(piece)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--formats", default=",".join(CHUNKS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", default="", help="a format whose rendering is profiled once")
    ap.add_argument("--serial", action="store_true", help="also render each format with no forked workers")
    ap.add_argument("--json")
    a = ap.parse_args()
    with scratch_tree(Path(a.tree), a.copies, "render-formats-") as (work, tree, files):
        t0 = time.perf_counter()
        with BatchExecutor(EngineSettings(device="cpu")) as ex:
            result = run_analyze(discover([tree]), ex, Policy(Thresholds()), jobs=os.cpu_count() or 1)
        analysis = time.perf_counter() - t0
        findings = result.findings
        row = {"files": files, "findings": len(findings), "files_with_findings": len({f.path for f in findings}),
               "analysis_s": round(analysis, 3), "formats": {}}
        print(json.dumps(row), flush=True)
        for fmt in a.formats.split(","):
            best = min(render(fmt, result, work / f"out.{fmt}") for _ in range(a.repeats))
            row["formats"][fmt] = {"render_s": round(best, 3), "of_analysis": round(best / analysis, 4)}
            if a.serial:
                forked = (work / f"out.{fmt}").read_bytes()
                usable = forkjoin.usable_workers
                forkjoin.usable_workers = lambda *args: 0
                try:
                    alone = min(render(fmt, result, work / f"out.{fmt}") for _ in range(a.repeats))
                finally:
                    forkjoin.usable_workers = usable
                row["formats"][fmt] |= {"serial_s": round(alone, 3),
                                        "same_text": (work / f"out.{fmt}").read_bytes() == forked}
            print(fmt, row["formats"][fmt], flush=True)
        hashes = []
        for _ in range(a.repeats):
            _cold()
            t0 = time.perf_counter()
            fingerprint.line_hashes(findings)
            hashes.append(time.perf_counter() - t0)
        row["line_hashes_s"] = round(min(hashes), 3)
        print("line_hashes", row["line_hashes_s"], flush=True)
        if a.profile:
            _cold()
            prof = cProfile.Profile()
            prof.runcall(render, a.profile, result, work / "out.profiled")
            text = io.StringIO()
            pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
            print(text.getvalue())
        if a.json:
            Path(a.json).write_text(json.dumps(row, indent=1))


if __name__ == "__main__":
    main()
