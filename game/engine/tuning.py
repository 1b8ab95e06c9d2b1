"""What each part of a turn is tuned by, read from the player's settings (``kith.toml``): one function per
part, and every caller (the session, the settings screen, the command line) builds them here. A game's
turns are tuned by ``turn_tuning``, the one pipeline from settings to what a turn reads: opening a game and
the settings screen (``GameSession.swap_narrator``) both go through it, with the world's and the save's
meta-paths, so changing a setting mid-game cannot lose them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from game.config import Settings
from game.features.memories.book import MemorySettings
from game.graph.metapaths import MetaPath, active_patterns
from game.graph.retrieve import RetrievalSettings
from game.mind.context import DEFAULT_SHARES, ContextSettings
from game.registry import Registry, default_registry


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


@dataclass(frozen=True)
class TurnTuning:
    """Everything a told turn is tuned by, built in one place (``turn_tuning``)."""

    seed: int = 0
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)
    features: Mapping[str, Any] = field(default_factory=dict)
    """Each feature's own tuning by name (``Registry.tunings``); a feature missing here takes its defaults."""
    context: ContextSettings = field(default_factory=ContextSettings)


def turn_tuning(settings: Settings, world: Sequence[MetaPath] = (), discovered: Sequence[MetaPath] = (),
                registry: Registry | None = None) -> TurnTuning:
    """A game's turn tuning from ``settings``, with the world's meta-paths, the save's ``discovered`` ones and
    each registered feature's own tuning."""
    return TurnTuning(settings.seed, retrieval_settings(settings, world, discovered),
                      (registry or default_registry()).tunings(settings), context_settings(settings))
