"""Knowledge and gossip: how what people know moves between them (issue 22's second feature package).

``GossipFeature`` is what the registry lists: its table is ``gossip_log`` (who told whom, the pair
cooldown), its state a ``log.WordLog``, its step passes word between people who meet (``rules``), and it
adds ``kith graph knows`` and ``kith graph gossip`` (``commands``). The names below are its public face:
deeds pass their word by the same pairing and settings.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.features.gossip.feature import GossipFeature, gossip_settings, tuned
    from game.features.gossip.rules import (
        ATTEMPTS_PER_EXCHANGE,
        GossipResult,
        GossipSettings,
        Talkers,
        candidate_pairs,
        everyone_meets,
        gossip_turn,
    )
    from game.store.told_log import Told, pair_key

# Imported on first use (PEP 562): the package's ``schema`` (its migrations) is read by ``kith graph dump``
# and ``retrieve`` through ``game.registry.builtin_schema``, which must not load the feature's rules.
_HOME = {
    "GossipFeature": "game.features.gossip.feature",
    "gossip_settings": "game.features.gossip.feature",
    "tuned": "game.features.gossip.feature",
    "ATTEMPTS_PER_EXCHANGE": "game.features.gossip.rules",
    "GossipResult": "game.features.gossip.rules",
    "GossipSettings": "game.features.gossip.rules",
    "Talkers": "game.features.gossip.rules",
    "candidate_pairs": "game.features.gossip.rules",
    "everyone_meets": "game.features.gossip.rules",
    "gossip_turn": "game.features.gossip.rules",
    "Told": "game.store.told_log",
    "pair_key": "game.store.told_log",
}

__all__ = ["ATTEMPTS_PER_EXCHANGE", "GossipFeature", "GossipResult", "GossipSettings", "Talkers", "Told", "candidate_pairs", "everyone_meets", "gossip_settings", "gossip_turn", "pair_key", "tuned"]


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(_HOME[name]), name)
    globals()[name] = value
    return value
