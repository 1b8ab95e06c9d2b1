"""The tellings feature: every telling of the last turn, and the commands that tell it another way.

Its table's SQL and form (``store``, ``delta``), its rules (``rules``), its meta commands (``commands``:
``retry``, ``continue``, ``/swipe``, ``/edit``, ``/edit-input``, ``/story``) and what the registry sees of
it (``feature``). The engine tells the turn again (``game.features.retelling.RetellReach``); the feature
decides the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.features.lazy import lazy_exports

if TYPE_CHECKING:
    from game.features.tellings.feature import TellingsFeature

# Imported on first use (game/features/lazy.py): the schema is read without the feature's rules.
_HOME = {
    "TellingsFeature": "game.features.tellings.feature",
}

__all__ = ["TellingsFeature"]


__getattr__ = lazy_exports(__name__, _HOME, globals())
