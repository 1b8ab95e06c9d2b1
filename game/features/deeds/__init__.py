"""Deeds: what people did, who saw it, who was told, and what they make of it (issue 23).

``DeedsFeature`` is the feature the registry lists: its tables are ``deeds`` and ``deed_knowers``, its
state a ``DeedBook``, its step records the turn's deeds and passes older ones on by gossip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.features.lazy import lazy_exports

if TYPE_CHECKING:
    from game.features.deeds.feature import DeedsFeature

# Imported on first use (game/features/lazy.py): the schema is read without the feature's rules.
_HOME = {
    "DeedsFeature": "game.features.deeds.feature",
}

__all__ = ["DeedsFeature"]


__getattr__ = lazy_exports(__name__, _HOME, globals())
