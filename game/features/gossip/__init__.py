"""Knowledge and gossip: how what people know moves between them (issue 22's second feature package).

``GossipFeature`` is what the registry lists: its table is ``gossip_log`` (who told whom, the pair
cooldown), its state a ``log.WordLog``, its step passes word between people who meet (``rules``), and it
adds ``kith graph knows`` and ``kith graph gossip`` (``commands``). The names below are its public face:
deeds pass their word by the same pairing and settings.
"""

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

__all__ = ["ATTEMPTS_PER_EXCHANGE", "GossipFeature", "GossipResult", "GossipSettings", "Talkers", "Told",
           "candidate_pairs", "everyone_meets", "gossip_settings", "gossip_turn", "pair_key",
           "tuned"]
