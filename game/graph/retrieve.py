"""Pre-turn retrieval: from the names a message mentions to the ``npcContext`` a narrator reads.

Deterministic and model-free, so a turn's context never depends on a model's mood: find the starting points, walk open relations at most two hops,
rank by recency then strength, keep 20 (a two-hop fact along a meta-path keeps a place: ``metapaths``).
Every read goes through ``GraphReader`` one node at a time, so the cost follows the neighbourhood
walked, not the size of the graph.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple

from game.graph.knowing_terms import DEFAULT_FLOOR, FIRST_HAND, PUBLIC
from game.graph.mentions import spans_named
from game.graph.metapaths import DEFAULT_PATTERNS, MetaPath, PathTracker, PatternIndex, rank
from game.graph.names import normalize_name
from game.graph.render import fact_line, render_npc_context

if TYPE_CHECKING:
    from game.graph.knowledge import Knowing
    from game.graph.models import Edge, Node
    from game.graph.ports import GraphReader


# The records here are a NamedTuple and plain classes, not dataclasses: ``kith graph retrieve`` imports
# this module, and ``dataclasses`` (which loads ``inspect``) would cost it a tenth of its run (issue 15).


@lru_cache(maxsize=16)
def _pattern_index(patterns: tuple[MetaPath, ...]) -> PatternIndex:
    return PatternIndex(patterns)


class RetrievalSettings(NamedTuple):
    """The walk's budget; defaults are the contract's (2 hops, hubs over 30, fan-out 20, keep 20).

    ``patterns``: the meta-paths that raise a two-hop fact (``[retrieval] metapaths``; none: the plain
    ranking).
    """

    max_hops: int = 2
    hub_threshold: int = 30
    max_fanout: int = 20
    limit: int = 20
    patterns: tuple[MetaPath, ...] = DEFAULT_PATTERNS

    @property
    def pattern_index(self) -> PatternIndex:
        """Built once per set of patterns (a session keeps one), not once per retrieval."""
        return _pattern_index(self.patterns)


class _Record:
    """Equality and a repr by the fields named in ``__slots__``, as a dataclass would give."""

    __slots__: tuple[str, ...] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    __hash__ = None  # type: ignore[assignment]  # mutable contents, as an unfrozen dataclass

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"


class Retrieval(_Record):
    """What a retrieval found: the rendered context and how it got there.

    ``boosts``: edge ID -> the weight of the best meta-path that reached it (only facts a pattern raised).
    """

    __slots__ = ("boosts", "edges", "matched_nodes", "nodes", "npc_context", "seed_nodes")

    def __init__(self, npc_context: str, seed_nodes: list[Node] | None = None,
                 matched_nodes: list[Node] | None = None, edges: list[Edge] | None = None,
                 nodes: dict[str, Node] | None = None, boosts: dict[str, float] | None = None) -> None:
        self.npc_context = npc_context
        self.seed_nodes: list[Node] = [] if seed_nodes is None else seed_nodes
        self.matched_nodes: list[Node] = [] if matched_nodes is None else matched_nodes
        self.edges: list[Edge] = [] if edges is None else edges
        self.nodes: dict[str, Node] = {} if nodes is None else nodes
        self.boosts: dict[str, float] = {} if boosts is None else boosts

    @property
    def edge_count(self) -> int:
        return len(self.edges)


async def find_mentions(reader: GraphReader, message: str) -> list[Node]:
    """Nodes the message names, in order of first mention.

    A name in a spaced script must stand as a word; in CJK text it may stand anywhere. A match that lies
    inside a longer match of another node at the same place does not count ("Old Tom" hides "Tom").
    """
    spans, named = await spans_named(reader, message)
    if not spans:
        return []
    longest = max(end - start for start, end, _ in spans)
    matches = [(start, end, node) for start, end, text in spans for node in named[text]]
    starts = [start for start, _, _ in matches]  # ascending: the spans come in order of their start
    kept: list[tuple[int, int, Node]] = []
    for start, end, node in matches:
        # A match that covers this one starts at most ``longest`` before its end: only those are looked
        # at, so a long paragraph naming people thousands of times is read in linear time, not pairwise.
        window = matches[bisect_left(starts, end - longest):bisect_right(starts, start)]
        covered = any(
            other.id != node.id and s <= start and end <= e and (e - s) > (end - start)
            for s, e, other in window
        )
        if not covered:
            kept.append((start, end, node))
    kept.sort(key=lambda m: (m[0], -(m[1] - m[0]), m[2].id))
    return _unique_nodes(node for _, _, node in kept)


async def cast_seeds(reader: GraphReader, cast: Sequence[str]) -> list[Node]:
    """The cast on stage as starting points: each name must match exactly one individual node."""
    keys = [normalize_name(name) for name in cast if name.strip()]
    named = await reader.nodes_named(keys)
    seeds: list[Node] = []
    for key in keys:
        individuals = [n for n in named.get(key, []) if n.type == "individual"]
        if len(individuals) == 1:
            seeds.append(individuals[0])
    return _unique_nodes(seeds)


def newest_per_relation(edges: Iterable[Edge]) -> list[Edge]:
    """One open version per ``(source, target, relation)``: the newest, if several were left open."""
    newest: dict[tuple[str, str, str], Edge] = {}
    for edge in edges:
        if not edge.is_open:
            continue
        key = (edge.source, edge.target, edge.relation)
        held = newest.get(key)
        if held is None or (edge.valid_at, edge.id) > (held.valid_at, held.id):
            newest[key] = edge
    return list(newest.values())


async def retrieve(
    reader: GraphReader,
    message: str,
    cast: Sequence[str] = (),
    settings: RetrievalSettings | None = None,
    *,
    as_knower: str | None = None,
    floor: float = DEFAULT_FLOOR,
) -> Retrieval:
    """Seeds from the message (else the cast), a budgeted walk, ranking and rendering.

    ``as_knower`` (a node ID): only the open relations that person knows at ``floor`` or above, so what
    one character is told is what they could know. The walk itself follows only those: nobody reaches a
    friend of a friend through a tie they have never heard of.
    """
    settings = settings or RetrievalSettings()
    seeds = await find_mentions(reader, message)
    if not seeds and cast:
        seeds = await cast_seeds(reader, cast)
    if not seeds:
        return Retrieval(npc_context="")

    nodes: dict[str, Node] = {n.id: n for n in seeds}
    reached: list[str] = [n.id for n in seeds]
    collected: dict[str, Edge] = {}
    frontier = [n.id for n in seeds]
    seed_ids = set(frontier)
    paths = PathTracker(settings.pattern_index, seed_ids) if settings.patterns else None
    for hop in range(settings.max_hops):
        expandable = frontier
        indirect = [node_id for node_id in frontier if node_id not in seed_ids]
        if indirect:
            degrees = await reader.open_degree(indirect)
            expandable = [n for n in frontier if n in seed_ids or degrees.get(n, 0) <= settings.hub_threshold]
        next_frontier: list[str] = []
        for node_id in expandable:
            edges = newest_per_relation(await reader.open_edges_of(node_id))
            if as_knower is not None:
                edges = await known_to(reader, edges, as_knower, floor)
            edges.sort(key=lambda e: (-abs(e.strength), -e.valid_at, e.id))
            arrived = paths.arrived.get(node_id) if paths is not None else None
            starts = paths.firsts if paths is not None and hop + 1 < settings.max_hops else ()
            for edge in edges[: settings.max_fanout]:
                collected.setdefault(edge.id, edge)
                other = edge.other_end(node_id)
                if arrived and edge.relation in arrived:
                    paths.step(arrived[edge.relation], edge)  # type: ignore[union-attr]  # arrived: paths
                if other not in nodes:
                    if other not in next_frontier:
                        next_frontier.append(other)
                    if edge.relation in starts:
                        paths.reach(other, edge)  # type: ignore[union-attr]
        found = await reader.get_nodes(next_frontier)
        nodes.update(found)
        # A dangling edge (its far end missing) is tolerated: the walk simply does not go there.
        frontier = [n for n in next_frontier if n in found]
        reached.extend(frontier)
        if not frontier:
            break

    usable = [e for e in collected.values() if e.source in nodes and e.target in nodes]
    boosts = paths.boosts if paths is not None else {}
    raised = [collected[i] for i in boosts if collected[i].source in nodes and collected[i].target in nodes]
    kept = rank(usable, settings.limit, raised, boosts)
    return Retrieval(
        npc_context=render_npc_context(kept, nodes),
        seed_nodes=seeds,
        matched_nodes=[nodes[n] for n in reached],
        edges=kept,
        nodes=nodes,
        boosts={e.id: boosts[e.id] for e in kept if e.id in boosts},
    )


async def known_to(reader: GraphReader, edges: Sequence[Edge], knower: str, floor: float) -> list[Edge]:
    """The ``edges`` ``knower`` knows at ``floor`` or above (a public one: everyone does)."""
    rows = await reader.knowings_of([e.id for e in edges])
    kept = []
    for edge in edges:
        known = rows.get(edge.id, {})
        if any(row.confidence >= floor for who, row in known.items() if who in (knower, PUBLIC)):
            kept.append(edge)
    return kept


def confidence_word(row: Knowing) -> str:
    """How sure a knower is, in the word a narrator reads: first-hand or public knowledge is ``sure``,
    what someone who saw it told them is ``heard``, anything retold further is a ``rumour``."""
    if row.knower == PUBLIC or row.how in FIRST_HAND:
        return "sure"
    return "heard" if row.how == "told" else "rumour"


class ScopedRetrieval(_Record):
    """What the people present know: the union as one ``npcContext``, and each knower's own lines.

    ``knowledge``: per knower's name (the player first), their facts as ``fact_line``s ending in a
    confidence word. ``held``: per knower's node ID, the same facts typed: each version with the row
    saying how the knower holds it.
    """

    __slots__ = ("held", "knowledge", "retrieval")

    def __init__(self, retrieval: Retrieval, knowledge: dict[str, list[str]] | None = None,
                 held: dict[str, list[tuple[Edge, Knowing]]] | None = None) -> None:
        self.retrieval = retrieval
        self.knowledge: dict[str, list[str]] = {} if knowledge is None else knowledge
        self.held: dict[str, list[tuple[Edge, Knowing]]] = {} if held is None else held


async def retrieve_scoped(
    reader: GraphReader,
    message: str,
    cast: Sequence[str],
    knowers: Sequence[Node],
    settings: RetrievalSettings | None = None,
    *,
    floor: float = DEFAULT_FLOOR,
) -> ScopedRetrieval:
    """One scoped retrieval per knower (the same seeds for each), and the union of what they found.

    A fact nobody in ``knowers`` knows at ``floor`` or above is in neither part, so a narrator told this
    cannot put a secret between two absent people into anyone's mouth. The union is ranked and cut like a
    plain retrieval, so ``npcContext`` keeps its format and its budget.
    """
    settings = settings or RetrievalSettings()
    nodes: dict[str, Node] = {}
    union: dict[str, Edge] = {}
    seeds: list[Node] = []
    matched: list[Node] = []
    knowledge: dict[str, list[str]] = {}
    held: dict[str, list[tuple[Edge, Knowing]]] = {}
    boosts: dict[str, float] = {}
    for knower in knowers:
        found = await retrieve(reader, message, cast, settings, as_knower=knower.id, floor=floor)
        seeds = seeds or found.seed_nodes
        nodes.update(found.nodes)
        matched += found.matched_nodes
        rows = await reader.knowings_of([edge.id for edge in found.edges])
        lines: list[str] = []
        typed: list[tuple[Edge, Knowing]] = []
        for edge in found.edges:
            union.setdefault(edge.id, edge)
            if edge.id in found.boosts:
                boosts[edge.id] = max(boosts.get(edge.id, 0.0), found.boosts[edge.id])
            theirs = [row for who, row in rows.get(edge.id, {}).items() if who in (knower.id, PUBLIC)]
            best = max(theirs, key=lambda row: (row.confidence, row.knower != PUBLIC))
            lines.append(f"{fact_line(edge, found.nodes)} ({confidence_word(best)})")
            typed.append((edge, best))
        knowledge.setdefault(knower.name, lines)
        held.setdefault(knower.id, typed)
    edges = rank(list(union.values()), settings.limit, [union[i] for i in boosts], boosts)
    retrieval = Retrieval(npc_context=render_npc_context(edges, nodes), seed_nodes=seeds,
                          matched_nodes=_unique_nodes(matched), edges=edges, nodes=nodes,
                          boosts={e.id: boosts[e.id] for e in edges if e.id in boosts})
    return ScopedRetrieval(retrieval, knowledge, held)


def _unique_nodes(nodes: Iterable[Node]) -> list[Node]:
    seen: set[str] = set()
    unique: list[Node] = []
    for node in nodes:
        if node.id not in seen:
            seen.add(node.id)
            unique.append(node)
    return unique
