"""`gpubatch analyze PATH...`: batch static analysis of Python trees, for people and for CI."""
import os
from pathlib import Path
from typing import Annotated, List, Optional

import typer
from .shown import shown
from rich.table import Table

from .common import RunContext, UserError, check_outputs, job_command, write_atomic
from .output import write_stdout

FAIL_ON = ("never", "info", "warning", "error")


def register(app: typer.Typer) -> None:
    @job_command(app, "analyze")
    def analyze(
        run: RunContext,
        paths: Annotated[List[Path], typer.Argument(help="Files or directories to analyse.")],
        format_: Annotated[str, typer.Option("--format", help="text, json, sarif, github (annotations), gitlab (Code "
                                                      "Quality) or junit (XML).")] = "text",
        output: Annotated[Optional[Path], typer.Option("--output", "-o", help="Write the report here "
                                                       "(atomically) instead of stdout.")] = None,
        fail_on: Annotated[Optional[str], typer.Option(help="never, info, warning or error: exit 1 when a "
                                                       "finding reaches it.")] = None,
        include: Annotated[Optional[List[str]], typer.Option(help="Only files matching this glob.")] = None,
        exclude: Annotated[Optional[List[str]], typer.Option(help="Skip files or folders matching this glob.")] = None,
        default_excludes: Annotated[bool, typer.Option("--default-excludes/--no-default-excludes")] = True,
        gitignore: Annotated[bool, typer.Option("--gitignore/--no-gitignore", help="Honour .gitignore.")] = True,
        jobs: Annotated[Optional[int], typer.Option(min=0, help="Parser processes (0: CPU count).")] = None,
        cache: Annotated[bool, typer.Option("--cache/--no-cache", help="Reuse parsed tensors of unchanged "
                                            "files.")] = True,
        select: Annotated[Optional[str], typer.Option(help="Comma-separated rule codes or prefixes.")] = None,
        ignore: Annotated[Optional[str], typer.Option(help="Comma-separated rule codes or prefixes.")] = None,
        stdin_filename: Annotated[Optional[str], typer.Option(help="Analyse standard input as this file "
                                                              "(PATH is then -), for editors and hooks.")] = None,
        diff: Annotated[Optional[str], typer.Option("--diff", metavar="REF", help="Only files changed against "
                                                    "this git ref, and untracked ones.")] = None,
        duplicates: Annotated[Optional[bool], typer.Option("--duplicates/--no-duplicates", help="Search for "
                                                           "duplicate code across all PATHs (GB301).")] = None,
        baseline: Annotated[Optional[Path], typer.Option(help="Findings to accept: written with the current "
                                                         "findings when the file does not exist; when it does, "
                                                         "only findings not in it are reported.")] = None,
        max_absolute: Annotated[Optional[str], typer.Option(metavar="RANK", help="Exit 1 when a block's "
                                                            "complexity ranks above this letter (A-F, xenon's "
                                                            "gate).")] = None,
        max_modules: Annotated[Optional[str], typer.Option(metavar="RANK", help="Exit 1 when a module's average "
                                                           "complexity ranks above this letter.")] = None,
        max_average: Annotated[Optional[str], typer.Option(metavar="RANK", help="Exit 1 when the average "
                                                           "complexity of all blocks ranks above this "
                                                           "letter.")] = None,
    ) -> int:
        """Metrics (complexity as radon or mccabe counts it), rules under ruff's codes, reports, exit codes."""
        from gpubatch.analyze.batched import Thresholds
        from gpubatch.analyze.discover import discover_paths
        from gpubatch.analyze.job import run_analyze
        from gpubatch.analyze.model import LEVELS, RULES, Policy
        from gpubatch.analyze.report import CHUNKS
        from gpubatch.engine.gcpause import gc_paused

        cfg = run.cfg
        if format_ not in CHUNKS:
            raise UserError(f"--format {format_!r}: expected one of {', '.join(CHUNKS)}")
        level = fail_on or cfg.get("analyze.fail_on")
        if level not in FAIL_ON:
            raise UserError(f"--fail-on {level!r}: expected one of {', '.join(FAIL_ON)}")
        if stdin_filename is None and [str(p) for p in paths] == ["-"]:
            stdin_filename = "-"  # standard input, reported as "-" (as ruff does)
        if stdin_filename is not None and [str(p) for p in paths] != ["-"]:
            raise UserError("--stdin-filename reads standard input: give - as the only PATH")
        if stdin_filename is not None and diff is not None:
            raise UserError("--stdin-filename and --diff: standard input is one file, not a change set")
        missing = [str(p) for p in paths if not p.exists() and stdin_filename is None]
        if missing:
            raise UserError(f"no such file or directory: {', '.join(missing)}")
        if output is not None:
            check_outputs(_sources_near(output, paths), **{"--output": output})
        gates = _gates(cfg, max_absolute, max_modules, max_average)
        accepted = _baseline_entries(baseline, paths)
        split = (lambda s: tuple(x.strip().upper() for x in s.split(",") if x.strip()))
        policy = Policy(
            Thresholds(cfg.get("analyze.max_complexity"), cfg.get("analyze.max_function_lines"),
                       cfg.get("analyze.max_nesting"), cfg.get("analyze.max_params"),
                       tuple(cfg.get("analyze.rules.banned_calls")), tuple(cfg.get("analyze.rules.banned_imports")),
                       cfg.get("analyze.complexity")),
            split(select) if select else tuple(cfg.get("analyze.select")),
            split(ignore) if ignore else tuple(cfg.get("analyze.ignore")),
            tuple(cfg.get("analyze.severity").items()),
            tuple((g, tuple(c)) for g, c in cfg.get("analyze.per_file_ignores").items()),
            _clone_settings(cfg) if (cfg.get("analyze.duplicates.enabled") if duplicates is None else duplicates)
            else None)
        for line in unknown_codes(policy, RULES):
            run.note(f"[yellow]gpubatch: {shown(line)}[/]")
        batch = min(cfg.get("analyze.max_batch_files"), cfg.get("gpu.batch.max_size"))
        # opened before discovery: worker processes (--gpus N, --cluster) start meanwhile
        ex = run.executor(initial_size=min(batch, cfg.get("gpu.batch.initial_size")), max_size=batch)
        try:
            names: dict[str, str] = {}
            if stdin_filename is not None:
                files, names = _from_stdin(stdin_filename)
                cache = False
            else:
                files = list(discover_paths(paths, include or cfg.get("analyze.include"),
                                      (exclude or []) + cfg.get("analyze.exclude"),
                                      gitignore and cfg.get("analyze.respect_gitignore"),
                                      default_excludes and cfg.get("analyze.default_excludes")))
            if diff is not None:
                files = _changed_only(files, diff, paths[0])
            run.stats.mark("files found")
        except BaseException:
            ex.close(failed=True)
            raise
        cache_dir = cfg.get("analyze.cache_dir") if cache and cfg.get("analyze.cache") else None
        with ex, gc_paused(keep=True):  # this process ends with the result: frozen, not traversed again
            result = run_analyze(files, ex, policy, cfg.get("analyze.jobs") if jobs is None else jobs,
                                 cfg.get("analyze.max_file_bytes"), cache_dir, names, cfg.get("analyze.cache_content"))
        run.stats.mark("analysis done")
        for line in result.warnings:
            run.note(f"[yellow]gpubatch: {shown(line)}[/]")
        if baseline is not None:
            result, level = _baseline(run, baseline, accepted, result, level)
        if gates:
            from gpubatch.analyze.gates import gate_failures

            result.gate_failures = gate_failures(result.files, gates)
        report = CHUNKS[format_](result)  # written piece by piece as it is made
        if output:
            write_atomic(output, report)
        else:
            write_stdout(report)
        run.stats.mark("report written")  # with "analysis done": the baseline, the gates and the report's rendering
        if format_ == "text" and not run.quiet:
            render_summary(run, result)
        worst = max((LEVELS[f.severity] for f in result.findings), default=0)
        for line in result.gate_failures:  # why the run fails: said even under -q, as findings are
            run.err.print(f"[red]gpubatch: {shown(line)}[/]", highlight=False)
        return 1 if worst >= LEVELS[level] or result.gate_failures else 0


def _gates(cfg, *flags: str | None):
    """xenon's gates from the flags, else `analyze.max_absolute|modules|average`; a bad letter is a usage error."""
    from gpubatch.analyze.gates import RANKS, Gates

    names = ("max_absolute", "max_modules", "max_average")
    given = [cfg.get(f"analyze.{n}") if f is None else f.strip().upper() for n, f in zip(names, flags)]
    for n, g in zip(names, given):
        if g and g not in RANKS:
            raise UserError(f"--{n.replace('_', '-')} {g!r}: expected a rank letter A-F")
    return Gates(*given)


def _clone_settings(cfg):
    """`analyze.duplicates.*` as the clone search's settings."""
    from gpubatch.analyze.clones.search import CloneSettings

    return CloneSettings(**{k: cfg.get(f"analyze.duplicates.{k}") for k in (
        "min_lines", "min_nodes", "min_nodes_renamed", "min_similarity", "max_gap", "ignore_docstrings",
        "ignore_imports", "ignore_signatures", "lines")})


def _from_stdin(name: str) -> tuple[list[Path], dict[str, str]]:
    """Standard input in a temporary file (removed at exit), and the name it is reported under."""
    import atexit
    import shutil
    import sys
    import tempfile

    from gpubatch.analyze.report.columns import given

    data = sys.stdin.buffer.read()
    folder = tempfile.mkdtemp(prefix="gpubatch-stdin-")
    atexit.register(shutil.rmtree, folder, True)
    path = Path(folder) / (Path(name).name if Path(name).name not in ("", "-") else "stdin.py")
    path.write_bytes(data)
    given(name, data)
    return [path], {str(path): name}


def _changed_only(files: list, ref: str, where: Path) -> list:
    """The discovered files that git says changed against `ref` (or are untracked)."""
    from gpubatch.analyze.gitdiff import GitDiffError, changed_files

    try:
        changed = changed_files(ref, where)
    except GitDiffError as exc:
        raise UserError(str(exc)) from None
    return [f for f in files if os.path.realpath(f) in changed]


def _baseline_entries(baseline: Path | None, paths: list[Path]) -> set | None:
    """The accepted findings of an existing baseline (read before the work: a bad one is a usage error), or
    None when there is none yet (its path checked, to be written)."""
    from gpubatch.analyze.baseline import BaselineError, load

    if baseline is None or not baseline.exists():
        if baseline is not None:
            check_outputs(_sources_near(baseline, paths), **{"--baseline": baseline})
        return None
    try:
        return load(baseline)
    except BaselineError as exc:
        raise UserError(str(exc)) from None


def _baseline(run: RunContext, path: Path, accepted: set | None, result, level: str):
    """Apply the baseline, or write it when there was none: every current finding accepted, exit 0."""
    from gpubatch.analyze import baseline as bl

    if accepted is None:
        write_atomic(path, bl.render(result))
        run.note(f"gpubatch: baseline written to {shown(str(path))}: {len(result.findings)} findings accepted; "
                 "later runs with --baseline report only new ones")
        return result, "never"
    result, applied = bl.apply(result, accepted)
    run.note(f"gpubatch: baseline {shown(str(path))}: {applied.hidden} findings not reported, "
             f"{applied.gone} entries gone (fixed or changed)")
    return result, level


def render_summary(run: RunContext, result) -> None:
    from gpubatch.analyze.report.summary import summary

    s = summary(result)
    run.err.print(f"gpubatch analyze: {s['files']} files, {s['lines']:,} lines, {s['findings']} findings, "
                  f"{s['errors']} unreadable, {s['seconds']:.2f} s", highlight=False)
    t = Table()
    t.add_column("rule")
    t.add_column("count", justify="right")
    for code, n in s["by_rule"].items():
        t.add_row(code, str(n))
    for sev, n in sorted(s["by_severity"].items()):
        t.add_row(f"[dim]{sev}[/]", f"[dim]{n}[/]")
    if s["findings"]:
        run.err.print(t)
    dup = s["duplicates"]
    if dup["groups"]:
        kinds = ", ".join(f"{n} {k}" for k, n in dup["by_kind"].items())
        run.err.print(f"duplicates: {dup['groups']} groups ({kinds}), {dup['copies']} copies, "
                      f"{dup['duplicated_lines']:,} duplicated lines", highlight=False)
    for title, rows in (("most complex", [f"{m['path']}:{m['line']} {m['name']} ({m['complexity']})"
                                          for m in s["most_complex"][:5]]),
                        ("most findings", [f"{m['path']} ({m['findings']})" for m in s["most_findings"][:5]])):
        if rows:
            run.err.print(f"{title}: " + "; ".join(rows), highlight=False, markup=False)


def _sources_near(output: Path, paths: list[Path]) -> list[Path]:
    """The analysed files an output path could clobber: the files given, and the output itself when it is a
    Python file inside a given folder."""
    out = [p for p in paths if not p.is_dir()]
    real = Path(os.path.realpath(output))
    if real.suffix in (".py", ".pyi") and any(p.is_dir() and real.is_relative_to(Path(os.path.realpath(p)))
                                              for p in paths):
        out.append(real)
    return out


def unknown_codes(policy, rules: dict) -> list[str]:
    """One warning per rule code or prefix in select, ignore, severity or per-file ignores that names no rule
    (a typo there silently selects or ignores nothing)."""
    def known(code: str) -> bool:
        return any(rule.startswith(code) for rule in rules)

    named = [("analyze.select / --select", c) for c in policy.select]
    named += [("analyze.ignore / --ignore", c) for c in policy.ignore]
    named += [("analyze.severity", c) for c, _ in policy.severity]
    named += [(f"analyze.per_file_ignores[{g!r}]", c) for g, codes in policy.per_file_ignores for c in codes]
    return [f"unknown rule code {c!r} in {where}: it matches no rule" for where, c in named if not known(c)]
