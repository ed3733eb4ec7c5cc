"""`gpubatch bench` (being built)."""
import typer

from .common import RunContext, job_command


def register(app: typer.Typer) -> None:
    @job_command(app, "bench")
    def cmd(run: RunContext) -> int:
        """bench."""
        with run.executor():
            pass
        return 0
