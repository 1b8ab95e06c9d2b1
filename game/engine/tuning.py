"""What each part of a turn is tuned by, read from the player's settings (``kith.toml``): one function per
part, and every caller (the session, the settings screen, the command line) builds them here."""

from __future__ import annotations

from collections.abc import Sequence

from game.config import Settings
from game.graph.metapaths import MetaPath, active_patterns
from game.graph.retrieve import RetrievalSettings
from game.mind.context import DEFAULT_SHARES, ContextSettings
from game.mind.memory import MemorySettings


def context_settings(settings: Settings) -> ContextSettings:
    c = settings.context
    return ContextSettings(budget=c.budget, time_limit_ms=c.time_limit_ms, shares={**DEFAULT_SHARES, **c.shares},
                           time_limits_ms=dict(c.time_limits_ms))


def memory_settings(settings: Settings) -> MemorySettings:
    return MemorySettings(capacity=settings.memory.capacity)


def retrieval_settings(settings: Settings, world: Sequence[MetaPath] = (),
                       discovered: Sequence[MetaPath] = ()) -> RetrievalSettings:
    """The walk's budget and the meta-paths in force: the world's, and the save's discovered ones if enabled."""
    r = settings.retrieval
    patterns = active_patterns(r.metapaths, world, discovered if r.discovered_patterns else ())
    return RetrievalSettings(max_hops=r.max_hops, hub_threshold=r.hub_threshold, max_fanout=r.max_fanout,
                             limit=r.limit, patterns=patterns)
