"""Benchmark output: a Rich table of summary rows, the JSON with every raw sample, and an optional plot."""
from __future__ import annotations

import io
import json
from dataclasses import asdict

from .suite import BenchResult, curve, summary_rows


def table(res: BenchResult):
    from rich.table import Table

    t = Table(title=f"gpubatch bench --suite {res.plan.suite} ({res.seconds:.1f} s)", title_justify="left")
    for col in ("case", "device", "batch", "median ms", "items/s", "GB/s", "TFLOP/s", "% peak", "vs CPU",
                "vs loop", "notes"):
        t.add_column(col, justify="left" if col in ("case", "device", "notes") else "right")
    for r in summary_rows(res):
        t.add_row(r.case, r.device, f"{r.batch:,}", f"{r.median_ms:.4f}", f"{r.items_per_s:,.0f}", f"{r.gbs:,.1f}",
                  f"{r.tflops:.2f}" if r.tflops else "", f"{r.pct_peak:.0f}%" if r.pct_peak is not None else "",
                  f"{r.vs_cpu:,.1f}x" if r.vs_cpu else "", f"{r.vs_loop:,.1f}x" if r.vs_loop else "", r.extra)
    return t


def to_json(res: BenchResult) -> str:
    return json.dumps({"plan": asdict(res.plan), "machine": res.machine, "seconds": res.seconds,
                       "summary": [asdict(r) for r in summary_rows(res)],
                       "measurements": [m.as_dict() for m in res.measurements]}, indent=1)


def plot(res: BenchResult) -> bytes:
    """Throughput against batch size as PNG bytes, one line per case and device (needs matplotlib: the `plot`
    extra); the caller writes them atomically."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError("--plot needs matplotlib (pip install 'gpubatch[plot]')") from None
    cases = list(dict.fromkeys(m.case for m in res.measurements))
    fig, ax = plt.subplots(figsize=(10, 6))
    for case in cases:
        for device in ("cpu", "cuda:0"):
            pts = curve(res, case, device)
            if len(pts) > 1:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, marker="o", linestyle="-" if device != "cpu" else ":", label=f"{case} {device}")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("batch size (items)")
    ax.set_ylabel("items/s")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    return buf.getvalue()
