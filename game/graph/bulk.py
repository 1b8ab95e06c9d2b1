"""The pure part of a bulk load (``kith graph import``): what a whole file shares, worked out once.

An import must validate and answer exactly as per-call upserts do, but a long game is tens of thousands
of calls, and per call ``UpsertExecution`` works everything out again: what the vocabulary says about a
relation (a 100k-version import asked ``normalize`` 750k times, each a regex and a new object, and
``excluded_by`` 100k times, each a scan of every relation), what each name means, and a validated model
for every version it derives from inputs already validated. ``BulkLoader`` keeps those answers for the
file; ``FileVocabulary`` is the vocabulary's part.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from game.graph.knowledge import PUBLIC, Knowing, keep_better
from game.graph.memory import GraphIndex
from game.graph.models import Edge, EdgeInput, Node, UpsertCall, UpsertResult
from game.graph.names import NameMatch, normalize_name, resolve_name, slugify
from game.graph.ports import GraphWrites
from game.graph.trusted import trusted
from game.graph.upsert import STRENGTH_TOLERANCE, CallRejected, UpsertExecution, parse_call
from game.graph.upsert import _base36 as _base36  # the same edge IDs as one call would draw
from game.graph.vocabulary import NormalizedRelation, Vocabulary


@dataclass
class FileVocabulary(Vocabulary):
    """A vocabulary that remembers its answers for the length of one import.

    Only for a vocabulary nobody changes while it is used: ``add`` after a question would leave the
    remembered answers stale. An import builds one per file and never adds to it.
    """

    _normalized: dict[str, NormalizedRelation] = field(default_factory=dict, repr=False)
    _excluded: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, vocabulary: Vocabulary) -> FileVocabulary:
        """The same relations as ``vocabulary``, answering from memory after the first time."""
        copy = cls()
        copy.relations = dict(vocabulary.relations)
        copy._lookup = dict(vocabulary._lookup)
        return copy

    def normalize(self, relation: str) -> NormalizedRelation:
        found = self._normalized.get(relation)
        if found is None:
            found = self._normalized[relation] = super().normalize(relation)
        return found

    def excluded_by(self, relation: str) -> list[str]:
        found = self._excluded.get(relation)
        if found is None:
            found = self._excluded[relation] = super().excluded_by(relation)
        return list(found)


@dataclass
class LineCounts:
    """What one accepted line did, as an import's summary counts it."""

    nodes_created: int = 0
    nodes_updated: int = 0
    edges_created: int = 0
    edges_skipped: int = 0
    closed: int = 0

    @classmethod
    def of(cls, result: UpsertResult) -> LineCounts:
        return cls(nodes_created=result.nodes.created, nodes_updated=result.nodes.updated,
                   edges_created=result.edges.created, edges_skipped=result.edges.skipped,
                   closed=sum(1 for c in result.closed if c.id and not c.skipped))


@dataclass(frozen=True)
class _Relation:
    """What the lean path needs to know about one relation as written, worked out once per file."""

    normalized: NormalizedRelation
    slug: str
    excludes: tuple[NormalizedRelation, ...]


class _LineWrites:
    """One line's writes until it is accepted (a rejected line leaves nothing, as a rejected call)."""

    __slots__ = ("_between", "writes")

    def __init__(self) -> None:
        self.writes = GraphWrites()
        self._between: dict[tuple[str, str, str], list[str]] = {}

    def put_edge(self, edge: Edge, *, created: bool = False) -> None:
        edges = self.writes.edges
        if edge.id not in edges:
            self._between.setdefault((edge.source, edge.target, edge.relation), []).append(edge.id)
        edges[edge.id] = edge
        if created:
            self.writes.created_edges.add(edge.id)

    def edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        ids = self._between.get((source, target, relation))
        return [self.writes.edges[i] for i in ids] if ids else []


class BulkLoader:
    """Applies an import's lines to ``index`` one by one, each with the rules of one upsert call.

    Most lines of a long import only write relations between people who already exist. Those take a
    lean path here that follows ``UpsertExecution._upsert_edge`` step for step (sign check, endpoint
    names, inverse and symmetric relations, self-healing of duplicate open versions, exclusions, default
    and public knowers) without its per-call set-up, with names and relations resolved once per file
    instead of once per edge. Every other line (nodes, closes, ``knownBy``, ``toldBy``) goes through
    ``UpsertExecution`` itself. ``tests/test_graph_bulk.py`` holds the two to the same results.

    ``index`` should be loaded whole (``load_graph_index(lazy=False)``): an import reads most of it.
    """

    def __init__(self, index: GraphIndex, vocabulary: Vocabulary, rng: random.Random) -> None:
        self.index = index
        self.vocabulary = FileVocabulary.of(vocabulary)
        self.rng = rng
        self.batches: list[tuple[GraphWrites, int]] = []
        # Names are resolved once per file: only a line that writes nodes can change what a name means,
        # and such a line forgets every answer kept so far.
        self._names: dict[str, NameMatch] = {}
        self._relations: dict[str, _Relation] = {}
        self._evidence: dict[int, str] = {}

    async def load(self, call: Any, turn: int) -> LineCounts | str:
        """Apply one line's call at ``turn``: what it did, or why it was rejected (nothing of it kept)."""
        try:
            parsed = parse_call(call)
        except CallRejected as rejected:
            return str(rejected)
        if parsed.nodes or parsed.close_edges or any(
                edge.known_by is not None or edge.told_by is not None for edge in parsed.edges):
            return await self._through_execution(parsed, turn)
        line = _LineWrites()
        try:
            counts = self._edges_only(parsed, turn, line)
        except CallRejected as rejected:
            return str(rejected)
        self._accept(line.writes, turn)
        return counts

    async def _through_execution(self, call: UpsertCall, turn: int) -> LineCounts | str:
        execution = UpsertExecution(self.index, self.vocabulary, turn, rng=self.rng)
        outcome = await execution.run(call)
        if outcome.result is None:
            return outcome.error or "rejected"
        if execution.writes.nodes:
            self._names.clear()
        self._accept(execution.writes, turn)
        return LineCounts.of(outcome.result)

    def _accept(self, writes: GraphWrites, turn: int) -> None:
        if writes:
            self.index.apply(writes)
            self.batches.append((writes, turn))

    # ------------------------------------------------------------------------------------ the lean path

    def _match(self, name: str) -> NameMatch:
        found = self._names.get(name)
        if found is None:
            found = self._names[name] = resolve_name(name, self.index.nodes_with_name(normalize_name(name)))
        return found

    def _relation(self, written: str) -> _Relation:
        found = self._relations.get(written)
        if found is None:
            normalized = self.vocabulary.normalize(written)
            found = self._relations[written] = _Relation(
                normalized, slugify(normalized.name, max_length=20) or "rel",
                tuple(self.vocabulary.normalize(name) for name in self.vocabulary.excluded_by(normalized.name)))
        return found

    def _edges_only(self, call: UpsertCall, turn: int, line: _LineWrites) -> LineCounts:
        counts = LineCounts()
        evidence = self._evidence.get(turn)
        if evidence is None:
            evidence = self._evidence[turn] = f"turn-{turn}"
        for given in call.edges:
            written = self._relation(given.relation)
            relation = written.normalized
            source, target = self._match(given.source_name).node, self._match(given.target_name).node
            if relation.flipped:
                source, target = target, source
            problem = self.vocabulary.sign_problem(relation.name, given.strength)
            if problem:
                raise CallRejected(problem)
            if source is None or target is None:
                counts.edges_skipped += 1
                continue
            current = self._self_heal(self._open_versions(line, source.id, target.id, relation), turn, line, counts)
            if current is not None and _same(current, given):
                if given.public:  # nothing new about the relation, but now everyone knows it
                    stored = self.index.knowers_of(current.id)
                    for knowing in self._knowings(current, source, target, turn, public=True):
                        self._learn(line, knowing, stored.get(knowing.knower))
                counts.edges_skipped += 1
                continue
            if current is not None:
                self._close_version(line, current, turn)
                source_id, target_id = current.source, current.target  # a symmetric relation keeps its direction
            else:
                source_id, target_id = source.id, target.id
            # Every value was validated as the call's EdgeInput (strength, fact) or derived here.
            edge = trusted(Edge, {
                "id": self._new_edge_id(line, written.slug), "source": source_id, "target": target_id,
                "relation": relation.name, "strength": given.strength, "fact": given.fact, "valid_at": turn,
                "invalid_at": None, "evidence_turn_ids": [evidence],
            })
            line.put_edge(edge, created=True)
            knowings = line.writes.knowings
            for knowing in self._knowings(edge, source, target, turn, public=given.public):
                knowings[(knowing.edge_id, knowing.knower)] = knowing  # a new version: nobody knew it before
            for excluded in written.excludes:
                for stale in self._open_versions(line, edge.source, edge.target, excluded):
                    self._close_version(line, stale, turn)
                    counts.closed += 1
            counts.edges_created += 1
        return counts

    def _open_versions(self, line: _LineWrites, source: str, target: str, relation: NormalizedRelation) -> list[Edge]:
        pairs = ((source, target), (target, source)) if relation.symmetric and source != target else ((source, target),)
        found: dict[str, Edge] = {}
        buffered = line.writes.edges
        for s, t in pairs:
            for edge in self.index.open_between(s, t, relation.name):
                found[edge.id] = buffered.get(edge.id, edge)
            for edge in line.edges_between(s, t, relation.name):
                found[edge.id] = edge
        if not found:
            return []
        return [e for e in found.values() if e.invalid_at is None]

    def _self_heal(self, versions: list[Edge], turn: int, line: _LineWrites, counts: LineCounts) -> Edge | None:
        if not versions:
            return None
        if len(versions) == 1:
            return versions[0]
        ordered = sorted(versions, key=lambda e: (e.valid_at, e.id in line.writes.created_edges, e.id))
        for stale in ordered[:-1]:
            self._close_version(line, stale, turn)
            counts.closed += 1
        return ordered[-1]

    @staticmethod
    def _close_version(line: _LineWrites, edge: Edge, turn: int) -> None:
        if turn < edge.valid_at:
            raise CallRejected(
                f"{edge.relation} from {edge.source} to {edge.target} was last set at turn {edge.valid_at}; "
                f"a change dated turn {turn} would end it before it began (use turn {edge.valid_at} or later)"
            )
        line.put_edge(trusted(Edge, {**edge.__dict__, "invalid_at": turn}))

    @staticmethod
    def _knowings(edge: Edge, source: Node, target: Node, turn: int, *, public: bool) -> list[Knowing]:
        """``default_knowings`` with no witnesses, plus everyone when public: every value is a constant or
        an ID of this index, so the rows are built without validating them again."""
        rows: list[Knowing] = []
        ends = (edge.source, edge.target)
        for node in (source, target) if source.id != target.id else (source,):
            if node.type == "individual" and node.id in ends:
                rows.append(trusted(Knowing, {"edge_id": edge.id, "knower": node.id, "how": "authored",
                                              "source": None, "confidence": 1.0, "since_turn": turn}))
        if public:
            rows.append(trusted(Knowing, {"edge_id": edge.id, "knower": PUBLIC, "how": "authored",
                                          "source": None, "confidence": 1.0, "since_turn": turn}))
        return rows

    @staticmethod
    def _learn(line: _LineWrites, knowing: Knowing, stored: Knowing | None = None) -> None:
        knowings = line.writes.knowings
        current = knowings.get(knowing.key) or stored
        kept = keep_better(current, knowing)
        if kept is not current:
            knowings[knowing.key] = kept

    def _new_edge_id(self, line: _LineWrites, slug: str) -> str:
        while True:
            candidate = f"edge-{slug}-{_base36(self.rng.getrandbits(31))}"
            if candidate not in line.writes.edges and not self.index.has_edge_id(candidate):
                return candidate


def _same(edge: Edge, given: EdgeInput) -> bool:
    return abs(edge.strength - given.strength) <= STRENGTH_TOLERANCE and edge.fact == given.fact
