"""Time the depth-3 search of run-batt phase by phase on one GPU (each phase synchronised at both ends), or
profile it with cProfile: where the search spends its time, beyond the per-primitive stats of --stats-json.

usage (on the GPU box, package on PYTHONPATH): python benchmarks/search_phases.py [N_TASKS] [phases|profile]
Runs a small warm-up search first, so that kernel compilation stays out of the figures.
"""
import cProfile
import functools
import pstats
import sys
import time

import cupy

from gpubatch.arc.batt import search_shard
from gpubatch.arc.search import GroupSearch, SearchConfig
from gpubatch.arc.tasks import load_tasks
from gpubatch.engine.backend import cupy_backend

PHASES = ("check_level0", "expand", "materialize", "_record", "_next_level", "check_rules")


def _timed(name: str, totals: dict) -> None:
    """Wrap GroupSearch.<name> so that its outermost calls add their synchronised wall time to totals."""
    fn, busy = getattr(GroupSearch, name), [False]

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if busy[0]:
            return fn(*args, **kwargs)
        busy[0] = True
        cupy.cuda.Device().synchronize()
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            cupy.cuda.Device().synchronize()
            totals[name] = totals.get(name, 0.0) + time.perf_counter() - start
            busy[0] = False
    setattr(GroupSearch, name, wrapper)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    mode = sys.argv[2] if len(sys.argv) > 2 else "phases"
    tasks = load_tasks("arc1-eval")[0][:n]
    backend, cfg = cupy_backend(0), SearchConfig(depth=3, max_states=2_000_000)
    search_shard(tasks[:8], backend, cfg)  # warm-up: compile or load the kernels
    cupy.cuda.Device().synchronize()
    totals: dict = {}
    profile = cProfile.Profile() if mode == "profile" else None
    if profile is None:
        for name in PHASES:
            _timed(name, totals)
    start = time.perf_counter()
    if profile is not None:
        profile.enable()
    search_shard(tasks, backend, cfg)
    cupy.cuda.Device().synchronize()
    if profile is not None:
        profile.disable()
    print("total", round(time.perf_counter() - start, 2), {k: round(v, 2) for k, v in totals.items()})
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(35)


if __name__ == "__main__":
    main()
