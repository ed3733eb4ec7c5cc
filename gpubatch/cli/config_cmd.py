"""`gpubatch config show|validate`: the effective configuration and where each value came from."""
import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from gpubatch.config import GPUConfigManager

from .common import handle_errors, load_config

config_app = typer.Typer(help="Show or check the configuration.", no_args_is_help=True)


@config_app.command("show")
def show(ctx: typer.Context, config: Annotated[Optional[Path], typer.Option("--config", help="Config TOML file.")] = None,
         as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """Print the effective value of every key and its source (default, file, environment, flag)."""
    def body() -> int:
        cfg = load_config(config or (ctx.find_root().obj or {}).get("config"), {})
        settings = cfg.settings()
        if as_json:
            typer.echo(json.dumps({s.key: {"value": s.value, "source": s.source} for s in settings}, indent=2))
            return 0
        table = Table(title="gpubatch configuration", title_justify="left")
        for col in ("key", "value", "source", "description"):
            table.add_column(col, overflow="fold")
        for s in settings:
            table.add_row(s.key, repr(s.value) if isinstance(s.value, str) else str(s.value), s.source, s.doc)
        Console().print(table)
        return 0
    raise typer.Exit(handle_errors(body, False))


@config_app.command("validate")
def validate(file: Annotated[Path, typer.Argument(help="TOML file (gpubatch.toml or pyproject.toml).")]) -> None:
    """Check one config file alone against the schema; exit 2 with the first problem."""
    def body() -> int:
        GPUConfigManager.load(file, env={}, discover=False)
        typer.echo(f"{file}: ok")
        return 0
    raise typer.Exit(handle_errors(body, False))
