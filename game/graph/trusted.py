"""Building graph models from values already known valid, without validating them again."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node

_Model = TypeVar("_Model", Node, Edge, Knowing)

# A model's slots, set through their descriptors: ``object.__setattr__`` looks each name up on every
# call, which was more than half the cost of building a model this way.
_set_dict = object.__setattr__
_set_fields = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


def trusted(model: type[_Model], values: dict[str, Any]) -> _Model:
    """An instance from values already known valid (every field present), without validating them again.

    Built the way ``model_construct`` does but without its per-field default handling, which is most of
    its cost. For rows read back from a save (the tables re-check them on the way in) and for versions a
    bulk load derives from inputs already validated; a hundred thousand of either made validation the
    largest cost of opening a save or of an import.
    """
    instance = model.__new__(model)
    _set_dict(instance, "__dict__", values)
    _set_fields(instance, set(values))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance
