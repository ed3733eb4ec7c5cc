"""`gpubatch run-batt`: evaluate a battery of ARC programs over many tasks at once and score them."""
import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from .shown import shown
from rich.table import Table

from ..jsonlayout import layout
from .common import RunContext, UserError, check_outputs, job_command, write_atomic


def list_primitives(as_json: bool) -> str:
    from gpubatch.arc.dsl import REGISTRY

    fams = []
    for fam in REGISTRY.families.values():
        params = [{"name": p.name, "values": list(p.values), "default": p.default, "doc": p.doc} for p in fam.params]
        fams.append({"name": fam.name, "group": fam.group, "params": params, "doc": fam.doc,
                     "instances": [p.text for p in fam.instances()]})
    if as_json:
        return json.dumps(fams, indent=2)
    lines = [f"{len(fams)} families, {sum(len(f['instances']) for f in fams)} instances"]
    for f in fams:
        ps = ", ".join(f"{p['name']} in {{{', '.join(map(str, p['values']))}}}" if p["values"] else
                       f"{p['name']}: {p['doc']}" for p in f["params"])
        lines.append(f"{f['group']:9s} {f['name']:20s} {len(f['instances']):3d}  {f['doc']}"
                     + (f"  [{ps}]" if ps else ""))
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @job_command(app, "run-batt")
    def run_batt(
        run: RunContext,
        dataset: Annotated[Optional[str], typer.Option(help="arc1-train, arc1-eval, arc2-train, arc2-eval, a "
                                                       "folder of task JSON files (sub-folders too), or a "
                                                       "*_challenges.json.")] = None,
        tasks: Annotated[Optional[int], typer.Option("--tasks", min=0, help="First N tasks by id (0: all).")] = None,
        task_ids: Annotated[Optional[str], typer.Option(help="Comma-separated task ids.")] = None,
        depth: Annotated[Optional[int], typer.Option(min=0, max=8, help="Longest enumerated program.")] = None,
        programs: Annotated[Optional[Path], typer.Option(help="Battery file: one program per line.")] = None,
        solvers: Annotated[Optional[Path], typer.Option(help="arc-dsl solvers file (def solve_<task id>(I): ...): "
                                                      "run those instead of the search; parsed, never run as "
                                                      "Python.")] = None,
        battery_mode: Annotated[Optional[str], typer.Option("--battery", help="With --solvers: own (each solver on "
                                                            "its task) or cross (every solver on every task); "
                                                            "default own when names match loaded tasks.")] = None,
        enumerate_: Annotated[bool, typer.Option("--enumerate/--no-enumerate",
                                                 help="Run the built-in enumeration too.")] = True,
        submission: Annotated[Optional[Path], typer.Option(help="Write ARC Prize submission.json.")] = None,
        results: Annotated[Optional[Path], typer.Option(help="Write per-task results JSON.")] = None,
        compare: Annotated[Optional[str], typer.Option(help="Run the same work again on this device (cpu or "
                                                       "cuda) and diff the outcomes: exit 1 on any "
                                                       "difference.")] = None,
        list_prims: Annotated[bool, typer.Option("--list-primitives", help="List the DSL and exit.")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="With --list-primitives: JSON.")] = False,
    ) -> int:
        """Search programs for ARC tasks on the demo pairs, predict the test outputs and score them."""
        if list_prims:
            typer.echo(list_primitives(as_json))
            return 0
        if as_json:
            raise UserError("--json lists the primitives as JSON: it needs --list-primitives (results: --results)")
        from gpubatch.arc.batt import results_json, run_batt as job, submission as make_submission, summarize
        from gpubatch.arc.programs import ProgramError, read_programs
        from gpubatch.arc.search import SearchConfig
        from gpubatch.arc.tasks import TaskSourceError, load_tasks
        from gpubatch.engine.procs import graceful_interrupt, stop_requested

        cfg = run.cfg
        check_outputs(**{"--submission": submission, "--results": results})
        source = dataset or cfg.get("batt.dataset")
        ids = [t.strip() for t in task_ids.split(",") if t.strip()] if task_ids is not None else None
        if ids == []:  # an empty list from a script would otherwise run every task
            raise UserError(f"--task-ids {task_ids!r}: no task id given")
        if battery_mode is not None and not solvers:
            raise UserError("--battery chooses how --solvers runs: it needs --solvers")
        if battery_mode not in (None, "own", "cross"):
            raise UserError(f"--battery {battery_mode!r}: expected own or cross")
        if solvers and programs:
            raise UserError("--solvers runs arc-dsl solvers instead of the search: leave out --programs")
        if compare not in (None, "cpu", "cuda"):
            raise UserError(f"--compare {compare!r}: expected cpu or cuda")
        primitives = compiled_primitives(run) if solvers else ""  # before the workers start: they load the same
        first = run.executor()  # opened before the tasks load: worker processes start meanwhile
        run.stats.mark("executor made")
        try:
            battery = tuple(read_programs(programs)) if programs else ()
            solver_list = arcdsl_solvers(run, solvers) if solvers else None
            loaded, problems = load_tasks(source, cfg.get("batt.tasks") if tasks is None else tasks, ids)
            for p in problems:
                what = "skipped task" if p.kind == "skipped" else "unscored task"
                run.note(f"[yellow]{what} {shown(p.id)}: {shown(p.error)}[/]")
            if not loaded:
                raise UserError(f"no valid tasks to run from {source}")
            skipped = sum(p.kind == "skipped" for p in problems)
            run.stats.mark("tasks loaded")
            mode = None
            if solver_list is not None:
                mode, loaded, left = battery_tasks(solver_list, loaded, battery_mode)
                if left:  # an own battery on the wrong dataset would otherwise shrink in silence
                    names = ", ".join(left[:3]) + (", ..." if len(left) > 3 else "")
                    run.note(f"own battery: {len(left)} of {len(solver_list)} solvers name no loaded task and are "
                             f"not run ({shown(names)}; --dataset, --tasks and --task-ids choose the tasks, "
                             "--battery cross runs every solver on every task)")
            scfg = SearchConfig(depth=cfg.get("batt.depth") if depth is None else depth,
                                max_states=cfg.get("batt.max_states"),
                                deep_states=cfg.get("batt.deep_states"), time_budget_s=cfg.get("batt.time_budget_s"),
                                partial_fits=cfg.get("batt.partial_fits"), overlays=cfg.get("batt.overlays"),
                                colour_norm=cfg.get("batt.colour_norm"),
                                norm_shallower=cfg.get("batt.colour_norm_shallower"),
                                store_bytes=SearchConfig.store_bytes if cfg.get("gpu.memory.keep_in_vram") else 0)
        except BaseException as exc:
            first.close(failed=True)
            if isinstance(exc, (ProgramError, TaskSourceError)):
                raise UserError(str(exc)) from None
            raise

        def search(ex) -> tuple:
            # the first Ctrl-C stops the search as a budget would (what was found is scored and written, exit 130);
            # the second ends the run at once; the executor is closed at the end
            with graceful_interrupt(), ex:
                meta = {"dataset": source, "depth": scfg.depth, "device": ex.device,
                        "programs_file": str(programs or "")}
                pairs = None
                if solver_list is not None:
                    from gpubatch.arc.arcdsl.battery import run_battery

                    res, pairs, seconds, start = run_battery(solver_list, loaded, ex, mode)
                    meta.update(solvers_file=str(solvers), battery=mode, primitives=primitives)
                else:  # one piece of tasks per worker (processes and dask)
                    res, seconds, start = job(loaded, ex, scfg, battery, enumerate_, devices=ex.runner.width)
                summary = summarize(res, seconds, skipped, start)
                if pairs is not None:
                    from gpubatch.arc.arcdsl.battery import battery_json

                    doc = battery_json(res, summary, meta, pairs)
                else:
                    doc = results_json(res, summary, meta)
            ex.stats.mark("executor closed")
            return res, summary, doc, stop_requested()

        res, summary, doc, interrupted = search(first)
        if submission:
            write_atomic(submission, json.dumps(make_submission(loaded, res, problems)) + "\n")
        if results:
            write_atomic(results, layout(doc, 2) + "\n")  # a task or pair a line
        run.stats.mark("outputs written")
        render(run, summary, res)
        if solver_list is not None:
            counts = ", ".join(f"{n} {status}" for status, n in doc["summary"]["pairs"].items())
            run.out.print(f"{mode} battery: {len(doc['pairs'])} solver-task pairs: {counts}", highlight=False)
        differ = False
        if compare and not interrupted:
            differ = compare_devices(run, doc, search(run.executor(device=compare, count=1))[2], compare)
        budget = {"time budget": f"batt.time_budget_s = {scfg.time_budget_s:g} s",
                  "state budget": f"batt.max_states = {scfg.max_states:,}"
                                  + (f", batt.deep_states = {scfg.deep_states:,}" if scfg.depth > 3 else "")}
        for reason, n in summary.stopped:
            if reason == "state budget":  # usual at depth 3: said, not warned
                run.note(f"{n} of {summary.tasks} tasks reached their state budget ({budget[reason]}): each kept its "
                         "best-scored states")
            else:
                why = f" ({budget[reason]})" if reason in budget else ""
                run.note(f"[yellow]{n} of {summary.tasks} tasks stopped early: {reason}{why}[/]")
        if interrupted:
            run.note("interrupted: the battery stopped early; the pairs it had not run are counted as stopped, the "
                     "others are above and in the output files" if solver_list is not None else
                     "interrupted: the search stopped early; what it had found is above and in the output files")
            return 130
        # a solver that could not run is a skipped input (exit 1, as a task that could not be read is)
        unsupported = solver_list is not None and doc["summary"]["pairs"]["unsupported"] > 0
        return 1 if problems or summary.failed or differ or unsupported else 0


def compiled_primitives(run: RunContext) -> str:
    """Load arc-dsl's per-value primitives compiled (`batt.compiled`), building them into their cache at first
    use; "compiled" or "python", the reason said in one line where auto falls back to pure Python."""
    from gpubatch.arc.arcdsl.native import prepare
    from gpubatch.engine.cythonize import BuildError

    mode = run.cfg.get("batt.compiled")
    try:
        got = prepare(mode, run.cfg.get("batt.compiled_dir"), announce=lambda folder: run.note(
            f"compiling the arc-dsl primitives once into {shown(str(folder))} (about a minute on two cores; "
            "batt.compiled = off runs them as Python)"))
    except BuildError as exc:
        raise UserError(f"batt.compiled = on, but the primitives cannot be compiled: {exc}") from None
    if got.reason and mode != "off":
        run.note(f"[yellow]{shown(got.reason)}[/]" if got.used else
                 f"arc-dsl primitives in pure Python: {shown(got.reason)}")
    if got.built:
        run.note(f"compiled the arc-dsl primitives in {got.build_s:.1f} s (cached in {shown(got.folder)})")
    run.stats.mark("primitives ready")
    return "compiled" if got.used else "python"


def arcdsl_solvers(run: RunContext, path: Path) -> list:
    """The solvers of an arc-dsl file; each unsupported one said in a line with its reason (it still counts)."""
    from gpubatch.arc.arcdsl.solvers import SolverFileError, read_solvers

    try:
        found = read_solvers(path)
    except SolverFileError as exc:
        raise UserError(str(exc)) from None
    if not found:
        raise UserError(f"{path}: no solvers (functions named solve_<task id>)")
    for s in found:
        if s.redefines:
            lines = ", ".join(str(n) for n in s.redefines)
            many = len(s.redefines) > 1
            run.note(f"[yellow]solver {shown(s.name)} is defined again at line {s.lineno} ({shown(str(path))}): "
                     f"that definition counts and the one{'s' if many else ''} at line{'s' if many else ''} "
                     f"{lines} {'are' if many else 'is'} left out, as when Python runs the file[/]")
        if s.unsupported:
            run.note(f"[yellow]unsupported solver {shown(s.name)} ({shown(str(path))}, "
                     f"{shown(s.unsupported)})[/]")
    return found


def battery_tasks(solvers: list, loaded: list, mode: str | None) -> tuple[str, list, list[str]]:
    """The battery's mode and tasks: own (the default when a solver names a loaded task) keeps the tasks
    that a solver names; cross keeps them all. Third, the solvers an own battery leaves out (their task is not
    loaded)."""
    from gpubatch.arc.arcdsl.battery import named_tasks

    names = named_tasks(loaded)
    named = {names[s.task_id].id for s in solvers if s.task_id in names}
    if mode is None:
        mode = "own" if named else "cross"
    if mode == "cross":
        return mode, loaded, []
    loaded = [t for t in loaded if t.id in named]
    if not loaded:
        raise UserError("--battery own: no loaded task is named by a solver (try --battery cross)")
    return mode, loaded, [s.name for s in solvers if s.task_id not in names]


def compare_devices(run: RunContext, doc: dict, other: dict, device: str) -> bool:
    """Say whether the second run's outcomes equal the first's, listing differences; True when they differ."""
    from gpubatch.diff import compare

    found = compare(doc, other)
    here, there = doc["run"]["device"], other["run"]["device"]
    if not found:
        run.out.print(f"--compare {device}: identical outcomes on {here} and {there} ({len(doc['tasks'])} tasks, "
                      f"{doc['summary']['evaluations']:,} evaluations)", highlight=False)
        return False
    for d in found[:50]:
        run.out.print(d.line(), highlight=False, markup=False)
    run.out.print(f"--compare {device}: {len(found)} differences in outcomes between {here} and {there}",
                  highlight=False)
    return True


def render(run: RunContext, s, results) -> None:
    if run.verbose:
        for r in results:
            mark = "" if r.correct is None else ("  correct" if all(r.correct) else "  wrong")
            first = r.fits[0].program if r.fits else "-"
            run.out.print(f"{r.id}: {len(r.fits)} fits, best: {first}{mark}", highlight=False)
    table = Table(title="run-batt", title_justify="left")
    for col in ("tasks", "demo-fit", "test-correct", "accuracy", "overfit", "skipped", "failed", "stopped",
                "start s", "time s", "evals/s"):
        table.add_column(col, justify="right")
    acc = f"{100 * s.accuracy:.1f}%" if s.test_outputs else "n/a"
    stopped = ", ".join(f"{n} {reason}" for reason, n in s.stopped) or "0"
    table.add_row(str(s.tasks), str(s.demo_fit), f"{s.test_correct}/{s.test_outputs}", acc, str(s.overfit),
                  str(s.skipped), str(s.failed), stopped, f"{s.start_seconds:.2f}", f"{s.seconds:.2f}",
                  f"{s.evals_per_s:,.0f}")
    run.out.print(table)
