"""Progress reporting: a Rich bar on a terminal, a few plain log lines elsewhere (CI), or nothing."""
from __future__ import annotations

import sys
import time
from typing import Protocol, TextIO


class Progress(Protocol):
    def start(self, label: str, total: int | None) -> None: ...
    def advance(self, n: int) -> None: ...
    def status(self, text: str) -> None: ...  # where a long batch is inside itself (e.g. a search's depth)
    def finish(self) -> None: ...


class NullProgress:
    def start(self, label: str, total: int | None) -> None: pass
    def advance(self, n: int) -> None: pass
    def status(self, text: str) -> None: pass
    def finish(self) -> None: pass


class LogProgress:
    """Plain lines at 25% steps (or every `every_s` seconds without a total) for logs and CI."""

    def __init__(self, stream: TextIO | None = None, every_s: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.every_s = every_s

    def start(self, label: str, total: int | None) -> None:
        self.label, self.total, self.done = label, total, 0
        self.t0 = self.last = time.perf_counter()
        self.last_status = self.t0 - self.every_s  # the first status line shows at once
        self.next_pct = 25

    def _line(self, text: str) -> None:
        print(f"[{self.label}] {text}", file=self.stream, flush=True)

    def advance(self, n: int) -> None:
        self.done += n
        now = time.perf_counter()
        rate = self.done / max(now - self.t0, 1e-9)
        if self.total:
            pct = 100 * self.done // self.total
            if pct >= self.next_pct and self.done < self.total:
                self._line(f"{self.done:,}/{self.total:,} ({pct}%), {rate:,.0f} items/s")
                self.next_pct = (pct // 25 + 1) * 25
        elif now - self.last >= self.every_s:
            self._line(f"{self.done:,} items, {rate:,.0f} items/s")
            self.last = now

    def status(self, text: str) -> None:
        now = time.perf_counter()
        if now - self.last_status >= self.every_s:
            self._line(text)
            self.last_status = now

    def finish(self) -> None:
        dt = time.perf_counter() - self.t0
        self._line(f"done: {self.done:,} items in {dt:.2f} s")


class RichProgress:
    """An animated bar with items done, items/s and ETA."""

    def __init__(self, console=None) -> None:
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as RP, TaskProgressColumn,
                                   TextColumn, TimeElapsedColumn, TimeRemainingColumn)

        self._p = RP(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TaskProgressColumn(),
                     TextColumn("{task.fields[rate]}"),
                     TimeElapsedColumn(), TimeRemainingColumn(), console=console, transient=False)
        self._task = None

    def start(self, label: str, total: int | None) -> None:
        self._p.start()
        self._t0 = time.perf_counter()
        self._label = label
        self._task = self._p.add_task(label, total=total, rate="")

    def status(self, text: str) -> None:
        if self._task is not None:
            self._p.update(self._task, description=f"{self._label} [dim]{text}[/]")

    def advance(self, n: int) -> None:
        done = self._p.tasks[0].completed + n
        rate = done / max(time.perf_counter() - self._t0, 1e-9)
        self._p.update(self._task, advance=n, rate=f"{rate:,.0f} items/s")

    def finish(self) -> None:
        self._p.stop()


def make_progress(enabled: bool, is_terminal: bool, console=None) -> Progress:
    """The right reporter: Rich on a terminal, plain lines otherwise, nothing when disabled."""
    if not enabled:
        return NullProgress()
    return RichProgress(console) if is_terminal else LogProgress()
