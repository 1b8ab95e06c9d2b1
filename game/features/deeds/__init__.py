"""Deeds: what people did, who saw it, who was told, and what they make of it (issue 23).

``DeedsFeature`` is the feature the registry lists: its tables are ``deeds`` and ``deed_knowers``, its
state a ``DeedBook``, its step records the turn's deeds and passes older ones on by gossip.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.features.deeds.feature import DeedsFeature

# Imported on first use (PEP 562): the package's ``schema`` (its migrations) is read by ``kith graph dump``
# and ``retrieve`` through ``game.registry.builtin_schema``, which must not load the feature's rules.
_HOME = {
    "DeedsFeature": "game.features.deeds.feature",
}

__all__ = ["DeedsFeature"]


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_HOME[name]), name)
    globals()[name] = value
    return value
