"""Building graph models from values already known valid, without validating them again."""

from __future__ import annotations

from typing import Any, TypeVar

from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node

_Model = TypeVar("_Model", Node, Edge, Knowing)


def trusted(model: type[_Model], values: dict[str, Any]) -> _Model:
    """An instance from values already known valid (every field present), without validating them again.

    Built the way ``model_construct`` does but without its per-field default handling, which is most of
    its cost. For rows read back from a save (the tables re-check them on the way in) and for versions a
    bulk load derives from inputs already validated; a hundred thousand of either made validation the
    largest cost of opening a save or of an import.
    """
    instance = model.__new__(model)
    object.__setattr__(instance, "__dict__", values)
    object.__setattr__(instance, "__pydantic_fields_set__", set(values))
    object.__setattr__(instance, "__pydantic_extra__", None)
    object.__setattr__(instance, "__pydantic_private__", None)
    return instance
