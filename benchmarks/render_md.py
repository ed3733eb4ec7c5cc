"""Render `gpubatch bench --json` files as the Markdown tables of docs/benchmarks.md.

Later files win for the same (case, device), so a partial rerun updates only its rows.
usage: python benchmarks/render_md.py RESULT.json [MORE.json ...]
"""
import json
import sys


def main(paths: list[str]) -> None:
    rows: dict[tuple[str, str], dict] = {}
    for path in paths:
        with open(path) as fh:
            data = json.load(fh)
        for r in data["summary"]:
            rows[(r["case"], r["device"])] = r
    print("| case | device | best batch | median ms | items/s | GB/s | TFLOP/s | % of peak | vs CPU batched "
          "| vs per-item loop | notes |")
    print("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
    for (case, device), r in rows.items():
        pct = f"{r['pct_peak']:.0f}%" if r["pct_peak"] is not None else ""
        vs_cpu = f"{r['vs_cpu']:,.0f}x" if r["vs_cpu"] else ""
        vs_loop = f"{r['vs_loop']:,.1f}x" if r["vs_loop"] else ""
        tf = f"{r['tflops']:.2f}" if r["tflops"] else ""
        print(f"| {case} | {device} | {r['batch']:,} | {r['median_ms']:.3f} | {r['items_per_s']:,.0f} | "
              f"{r['gbs']:,.1f} | {tf} | {pct} | {vs_cpu} | {vs_loop} | {r['extra']} |")


if __name__ == "__main__":
    main(sys.argv[1:])
