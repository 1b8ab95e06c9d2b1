"""NPCs' attitudes toward the player (seed 003's trust, respect, friendliness and tiers) as a feature package.

``AttitudesFeature`` is what the registry lists. ``model`` is an attitude and the book of them (the
``attitudes`` table), ``rules`` how much what happens moves one, ``step`` what a turn does to them (and
the graph kept in agreement with their tiers), ``provider`` the narrator's RELATIONSHIP section,
``relationship`` what ``/relationship`` reads and says, and ``commands`` adds ``kith graph attitude``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.features.lazy import lazy_exports

if TYPE_CHECKING:
    from game.features.attitudes.feature import AttitudesFeature

# Imported on first use (game/features/lazy.py): the schema is read without the feature's rules.
_HOME = {
    "AttitudesFeature": "game.features.attitudes.feature",
}

__all__ = ["AttitudesFeature"]


__getattr__ = lazy_exports(__name__, _HOME, globals())
