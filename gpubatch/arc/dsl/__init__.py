"""The batched grid DSL: primitive families registered in REGISTRY (importing this package loads them; the
order of the imports is the order of the families, which ties in the search's ranking follow)."""
from . import colour, compose, geometry, objects, other, parts, picks  # noqa: F401, I001  (registration)
from . import boxes, layout, moves, templates, paths, mirrors, rects, keyed, grown  # noqa: F401  (registered last)
from .registry import REGISTRY, Family, Param, Primitive

__all__ = ["REGISTRY", "Family", "Param", "Primitive"]
