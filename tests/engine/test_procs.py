"""Worker pools that lose a worker at the worst moment: a run waiting on the pool ends with `BrokenProcessPool`
(which the jobs turn into re-running the work here), never with a hang."""
import os
import signal
import struct
import sys
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from functools import partial

import pytest

from gpubatch.engine import BatchExecutor, BatchOp, EngineSettings, Selection
from gpubatch.engine.procs import close_pool, wait_result, worker_pool
from gpubatch.engine.runners import QUEUED

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL and fork")


def _torn_result() -> None:
    """In a pool worker: start sending a result, as a worker does, and die half-way (the OOM killer's timing)."""
    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:  # concurrent.futures' worker loop holds the queue
        frame = frame.f_back
        if frame is None:  # not in a pool worker
            return
    queue = frame.f_locals["result_queue"]
    queue._wlock.acquire()  # a worker sending holds the write lock: it dies holding it
    os.write(queue._writer.fileno(), struct.pack("!i", 1 << 20) + b"\x80\x05 half")
    os.kill(os.getpid(), signal.SIGKILL)


def _waited(fut) -> list:
    """`wait_result(fut)` in a thread, joined with a deadline: what it returned or raised, or nothing."""
    out: list = []

    def run():
        try:
            out.append(wait_result(fut, poll=0.05, grace=0.5))
        except BaseException as e:  # noqa: BLE001 - the test inspects it
            out.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)
    return out


@linux
@pytest.mark.parametrize("workers", [1, 2])
def test_worker_killed_mid_result_breaks_the_pool_and_nothing_hangs(workers):
    pool = worker_pool(workers, method="fork")
    try:
        others = [pool.submit(pow, 2, k) for k in range(workers - 1)]
        assert [wait_result(f) for f in others] == [2 ** k for k in range(workers - 1)]
        got = _waited(pool.submit(_torn_result))
        assert got and isinstance(got[0], BrokenProcessPool), got
        with pytest.raises(BrokenProcessPool):
            pool.submit(pow, 2, 3)
    finally:
        close_pool(pool, failed=False)  # returns: the pool's thread has ended
    assert not pool._executor_manager_thread or not pool._executor_manager_thread.is_alive()


def test_healthy_pool_results_are_untouched():
    pool = worker_pool(2, method="fork" if sys.platform.startswith("linux") else "spawn")
    try:
        assert [wait_result(pool.submit(pow, 3, k), grace=0.0) for k in range(6)] == [3 ** k for k in range(6)]
    finally:
        close_pool(pool, failed=False)


def _tears_once_on_7(items, backend):
    """A batch op whose worker dies sending the result of the batch holding 7, the first time only."""
    mark = os.environ["GPUBATCH_TEST_TORN"]
    if 7 in items and not os.path.exists(mark):
        open(mark, "w").close()
        _torn_result()
    return [x + 1 for x in items]


@linux
def test_process_runner_reruns_a_batch_whose_result_was_torn(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUBATCH_TEST_TORN", str(tmp_path / "torn"))  # the spawned workers inherit it
    settings = EngineSettings(device="cpu", count=2, initial_size=4, dynamic_sizing=False)
    with BatchExecutor(settings, Selection("numpy"), runner="processes") as ex:
        out = ex.run_all(BatchOp("tears", _tears_once_on_7), range(24))
        restarts = ex.stats.for_op("tears", "cpu").worker_restarts
    assert (tmp_path / "torn").exists()  # the fault happened
    assert out == [x + 1 for x in range(24)]
    assert 1 <= restarts <= QUEUED  # each batch lost with the worker (its queue) ran again


class _Counted:
    """An op's payload that counts, in each process, how many times it was unpickled there."""

    loads = 0

    def __reduce__(self):
        return (_counted, ())


def _counted() -> _Counted:
    _Counted.loads += 1
    return _Counted()


def _loads_here(payload, items, backend):
    return [_Counted.loads for _ in items]


@pytest.mark.parametrize("warm", [False, True])
def test_process_runner_sends_an_op_to_each_worker_once(warm):
    """A battery's op holds its solvers: each worker unpickles it once (at warm-up or with its first batch),
    not again with each of its batches."""
    settings = EngineSettings(device="cpu", count=2, initial_size=2, dynamic_sizing=False)
    op = BatchOp("counted", partial(_loads_here, _Counted()))
    with BatchExecutor(settings, Selection("numpy"), runner="processes") as ex:
        if warm:
            ex.warm(op)
        out = ex.run_all(op, range(40))  # 20 batches over the 2 workers
        again = ex.run_all(op, range(6))  # a second run of the same op: still held there
    assert out == [1] * 40 and again == [1] * 6


def _waits_for_forty(items, backend):
    """A batch op: the batch holding 0 runs until 40 other batches have run (or 10 s passed), the others each
    leave a file; every item's result says whether 40 had run when the long batch ended."""
    folder = os.environ["GPUBATCH_TEST_RAN"]
    if 0 in items:
        deadline = time.monotonic() + 10
        while len(os.listdir(folder)) < 40 and time.monotonic() < deadline:
            time.sleep(0.02)
        return [len(os.listdir(folder)) >= 40] * len(items)
    for x in items:
        open(os.path.join(folder, str(x)), "w").close()
    return [True] * len(items)


def test_process_runner_window_counts_items_so_small_batches_run_on_behind_a_long_one(tmp_path, monkeypatch):
    """A battery cuts batches by cost: one long batch of 20 items, then small ones. The window of results held
    in order (RUN_AHEAD batches a worker) holds 20-item batches' worth of items, so the other worker runs 40
    one-item batches meanwhile instead of stopping after 16 batches."""
    monkeypatch.setenv("GPUBATCH_TEST_RAN", str(tmp_path))
    settings = EngineSettings(device="cpu", count=2, initial_size=1, dynamic_sizing=False)
    with BatchExecutor(settings, Selection("numpy"), runner="processes") as ex:
        out = ex.run_all(BatchOp("waits", _waits_for_forty), range(80), sizes=[20])
    assert out == [True] * 80


def _plus_one(items, backend):
    return [(x + 1, backend.name) for x in items]


def _no_warm(backend) -> None:
    """A warm-up that needs nothing."""


def _absent_gpus():
    from gpubatch.engine.backend import GpuInfo

    return tuple(GpuInfo(i, "absent", 1 << 30, None, 1, "9.0") for i in (98, 99))


def test_a_worker_whose_gpu_is_unusable_runs_on_numpy_and_says_so():
    """The parent probes several GPUs without making their contexts; a worker whose device fails there (no
    such device here, with or without CuPy) computes on NumPy, and the run says which GPU and why, once."""
    notes: list[str] = []
    settings = EngineSettings(device="auto", count=2, initial_size=3, dynamic_sizing=False)
    with BatchExecutor(settings, Selection("cupy", gpus=_absent_gpus()), notify=notes.append) as ex:
        assert ex.runner.name == "processes"
        op = BatchOp("plus", _plus_one, warm=_no_warm)
        ex.warm(op)
        ex.warm(op)  # said once, however often the op is warmed
        out = ex.run_all(op, range(10))
    assert out == [(x + 1, "numpy") for x in range(10)]
    assert len(notes) == 2, notes
    for gpu, note in zip((98, 99), sorted(notes)):
        assert note.startswith(f"cuda:{gpu} is not usable (") and note.endswith("): its worker runs on the CPU (NumPy)")


def test_under_device_cuda_an_unusable_gpu_is_an_error_not_a_cpu_run():
    from gpubatch.engine import DeviceUnavailable

    settings = EngineSettings(device="cuda", count=2, initial_size=3, dynamic_sizing=False)
    with pytest.raises(DeviceUnavailable, match=r"--device cuda, but cuda:98 is not usable \("), \
            BatchExecutor(settings, Selection("cupy", gpus=_absent_gpus())) as ex:
        ex.warm(BatchOp("plus", _plus_one, warm=_no_warm))
