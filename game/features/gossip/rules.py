"""Gossip's rules: word passing between people who meet, a few exchanges a turn, fading with each retelling.

Pure and deterministic: given the graph, what this turn already wrote, who stands where, the settings, a
seed and when each pair last talked, it returns the knower rows gossip adds and the log of who told whom.
Nothing here reads or writes a save; the feature's step (``feature.GossipFeature.after_turn``) hands the
result to the turn (so it commits with it and undo rewinds it) and ``kith graph gossip`` commits it on its own.

Cost follows the stage, not the graph: the pairs come from the people placed (those sharing a place) and
from their own open ties, and each teller's candidate facts are the rows it knows. A save of 100k
relation versions costs what a save of 1k costs when the same people stand on the same stage.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Protocol

from game.graph.index import GraphIndex
from game.graph.knowing_terms import FIRST_HAND, PUBLIC
from game.graph.knowledge import Knowing, keep_better
from game.graph.models import Edge
from game.graph.ports import GraphWrites
from game.store.told_log import Told, pair_key

ATTEMPTS_PER_EXCHANGE = 64
"""How many pairs may be tried for each exchange allowed: a crowd with nothing new to say stays cheap."""


@dataclass(frozen=True)
class GossipSettings:
    """How word travels (``kith.toml [gossip]``; ``tie_strength`` is fixed by the design)."""

    exchanges_per_turn: int = 3
    pair_cooldown: int = 3
    decay: float = 0.7
    floor: float = 0.3
    tie_strength: float = 0.5


@dataclass
class GossipResult:
    """What one turn of gossip adds: knower rows to store and the exchanges to log, in the order made."""

    knowings: dict[tuple[str, str], Knowing] = field(default_factory=dict)
    told: list[Told] = field(default_factory=list)


class _View:
    """The graph as it stands after this turn's pending writes and the gossip made so far this turn."""

    def __init__(self, graph: GraphIndex, pending: GraphWrites) -> None:
        self.graph = graph
        self.pending = pending
        self.extra: dict[tuple[str, str], Knowing] = {}
        self.by_knower: dict[str, set[str]] = {}
        for (edge_id, knower) in pending.knowings:
            self.by_knower.setdefault(knower, set()).add(edge_id)

    def edge(self, edge_id: str) -> Edge | None:
        """The open version ``edge_id`` (None when closed or unknown)."""
        edge = self.pending.edges.get(edge_id) or self.graph.open_edges.get(edge_id)
        return edge if edge is not None and edge.is_open else None

    def row(self, edge_id: str, knower: str) -> Knowing | None:
        key = (edge_id, knower)
        found = self.extra.get(key) or self.pending.knowings.get(key)
        if found is not None:
            return found
        return self.graph.knowers_of(edge_id).get(knower)

    def confidence(self, edge_id: str, knower: str) -> float:
        """How sure ``knower`` is of a version (a public version: everyone is sure)."""
        if self.row(edge_id, PUBLIC) is not None:
            return 1.0
        row = self.row(edge_id, knower)
        return 0.0 if row is None else row.confidence

    def known(self, knower: str) -> set[str]:
        """The versions ``knower`` has a row for (public ones excluded: everyone knows them already)."""
        return self.graph.known_by(knower) - self.graph.known_by(PUBLIC) | self.by_knower.get(knower, set())

    def learn(self, knowing: Knowing) -> None:
        self.extra[knowing.key] = knowing
        self.by_knower.setdefault(knowing.knower, set()).add(knowing.edge_id)

    def ties(self, node_id: str) -> Iterator[Edge]:
        """Open versions touching ``node_id``, the pending ones included."""
        seen: set[str] = set()
        for edge in self.pending.edges.values():
            if edge.is_open and node_id in (edge.source, edge.target):
                seen.add(edge.id)
                yield edge
        for edge_id in self.graph.adjacent(node_id):
            if edge_id not in seen and edge_id not in self.pending.edges:
                yield self.graph.open_edges[edge_id]

    def is_npc(self, node_id: str) -> bool:
        node = self.pending.nodes.get(node_id) or self.graph.nodes.get(node_id)
        return node is not None and node.type == "individual" and node_id not in self.graph.player_ids \
            and node.attributes.get("player") is not True


class Talkers(Protocol):
    """Who can pass word on, and the ties word travels by: what ``candidate_pairs`` reads of a graph."""

    def is_npc(self, node_id: str) -> bool: ...

    def ties(self, node_id: str) -> Iterable[Edge]: ...


def candidate_pairs(view: Talkers, places: Mapping[str, str], settings: GossipSettings,
                    rng: random.Random, *, placed_only: bool = False) -> Iterator[tuple[str, str]]:
    """Pairs of NPCs who can talk, in a seeded order: sharing a place first, then strong ties.

    Only the people in ``places`` and their own ties are looked at: never the whole graph. With
    ``placed_only`` a tie counts only when both people are placed (deed gossip: the absent hear nothing).
    """
    by_place: dict[str, list[str]] = {}
    for person, place in sorted(places.items()):
        if view.is_npc(person):
            by_place.setdefault(place, []).append(person)
    seen: set[tuple[str, str]] = set()
    groups = [people for _, people in sorted(by_place.items()) if len(people) > 1]
    rng.shuffle(groups)
    for people in groups:
        order = list(people)
        rng.shuffle(order)
        for i, a in enumerate(order):
            for b in order[i + 1:]:
                key = pair_key(a, b)
                if key not in seen:
                    seen.add(key)
                    yield key
    tied: set[tuple[str, str]] = set()
    for person in sorted({p for people in by_place.values() for p in people}):
        for edge in view.ties(person):
            other = edge.other_end(person)
            if other != person and abs(edge.strength) >= settings.tie_strength and view.is_npc(other) \
                    and (not placed_only or other in places):
                tied.add(pair_key(person, other))
    ordered = sorted(tied - seen)
    rng.shuffle(ordered)
    yield from ordered


def _keeps_quiet(view: _View, edge: Edge, own: set[str], teller: str, listener: str,
                 confessed: frozenset[int]) -> bool:
    """Discretion, in a game: nobody volunteers what happened to or was done by themselves (``own``: the
    teller and their close people) since the story began (a bribe taken, a debt paid in a crime, a secret
    someone now knows of them), unless they have confessed it. A relation of the teller's own that their
    confession made (opened at one of the ``confessed`` turns) they may speak of with the people it
    concerns: its other end and that person's own people (Morwen, having owned to the player that Davy
    pays her, talks of it with Davy's sister); to anyone else it stays unvolunteered (Pell, who confessed
    to the player, does not tell a child or his sister his crime). How they now stand *toward the player*
    is theirs to pass on ("Tibby is frightened of Wren"). (Deeds keep the close people's shame too:
    ``game.features.deeds.discretion``.)"""
    if edge.valid_at <= 0 or not {edge.source, edge.target} & own:
        return False
    if edge.valid_at in confessed and teller in (edge.source, edge.target):
        other = edge.other_end(teller)
        if other not in view.graph.player_ids and (listener == other or listener in _people_of(view, other)):
            return False
    return not (edge.source in own and edge.target in view.graph.player_ids)


def _people_of(view: _View, person: str) -> set[str]:
    """``person`` and everyone tied to them by an open relation: whose news matters to them."""
    return {person} | {edge.other_end(person) for edge in view.ties(person)}


Rank = tuple[int, int, float, str]


def best_fact(view: _View, teller: str, listener: str, settings: GossipSettings,
              turn: int, confessed: frozenset[int] = frozenset()) -> tuple[Rank, Knowing] | None:
    """The single most relevant fact ``teller`` can tell ``listener``, as the listener would know it,
    with its rank (bigger is more relevant). ``confessed``: the turns at which the teller owned to a
    secret of their own (``confessions``)."""
    threshold = settings.floor / settings.decay if settings.decay > 0 else float("inf")
    people = _people_of(view, listener)
    # Discretion covers the teller's close people too (a warm tie at the gossip's tie strength): Ambry does
    # not spread what was done to or by her brother, as the deeds' discretion keeps their deeds.
    own = {teller} | {e.other_end(teller) for e in view.ties(teller) if e.strength >= settings.tie_strength
                      and view.is_npc(e.other_end(teller))} if view.graph.player_ids else set()
    best: tuple[Rank, Knowing] | None = None
    for edge_id in view.known(teller):
        edge = view.edge(edge_id)
        row = view.row(edge_id, teller)
        # Only what was known before this turn travels: news takes a turn to get about (so who saw a turn
        # is exactly who knows it after that turn), and nothing is retold in the turn it was heard.
        if edge is None or row is None or row.confidence < threshold or row.since_turn >= turn:
            continue
        if own and _keeps_quiet(view, edge, own, teller, listener, confessed):
            continue
        confidence = round(row.confidence * settings.decay, 6)
        if confidence < settings.floor or view.confidence(edge_id, listener) >= confidence:
            continue
        relevant = int(edge.source in people or edge.target in people)
        # Highest first: about the listener's people, then the newest learning, then the strongest; the ID
        # makes the order total (reversed, so the comparison stays "bigger is better" throughout).
        rank = (relevant, row.since_turn, abs(edge.strength), _reverse(edge_id))
        if best is None or rank > best[0]:
            how = "told" if row.how in FIRST_HAND else "rumour"
            best = (rank, Knowing(edge_id=edge_id, knower=listener, how=how, source=teller,
                                  confidence=confidence, since_turn=turn))
    return best


def _reverse(text: str) -> str:
    """A key that sorts ``text`` backwards, so that among equals the smallest ID wins a max()."""
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


def gossip_turn(graph: GraphIndex, pending: GraphWrites, turn: int, places: Mapping[str, str],
                settings: GossipSettings, seed: int, last_talked: Mapping[tuple[str, str], int],
                confessed: Mapping[str, frozenset[int]] | None = None) -> GossipResult:
    """One turn of gossip after the turn's own writes (``pending``), as the design's "Gossip" says.

    ``places``: person node ID -> place ID for the people who can meet this turn. ``last_talked``: the
    last turn each pair (``pair_key``) gossiped; pairs that talked fewer than ``pair_cooldown`` turns ago
    are skipped. ``confessed``: by person, the turns at which they confessed a secret of their own
    (``confessions``), which frees them to tell what those confessions made. The same inputs give the same
    result (``random.Random(f"{seed}:gossip:{turn}")``).
    """
    owned = confessed or {}
    result = GossipResult()
    if settings.exchanges_per_turn <= 0:
        return result
    rng = random.Random(f"{seed}:gossip:{turn}")
    view = _View(graph, pending)
    attempts = settings.exchanges_per_turn * ATTEMPTS_PER_EXCHANGE
    for a, b in candidate_pairs(view, places, settings, rng):
        if len(result.told) >= settings.exchanges_per_turn or attempts <= 0:
            break
        attempts -= 1
        last = last_talked.get((a, b))
        if last is not None and turn - last < settings.pair_cooldown:
            continue
        # Whoever has the more relevant news speaks (fresh news about the other's people first); the
        # seeded order decides between equals.
        directions = [(a, b), (b, a)]
        rng.shuffle(directions)
        # The dead and the absent (no place this turn) tell nothing: a tie may carry word to them, never from them.
        offers = [(found, teller) for teller, listener in directions
                  if teller in places and (found := best_fact(view, teller, listener, settings, turn,
                                                    owned.get(teller, frozenset()))) is not None]
        if not offers:
            continue
        (_, learned), teller = max(offers, key=lambda offer: offer[0][0])
        kept = keep_better(view.row(learned.edge_id, learned.knower), learned)
        view.learn(kept)
        result.knowings[kept.key] = kept
        result.told.append(Told(turn, teller, learned.knower, learned.edge_id, learned.confidence))
    return result


def everyone_meets(graph: GraphIndex) -> dict[str, str]:
    """Places for a save with none (a graph made with ``kith graph``): every NPC in one place."""
    return {node_id: "*" for node_id, node in graph.nodes.items()
            if node.type == "individual" and node_id not in graph.player_ids}
