"""Configuration: schema, sources and the GPUConfigManager that merges and validates them."""
from .manager import ConfigError, GPUConfigManager, Setting, find_project_config
from .schema import KEYS, SCHEMA, Key

__all__ = ["ConfigError", "GPUConfigManager", "Setting", "find_project_config", "KEYS", "SCHEMA", "Key"]
