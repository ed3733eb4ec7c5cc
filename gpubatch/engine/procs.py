"""Child-process lifetime: every worker in its own process group, ended with its parent, never left running.

- `worker_pool(n, initializer, initargs)`: a `ProcessPoolExecutor` (spawned by default) whose workers first call
  `adopt_worker` (own process group, so a terminal's Ctrl-C reaches only the parent, which ends them; on Linux
  the kernel sends SIGTERM when the parent dies, and a watchdog thread exits when the parent is gone anyway);
- `end_pool(pool)`: terminate, then kill, every worker of a pool now, without waiting for running work;
- `terminate_as_interrupt()`: SIGTERM raises `Terminated` in the main thread, so `finally` blocks and pool
  shutdowns run (Python's default for SIGTERM is to die on the spot, leaving the workers behind);
- `wait_result(fut)`: a future's result, waited for in slices so that signals are heeded at once, and never
  forever when a worker died in the middle of sending a result (see `_finish_torn_result`);
- `graceful_interrupt()` and `stop_requested()`: for jobs that can stop early and keep what they found, the
  first Ctrl-C sets a flag (shared with every worker pool) and the second interrupts at once.
"""
from __future__ import annotations

import os
import signal
import threading
import time
import weakref
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from typing import Any, Callable, Iterator


STOPPING = "\nstopping early: what was found so far is kept (Ctrl-C again to end at once)\n"
_STOP = threading.Event()  # this process was asked to stop early (first Ctrl-C of a graceful job)
_SHARED: list[Any] = []  # parent: one multiprocessing Event per pool; worker: the one of its pool


def stop_requested() -> bool:
    """Whether a graceful interrupt asked the work to stop early (in the parent or, through the pool's shared
    event, in a worker): searches end as at a budget and return what they found."""
    return _STOP.is_set() or any(e.is_set() for e in _SHARED)


@contextmanager
def graceful_interrupt() -> Iterator[None]:
    """Within this block the first SIGINT asks the work to stop early (every worker pool hears it too) and the
    second raises KeyboardInterrupt at once. Outside the main thread it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        if _STOP.is_set():
            raise KeyboardInterrupt
        _STOP.set()
        for event in _SHARED:
            event.set()
        try:  # said at once: the work may take a while to reach a place where it can stop
            os.write(2, STOPPING.encode())
        except OSError:
            pass

    _STOP.clear()
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class Terminated(BaseException):
    """SIGTERM reached the main process: unwind like KeyboardInterrupt (exit 143)."""


def _raise_terminated(signum: int, frame: Any) -> None:
    raise Terminated()


def terminate_as_interrupt() -> None:
    """Turn SIGTERM into `Terminated` in this (main) thread; a no-op elsewhere."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def wait_result(fut: Future, poll: float = 0.2, grace: float = 2.0) -> Any:
    """`fut.result()`, waiting in short slices: a signal handled by Python runs only in the main thread, between
    bytecodes, and when another thread (CUDA's, a pool's) takes the signal, an untimed wait in the main thread is
    never woken, so Ctrl-C and SIGTERM would wait for the whole piece of work. A future of a `worker_pool` whose
    pool lost a worker and which is still not done `grace` seconds later gets its pool unstuck (it then fails
    with `BrokenProcessPool`, as a pool with a dead worker should)."""
    lost_since = None
    while True:
        try:
            return fut.result(timeout=poll)
        except FutureTimeout:
            if not lost_worker(fut):
                continue
            now = time.monotonic()
            if lost_since is None:
                lost_since = now
            elif now - lost_since >= grace:
                _finish_torn_result(fut._gpubatch_pool())
                lost_since = None


def lost_worker(fut: Future) -> bool:
    """Whether the pool of `fut` (a `worker_pool`'s future) has a worker that exited: a caller waiting on
    several futures takes this one with `wait_result` then, which cannot wait forever."""
    ref = getattr(fut, "_gpubatch_pool", None)
    pool = ref() if ref is not None else None
    if pool is None:
        return False
    from multiprocessing.connection import wait

    try:
        sentinels = [p.sentinel for p in list((getattr(pool, "_processes", None) or {}).values())]
    except (RuntimeError, ValueError, AttributeError):  # the pool's thread changed or closed them meanwhile
        return False
    return bool(sentinels) and bool(wait(sentinels, 0))


def _finish_torn_result(pool: ProcessPoolExecutor | None, limit: float = 10.0) -> None:
    """A worker killed while sending its result leaves half a message in the result pipe, and the pool's thread
    waits for the rest forever (CPython's `ProcessPoolExecutor` reads it with a blocking `recv`), so no future of
    the pool ever completes and the interpreter cannot exit. Zero bytes written after it complete the message:
    it fails to unpickle (a pickle ends with a STOP byte, and zeros hold none), and the thread marks the pool
    broken and ends its workers. The dead worker held the pipe's write lock, so no other worker writes meanwhile."""
    queue = getattr(pool, "_result_queue", None)  # None with the pool itself (collected meanwhile)
    thread = getattr(pool, "_executor_manager_thread", None)
    if queue is None or thread is None:
        return
    try:
        fd = queue._writer.fileno()
        os.set_blocking(fd, False)
    except (OSError, ValueError, AttributeError):
        return
    zeros = bytes(1 << 16)
    end = time.monotonic() + limit
    while thread.is_alive() and time.monotonic() < end:
        try:
            os.write(fd, zeros)
        except BlockingIOError:
            thread.join(0.01)
        except OSError:
            return


class _Pool(ProcessPoolExecutor):
    """A `ProcessPoolExecutor` whose futures know their pool (weakly), for `wait_result`."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        fut = super().submit(fn, *args, **kwargs)
        fut._gpubatch_pool = weakref.ref(self)  # type: ignore[attr-defined]
        return fut


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def adopt_worker(parent: int) -> None:
    """First thing in a worker: its own process group, and no life beyond `parent`'s."""
    try:
        os.setpgid(0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what an interrupt means
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM, 0, 0, 0)  # PR_SET_PDEATHSIG: the kernel ends us with the parent
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="gpubatch-parent-watch").start()


def _init(parent: int | None, initializer: Callable[..., None] | None, initargs: tuple, stop: Any = None) -> None:
    adopt_worker(os.getppid() if parent is None else parent)
    if stop is not None:
        _SHARED[:] = [stop]
    if initializer is not None:
        initializer(*initargs)


def worker_pool(workers: int, initializer: Callable[..., None] | None = None, initargs: tuple = (),
                method: str | None = "spawn", preload: tuple[str, ...] = ()) -> ProcessPoolExecutor:
    """A process pool (`method`: a multiprocessing start method, None for the platform's default) whose
    workers are adopted (see `adopt_worker`) before `initializer` runs. Under "forkserver" (where the platform
    has it; else spawn), workers are forked from a small server process that imported `preload` once: a fresh
    worker costs milliseconds, and its parent is that server, which ends when this process does."""
    import multiprocessing as mp

    if method == "forkserver" and "forkserver" not in mp.get_all_start_methods():
        method = "spawn"
    ctx = mp.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload(list(preload))  # read when the server starts (once per process)
    stop = ctx.Event()
    if _STOP.is_set():
        stop.set()
    _SHARED.append(stop)
    parent = None if method == "forkserver" else os.getpid()  # a forked server's workers are its children
    pool = _Pool(workers, mp_context=ctx, initializer=_init, initargs=(parent, initializer, initargs, stop))
    pool._gpubatch_stop = stop  # type: ignore[attr-defined]
    return pool


def start_forkserver(preload: tuple[str, ...] = ()) -> None:
    """Start multiprocessing's fork server now (it imports `preload` while this process works on), so that the
    first "forkserver" pool does not wait for it; nothing where the platform has no fork server."""
    import multiprocessing as mp

    if "forkserver" in mp.get_all_start_methods():
        from multiprocessing import forkserver

        mp.get_context("forkserver").set_forkserver_preload(list(preload))
        forkserver.ensure_running()


def _forget(pool: ProcessPoolExecutor) -> None:
    stop = getattr(pool, "_gpubatch_stop", None)
    if stop in _SHARED:
        _SHARED.remove(stop)


def adopted(parent: int, target: Callable[..., None], *args: Any) -> None:
    """A `multiprocessing.Process` target that adopts the worker, then runs `target(*args)`."""
    _init(parent, target, args)


def end_processes(procs: list, grace: float = 2.0) -> None:
    """SIGTERM every live process of `procs`, then SIGKILL those still alive after `grace` seconds."""
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(1.0)


def end_pool(pool: ProcessPoolExecutor, grace: float = 2.0) -> None:
    """End every worker of `pool` now: SIGTERM, then SIGKILL after `grace` seconds; queued work is dropped."""
    end_processes(list((getattr(pool, "_processes", None) or {}).values()), grace)
    try:
        pool.shutdown(wait=False, cancel_futures=True)
    except Exception:  # noqa: BLE001 - a broken pool is already ended
        pass


def close_pool(pool: ProcessPoolExecutor, failed: bool) -> None:
    """Shut a pool down: wait for its workers after a clean run, end them at once after a failure."""
    try:
        if failed:
            end_pool(pool)
        else:
            pool.shutdown(wait=True, cancel_futures=True)
    finally:
        _forget(pool)


def close_pools(pools: list[ProcessPoolExecutor], failed: bool) -> None:
    """`close_pool` for several pools at once: their workers exit side by side (a GPU worker's exit, its
    device's teardown, takes a good part of a second), not one after another."""
    errors: list[BaseException] = []

    def close(pool: ProcessPoolExecutor) -> None:
        try:
            close_pool(pool, failed)
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            errors.append(exc)

    threads = [threading.Thread(target=close, args=(pool,), name="gpubatch-close", daemon=True) for pool in pools[1:]]
    for t in threads:
        t.start()
    if pools:
        close(pools[0])
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
