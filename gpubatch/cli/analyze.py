"""`gpubatch analyze` (being built)."""
import typer

from .common import RunContext, job_command


def register(app: typer.Typer) -> None:
    @job_command(app, "analyze")
    def cmd(run: RunContext) -> int:
        """analyze."""
        with run.executor():
            pass
        return 0
