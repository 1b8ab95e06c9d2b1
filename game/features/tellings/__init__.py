"""The tellings feature: every telling of the last turn, and the commands that tell it another way.

Its table's SQL and form (``store``, ``delta``), its rules (``rules``), its meta commands (``commands``:
``retry``, ``continue``, ``/swipe``, ``/edit``, ``/edit-input``, ``/story``) and what the registry sees of
it (``feature``). The engine tells the turn again (``game.features.retelling.RetellReach``); the feature
decides the rest.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.features.tellings.feature import TellingsFeature

# Imported on first use (PEP 562): the package's ``schema`` (its migrations) is read by ``kith graph dump``
# and ``retrieve`` through ``game.registry.builtin_schema``, which must not load the feature's rules.
_HOME = {
    "TellingsFeature": "game.features.tellings.feature",
}

__all__ = ["TellingsFeature"]


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_HOME[name]), name)
    globals()[name] = value
    return value
