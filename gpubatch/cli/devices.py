"""`gpubatch devices`: which backend a run would use, the GPUs seen, and why it would fall back."""
import json
from dataclasses import asdict
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gpubatch.engine import probe_cuda


def devices(as_json: Annotated[bool, typer.Option("--json", help="Machine-readable output.")] = False) -> None:
    """List usable GPUs (name, memory, SMs) or the reason there are none."""
    import numpy

    probe = probe_cuda()
    backend = "cupy" if probe.gpus else "numpy"
    if as_json:
        typer.echo(json.dumps({"backend": backend, "reason": probe.reason, "cupy": probe.cupy_version,
                               "numpy": numpy.__version__, "gpus": [asdict(g) for g in probe.gpus]}, indent=2))
        return
    con = Console()
    con.print(f"backend: [bold]{backend}[/] (numpy {numpy.__version__}"
              + (f", cupy {probe.cupy_version})" if probe.cupy_version else ")"))
    if not probe.gpus:
        con.print(f"no GPU: {probe.reason}", highlight=False, markup=False)
        return
    table = Table()
    for col in ("index", "name", "memory GiB", "free GiB", "SMs", "compute"):
        table.add_column(col)
    for g in probe.gpus:
        table.add_row(str(g.index), g.name, f"{g.total_memory / 2**30:.1f}", f"{g.free_memory / 2**30:.1f}",
                      str(g.sm_count), g.compute_capability)
    con.print(table)
