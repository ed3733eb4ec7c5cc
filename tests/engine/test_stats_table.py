"""The per-op statistics table: every op's name stays whole, however many columns the table has."""
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
