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


def test_a_large_family_of_ops_shows_its_costliest_and_one_row_for_the_rest():
    """A battery times each of some 150 primitives ("arcdsl host: objects"...): the table shows a family's 12
    costliest rows and their rest in one, while the JSON keeps every row."""
    stats = StatsCollector()
    for i in range(20):
        stats.for_op(f"fam: p{i:02d}", "cpu").add_batch(i + 1, 0.01 * (i + 1))
    stats.for_op("fam: p00", "cuda").add_batch(5, 0.5)  # another device: a family of its own, under the limit
    stats.for_op("other", "cpu").add_batch(1, 0.1)
    console = Console(width=200, record=True, color_system=None)
    console.print(render_table(stats))
    text = console.export_text()
    rows = [line.split("│")[1:3] for line in text.splitlines() if "│ fam: p" in line]
    shown = [(name.strip(), device.strip()) for name, device in rows]
    costliest = [(f"fam: p{i:02d}", "cpu") for i in range(19, 7, -1)]  # costliest first
    assert shown == costliest + [("fam: p00", "cuda")] or shown == [("fam: p00", "cuda")] + costliest
    more = next(line for line in text.splitlines() if "fam: 8 more" in line)
    assert " 36 " in more  # items of the 8 folded: 1 + 2 + ... + 8
    assert "other" in text
    assert len(json.loads(stats.to_json())["ops"]) == 22
