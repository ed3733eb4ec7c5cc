"""`gpubatch diff A.json B.json`: do two results files (run-batt or analyze) agree on outcomes? Exit 1 if not."""
from pathlib import Path
from typing import Annotated

import typer

from .common import UserError, handle_errors


def render(differences: list, limit: int, a: str, b: str, what: str) -> list[str]:
    """The report: one line per difference (the first `limit`), then a count."""
    if not differences:
        return [f"no differences in outcomes between {a} and {b} ({what})"]
    lines = [d.line() for d in differences[:limit]]
    if len(differences) > limit:
        lines.append(f"... and {len(differences) - limit} more")
    lines.append(f"{len(differences)} difference{'s' if len(differences) != 1 else ''} in outcomes "
                 f"between {a} and {b}")
    return lines


def register(app: typer.Typer) -> None:
    @app.command("diff")
    def diff(a: Annotated[Path, typer.Argument(help="Results file (run-batt --results or analyze JSON).")],
             b: Annotated[Path, typer.Argument(help="The results file to compare it with.")],
             limit: Annotated[int, typer.Option("--limit", min=1, help="Differences listed at most.")] = 50) -> None:
        """Compare two results files on outcomes (timings and the run's settings left out); exit 1 on any
        difference, 2 if a file is not a results file."""
        from gpubatch.diff import DiffError, compare, load

        def body() -> int:
            try:
                da, db = load(a), load(b)
                found = compare(da, db)
            except DiffError as exc:
                raise UserError(str(exc)) from None
            n = len(da.get("tasks", da.get("files", [])))
            what = f"{n} {'tasks' if 'tasks' in da else 'files'}"
            typer.echo("\n".join(render(found, limit, str(a), str(b), what)))
            return 1 if found else 0
        raise typer.Exit(handle_errors(body, False))

