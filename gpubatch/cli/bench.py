"""`gpubatch bench`: measure every engine operation on CPU, one GPU and N GPUs."""
from pathlib import Path
from typing import Annotated, Optional

import typer
from .shown import shown

from .common import RunContext, UserError, check_outputs, job_command, write_atomic


def register(app: typer.Typer) -> None:
    @job_command(app, "bench")
    def bench(
        run: RunContext,
        suite: Annotated[Optional[str], typer.Option(help="quick (a harness check, under a minute on 2 CPU "
                                                     "cores), full, or batt (run-batt on 10/50/200 "
                                                     "tasks, CPU and GPU).")] = None,
        cases: Annotated[Optional[str], typer.Option(help="Comma-separated case names, prefixes or groups.")] = None,
        json_out: Annotated[Optional[Path], typer.Option("--json", help="Write every raw sample as JSON.")] = None,
        plot: Annotated[Optional[Path], typer.Option(help="Throughput vs batch size plot (PNG).")] = None,
    ) -> int:
        """Benchmark the engine's operations against the hardware's own limits (--suite batt: run-batt itself
        on CPU and GPU)."""
        from gpubatch.engine import DeviceUnavailable, select_device

        cfg = run.cfg
        unused = [flag for flag, given in (("--batch-size", cfg.source("gpu.batch.max_size") == "command line"),
                                           ("--stats", run.show_stats), ("--stats-json", run.stats_json))
                  if given]
        if unused:
            raise UserError(f"bench cannot honour {', '.join(unused)}: it measures each case at its own batch "
                            "sizes and reports its own figures (--json)")
        check_outputs(**{"--json": json_out, "--plot": plot})
        name = suite or cfg.get("bench.suite")
        if name not in ("quick", "full", "batt"):
            raise UserError(f"--suite {name!r}: expected quick, full or batt")
        address = cfg.get("cluster.address")
        if address and name == "batt":
            raise UserError("--cluster measures the kernel suites (quick, full) on every worker; time run-batt "
                            "itself on a cluster with run-batt --cluster")
        try:
            sel = select_device(cfg.get("gpu.device"), cfg.get("gpu.enabled"), cfg.get("gpu.count"))
        except DeviceUnavailable as exc:
            raise UserError(str(exc)) from None
        if sel.kind == "numpy" and cfg.get("gpu.device") == "auto":
            run.note(f"[yellow]gpubatch: benchmarking the CPU only: {shown(sel.reason or '')}[/]")
        gpus = len(sel.gpus) if sel.kind == "cupy" else 0
        say = (lambda c: run.note(f"[dim]measured {c}[/]")) if run.progress else None

        def save(text: str) -> None:
            if json_out:
                write_atomic(json_out, text + "\n")

        if name == "batt":
            return _batt(run, cases, gpus, save, say, plot)
        from gpubatch.bench.report import plot as draw, table, to_json
        from gpubatch.bench.suite import SuitePlan, run_suite, selected

        plan = SuitePlan(name, tuple(c.strip() for c in cases.split(",")) if cases else (), gpus,
                         cfg.get("bench.repeats"), cfg.get("bench.warmup"))
        if not selected(plan):
            raise UserError(f"no benchmark case matches {cases!r}")
        from gpubatch.engine.cluster import connect, disconnect

        client, cluster = connect(address, sel, cfg.get("cluster.workers")) if address else (None, None)
        try:
            res = run_suite(plan, progress=say, checkpoint=lambda partial: save(to_json(partial)), client=client)
        finally:
            disconnect(client, cluster)
        run.out.print(table(res))
        save(to_json(res))
        if plot:
            try:
                write_atomic(plot, draw(res))
            except RuntimeError as exc:
                raise UserError(str(exc)) from None
        return 0


def _batt(run: RunContext, cases: str | None, gpus: int, save, say, plot) -> int:
    """`--suite batt`; --cases picks task counts (e.g. 10,50) and depths as d2/d3."""
    from gpubatch.bench.batt import DEPTHS, SIZES, run_batt_suite, table, to_json

    if plot:
        raise UserError("--plot draws the kernel suites (quick, full), not --suite batt")
    picks = [c.strip() for c in cases.split(",") if c.strip()] if cases else []
    bad = [c for c in picks if not (c.isdigit() or (c[:1] == "d" and c[1:].isdigit()))]
    if bad:
        raise UserError(f"--cases {','.join(bad)}: with --suite batt, give task counts (10,50) and depths (d2,d3)")
    sizes = tuple(int(c) for c in picks if c.isdigit()) or SIZES
    depths = tuple(int(c[1:]) for c in picks if c[:1] == "d") or DEPTHS
    cfg = run.cfg
    suite = run_batt_suite(gpus, sizes, depths, cfg.get("bench.repeats") or 1, cfg.get("bench.warmup"),
                           cfg.get("batt.time_budget_s"), cfg.get("batt.dataset"), progress=say,
                           max_states=cfg.get("batt.max_states"))
    run.out.print(table(suite))
    save(to_json(suite))
    return 0 if all(v is True for v in suite.agree.values()) else 1
