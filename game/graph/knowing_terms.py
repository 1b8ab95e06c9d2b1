"""The words of who-knows-what that plain code reads: how a knower learned a fact, the knower meaning
everyone, and the confidence floor. Apart from ``game.graph.knowledge`` (whose rows are pydantic models)
so that retrieval, which reads only these, loads no pydantic in a one-shot ``kith graph retrieve``.
"""

from __future__ import annotations

from typing import Literal

How = Literal["authored", "witnessed", "told", "rumour"]

PUBLIC = "*"
"""The knower meaning everyone: what the whole town knows. Never a node ID (IDs are slugs)."""

FIRST_HAND: frozenset[How] = frozenset({"authored", "witnessed"})
"""Ways of knowing that are not hearsay: gossip retells these as ``told``, anything else as ``rumour``."""

DEFAULT_FLOOR = 0.3
"""The confidence below which a knower is treated as not knowing (scoped retrieval, ``knows``)."""
