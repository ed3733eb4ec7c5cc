"""The per-op statistics: every op's name stays whole in the table, however many columns it has; the run's phases."""
import json

from rich.console import Console

from gpubatch.engine.stats import StatsCollector, render_table


def test_op_names_are_not_cut_in_a_narrow_terminal():
    stats = StatsCollector()
    names = ["recolor_largest", "recolor_smallest", "search.next_level", "x"]
    for name in names:
        stats.for_op(name, "cpu").add_batch(10, 0.5)
    console = Console(width=100, record=True, color_system=None)
    console.print(render_table(stats))
    text = console.export_text()
    assert all(name in text for name in names)
    assert "recolor…" not in text


def test_phases_are_in_the_json_and_the_title():
    stats = StatsCollector()
    stats.mark("tasks loaded")
    stats.mark("search done")
    doc = json.loads(stats.to_json())
    assert [p["phase"] for p in doc["phases"]] == ["tasks loaded", "search done"]
    assert 0 <= doc["phases"][0]["at_s"] <= doc["phases"][1]["at_s"]
    console = Console(width=200, record=True, color_system=None)
    console.print(render_table(stats))
    assert "tasks loaded" in console.export_text()
