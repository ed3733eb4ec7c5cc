"""`gpubatch batt` (being built)."""
import typer

from .common import RunContext, job_command


def register(app: typer.Typer) -> None:
    @job_command(app, "run-batt")
    def cmd(run: RunContext) -> int:
        """batt."""
        with run.executor():
            pass
        return 0
