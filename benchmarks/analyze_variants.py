"""Cold `gpubatch analyze` runs of one tree under several variants, interleaved: wall time and peak memory of the
whole process tree (RSS and PSS, as `analyze_vs_ruff.py` measures them), and whether the variants' reports agree.
A variant is another checkout of the package (`--code NAME=DIR`, a folder holding `gpubatch/`: the code of an
earlier commit, from `git archive COMMIT gpubatch | tar -x -C DIR`) or this checkout with a module constant
changed (`--patch NAME='STATEMENT'`, run before the CLI, with `parse`, `parsers` and `job` imported from
gpubatch.analyze), or this checkout with more command-line arguments (`--args NAME='--duplicates'`; the reports
then differ by design). Each run's `--stats-json` gives its phases and `render_s`, the report's rendering and
writing timed inside the process (code older than those phases gives neither).

    python benchmarks/analyze_variants.py --tree /usr/lib/python3.12 --copies 44 --code old=/tmp/old \\
        --patch new=pass --patch no-rotation='parse.ROTATE = 10**9' --formats text,json --repeats 2 --json out.json
    python benchmarks/analyze_variants.py --tree /usr/lib/python3.12 --copies 44 --device cuda \\
        --args plain= --args dup=--duplicates --repeats 2
    python benchmarks/analyze_variants.py --tree /usr/lib/python3.12 --copies 44 --device cuda \\
        --code old=/tmp/old --patch new=pass --extra=--duplicates --formats json --repeats 2
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from analyze_vs_ruff import bytecode, measure  # noqa: E402
from auto_vs_devices import scratch_tree  # noqa: E402

HERE = Path(__file__).resolve().parents[1]
RUN = ("import gpubatch.analyze.parse as parse, gpubatch.analyze.parsers as parsers, gpubatch.analyze.job as job; "
       "{}; from gpubatch._entry import main; main()")


def _variants(a) -> list[tuple[str, Path, str | None, list[str]]]:
    out = [(n, Path(d).resolve(), None, []) for n, d in (s.split("=", 1) for s in a.code)]
    out += [(n, HERE, stmt, []) for n, stmt in (s.split("=", 1) for s in a.patch)]
    out += [(n, HERE, "pass", extra.split()) for n, extra in (s.split("=", 1) for s in a.args)]
    return out or [("this", HERE, "pass", [])]


def _phases(stats: Path) -> dict:
    """The run's phases and each op's seconds from its `--stats-json` (code since they were recorded), and the
    report's rendering: from "analysis done" to "report written", timed inside the process rather than as a
    difference of runs."""
    try:
        doc = json.loads(stats.read_text())
        marks = {p["phase"]: p["at_s"] for p in doc["phases"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    out = {"phases": marks, "ops_s": {o.get("op"): round(o.get("seconds", 0.0), 3) for o in doc.get("ops", [])}}
    if "analysis done" in marks and "report written" in marks:
        out["render_s"] = round(marks["report written"] - marks["analysis done"], 3)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", required=True)
    ap.add_argument("--copies", type=int, default=1)
    ap.add_argument("--code", action="append", default=[], help="NAME=DIR holding gpubatch/ (repeatable)")
    ap.add_argument("--patch", action="append", default=[], help="NAME=STATEMENT on this checkout (repeatable)")
    ap.add_argument("--args", action="append", default=[], help="NAME=ARGS: this checkout, more CLI arguments")
    ap.add_argument("--extra", default="", help="more CLI arguments for every variant (--extra=--duplicates)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--formats", default="text")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--json")
    a = ap.parse_args()
    bytecode()
    base = os.environ.get("PYTHONPATH", "")
    with scratch_tree(Path(a.tree), a.copies, "analyze-variants-") as (work, tree, files):  # cold runs only
        rows = []
        for rep in range(a.repeats):
            for name, code, stmt, extra in _variants(a):
                for fmt in a.formats.split(","):
                    # -m and -c put the working folder first on sys.path: each variant runs in its own checkout
                    os.environ["PYTHONPATH"] = f"{code}:{base}"
                    report, stats = work / f"{name}.{fmt}", work / f"{name}.{fmt}.stats.json"
                    stats.unlink(missing_ok=True)
                    args = ["analyze", str(tree), "--no-cache", "--device", a.device, "--format", fmt,
                            "-o", str(report), "--stats-json", str(stats), *a.extra.split(), *extra]
                    cmd = [sys.executable, "-m", "gpubatch", *args] if stmt is None else \
                        [sys.executable, "-c", RUN.format(stmt), *args]
                    row = {"variant": name, "format": fmt, "rep": rep, "files": files, **measure(cmd, code),
                           **_phases(stats), "report_bytes": report.stat().st_size if report.exists() else None}
                    print(json.dumps(row), flush=True)
                    rows.append(row)
        agree = {}
        for fmt in a.formats.split(","):
            texts = set()
            for name, *_ in _variants(a):
                text = (work / f"{name}.{fmt}").read_text(errors="replace")
                if fmt in ("json", "sarif"):  # what differs by design: the timings; the root (each variant's folder)
                    doc = json.loads(text)
                    doc.pop("timings", None)
                    for run in doc.get("runs", []):
                        run.pop("originalUriBaseIds", None)
                    text = json.dumps(doc, sort_keys=True)
                texts.add(text)
            agree[fmt] = len(texts) == 1
        print("reports agree:", agree)
        if a.json:
            Path(a.json).write_text(json.dumps({"rows": rows, "agree": agree}, indent=1))


if __name__ == "__main__":
    main()
