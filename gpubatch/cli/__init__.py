"""The gpubatch command line: one small module per command group, joined here.

Commands only parse, load config, call one job function and render; the work lives in the job packages.
The global options work after the command and before it (`gpubatch --device cpu analyze .`).
Exit codes: 0 success, 1 findings or failed items, 2 usage or config error, 3 internal error, 130 interrupted.
"""
import inspect
from typing import Annotated, Any

import typer

from gpubatch import __version__

from . import analyze, batt, bench, diff
from .common import app_callback, callback_signature
from .config_cmd import config_app
from .devices import devices

app = typer.Typer(name="gpubatch", help="Stream large batches of analysis work through GPUs "
                  "(NumPy without one).", no_args_is_help=True, pretty_exceptions_enable=False,
                  add_completion=False, context_settings={"help_option_names": ["-h", "--help"]})


def _version(value: bool) -> None:
    if value:
        typer.echo(f"gpubatch {__version__}")
        raise typer.Exit()


def _root(ctx: typer.Context, **options: Any) -> None:
    options.pop("version", None)
    app_callback(ctx, **options)


_root.__doc__ = app.info.help
_root.__signature__ = callback_signature([inspect.Parameter(  # type: ignore[attr-defined]
    "version", inspect.Parameter.KEYWORD_ONLY, default=False,
    annotation=Annotated[bool, typer.Option("--version", is_eager=True, callback=_version,
                                            help="Print the version and exit.")])])
app.callback()(_root)
app.add_typer(config_app, name="config")
app.command("devices")(devices)
for _module in (analyze, batt, bench, diff):
    _module.register(app)


def main() -> None:
    """Console entry point (same as the `app` object the `gpubatch` script calls)."""
    app()
