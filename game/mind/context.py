"""The context orchestrator: every provider's section, each within its time limit and its share of one
token budget, composed into what the narrator is told about the people of a turn.

A provider that runs out of time or fails is left out and the turn goes on; the omission is kept with
the context (``/mind`` shows it). Providers run one after another, each timed on its own, so one slow
provider never eats another's time and the figures say who was slow. Lines beyond a section's share are
dropped lightest first, and a share one section does not need flows to the others
(``game.mind.context_budget``). The result, ``ComposedContext``, is what both narrators read: the model
as the prompt's ``[MEMORY]``/``[RELATIONSHIP]``/``[KNOWLEDGE]`` lines, the offline story engine through
``about``/``facts``; the engine stores it with the turn so ``/mind`` and ``/why`` can show it later.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from game.mind.context_budget import TokenCount, allot, estimate_tokens, line_cost, refill, trim
from game.mind.sections import ContextProvider, ContextQuery, Section, SectionLine

DEFAULT_BUDGET = 2000
"""Tokens the whole context may take in a prompt, every section together."""
DEFAULT_TIME_LIMIT_MS = 250.0
"""How long one provider may take before it is left out of the turn. Generous on purpose: the providers
read memory, and a busy machine must not make the offline story differ from run to run."""
DEFAULT_SHARES: Mapping[str, float] = {
    "MEMORY": 0.30, "RELATIONSHIP": 0.15, "KNOWLEDGE": 0.20, "GRAPH": 0.20, "SCENE": 0.15,
}
"""Each section's share of the budget, by its name; normalised over the sections a turn has."""
OTHER_SHARE = 0.10
"""The share of a section the defaults do not name (a world's or a test's own provider)."""
MAX_LINES = 5000
"""Lines a section may hand in at most (200 memories for each of 25 people); the rest are never weighed,
so a provider gone wrong costs a bounded time."""
MAX_LINE_CHARS = 2000

CONTEXT_TABLE = "turn_context"
"""Where each turn's composed context is kept (migration: the turn_context table), for ``/mind``."""

Fact = str | int | float


@dataclass(frozen=True)
class ContextSettings:
    """The budget and the limits the orchestrator works within (``[context]`` in ``kith.toml``)."""

    budget: int = DEFAULT_BUDGET
    time_limit_ms: float = DEFAULT_TIME_LIMIT_MS
    shares: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_SHARES))
    time_limits_ms: Mapping[str, float] = field(default_factory=dict)
    """Per-section time limits that differ from ``time_limit_ms``."""

    def share(self, name: str) -> float:
        return self.shares.get(name, DEFAULT_SHARES.get(name, OTHER_SHARE))

    def time_limit(self, name: str) -> float:
        return self.time_limits_ms.get(name, self.time_limit_ms)


@dataclass(frozen=True)
class ComposedSection:
    """One section as the narrator gets it: the lines kept (in the provider's order) and what was cut."""

    name: str
    lines: tuple[SectionLine, ...]
    tokens: int = 0
    """Tokens the kept lines cost."""
    allotted: int = 0
    """Tokens the budget gave this section (its share plus what others left)."""
    dropped: int = 0
    """Lines left out for want of budget."""
    ms: float = 0.0


@dataclass(frozen=True)
class Omission:
    """A provider left out of a turn, and why (it ran out of time, or it failed)."""

    name: str
    reason: str


@dataclass(frozen=True)
class ComposedContext:
    """What the narrator is told this turn, section by section, and which providers were left out."""

    turn: int = 0
    budget: int = DEFAULT_BUDGET
    sections: tuple[ComposedSection, ...] = ()
    omitted: tuple[Omission, ...] = ()
    ms: float = 0.0
    """How long composing took, every provider together."""
    names: Mapping[str, str] = field(default_factory=dict)
    """Node ID -> name of every person a kept line is about, so a reader that knows people by name (the
    story engine) finds their lines."""

    @property
    def tokens(self) -> int:
        return sum(section.tokens for section in self.sections)

    def section(self, name: str) -> ComposedSection | None:
        return next((section for section in self.sections if section.name == name), None)

    def lines(self, name: str, about: str | None = None) -> tuple[SectionLine, ...]:
        """The kept lines of section ``name`` (none when it is missing), only those about ``about`` if given."""
        section = self.section(name)
        if section is None:
            return ()
        return tuple(line for line in section.lines if about is None or concerns(line, about))

    def about(self, node_id: str) -> dict[str, tuple[SectionLine, ...]]:
        """Section name -> the lines about one person (only sections that have some), in section order."""
        found = {section.name: self.lines(section.name, node_id) for section in self.sections}
        return {name: lines for name, lines in found.items() if lines}

    def facts(self, name: str, about: str) -> list[Mapping[str, Fact]]:
        """The typed facts of section ``name``'s lines about one person: what the offline engine reads."""
        return [line.facts for line in self.lines(name, about)]

    def person(self, name: str) -> str | None:
        """The node ID of the person called ``name`` (any case) among the context's people, or None."""
        wanted = name.casefold()
        return next((node_id for node_id, known in self.names.items() if known.casefold() == wanted), None)

    def about_named(self, name: str) -> dict[str, tuple[SectionLine, ...]]:
        """``about`` by a person's name: what the story engine asks (it knows characters by name)."""
        node_id = self.person(name)
        return self.about(node_id) if node_id is not None else {}

    def people(self) -> list[str]:
        """Every person some kept line is about, in the order they first appear."""
        seen: dict[str, None] = {}
        for section in self.sections:
            for line in section.lines:
                for person in _people_of(line):
                    seen.setdefault(person)
        return list(seen)

    # ------------------------------------------------------------------------------ stored with the turn

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn, "budget": self.budget, "ms": self.ms,
            "sections": [{
                "name": s.name, "tokens": s.tokens, "allotted": s.allotted, "dropped": s.dropped, "ms": s.ms,
                "lines": [{"about": line.about, "text": line.text, "weight": line.weight, "facts": dict(line.facts)}
                          for line in s.lines],
            } for s in self.sections],
            "omitted": [{"name": o.name, "reason": o.reason} for o in self.omitted],
            "names": dict(self.names),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ComposedContext:
        """A context read back from a save; raises ``KeyError``/``TypeError``/``ValueError`` when malformed."""
        sections = tuple(ComposedSection(
            name=str(s["name"]), tokens=int(s["tokens"]), allotted=int(s["allotted"]), dropped=int(s["dropped"]),
            ms=float(s["ms"]),
            lines=tuple(SectionLine(about=str(line["about"]), text=str(line["text"]), weight=float(line["weight"]),
                                    facts=_scalars(line["facts"])) for line in s["lines"]),
        ) for s in data["sections"])
        omitted = tuple(Omission(str(o["name"]), str(o["reason"])) for o in data["omitted"])
        names = {str(key): str(value) for key, value in dict(data.get("names", {})).items()}
        return cls(int(data["turn"]), int(data["budget"]), sections, omitted, float(data["ms"]), names)


def concerns(line: SectionLine, person: str) -> bool:
    """Whether ``line`` is about ``person``: its own subject, or, for a line about the scene as a whole
    (``about`` empty, such as a relation between two people), one of the people its facts name."""
    return person in _people_of(line)


def _people_of(line: SectionLine) -> list[str]:
    if line.about:
        return [line.about]
    return [str(line.facts[key]) for key in ("source", "target") if isinstance(line.facts.get(key), str)]


def _scalars(facts: Any) -> dict[str, Fact]:
    if not isinstance(facts, Mapping):
        raise TypeError("a line's facts are not a table")
    return {str(key): value for key, value in facts.items() if isinstance(value, str | int | float)}


# ------------------------------------------------------------------------------------------ composing


@dataclass(frozen=True)
class _Gathered:
    section: Section
    ms: float


async def _gather(query: ContextQuery, provider: ContextProvider, limit_ms: float) -> _Gathered | str:
    """The provider's section, or why it is left out."""
    started = time.perf_counter()
    try:
        section = await asyncio.wait_for(provider.provide(query), timeout=limit_ms / 1000)
    except TimeoutError:
        return f"took longer than {limit_ms:g} ms"
    except Exception as error:
        return f"failed ({type(error).__name__}: {error})"
    ms = round((time.perf_counter() - started) * 1000, 3)
    if ms > limit_ms:
        # Work that never awaited cannot be interrupted; it still ran out of time and is left out.
        return f"took longer than {limit_ms:g} ms ({ms:g} ms)"
    if not isinstance(section, Section):
        return f"failed (gave {type(section).__name__}, not a section)"
    return _Gathered(section, ms)


def _usable(section: Section) -> list[SectionLine]:
    """The section's lines a budget can weigh: bounded in number and length, with finite weights."""
    usable = []
    for line in section.lines[:MAX_LINES]:
        if not isinstance(line, SectionLine) or not line.text.strip():
            continue
        weight = line.weight if line.weight == line.weight and abs(line.weight) != float("inf") else 0.0
        text = line.text if len(line.text) <= MAX_LINE_CHARS else line.text[: MAX_LINE_CHARS - 1] + "…"
        usable.append(SectionLine(line.about, text, weight, dict(line.facts)))
    return usable


async def compose(query: ContextQuery, providers: Iterable[ContextProvider], settings: ContextSettings | None = None,
                  count: TokenCount = estimate_tokens) -> ComposedContext:
    """Ask every provider for its section and fit them all into ``settings.budget`` tokens.

    ``count`` is how tokens are counted: the plain estimate, or a model narrator's calibrated one.
    """
    settings = settings or ContextSettings()
    started = time.perf_counter()
    gathered: dict[str, tuple[list[SectionLine], float]] = {}
    omitted: list[Omission] = []
    for provider in providers:
        name = provider.name
        if name in gathered:
            omitted.append(Omission(name, "another provider already gave this section"))
            continue
        got = await _gather(query, provider, settings.time_limit(name))
        if isinstance(got, str):
            omitted.append(Omission(name, got))
            continue
        gathered[name] = (_usable(got.section), got.ms)
    costs = {name: [line_cost(name, line.text, count) for line in lines] for name, (lines, _ms) in gathered.items()}
    weights = {name: [line.weight for line in lines] for name, (lines, _ms) in gathered.items()}
    allotted = allot(settings.budget, {name: sum(c) for name, c in costs.items()},
                     {name: settings.share(name) for name in gathered})
    kept = {name: trim(costs[name], weights[name], allotted[name]) for name in gathered}
    spare = settings.budget - sum(sum(costs[name][i] for i in kept[name]) for name in gathered)
    for name in sorted(gathered, key=lambda n: -settings.share(n)):
        if len(kept[name]) < len(costs[name]) and spare > 0:
            kept[name], spare = refill(costs[name], weights[name], kept[name], spare)
    sections = []
    for name, (lines, ms) in gathered.items():
        chosen = kept[name]
        used = sum(costs[name][i] for i in chosen)
        sections.append(ComposedSection(name, tuple(lines[i] for i in chosen), used, max(allotted[name], used),
                                        len(lines) - len(chosen), ms))
    composed = ComposedContext(query.turn, settings.budget, tuple(sections), tuple(omitted))
    names = {person: query.graph.nodes[person].name for person in composed.people() if person in query.graph.nodes}
    return replace(composed, names=names, ms=round((time.perf_counter() - started) * 1000, 3))
