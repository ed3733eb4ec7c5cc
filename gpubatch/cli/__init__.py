"""The gpubatch command line: one small module per command group, joined here.

Commands only parse, load config, call one job function and render; the work lives in the job packages.
Exit codes: 0 success, 1 findings or failed items, 2 usage or config error, 3 internal error, 130 interrupted.
"""
import typer

from . import analyze, batt, bench
from .config_cmd import config_app
from .devices import devices

app = typer.Typer(name="gpubatch", help="Stream large batches of analysis work through GPUs "
                  "(NumPy without one).", no_args_is_help=True, pretty_exceptions_enable=False,
                  add_completion=False)
app.add_typer(config_app, name="config")
app.command("devices")(devices)
for _module in (analyze, batt, bench):
    _module.register(app)


def main() -> None:
    """Console entry point (same as the `app` object the `gpubatch` script calls)."""
    app()
