"""Every config file we ship validates against the schema."""
from pathlib import Path

import pytest

from gpubatch.arc.programs import read_programs
from gpubatch.config import GPUConfigManager

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("path", sorted(ROOT.glob("configs/*.toml")) + [ROOT / "examples/pyproject-snippet.toml"],
                         ids=lambda p: p.name)
def test_shipped_config_validates(path, tmp_path):
    if path.name == "pyproject-snippet.toml":
        target = tmp_path / "pyproject.toml"
        target.write_text(path.read_text())
        path = target
    GPUConfigManager.load(path, env={}, discover=False)


def test_example_battery_parses():
    programs = read_programs(ROOT / "examples/battery.txt")
    assert len(programs) == 10  # every non-comment line, trailing comments stripped
    assert programs[-1].text == "rot90 | cmap(m=1>5 2>6 3>4)"
