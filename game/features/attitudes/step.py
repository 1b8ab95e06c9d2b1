"""What one turn does to attitudes: the deltas it caused, the tier changes, and the graph kept in agreement.

The attitudes feature's step (``AttitudesFeature.after_turn``), registered after gossip, deeds and notes,
over the graph as the turn began and the turn's writes (so it sees what every narrator stated, and what
word reached whom):

1. the story's own changes (``WorldIR.attitudes``: acts done to people, a world's rules);
2. relations toward the player opened, renewed or ended this turn (a model's turn moves attitudes this
   way; so does a reaction's effect in the offline story);
3. news: a knower row about how the player treated one of someone's own people that reaches them this
   turn (told, rumour or seen) moves their attitude, once: the row exists afterwards, so it is never new
   again.

A tier change is returned for the story, the events and the graph: ``agreement`` is an upsert call (the
core runs it through the turn's extraction: ``game.graph.rule_calls``) that
closes the person's relations toward the player the new tier contradicts (no TRUSTS at HOSTILE or
UNFRIENDLY, no DISTRUSTS or FEARS at FRIENDLY and above) and opens one that agrees, versioned like any
change. It reads only the people the turn touched, never the whole graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from game.features.attitudes.model import Attitude, AttitudeBook, AttitudeView
from game.features.attitudes.rules import NEWS_HARM, NEWS_HELP, news_weight, relation_delta
from game.features.feature import Delta, TierChange
from game.graph.index import GraphIndex
from game.graph.models import Edge, Node
from game.graph.ports import GraphWrites
from game.graph.rule_calls import apply_rule_call
from game.graph.upsert import UpsertExecution
from game.store.rows import RowWrite
from game.world.ir import WorldIR
from game.world.tiers import Tier

NEGATIVE_TIERS: frozenset[Tier] = frozenset({"HOSTILE", "UNFRIENDLY"})
POSITIVE_TIERS: frozenset[Tier] = frozenset({"FRIENDLY", "ALLIED", "DEVOTED"})
TRUST_AT: dict[Tier, float] = {"ALLIED": 0.6, "DEVOTED": 0.8}
"""The TRUSTS a rise into a tier opens, when nothing positive toward the player is open. A rise into
FRIENDLY opens nothing: warmth is not yet trust, and a world's secrets wait on the TRUSTS its own
people give."""
HOSTILE_DISTRUST = -0.7
MIN_STRENGTH_CHANGE = 0.05


@dataclass(frozen=True)
class AttitudeTurn:
    """A turn's effect on attitudes, before it is stored."""

    attitudes: tuple[Attitude, ...] = ()
    """Every attitude the turn changed, as it is after the turn."""
    changes: tuple[TierChange, ...] = ()
    agreement: dict[str, Any] = field(default_factory=dict)
    """An upsert call (by name) that keeps the graph's relations toward the player in agreement; {} if none."""

    @property
    def rows(self) -> tuple[RowWrite, ...]:
        return tuple(a.row() for a in self.attitudes)


def after_turn(book: AttitudeBook, graph: GraphIndex, writes: GraphWrites, ir: WorldIR | None,
               turn: int, more: Iterable[tuple[str, Delta]] = (),
               covered: Iterable[tuple[str, str]] = ()) -> AttitudeTurn:
    """The attitudes ``writes`` (and the story's ``ir``) change at ``turn``; ``graph`` as the turn began.
    ``more``: changes the features worked out (word of a deed reaching someone), by node ID; ``covered``:
    the relation news (edge ID, knower) those changes stand for, which moves no one again."""
    if not graph.player_ids:
        return AttitudeTurn()
    view = AttitudeView(book, graph)
    deltas: dict[str, list[Delta]] = {}
    people: dict[str, Node] = {}

    def add(node: Node | None, delta: Delta) -> None:
        if node is None or node.type != "individual" or node.id in graph.player_ids or delta.is_zero():
            return
        people.setdefault(node.id, node)
        deltas.setdefault(node.id, []).append(delta)

    for change in (ir.attitudes or []) if ir is not None else []:
        add(view.person(change.name), Delta(change.trust, change.respect, change.friendliness, change.reason))
    for node, delta in _relation_deltas(graph, writes, turn):
        add(node, delta)
    for node, delta in _news(graph, writes, frozenset(covered)):
        add(node, delta)
    for npc_id, delta in more:
        add(_node(graph, writes, npc_id), delta)

    changed: list[Attitude] = []
    tiers: list[TierChange] = []
    for npc_id, found in deltas.items():
        before = book.of(graph, people[npc_id])
        after = before
        for delta in found:
            after = after.changed(delta, turn)
        changed.append(after)
        if after.tier != before.tier:
            tiers.append(TierChange(npc_id, after.name, before.tier, after.tier))
    agreement = agreement_call(graph, writes, changed, tiers)
    return AttitudeTurn(tuple(changed), tuple(tiers), agreement)


def _node(graph: GraphIndex, writes: GraphWrites, node_id: str) -> Node | None:
    return writes.nodes.get(node_id) or graph.nodes.get(node_id)


def _relation_deltas(graph: GraphIndex, writes: GraphWrites, turn: int) -> Iterable[tuple[Node | None, Delta]]:
    """Relations toward the player this turn opened, renewed (by their change of strength) or ended."""
    opened_keys: set[tuple[str, str, str]] = set()
    for edge_id in sorted(writes.created_edges):
        edge = writes.edges.get(edge_id)
        if edge is None or edge.target not in graph.player_ids or edge.invalid_at is not None:
            continue
        key = (edge.source, edge.target, edge.relation)
        opened_keys.add(key)
        previous = sum(e.strength for e in graph.open_between(*key) if e.id != edge.id)
        change = edge.strength - previous
        if abs(change) < MIN_STRENGTH_CHANGE:
            continue
        yield _node(graph, writes, edge.source), relation_delta(edge.relation, change, _reason(edge))
    for edge in writes.edges.values():
        if (edge.id in writes.created_edges or edge.invalid_at != turn or edge.target not in graph.player_ids
                or edge.id not in graph.open_edges or (edge.source, edge.target, edge.relation) in opened_keys):
            continue
        reason = f"no longer {edge.relation.lower().replace('_', ' ')} you"
        yield _node(graph, writes, edge.source), relation_delta(edge.relation, -edge.strength, reason)


def _reason(edge: Edge) -> str:
    return f"{edge.relation} {edge.strength:+.1f}: {edge.fact}"[:200]


def _news(graph: GraphIndex, writes: GraphWrites,
          covered: frozenset[tuple[str, str]]) -> Iterable[tuple[Node | None, Delta]]:
    """Word reaching someone, this turn, of how the player treated one of their own people (not what a
    deed they know of already moved them for: ``covered``)."""
    for (edge_id, knower), _row in sorted(writes.knowings.items()):
        if (edge_id, knower) in covered or knower in graph.player_ids or knower not in graph.nodes or knower in graph.knowers_of(edge_id):
            continue
        edge = writes.edges.get(edge_id) or graph.open_edges.get(edge_id)
        if edge is None or edge.invalid_at is not None or knower in (edge.source, edge.target):
            continue
        ends = {edge.source, edge.target}
        if not ends & graph.player_ids or ends <= graph.player_ids:
            continue
        other = next(iter(ends - graph.player_ids))
        tie = closeness(graph, knower, other)
        if tie <= 0:
            continue
        about = _node(graph, writes, other)
        who = about.name if about is not None else "someone"
        base = NEWS_HARM if edge.strength < 0 else NEWS_HELP
        reason = f"heard how you stand with {who}: {edge.fact}"[:200]
        yield graph.nodes[knower], Delta(*base, reason=reason).scaled(tie * news_weight(edge.strength))


def closeness(graph: GraphIndex, a: str, b: str) -> float:
    """How close ``a`` and ``b`` are: the strongest positive open relation between them (0: none). Word of
    the player reaches people by it, whether of a relation (here) or of a deed (the deeds feature)."""
    best = 0.0
    for edge_id in graph.adjacent(a):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and edge.other_end(a) == b and edge.strength > best:
            best = edge.strength
    return min(best, 1.0)


def agreement_call(graph: GraphIndex, writes: GraphWrites, changed: list[Attitude],
               tiers: list[TierChange]) -> dict[str, Any]:
    """One upsert call closing what each changed attitude's tier contradicts and opening what agrees."""
    player_id = sorted(graph.player_ids)[0]
    player = _node(graph, writes, player_id)
    if player is None:
        return {}
    rose = {c.npc_id for c in tiers if not c.fell}
    edges: list[dict[str, Any]] = []
    closes: list[dict[str, str]] = []
    for attitude in changed:
        tier = attitude.tier
        current = _open_toward_player(graph, writes, attitude.npc_id)
        if tier in NEGATIVE_TIERS:
            wrong = [e for e in current if e.strength > 0]
            has_agreeing = any(e.strength < 0 for e in current)
        elif tier in POSITIVE_TIERS:
            wrong = [e for e in current if e.strength < 0]
            has_agreeing = any(e.strength > 0 for e in current)
        else:
            continue
        for edge in wrong:
            closes.append({"sourceName": attitude.name, "targetName": player.name, "relation": edge.relation})
        if tier == "HOSTILE" and not has_agreeing:
            edges.append({"sourceName": attitude.name, "targetName": player.name, "relation": "DISTRUSTS",
                          "strength": HOSTILE_DISTRUST,
                          "fact": f"{attitude.name} has turned against {player.name} after what has passed between them."})
        elif tier in TRUST_AT and attitude.npc_id in rose and not has_agreeing:
            edges.append({"sourceName": attitude.name, "targetName": player.name, "relation": "TRUSTS",
                          "strength": TRUST_AT[tier],
                          "fact": f"{attitude.name} has come to trust {player.name} after what has passed between them."})
    call: dict[str, Any] = {}
    if edges:
        call["edges"] = edges[:12]
    if closes:
        call["closeEdges"] = closes[:12]
    return call


def _open_toward_player(graph: GraphIndex, writes: GraphWrites, npc_id: str) -> list[Edge]:
    """``npc_id``'s relations toward the player open after this turn's writes."""
    found: dict[str, Edge] = {}
    for edge_id in graph.adjacent(npc_id):
        edge = graph.open_edges.get(edge_id)
        if edge is not None and edge.source == npc_id and edge.target in graph.player_ids:
            found[edge.id] = edge
    for edge in writes.edges.values():
        if edge.source == npc_id and edge.target in graph.player_ids:
            if edge.invalid_at is None:
                found[edge.id] = edge
            else:
                found.pop(edge.id, None)
    return list(found.values())


async def set_by_hand(graph: GraphIndex, execution: UpsertExecution, before: Attitude,
                      after: Attitude) -> tuple[GraphWrites, tuple[TierChange, ...]]:
    """The graph writes that keep relations in agreement with an attitude set by hand (``/relationship``)."""
    changes = (TierChange(after.npc_id, after.name, before.tier, after.tier),) if after.tier != before.tier else ()
    call = agreement_call(graph, GraphWrites(), [after], list(changes))
    writes = await apply_rule_call(execution, GraphWrites(), call)
    return writes, changes
