"""Knowledge and gossip: how what people know moves between them (issue 22's second feature package).

``GossipFeature`` is what the registry lists: its table is ``gossip_log`` (who told whom, the pair
cooldown), its state a ``log.WordLog``, its step passes word between people who meet (``rules``), and it
adds ``kith graph knows`` and ``kith graph gossip`` (``commands``). The names below are its public face:
deeds pass their word by the same pairing and settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.features.lazy import lazy_exports

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

# Imported on first use (game/features/lazy.py): the schema is read without the feature's rules.
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


__getattr__ = lazy_exports(__name__, _HOME, globals())
