"""NPCs' attitudes toward the player (seed 003's trust, respect, friendliness and tiers) as a feature package.

``AttitudesFeature`` is what the registry lists. ``model`` is an attitude and the book of them (the
``attitudes`` table), ``rules`` how much what happens moves one, ``step`` what a turn does to them (and
the graph kept in agreement with their tiers), ``provider`` the narrator's RELATIONSHIP section,
``relationship`` what ``/relationship`` reads and says, and ``commands`` adds ``kith graph attitude``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.features.attitudes.feature import AttitudesFeature

# Imported on first use (PEP 562): the package's ``schema`` (its migrations) is read by ``kith graph dump``
# and ``retrieve`` through ``game.registry.builtin_schema``, which must not load the feature's rules.
_HOME = {
    "AttitudesFeature": "game.features.attitudes.feature",
}

__all__ = ["AttitudesFeature"]


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_HOME[name]), name)
    globals()[name] = value
    return value
