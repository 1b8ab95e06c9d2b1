"""Deeds: what people did, who saw it, who was told, and what they make of it (issue 23).

``DeedsFeature`` is the feature the registry lists: its tables are ``deeds`` and ``deed_knowers``, its
state a ``DeedBook``, its step records the turn's deeds and passes older ones on by gossip.
"""

from game.features.deeds.feature import DeedsFeature

__all__ = ["DeedsFeature"]
