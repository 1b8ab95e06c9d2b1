"""The tellings feature: every telling of the last turn, and the commands that tell it another way.

Its table's SQL and form (``store``, ``delta``), its rules (``rules``), its meta commands (``commands``:
``retry``, ``continue``, ``/swipe``, ``/edit``, ``/edit-input``, ``/story``) and what the registry sees of
it (``feature``). The engine tells the turn again (``game.features.retelling.RetellReach``); the feature
decides the rest.
"""

from game.features.tellings.feature import TellingsFeature

__all__ = ["TellingsFeature"]
