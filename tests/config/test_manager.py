"""GPUConfigManager: precedence across every source and each validation error."""
import pytest

from gpubatch.config import ConfigError, GPUConfigManager


def load(tmp_path, **kw):
    kw.setdefault("env", {})
    return GPUConfigManager.load(cwd=tmp_path, **kw)


def test_defaults_come_from_package(tmp_path):
    cfg = load(tmp_path)
    assert cfg.get("gpu.batch.max_size") == 1 << 20
    assert cfg.source("gpu.device") == "package default.toml"
    assert cfg.source("analyze.max_complexity") == "default"


def test_precedence_all_sources(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        "[tool.gpubatch.gpu.batch]\nmax_size = 10\nmin_size = 2\ninitial_size = 3\n"
        "[tool.gpubatch.gpu.memory]\ncache_size = 5\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    extra = tmp_path / "extra.toml"
    extra.write_text("[gpu.batch]\nmax_size = 20\nmin_size = 4\n")
    cfg = load(sub, config_file=extra, env={"GPUBATCH_GPU__BATCH__MAX_SIZE": "30", "OTHER": "x"},
               overrides={"gpu.batch.max_size": 40})
    assert cfg.get("gpu.memory.cache_size") == 5 and cfg.source("gpu.memory.cache_size").endswith("pyproject.toml")
    assert cfg.get("gpu.batch.initial_size") == 3
    assert cfg.get("gpu.batch.min_size") == 4 and cfg.source("gpu.batch.min_size") == str(extra)
    assert cfg.get("gpu.batch.max_size") == 40 and cfg.source("gpu.batch.max_size") == "command line"
    cfg = load(sub, config_file=extra, env={"GPUBATCH_GPU__BATCH__MAX_SIZE": "30"})
    assert cfg.get("gpu.batch.max_size") == 30
    assert cfg.source("gpu.batch.max_size") == "environment GPUBATCH_GPU__BATCH__MAX_SIZE"


def test_gpubatch_toml_wins_over_pyproject_in_same_folder(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gpubatch.gpu]\ncount = 2\n")
    (tmp_path / "gpubatch.toml").write_text("[gpu]\ncount = 3\n")
    assert load(tmp_path).get("gpu.count") == 3


def test_pyproject_without_table_is_skipped(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.gpubatch.gpu]\ncount = 2\n")
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert load(inner).get("gpu.count") == 2


@pytest.mark.parametrize("env, expected", [
    ({"GPUBATCH_GPU__ENABLED": "false"}, ("gpu.enabled", False)),
    ({"GPUBATCH_GPU__MEMORY__MAX_FRACTION": "0.5"}, ("gpu.memory.max_fraction", 0.5)),
    ({"GPUBATCH_ANALYZE__RULES__BANNED_CALLS": "os.system, pickle.loads"},
     ("analyze.rules.banned_calls", ["os.system", "pickle.loads"])),
    ({"GPUBATCH_ANALYZE__SEVERITY": '{E722 = "warning"}'}, ("analyze.severity", {"E722": "warning"})),
])
def test_env_values_are_typed(tmp_path, env, expected):
    assert load(tmp_path, env=env).get(expected[0]) == expected[1]


def error_of(tmp_path, text=None, **kw) -> str:
    if text is not None:
        (tmp_path / "gpubatch.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load(tmp_path, **kw)
    return str(info.value)


def test_unknown_key_suggests(tmp_path):
    msg = error_of(tmp_path, "[gpu.batch]\nmax_sise = 3\n")
    assert "gpu.batch.max_sise" in msg and "did you mean gpu.batch.max_size" in msg
    assert str(tmp_path / "gpubatch.toml") in msg


def test_wrong_type(tmp_path):
    msg = error_of(tmp_path, "[gpu.batch]\nmax_size = \"big\"\n")
    assert "gpu.batch.max_size = 'big'" in msg and "expected integer" in msg


def test_bool_is_not_an_integer(tmp_path):
    assert "expected integer" in error_of(tmp_path, "[gpu.batch]\nmax_size = true\n")


def test_out_of_range(tmp_path):
    msg = error_of(tmp_path, "[gpu.memory]\nmax_fraction = 1.5\n")
    assert "gpu.memory.max_fraction = 1.5" in msg and "from 0.1 to 1" in msg


def test_nan_is_in_no_range(tmp_path):  # TOML and the environment both read nan as a float
    assert "gpu.memory.max_fraction = nan" in error_of(tmp_path, "[gpu.memory]\nmax_fraction = nan\n")
    assert "from 0.1 to 1" in error_of(tmp_path, env={"GPUBATCH_GPU__MEMORY__MAX_FRACTION": "nan"})


def test_choice(tmp_path):
    assert "one of auto, cpu, cuda" in error_of(tmp_path, "[gpu]\ndevice = \"tpu\"\n")


def test_min_larger_than_max(tmp_path):
    msg = error_of(tmp_path, "[gpu.batch]\nmin_size = 100\nmax_size = 10\n")
    assert "min_size = 100" in msg and "max_size = 10" in msg and "larger than" in msg


def test_invalid_toml_has_line_and_column(tmp_path):
    msg = error_of(tmp_path, "[gpu]\ncount = = 2\n")
    assert "invalid TOML" in msg and "line 2" in msg and "column" in msg


def test_bad_env_value_names_variable(tmp_path):
    msg = error_of(tmp_path, env={"GPUBATCH_GPU__COUNT": "two"})
    assert "GPUBATCH_GPU__COUNT" in msg and "expected integer" in msg


def test_unknown_env_key(tmp_path):
    assert "did you mean gpu.count" in error_of(tmp_path, env={"GPUBATCH_GPU__CONT": "2"})


def test_missing_config_file(tmp_path):
    assert "not found" in error_of(tmp_path, config_file=tmp_path / "nope.toml")


def test_section_and_settings(tmp_path):
    cfg = load(tmp_path)
    assert cfg.section("gpu.batch")["min_size"] == 1
    assert all(s.doc for s in cfg.settings())


@pytest.mark.parametrize("address,ok", [("", True), ("local", True), ("local:4", True), ("tcp://host:8786", True),
                                        ("localhost:8786", True), ("tls://10.0.0.1:8786", True), ("x", False),
                                        ("local:two", False), ("tcp://host", False)])
def test_cluster_address_is_checked_when_the_config_is_read(tmp_path, address, ok):
    """A value Dask cannot use is a config error (exit 2) at load, as `config validate` says, not a crash later."""
    path = tmp_path / "c.toml"
    path.write_text(f'[cluster]\naddress = "{address}"\n')
    if ok:
        assert GPUConfigManager.load(str(path), env={}, discover=False).get("cluster.address") == address
    else:
        with pytest.raises(ConfigError, match="scheduler address with its port"):
            GPUConfigManager.load(str(path), env={}, discover=False)
