"""NPCs' attitudes toward the player (seed 003's trust, respect, friendliness and tiers) as a feature package.

``AttitudesFeature`` is what the registry lists. ``model`` is an attitude and the book of them (the
``attitudes`` table), ``rules`` how much what happens moves one, ``step`` what a turn does to them (and
the graph kept in agreement with their tiers), ``provider`` the narrator's RELATIONSHIP section,
``relationship`` what ``/relationship`` reads and says, and ``commands`` adds ``kith graph attitude``.
"""

from game.features.attitudes.feature import AttitudesFeature

__all__ = ["AttitudesFeature"]
