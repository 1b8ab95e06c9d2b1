"""Deed gossip: word of what someone did passes between people who meet, as relation gossip does.

The same settings (``[gossip]``: exchanges a turn, pair cooldown, decay, floor, tie strength) and the same
seed; the pairs are the people placed on the stage and their strong ties, never the whole save. A teller
passes on the deed that most concerns the listener's own people, then the freshest. What never travels:
neutral acts (asking, talking, looking), a deed learned this very turn, a deed below the floor, and what
discretion keeps back (``discretion.withholds``). The dead and the absent (no place) neither tell nor hear.

An apology travels with the harm it answers: whoever passes on "you threatened Tibby" and knows you said
sorry for it says both in one exchange, even when the apology was this very turn (Tibby, forgiving you,
does not tell her grandfather only half of it). An apology alone is no news to someone who never heard of
the harm: it is told with it, or after it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from game.features.deeds.discretion import bought, close_people, withholds
from game.features.deeds.model import Deed, DeedBook, DeedHow, DeedKnowing, keep_better
from game.features.deeds.rules import APOLOGY, is_news
from game.features.gossip import ATTEMPTS_PER_EXCHANGE, GossipSettings, candidate_pairs
from game.graph.index import GraphIndex
from game.graph.models import Edge

Rank = tuple[int, int, int, str]


class _Standing:
    """The graph as the turn began, as relation gossip's pairing reads it (``Talkers``)."""

    def __init__(self, graph: GraphIndex) -> None:
        self.graph = graph

    def is_npc(self, node_id: str) -> bool:
        node = self.graph.nodes.get(node_id)
        return node is not None and node.type == "individual" and node_id not in self.graph.player_ids \
            and node.attributes.get("player") is not True

    def ties(self, node_id: str) -> Iterator[Edge]:
        for edge_id in self.graph.adjacent(node_id):
            edge = self.graph.open_edges.get(edge_id)
            if edge is not None:
                yield edge


def stage_pairs(graph: GraphIndex, places: Mapping[str, str], settings: GossipSettings,
                rng: random.Random) -> Iterator[tuple[str, str]]:
    """Pairs who can talk, in a seeded order: those sharing a place, then those strongly tied (both placed),
    chosen as relation gossip chooses them."""
    return candidate_pairs(_Standing(graph), places, settings, rng, placed_only=True)


def _reverse(text: str) -> str:
    return "".join(chr(0x10FFFF - ord(c)) for c in text)


def best_deed(book: DeedBook, learned: Mapping[tuple[str, str], DeedKnowing], graph: GraphIndex, teller: str,
              listener: str, settings: GossipSettings, turn: int) -> tuple[Rank, DeedKnowing] | None:
    """The deed ``teller`` would pass to ``listener`` now, as the listener would know it, with its rank."""
    threshold = settings.floor / settings.decay if settings.decay > 0 else float("inf")
    people = close_people(graph, listener, 0.0) | {listener}
    teller_close = close_people(graph, teller, settings.tie_strength)
    best: tuple[Rank, DeedKnowing] | None = None
    for deed_id in book.by_knower.get(teller, ()):
        deed = book.deeds.get(deed_id)
        row = book.knowing(deed_id, teller)
        if deed is None or row is None or not is_news(deed.act):
            continue
        if row.confidence < threshold or row.since_turn >= turn:
            continue  # word takes a turn to get about, and nothing is retold the turn it was heard
        confidence = round(row.confidence * settings.decay, 6)
        heard = learned.get((deed_id, listener)) or book.knowing(deed_id, listener)
        if confidence < settings.floor or (heard is not None and heard.confidence >= confidence):
            continue
        if withholds(deed, teller, teller_close, book) or bought(graph, deed, teller):
            continue
        if deed.act == APOLOGY and not _knows_harm(book, learned, graph, deed, listener):
            continue  # sorry for what? It comes with the harm (``amends_told``), or after it
        # About the listener's own people: what was done to them (the player's deeds touch everyone).
        relevant = int(deed.target in people or (deed.actor in people and deed.actor not in graph.player_ids))
        rank = (relevant, row.since_turn, deed.turn, _reverse(deed_id))
        if best is None or rank > best[0]:
            how: DeedHow = "told" if row.how == "seen" else "rumour"
            best = (rank, DeedKnowing(deed_id, listener, how, teller, confidence, turn))
    return best


def _knows_harm(book: DeedBook, learned: Mapping[tuple[str, str], DeedKnowing], graph: GraphIndex,
                apology: Deed, listener: str) -> bool:
    """Whether ``listener`` knows (or has just learned) a harm that ``apology`` answers."""
    known = {*book.by_knower.get(listener, ()), *(d for d, k in learned if k == listener)}
    for deed_id in known:
        harm = book.deeds.get(deed_id)
        if harm is not None and harm.actor == apology.actor and harm.valence == "harmful" \
                and apology in book.amends(harm):
            return True
    return False


def amends_told(book: DeedBook, learned: Mapping[tuple[str, str], DeedKnowing], graph: GraphIndex,
                told: DeedKnowing, teller: str) -> list[DeedKnowing]:
    """The apologies for the harm just ``told`` that ``teller`` knows and the listener does not: they go
    with it, as surely as the harm does (an apology seen this very turn included)."""
    harm = book.deeds.get(told.deed_id)
    if harm is None:
        return []
    found = []
    for apology in book.amends(harm):
        row = book.knowing(apology.deed_id, teller)
        heard = learned.get((apology.deed_id, told.knower)) or book.knowing(apology.deed_id, told.knower)
        if row is None or heard is not None:
            continue
        how: DeedHow = "told" if row.how == "seen" else "rumour"
        found.append(DeedKnowing(apology.deed_id, told.knower, how, teller, told.confidence, told.since_turn))
    return found


def deed_gossip(book: DeedBook, graph: GraphIndex, places: Mapping[str, str], turn: int,
                settings: GossipSettings, seed: int) -> list[DeedKnowing]:
    """One turn of deed gossip: the knower rows it adds, in the order they were told."""
    if settings.exchanges_per_turn <= 0 or not book.deeds:
        return []
    rng = random.Random(f"{seed}:deed-gossip:{turn}")
    learned: dict[tuple[str, str], DeedKnowing] = {}
    told: list[DeedKnowing] = []
    attempts = settings.exchanges_per_turn * ATTEMPTS_PER_EXCHANGE
    for a, b in stage_pairs(graph, places, settings, rng):
        if len(told) >= settings.exchanges_per_turn or attempts <= 0:
            break
        attempts -= 1
        last = book.last_told.get((a, b))
        if last is not None and turn - last < settings.pair_cooldown:
            continue
        directions = [(a, b), (b, a)]
        rng.shuffle(directions)
        offers = [(found, teller) for teller, listener in directions
                  if (found := best_deed(book, learned, graph, teller, listener, settings, turn)) is not None]
        if not offers:
            continue
        (_, row), teller = max(offers, key=lambda offer: offer[0][0])
        kept = keep_better(learned.get(row.key) or book.knowing(*row.key), row)
        if kept is row:
            learned[row.key] = row
            told.append(row)
            for amends in amends_told(book, learned, graph, row, teller):
                learned[amends.key] = amends
                told.append(amends)
    return told
