"""The battery's batches as the parent sees them: each `_worker_run` batch's submit and done time, its worker
seconds and size, written to $PROBE_OUT as JSON at exit. Runs the gpubatch command given as arguments, e.g.
`PROBE_OUT=b.json python benchmarks/arcdsl_batches.py --device cpu --gpus 16 run-batt --solvers S --battery
cross --task-ids ...`: where the workers idle (between batches, at the end) is read from the file."""
import atexit
import concurrent.futures as cf
import json
import os
import sys
import time

LOG: list[dict] = []
T0 = time.perf_counter()
_submit = cf.ProcessPoolExecutor.submit


def submit(self, fn, *args, **kwargs):
    """The pool's submit, logging the battery's batches (the pool, size, submit and done times, seconds)."""
    t = time.perf_counter()
    fut = _submit(self, fn, *args, **kwargs)
    if getattr(fn, "__name__", "") == "_worker_run":
        rec = {"pool": id(self) % 100000, "n": len(args[-1]), "sub": t - T0}
        LOG.append(rec)

        def done(f, rec=rec):
            rec["done"] = time.perf_counter() - T0
            try:
                rec["secs"] = f.result()[2]
            except Exception as exc:  # noqa: BLE001 - a lost worker, or any failure: said in the record
                rec["err"] = repr(exc)
        fut.add_done_callback(done)
    return fut


def _write() -> None:
    with open(os.environ["PROBE_OUT"], "w") as f:
        json.dump({"t_end": time.perf_counter() - T0, "batches": LOG}, f)


if __name__ == "__main__":  # spawned workers import this file too: only the parent patches and runs
    cf.ProcessPoolExecutor.submit = submit
    atexit.register(_write)
    from gpubatch._entry import main

    sys.argv = ["gpubatch"] + sys.argv[1:]
    main()
