"""`gpubatch bench`: measure every engine operation on CPU, one GPU and N GPUs."""
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import RunContext, UserError, check_outputs, job_command, write_atomic


def register(app: typer.Typer) -> None:
    @job_command(app, "bench")
    def bench(
        run: RunContext,
        suite: Annotated[Optional[str], typer.Option(help="quick (a harness check, under a minute on 2 CPU "
                                                     "cores) or full.")] = None,
        cases: Annotated[Optional[str], typer.Option(help="Comma-separated case names, prefixes or groups.")] = None,
        json_out: Annotated[Optional[Path], typer.Option("--json", help="Write every raw sample as JSON.")] = None,
        plot: Annotated[Optional[Path], typer.Option(help="Throughput vs batch size plot (PNG).")] = None,
    ) -> int:
        """Benchmark the engine's operations against the hardware's own limits."""
        from gpubatch.bench.report import plot as draw, table, to_json
        from gpubatch.bench.suite import SuitePlan, run_suite

        cfg = run.cfg
        check_outputs(**{"--json": json_out, "--plot": plot})
        name = suite or cfg.get("bench.suite")
        if name not in ("quick", "full"):
            raise UserError(f"--suite {name!r}: expected quick or full")
        with run.executor() as ex:
            gpus = len(ex.selection.gpus) if ex.selection.kind == "cupy" else 0
        plan = SuitePlan(name, tuple(c.strip() for c in cases.split(",")) if cases else (), gpus,
                         cfg.get("bench.repeats"), cfg.get("bench.warmup"))
        from gpubatch.bench.suite import selected

        if not selected(plan):
            raise UserError(f"no benchmark case matches {cases!r}")
        def save(partial) -> None:
            if json_out:
                write_atomic(json_out, to_json(partial) + "\n")

        res = run_suite(plan, progress=lambda c: run.note(f"[dim]measured {c}[/]") if run.verbose else None,
                        checkpoint=save)
        run.out.print(table(res))
        save(res)
        if plot:
            try:
                write_atomic(plot, draw(res))
            except RuntimeError as exc:
                raise UserError(str(exc)) from None
        return 0
