"""Two fixed costs of a multi-GPU run (issue 18), each in fresh processes: the parent's probe of its GPUs with
a CUDA context on each against reading their properties only (`probe_cuda(contexts=...)`), and a GPU worker's
exit, from its signal to exit to its join, holding 0, 20 and 60 GB in CuPy's pool, exiting normally or by
`os._exit`. Needs CuPy and a GPU.

    python benchmarks/probe_and_exit.py --gpus 2 --json probe-and-exit.json
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import subprocess
import sys
import time
from pathlib import Path

PROBE = """
import time
t0 = time.perf_counter()
import cupy
t1 = time.perf_counter()
from gpubatch.engine.backend import probe_cuda
p = probe_cuda(limit={gpus}, contexts={contexts})
print(round(t1 - t0, 3), round(time.perf_counter() - t1, 3), len(p.gpus))
"""


def probes(gpus: int, repeats: int) -> dict[str, list[str]]:
    """'import s, probe s, GPUs found' per fresh process, with and without contexts, in turn."""
    out: dict[str, list[str]] = {}
    for _ in range(repeats):
        for contexts in (True, False):
            r = subprocess.run([sys.executable, "-c", PROBE.format(gpus=gpus, contexts=contexts)],
                               capture_output=True, text=True, check=False)
            out.setdefault(f"contexts={contexts}", []).append(r.stdout.strip() or r.stderr[-300:])
    return out


def _worker(ready, go, gb: int, fast: bool) -> None:
    import os

    import cupy

    blocks = [cupy.empty(1 << 30, dtype=cupy.uint8) for _ in range(gb)]
    for b in blocks:
        b[:1] = 1
    cupy.cuda.Device().synchronize()
    del blocks  # back to the pool, which keeps them, as after a search
    ready.put(True)
    go.get()
    if fast:
        os._exit(0)


def exits(sizes: tuple[int, ...]) -> list[dict]:
    ctx = mp.get_context("spawn")
    out = []
    for gb in sizes:
        for fast in (False, True):
            ready, go = ctx.Queue(), ctx.Queue()
            p = ctx.Process(target=_worker, args=(ready, go, gb, fast))
            p.start()
            ready.get(timeout=300)
            t0 = time.perf_counter()
            go.put(True)
            p.join()
            out.append({"gb": gb, "os._exit": fast, "exit_s": round(time.perf_counter() - t0, 3)})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpus", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    doc = {"probe (import s, probe s, gpus)": probes(args.gpus, args.repeats), "exits": exits((0, 20, 60))}
    text = json.dumps(doc, indent=1)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()
