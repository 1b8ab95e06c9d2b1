"""Forming NPCs' memories of the player from one turn's facts: the rows a turn writes to the memory tables.

Who remembers what:
- the people on stage witness the player's acts (``IRAct``s the offline story states; for a model's turn,
  the World IR's relations between the player and someone): the one acted on remembers it as done to
  them, the others as done to someone else, a little less important;
- whoever learns this turn, by telling or gossip, how someone stands with the player (a ``told`` or
  ``rumour`` knower row of a relation from that person to the player) remembers it as heard, with lower
  importance (``MemorySettings.heard_factor``);
- whoever hears of something the player *did* (a feature's ``HeardDeed``: "heard that Wren threatened
  Tibby (from Maud)") remembers the deed as heard; the relation the deed made, reaching them this turn
  too, is then the same news and not a second memory;
- what an NPC said is kept in ``npc_said``: their first meeting with the player, each secret revealed,
  the last turn they brought a memory up. It never decays and is never evicted.
Memories recalled this turn (brought up in a reply, or among the few the MEMORY section gives the
narrator for the people on stage) are strengthened. Then each NPC who formed a memory is kept within
bounds (eviction by relevance) and their old related memories are consolidated (``consolidate``).

Everything is computed on a copy of the book and returned as ``RowWrite``s: the turn stores them in its
one transaction and the book in play follows only what was stored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from game.features.feature import HeardDeed
from game.features.memories.book import Memory, MemoryBook, said_row
from game.features.memories.consolidate import Summarizer, consolidate
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites
from game.store.rows import RowWrite
from game.world.ir import IRAct, IRRelation, WorldIR

CONTEXT_RECALL = 3
"""Per person on stage, how many of their most relevant memories the context gives the narrator (and so
recalls). ``game.features.memories.provider`` shows the same ones."""
CONTEXT_RECALL_EVERY = 5
"""A memory kept in the context turn after turn counts as used again only after this many turns: being
in view is not being brought up, and it keeps a long scene from rewriting the same rows every turn."""


@dataclass(frozen=True)
class ActMemory:
    """How the player's act is remembered: a sentence, how much it matters, how it felt."""

    text: str
    importance: float
    valence: float
    tags: tuple[str, ...]
    own_valence: float | None = None
    """How it felt to the one it was done to, when not as it looked to others: a bribe is a wrong to those
    who watch, but to the one offered it is what their answer made it (Maud, paid, pours you a drink), and
    their attitude, not a grievance, says so."""


ACTS: dict[str, ActMemory] = {
    "help": ActMemory("{player} helped {target}.", 0.6, 0.6, ("help", "kind")),
    "threaten": ActMemory("{player} threatened {target}.", 0.85, -0.8, ("threaten", "cruel")),
    "accuse": ActMemory("{player} accused {target}{about}.", 0.6, -0.4, ("accuse",)),
    "lie": ActMemory("{player} lied to {target}{about}.", 0.5, -0.5, ("lie",)),
    "warn": ActMemory("{player} warned {target}{about}.", 0.5, 0.3, ("warn",)),
    "give": ActMemory("{player} gave {target} {detail}.", 0.55, 0.5, ("give", "kind")),
    "show": ActMemory("{player} showed {target} {detail}.", 0.4, 0.0, ("show",)),
    "bribe": ActMemory("{player} offered {target} {detail} as a bribe.", 0.6, -0.3, ("bribe",), own_valence=0.0),
    "follow": ActMemory("{player} followed {target}.", 0.3, -0.1, ("follow",)),
    "ask": ActMemory("{player} asked {target} about {detail}.", 0.2, 0.0, ("ask",)),
    "tell": ActMemory("{player} told {target} about {detail}.", 0.3, 0.1, ("tell",)),
    "steal": ActMemory("{player} stole {detail} from {target}.", 0.8, -0.7, ("steal", "cruel")),
    "apologize": ActMemory("{player} said sorry to {target} for {detail}.", 0.5, 0.4, ("apologize", "kind")),
}
"""The acts remembered (talking is remembered as the first meeting only)."""
WITNESS_FACTOR = 0.8
"""A bystander's memory of an act is this much as important as the memory of the one it was done to."""
PRIVATE_ACTS = frozenset({"ask", "tell"})
"""Acts only the one spoken to remembers: a question asked is nobody else's business."""


HEARD_DEED_IMPORTANCE = 0.7
"""A deed heard of, before ``heard_factor``: what you did is weightier news than how someone stands."""


@dataclass
class _Planner:
    """The rows of one turn, applied to a scratch book as they are made, so later steps see earlier ones."""

    book: MemoryBook
    turn: int
    rows: list[RowWrite] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)

    def write(self, row: RowWrite) -> None:
        self.rows.append(row)
        self.book.apply([row])

    def remember(self, npc: str, text: str, importance: float, valence: float, tags: Sequence[str],
                 heard: bool = False, about: str = "") -> None:
        text = " ".join(text.split())[:400]
        if any(m.text == text and (m.turn == self.turn or heard) for m in self.book.of(npc)):
            return  # one thing seen twice in a turn, or the same news heard again, is one memory
        memory = Memory(npc=npc, seq=self.book.next_seq(npc), kind="episodic", text=text, turn=self.turn,
                        importance=_unit(importance), valence=max(-1.0, min(1.0, valence)), tags=tuple(tags),
                        strength=1.0, last_used=self.turn, heard=heard, about=about)
        self.write(memory.row())
        self.touched.add(npc)

    def said(self, npc: str, key: str) -> None:
        if self.book.said_turn(npc, key) != self.turn:
            self.write(said_row(npc, key, self.turn))

    def recall(self, npc: str, seq: int, every: int = 1) -> None:
        memory = self.book.memories.get(npc, {}).get(seq)
        if memory is not None and self.turn - memory.last_used >= every:
            self.write(self.book.recalled(memory, self.turn).row())


async def memory_rows(book: MemoryBook, graph: GraphIndex, writes: GraphWrites, ir: WorldIR | None, turn: int,
                      summarizer: Summarizer | None = None, deeds: Sequence[HeardDeed] = (),
                      covered: Iterable[tuple[str, str]] = ()) -> list[RowWrite]:
    """The memory rows turn ``turn`` writes. ``ir`` is None when the turn has no World IR (nothing was
    seen, though word may still travel). ``deeds``: word of the player's deeds heard this turn;
    ``covered``: the relation news (``(edge ID, knower)``) those deeds stand for."""
    planner = _Planner(book.copy(), turn)
    people = _People(graph, writes)
    player = people.player()
    if player is None:
        return []  # a bare graph, not a game: nobody to remember
    player_name = player.name
    if ir is not None:
        present = [i for i in await people.ids(ir.characters_present) if i != player.id]
        if ir.acts is not None:
            await _from_acts(planner, people, ir.acts, present, player_name)
        else:
            await _from_relations(planner, people, ir.relations, present, player)
        for npc in present:
            for memory in planner.book.relevant(npc, turn, CONTEXT_RECALL):
                planner.recall(npc, memory.seq, every=CONTEXT_RECALL_EVERY)
    await _heard(planner, graph, writes, player, set(covered))
    _heard_deeds(planner, graph, writes, deeds)
    for npc in sorted(planner.touched):
        _keep_within_bounds(planner, npc)
        for row in await consolidate(planner.book, npc, turn, player_name, summarizer):
            planner.write(row)
    return planner.rows


async def _from_acts(planner: _Planner, people: _People, acts: Sequence[IRAct], present: list[str],
                     player: str) -> None:
    for act in acts:
        found = await people.ids([act.character])
        if not found:
            continue
        npc = found[0]
        name = people.name(npc)
        if act.kind == "met":
            if not planner.book.has_said(npc, "met"):
                planner.said(npc, "met")
                planner.remember(npc, f"Met {player} for the first time.", 0.3, 0.1, ("met",))
        elif act.kind == "revealed":
            subject, _, _key = act.detail.rpartition(":")
            if planner.book.has_said(npc, f"revealed:{act.detail}"):
                continue
            planner.said(npc, f"revealed:{act.detail}")
            what = act.text or act.detail
            if normalize_name(subject) == normalize_name(name):
                planner.remember(npc, f"Confessed to {player}: {what}", 0.9, 0.0, ("confession", "secret"))
            else:
                planner.remember(npc, f"Told {player} about {subject}: {what}", 0.6, 0.0, ("told-secret",))
        elif act.kind == "recalled":
            if act.detail.isdigit():
                planner.recall(npc, int(act.detail))
            planner.said(npc, "recalled")
        elif act.kind == "act" and act.verb in ACTS:
            how = ACTS[act.verb]
            witnesses = [npc] if act.verb in PRIVATE_ACTS else [npc, *(w for w in present if w != npc)]
            for witness in witnesses:
                own = witness == npc
                text = how.text.format(player=player, target="me" if own else name, detail=act.detail or "something",
                                       about=f" of {act.detail}" if act.detail else "")
                valence = how.own_valence if own and how.own_valence is not None else how.valence
                planner.remember(witness, text, how.importance * (1.0 if own else WITNESS_FACTOR), valence,
                                 how.tags, about="" if own else npc)


async def _from_relations(planner: _Planner, people: _People, relations: Sequence[IRRelation],
                          present: list[str], player: Node) -> None:
    """A model's turn: what the people present saw stated between the player and someone."""
    for relation in relations:
        ends = await people.ids([relation.source, relation.target])
        if len(ends) != 2 or player.id not in ends or ends[0] == ends[1]:
            continue
        other = ends[1] if ends[0] == player.id else ends[0]
        if other not in present:
            continue  # stated of someone elsewhere (word arriving, a beat up the hill): nobody here saw it
        for witness in present:
            own = witness == other
            planner.remember(witness, relation.fact, (0.3 + 0.5 * abs(relation.strength)) * (1 if own else WITNESS_FACTOR),
                             relation.strength, (relation.relation.lower(),), about="" if own else other)


async def _heard(planner: _Planner, graph: GraphIndex, writes: GraphWrites, player: Node,
                 covered: set[tuple[str, str]]) -> None:
    """Those told this turn how someone stands with the player remember it as heard (unless a deed they
    heard of stands for it: ``covered``)."""
    settings = planner.book.settings
    for row in sorted(writes.knowings.values(), key=lambda r: (r.knower, r.edge_id)):
        if row.how not in ("told", "rumour") or row.knower in graph.player_ids or (row.edge_id, row.knower) in covered:
            continue
        edge = writes.edges.get(row.edge_id) or graph.open_edges.get(row.edge_id)
        if edge is None or edge.target not in graph.player_ids or edge.source == row.knower:
            continue
        knower, about = _node(graph, writes, row.knower), _node(graph, writes, edge.source)
        if knower is None or about is None or knower.type != "individual" or about.type != "individual":
            continue
        teller = _node(graph, writes, row.source or "")
        told_by = teller.name if teller is not None else "someone"
        importance = (0.3 + 0.5 * abs(edge.strength)) * settings.heard_factor * (0.8 if row.how == "rumour" else 1.0)
        planner.remember(knower.id, f"Heard from {told_by}: {edge.fact}", importance, edge.strength,
                         (edge.relation.lower(), "heard"), heard=True, about=about.id)


def _heard_deeds(planner: _Planner, graph: GraphIndex, writes: GraphWrites, deeds: Sequence[HeardDeed]) -> None:
    """Those who heard of a deed of the player's remember it as heard, and from whom."""
    factor = planner.book.settings.heard_factor
    for heard in deeds:
        knower = _node(graph, writes, heard.npc)
        if knower is None or knower.type != "individual" or heard.npc in graph.player_ids:
            continue
        teller = _node(graph, writes, heard.teller) if heard.teller else None
        source = f" (from {teller.name})" if teller is not None else ""
        planner.remember(heard.npc, f"Heard that {heard.sentence.rstrip('.')}{source}.",
                         HEARD_DEED_IMPORTANCE * factor * (0.8 if heard.rumour else 1.0), heard.valence,
                         (*heard.tags, "heard"), heard=True, about=heard.about)


def _keep_within_bounds(planner: _Planner, npc: str) -> None:
    """Forget the least relevant memories past the capacity (``MemoryBook.over_capacity``)."""
    for memory in planner.book.over_capacity(npc, planner.turn):
        planner.write(memory.deleted())


def _node(graph: GraphIndex, writes: GraphWrites, node_id: str) -> Node | None:
    return writes.nodes.get(node_id) or graph.nodes.get(node_id)


def _unit(value: float) -> float:
    return max(0.0, min(1.0, value))


class _People:
    """Names to node IDs over the graph and the nodes this turn made (individuals only)."""

    def __init__(self, graph: GraphIndex, writes: GraphWrites) -> None:
        self.graph = graph
        self.writes = writes

    def player(self) -> Node | None:
        ids = sorted(self.graph.player_ids)
        return self.graph.nodes.get(ids[0]) if ids else None

    def name(self, node_id: str) -> str:
        node = _node(self.graph, self.writes, node_id)
        return node.name if node is not None else node_id

    async def ids(self, names: Iterable[str]) -> list[str]:
        wanted = list(dict.fromkeys(names))
        keys = {name: normalize_name(name) for name in wanted}
        found = await self.graph.nodes_named(keys.values())
        new = [n for n in self.writes.nodes.values() if n.type == "individual"]
        out: list[str] = []
        for name in wanted:
            nodes = [n for n in found.get(keys[name], []) if n.type == "individual"]
            nodes += [n for n in new if keys[name] in {normalize_name(x) for x in [n.name, *n.aliases]}]
            exact = [n for n in nodes if normalize_name(n.name) == keys[name]] or nodes
            if exact and exact[0].id not in out:
                out.append(exact[0].id)
        return out
