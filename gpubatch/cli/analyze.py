"""`gpubatch analyze`: batch static analysis of Python trees (issue 6, not built yet).

The command exists so that scripts and `--help` see the final interface; until the job lands it says so
plainly and exits 2 rather than pretending to pass a build.
"""
from pathlib import Path
from typing import Annotated, List

import typer

from .common import RunContext, UserError, job_command


def register(app: typer.Typer) -> None:
    @job_command(app, "analyze")
    def analyze(run: RunContext,
                paths: Annotated[List[Path], typer.Argument(help="Files or directories to analyse.")]) -> int:
        """Static analysis of Python source trees (metrics, rules, SARIF) - not available in this version."""
        raise UserError("gpubatch analyze is not available in this version yet; nothing was analysed "
                        f"({len(paths)} path(s) given)")
