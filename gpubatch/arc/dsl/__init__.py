"""The batched grid DSL: primitive families registered in REGISTRY (importing this package loads them)."""
from . import colour, compose, geometry, objects, other, parts, picks  # noqa: F401  (registration side effects)
from .registry import REGISTRY, Family, Param, Primitive

__all__ = ["REGISTRY", "Family", "Param", "Primitive"]
