"""The benchmark harness on the CPU (a check of the harness, not of speed)."""
import json

from typer.testing import CliRunner

from gpubatch.bench.suite import SuitePlan, run_suite, selected, summary_rows
from gpubatch.cli import app


def test_quick_suite_measures_every_mode_on_cpu():
    res = run_suite(SuitePlan("quick", ("add_f32", "arc_rot90", "matmul_64")))
    modes = {(m.case, m.mode) for m in res.measurements}
    assert {("add_f32", "batched"), ("add_f32", "loop"), ("arc_rot90", "reference")} <= modes
    assert all(m.samples and all(s > 0 for s in m.samples) for m in res.measurements)
    rows = {r.case: r for r in summary_rows(res)}
    assert rows["matmul_64"].tflops > 0 and rows["add_f32"].gbs > 0
    assert "reference" in rows["arc_rot90"].extra


def test_case_selection_by_prefix_and_group():
    names = {c.name for c in selected(SuitePlan("full", ("matmul",)))}
    assert names == {f"matmul_{n}" for n in (64, 128, 256, 512, 1024)}
    assert {c.name for c in selected(SuitePlan("full", ("arc/colour",)))} >= {"arc_replace", "arc_swap"}


def test_cli_writes_json(tmp_path):
    out = tmp_path / "b.json"
    result = CliRunner().invoke(app, ["bench", "--device", "cpu", "--cases", "xor_u8,arc_replace", "--json", str(out),
                                      "--no-progress"])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert data["machine"]["cpu_count"] >= 1 and data["measurements"][0]["samples"]
    assert {r["case"] for r in data["summary"]} == {"xor_u8", "arc_replace"}


def test_unknown_case_is_usage_error():
    result = CliRunner().invoke(app, ["bench", "--device", "cpu", "--cases", "nope"])
    assert result.exit_code == 2 and "no benchmark case" in result.output


def test_plot_draws_throughput_curves(tmp_path):
    import pytest

    pytest.importorskip("matplotlib")
    from gpubatch.bench.report import plot

    res = run_suite(SuitePlan("full", ("arc_replace",), repeats=1, warmup=0))
    assert len([m for m in res.measurements if m.mode == "batched"]) > 1
    assert plot(res)[:8] == b"\x89PNG\r\n\x1a\n"


def test_cluster_runs_each_case_on_every_worker(tmp_path, dask_cluster):
    out = tmp_path / "b.json"
    result = CliRunner().invoke(app, ["--cluster", dask_cluster, "bench", "--device", "cpu", "--cases",
                                      "xor_u8,arc_replace", "--json", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    seen = {(m["case"], m["device"]) for m in data["measurements"] if m["mode"] == "cluster"}
    assert seen == {(c, f"cpu@cluster:{k}") for c in ("xor_u8", "arc_replace") for k in (1, 2)}
    assert all("2 workers:" in r["extra"] for r in data["summary"])


def test_cluster_is_refused_for_the_batt_suite():
    result = CliRunner().invoke(app, ["--cluster", "local:2", "bench", "--suite", "batt", "--device", "cpu"])
    assert result.exit_code == 2 and "run-batt --cluster" in result.output
