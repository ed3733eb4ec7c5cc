"""What every job command shares: the global options, the run context, and error-to-exit-code mapping.

`job_command` adds the global options to a command's signature, so each job module declares only its own
options. Exit codes: 0 success, 1 findings or failed items, 2 usage or config error, 3 internal error,
130 interrupted, 143 terminated (SIGTERM). A user's mistake prints one line, never a traceback (unless -v).
"""
import functools
import inspect
import os
import signal
import sys
import threading
import traceback
from dataclasses import dataclass, field, replace
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Callable, Iterable, Optional

import typer
from rich.console import Console
from .shown import shown

from gpubatch.config import ConfigError, GPUConfigManager
from gpubatch.engine import BatchExecutor, DeviceUnavailable, EngineSettings, StatsCollector
from gpubatch.engine.cluster import ClusterLost, ClusterUnavailable
from gpubatch.engine.executor import select_for
from gpubatch.engine.procs import Terminated, terminate_as_interrupt
from gpubatch.engine.progress import make_progress
from gpubatch.engine.stats import render_table

from .output import OutputError, check_output
from .output import write_output as write_atomic  # noqa: F401 - the jobs' one writer of output files


class UserError(Exception):
    """Something the user typed or fed in is wrong: one line, exit 2."""


class DeviceChoice(str, Enum):
    auto = "auto"
    cpu = "cpu"
    cuda = "cuda"


GLOBAL = "Global options"
_COMMON: dict[str, tuple[Any, Any]] = {
    "config": (Annotated[Optional[Path], typer.Option("--config", help="Config TOML file (or a pyproject.toml).",
                                                      rich_help_panel=GLOBAL)], None),
    "device": (Annotated[Optional[DeviceChoice], typer.Option("--device", help="auto, cpu or cuda.",
                                                              rich_help_panel=GLOBAL)], None),
    "gpus": (Annotated[Optional[int], typer.Option("--gpus", min=1, help="GPUs to use (CPU: worker processes).",
                                                   rich_help_panel=GLOBAL)], None),
    "batch_size": (Annotated[Optional[int], typer.Option("--batch-size", min=1, help="Fixed batch size "
                                                         "(default: dynamic sizing from config).",
                                                         rich_help_panel=GLOBAL)], None),
    "cluster": (Annotated[Optional[str], typer.Option("--cluster", help="Run on a Dask cluster: a scheduler "
                                                      "(tcp://host:8786) or local:N.", rich_help_panel=GLOBAL)],
                None),
    "stats": (Annotated[bool, typer.Option("--stats/--no-stats", help="Print per-op statistics at the end.",
                                           rich_help_panel=GLOBAL)], False),
    "stats_json": (Annotated[Optional[Path], typer.Option("--stats-json", help="Write per-op statistics as JSON.",
                                                          rich_help_panel=GLOBAL)], None),
    "progress": (Annotated[bool, typer.Option("--progress/--no-progress", help="Progress bar on a terminal, "
                                              "plain lines otherwise.", rich_help_panel=GLOBAL)], True),
    "quiet": (Annotated[bool, typer.Option("--quiet", "-q", help="Only results and errors.",
                                           rich_help_panel=GLOBAL)], False),
    "verbose": (Annotated[bool, typer.Option("--verbose", "-v", help="More detail; tracebacks on errors.",
                                             rich_help_panel=GLOBAL)], False),
}


@dataclass
class RunContext:
    """A job's view of the run: effective config, consoles, and the engine built from them."""

    cfg: GPUConfigManager
    quiet: bool = False
    verbose: bool = False
    show_stats: bool = False
    stats_json: Path | None = None
    progress: bool = True
    out: Console = field(default_factory=lambda: _console(False))
    err: Console = field(default_factory=lambda: _console(True))
    stats: StatsCollector = field(default_factory=StatsCollector)

    def note(self, text: str) -> None:
        """A diagnostic line on stderr (suppressed by -q)."""
        if not self.quiet:
            self.err.print(text, highlight=False)

    def settings(self) -> EngineSettings:
        return EngineSettings.from_config(self.cfg)

    def executor(self, runner: str | None = None, **overrides: Any) -> BatchExecutor:
        """The engine for this run; says in one line why it is on the CPU when a GPU was possible."""
        settings = replace(self.settings(), **overrides)
        try:
            selection = select_for(settings)
        except DeviceUnavailable as exc:
            raise UserError(str(exc)) from None
        if selection.kind == "numpy" and settings.device == "auto":
            self.note(f"[yellow]gpubatch: running on the CPU (NumPy): {shown(selection.reason or '')}[/]")
        for line in selection.notes:
            self.note(f"[yellow]gpubatch: {shown(line)}[/]")
        if self.verbose and selection.gpus:
            self.note("gpubatch: using " + ", ".join(f"cuda:{g.index} {g.name}" for g in selection.gpus))
        tty = self.err.is_terminal and not self.quiet
        progress = make_progress(self.progress and not self.quiet, tty, self.err)
        return BatchExecutor(settings, selection, runner=runner, stats=self.stats, progress=progress,
                             notify=lambda text: self.note(f"[yellow]gpubatch: {shown(text)}[/]"))

    def finish(self) -> None:
        """Render and write the per-op statistics if asked."""
        if self.show_stats and self.stats.ops:
            self.err.print(render_table(self.stats))
        if self.stats_json is not None:
            write_atomic(self.stats_json, self.stats.to_json() + "\n")


def _console(stderr: bool) -> Console:
    """A console; off a terminal (CI, pipes) tables get 160 columns instead of Rich's 80."""
    con = Console(stderr=stderr)
    return con if con.is_terminal else Console(stderr=stderr, width=160)


def check_outputs(inputs: Iterable[Path] = (), **options: Path | None) -> None:
    """Validate every output path before the work starts: `check_outputs(**{"--results": path})`."""
    for option, path in options.items():
        if path is not None:
            check_output(path, option, inputs)


def load_config(config: Path | None, overrides: dict[str, Any]) -> GPUConfigManager:
    return GPUConfigManager.load(config, overrides=overrides)


def flag_overrides(device: Any = None, gpus: int | None = None, batch_size: int | None = None,
                   cluster: str | None = None) -> dict[str, Any]:
    """Command-line flags as config keys (the highest-precedence source)."""
    out: dict[str, Any] = {} if cluster is None else {"cluster.address": cluster}
    if device is not None:
        out["gpu.device"] = device.value if isinstance(device, Enum) else device
    if gpus is not None:
        out["gpu.count"] = gpus
    if batch_size is not None:
        out.update({"gpu.batch.initial_size": batch_size, "gpu.batch.min_size": min(batch_size, 1),
                    "gpu.batch.max_size": batch_size, "gpu.batch.dynamic_sizing": False,
                    "analyze.max_batch_files": batch_size})
    return out


def handle_errors(fn: Callable[..., int | None], verbose: bool) -> int:
    """Run a command body and map every outcome to an exit code."""
    err = Console(stderr=True)
    try:
        return int(fn() or 0)
    except ClusterLost as exc:  # the scheduler went away mid-run: nothing was written
        err.print(f"[red]error:[/] {shown(str(exc))}", highlight=False, soft_wrap=True)
        return 1
    except (ConfigError, UserError, OutputError, ClusterUnavailable, DeviceUnavailable) as exc:
        if verbose:
            traceback.print_exc()
        err.print(f"[red]error:[/] {shown(str(exc))}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        err.print("interrupted", highlight=False)
        return _leave(130)
    except Terminated:
        err.print("terminated", highlight=False)
        return _leave(143)
    except typer.Exit as exc:
        return exc.exit_code
    except Exception as exc:  # noqa: BLE001 - last line of defence: one line, not a traceback
        if verbose:
            traceback.print_exc()
        err.print(f"[red]internal error:[/] {type(exc).__name__}: {shown(str(exc))} (run with -v for the traceback)",
                  highlight=False, soft_wrap=True)
        return 3


HARD_EXIT = True  # False where the CLI runs inside another program (the fuzzer) that must go on


def _leave(code: int) -> int:
    """After an interrupt or SIGTERM has unwound the job (workers ended, temporary files removed), exit now:
    interpreter shutdown would join helper threads of pools whose workers were just killed, which can block."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    if HARD_EXIT and threading.current_thread() is threading.main_thread():
        os._exit(code)
    return code


def _typed(ctx: Any, name: str) -> bool:
    """Whether option `name` was given on the command line or by the environment, not left at its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def global_options(ctx: typer.Context, given: dict[str, Any]) -> dict[str, Any]:
    """The global options of a job: each one typed after the command wins, else the same option typed before
    it (`gpubatch --device cpu analyze .`), else its default."""
    before = ctx.find_root().obj or {}
    return {name: before[name] if name in before and not _typed(ctx, name) else value
            for name, value in given.items()}


JOBS = ("analyze", "run-batt", "bench")  # the commands that take the global options; `config show` takes --config


def app_callback(ctx: typer.Context, **options: Any) -> None:
    """Keep the global options typed before the command, for the job that runs; a command that cannot honour
    them is a usage error (exit 2), never a silent no-op."""
    ctx.obj = {n: v for n, v in options.items() if n in _COMMON and _typed(ctx, n)}
    command = ctx.invoked_subcommand
    unused = [n for n in ctx.obj if command not in JOBS and not (command == "config" and n == "config")]
    if unused:
        flags = ", ".join("--" + n.replace("_", "-") for n in unused)
        Console(stderr=True).print(f"[red]error:[/] gpubatch {command} does not take {shown(flags)}: the global "
                                   f"options apply to {', '.join(JOBS)} (and --config to config show)",
                                   highlight=False, soft_wrap=True)
        raise typer.Exit(2)


def callback_signature(extra: list[inspect.Parameter]) -> inspect.Signature:
    """The app callback's signature: every global option, plus `extra` (e.g. --version)."""
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
    params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d)
               for n, (a, d) in _COMMON.items()]
    return inspect.Signature(params + extra)


def job_command(group: typer.Typer, name: str, **kw: Any) -> Callable:
    """Register `fn(run: RunContext, **own_options)` as a command that also takes the global options."""
    def deco(fn: Callable[..., int | None]) -> Callable:
        sig = inspect.signature(fn)
        own = [p for p in sig.parameters.values() if p.name != "run"]
        common = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, annotation=a, default=d)
                  for n, (a, d) in _COMMON.items()]

        @functools.wraps(fn)
        def wrapper(**kwargs: Any) -> None:
            g = global_options(kwargs.pop("_ctx"), {n: kwargs.pop(n) for n in _COMMON})

            def body() -> int | None:
                cfg = load_config(g["config"], flag_overrides(g["device"], g["gpus"], g["batch_size"], g["cluster"]))
                check_outputs(**{"--stats-json": g["stats_json"]})
                run = RunContext(cfg, quiet=g["quiet"], verbose=g["verbose"], show_stats=g["stats"],
                                 stats_json=g["stats_json"], progress=g["progress"])
                try:
                    return fn(run, **kwargs)
                finally:
                    run.finish()

            previous = signal.getsignal(signal.SIGTERM)
            terminate_as_interrupt()  # SIGTERM unwinds like Ctrl-C: workers ended, temporary files removed
            try:
                code = handle_errors(body, g["verbose"])
            finally:
                if threading.current_thread() is threading.main_thread():
                    signal.signal(signal.SIGTERM, previous)
            if code:
                raise typer.Exit(code)

        ctx = [inspect.Parameter("_ctx", inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context)]
        wrapper.__signature__ = sig.replace(parameters=own + common + ctx)  # type: ignore[attr-defined]
        wrapper.__annotations__ = {p.name: p.annotation for p in own + common + ctx}
        del wrapper.__wrapped__
        return group.command(name, **kw)(wrapper)
    return deco

