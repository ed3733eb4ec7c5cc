"""N devices at once for the bench suite: one spawned process per device, started once a suite and reused by
every case, so that `bench --gpus N` pays N process and CUDA start-ups once instead of twice per case."""
from __future__ import annotations

import os
import time
from typing import Any

from ..engine.procs import adopted, end_processes
from .cases import Case

TIMEOUT_S = 600.0
MIN_S = 0.5  # each worker times whole rounds of calls for at least this long: a few ms is all jitter


def _serve(conn: Any, index: int, kind: str, corpus: list | None, min_s: float) -> None:
    """A worker: pinned to device `index`, it prepares a case when asked, then times it when told to go."""
    if kind == "cuda":
        os.environ["CUDA_VISIBLE_DEVICES"] = str(index)
        import cupy as xp

        def sync() -> None:
            xp.cuda.Device().synchronize()

        def release() -> None:
            xp.get_default_memory_pool().free_all_blocks()
    else:
        import numpy as xp

        def sync() -> None:
            pass

        release = sync
    from .cases import all_cases

    cases = {c.name: c for c in all_cases(corpus)}
    conn.send(("started", index))
    while True:
        msg = conn.recv()
        if msg[0] == "stop":
            return
        _, name, batch, repeats = msg
        data = None
        try:
            case = cases[name]
            data = case.make(xp, batch, 4 + index)
            for _ in range(3):
                case.run(xp, data)
            sync()
            conn.send(("ready", index))
            if conn.recv()[0] != "go":
                continue
            t0, done = time.perf_counter(), 0
            while done == 0 or time.perf_counter() - t0 < min_s:  # rounds of `repeats` calls, at least min_s
                for _ in range(repeats):
                    case.run(xp, data)
                sync()
                done += repeats
            conn.send(("time", done, time.perf_counter() - t0))
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which raises it there
            conn.send(("error", f"device {index}: {type(exc).__name__}: {exc}"))
        finally:
            data = None
            release()


class DeviceWorkers:
    """`n` worker processes, one per device (`kind` "cuda", or "cpu" for NumPy workers that test the protocol).
    `run(case, batch, repeats, k)` times the case on the first k at once: the calls of all of them over the
    wall of the slowest."""

    def __init__(self, n: int, kind: str = "cuda", corpus: list | None = None, min_s: float = MIN_S) -> None:
        self.n, self.kind, self.corpus, self.min_s = n, kind, corpus, min_s
        self.procs: list = []
        self.conns: list = []

    def __enter__(self) -> DeviceWorkers:
        import multiprocessing as mp

        ctx = mp.get_context("spawn")
        try:
            for i in range(self.n):
                mine, theirs = ctx.Pipe()
                p = ctx.Process(target=adopted, args=(os.getpid(), _serve, theirs, i, self.kind, self.corpus,
                                                                 self.min_s))
                p.start()
                theirs.close()
                self.procs.append(p)
                self.conns.append(mine)
            for c in self.conns:
                self._recv(c, "started")
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Ask every worker to stop, then end any that did not (after an error or an interrupt too)."""
        for c in self.conns:
            try:
                c.send(("stop",))
            except OSError:
                pass
        deadline = time.monotonic() + 10.0
        for p in self.procs:
            p.join(max(0.0, deadline - time.monotonic()))
        end_processes(self.procs)
        for c in self.conns:
            c.close()
        self.procs, self.conns = [], []

    def _recv(self, conn: Any, want: str) -> tuple:
        """The worker's next message, polled in short slices so that Ctrl-C and SIGTERM are heeded."""
        end = time.monotonic() + TIMEOUT_S
        while not conn.poll(0.2):
            if time.monotonic() >= end:
                raise TimeoutError(f"no answer from a bench worker in {TIMEOUT_S:.0f} s")
        try:
            msg = conn.recv()
        except EOFError:
            raise RuntimeError("a bench worker ended without an answer") from None
        if msg[0] == "error":
            raise RuntimeError(msg[1])
        if msg[0] != want:
            raise RuntimeError(f"bench worker said {msg[0]!r}, expected {want!r}")
        return msg

    def run(self, case: Case, batch: int, repeats: int, k: int):
        """Prepare the case on the first k workers, start them together, and return their Measurement."""
        from .runner import Measurement

        conns = self.conns[:k]
        for c in conns:
            c.send(("case", case.name, batch, repeats))
        errors, ready = [], []
        for c in conns:
            try:
                self._recv(c, "ready")
                ready.append(c)
            except RuntimeError as exc:
                errors.append(str(exc))
        if errors:  # the others are ready and wait for a word: release them without timing
            for c in ready:
                c.send(("skip",))
            raise RuntimeError("; ".join(errors))
        for c in conns:
            c.send(("go",))
        answers = []
        for c in conns:  # every worker's answer read, so that a failure leaves none behind for the next case
            try:
                answers.append(self._recv(c, "time"))
            except RuntimeError as exc:
                errors.append(str(exc))
        if errors:
            raise RuntimeError("; ".join(errors))
        device = f"cuda:0-{k - 1}" if self.kind == "cuda" else f"cpu:0-{k - 1}"
        m = Measurement(case.name, case.group, device, "multi_gpu", batch, items=batch * sum(a[1] for a in answers),
                        bytes_per_item=case.bytes_per_item, flops_per_item=case.flops_per_item,
                        note=f"{k} processes, wall of slowest")
        m.samples = [max(a[2] for a in answers)]
        return m
