"""`--device auto` against `cpu` and `cuda` on the same work: analyze (a tree cold and warm) and run-batt
(tasks x depth), whole commands timed wall-clock, each device's per-op stats kept. Target (issue 20): auto never
more than 5% slower than the faster of the two.

    python benchmarks/auto_vs_devices.py --tree /usr/lib/python3.12 --copies 12 --batt 10:1,50:2,400:3 \
        --json out/auto.json

`--copies N` analyses a tree made of N copies of `--tree`, each file given a distinct first line (so no two
files share content and the cache serves nothing across copies), as a stand-in for a large monorepo.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

DEVICES = ("cpu", "cuda", "auto")


def make_tree(src: Path, copies: int, dest: Path) -> int:
    """`copies` copies of the .py files of `src` under `dest`, each file's content made unique; the file count."""
    n = 0
    for c in range(copies):
        for path in src.rglob("*.py"):
            if "site-packages" in path.parts or "dist-packages" in path.parts:
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            out = dest / f"copy{c}" / path.relative_to(src)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(f"# copy {c}\n".encode() + data)
            n += 1
    return n


@contextmanager
def scratch_tree(src: Path, copies: int, prefix: str) -> Iterator[tuple[Path, Path, int]]:
    """A scratch folder holding `make_tree`'s copies of `src` under `tree/`: (folder, tree, file count); the
    folder is removed on the way out."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        tree = work / "tree"
        yield work, tree, make_tree(src, copies, tree)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def timed(cmd: list[str], stats: Path) -> dict:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd + ["--stats-json", str(stats)], capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    out = {"seconds": round(seconds, 3), "exit": proc.returncode}
    if proc.returncode not in (0, 1):
        out["stderr"] = proc.stderr[-2000:]
    try:
        out["stats"] = json.loads(stats.read_text())
    except (OSError, ValueError):
        pass
    return out


def gpubatch(*args: str) -> list[str]:
    return [sys.executable, "-m", "gpubatch", *args, "--no-progress", "-q"]


def analyze_runs(tree: Path, label: str, work: Path, repeats: int, devices=DEVICES, phases=("cold", "warm")
                 ) -> list[dict]:
    rows = []
    for device in devices:
        cache = work / f"cache-{label}-{device}"
        shutil.rmtree(cache, ignore_errors=True)
        env_cfg = work / f"cfg-{device}.toml"
        env_cfg.write_text(f'[analyze]\ncache_dir = "{cache}"\n')
        for phase in phases:
            best = None
            for r in range(repeats if phase == "warm" else 1):
                res = timed(gpubatch("analyze", str(tree), "--device", device, "--config", str(env_cfg),
                                     "--format", "json", "-o", str(work / "report.json")), work / "stats.json")
                if best is None or res["seconds"] < best["seconds"]:
                    best = res
            rows.append({"job": "analyze", "what": f"{label} {phase}", "device": device, **best})
            print(f"analyze {label} {phase} {device}: {best['seconds']:.2f} s", flush=True)
            save(rows)
    return rows


def batt_runs(spec: str, dataset: str, work: Path, cpu_limit: float, devices=DEVICES) -> list[dict]:
    rows = []
    for item in spec.split(","):
        tasks, depth = item.split(":")
        for device in devices:
            if device == "cpu" and float(tasks) * 4 ** int(depth) > cpu_limit:
                rows.append({"job": "run-batt", "what": f"{tasks} tasks depth {depth}", "device": device,
                             "seconds": None, "note": "not run: hours on a CPU"})
                continue
            res = timed(gpubatch("run-batt", "--dataset", dataset, "--tasks", tasks, "--depth", depth,
                                 "--device", device, "--results", str(work / f"batt-{device}.json")),
                        work / "stats.json")
            rows.append({"job": "run-batt", "what": f"{tasks} tasks depth {depth}", "device": device, **res})
            st = res.get("stats", {})
            search = [(o["device"], round(o["seconds"], 2)) for o in st.get("ops", []) if o["op"] == "search"]
            print(f"run-batt {tasks} d{depth} {device}: {res['seconds']:.2f} s (search {search}, GPU start-up "
                  f"{st.get('gpu_startup_s', 0):.2f} s)", flush=True)
            save(rows)
    return rows


SAVE: list[Path] = []


def save(rows: list[dict]) -> None:
    """Write what was measured so far (a run cut short by its time limit keeps its rows)."""
    if SAVE:
        SAVE[0].parent.mkdir(parents=True, exist_ok=True)
        SAVE[0].write_text(json.dumps({"host": os.uname().nodename, "date": time.strftime("%Y-%m-%d"),
                                       "runs": rows}, indent=1))


def prewarm(args, work: Path) -> None:
    """One untimed run of each job on the GPU first: CuPy compiles a kernel once per machine (its on-disk
    cache), 13 s for analyze's on a fresh H200; every timed run then finds them compiled, as a user's would."""
    if args.tree:
        subprocess.run(gpubatch("analyze", str(args.tree), "--device", "cuda", "--no-cache", "-o",
                                str(work / "r.json")), capture_output=True)
    if args.batt:
        subprocess.run(gpubatch("run-batt", "--dataset", args.dataset, "--tasks", "3", "--depth", "2",
                                "--device", "cuda"), capture_output=True)


def verdicts(rows: list[dict]) -> list[dict]:
    """Per workload: auto's seconds against the faster of cpu and cuda."""
    out = []
    for what in dict.fromkeys((r["job"], r["what"]) for r in rows):
        by: dict = {}
        for r in rows:  # the best of each device's runs (the GPU box's timings vary run to run)
            if (r["job"], r["what"]) == what and r["seconds"] is not None:
                by[r["device"]] = min(by.get(r["device"], r["seconds"]), r["seconds"])
        if not any(d != "auto" for d in by):
            continue
        best = min(v for d, v in by.items() if d != "auto")
        auto = by.get("auto")
        out.append({"job": what[0], "what": what[1], **{d: by.get(d) for d in DEVICES}, "best": best,
                    "auto_vs_best": None if auto is None else round(auto / best - 1, 4)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", type=Path, help="Python tree for analyze (e.g. the stdlib)")
    ap.add_argument("--copies", type=int, default=0, help="analyse N unique copies of --tree instead")
    ap.add_argument("--batt", default="", help="run-batt workloads TASKS:DEPTH,...")
    ap.add_argument("--dataset", default="arc1-train")
    ap.add_argument("--repeats", type=int, default=2, help="warm runs per device (best kept)")
    ap.add_argument("--cpu-limit", type=float, default=800, help="skip CPU run-batt when tasks x 4^depth exceeds")
    ap.add_argument("--devices", default=",".join(DEVICES), help="devices, in order (repeat one to re-run it)")
    ap.add_argument("--phases", default="cold,warm", help="analyze: cold (fresh cache) and/or warm")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="gpubatch-auto-"))
    SAVE.append(args.json)
    rows: list[dict] = []
    try:
        prewarm(args, work)
        if args.tree:
            devices, phases = args.devices.split(","), args.phases.split(",")
            if not args.copies:
                rows += analyze_runs(args.tree, "tree", work, args.repeats, devices, phases)
            else:
                n = make_tree(args.tree, args.copies, work / "big")
                rows += analyze_runs(work / "big", f"{n}-file tree", work, args.repeats, devices, phases)
        if args.batt:
            rows += batt_runs(args.batt, args.dataset, work, args.cpu_limit, args.devices.split(","))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    table = verdicts(rows)
    for v in table:
        print(json.dumps(v))
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"host": os.uname().nodename, "date": time.strftime("%Y-%m-%d"),
                                     "verdicts": table, "runs": rows}, indent=1))


if __name__ == "__main__":
    main()
