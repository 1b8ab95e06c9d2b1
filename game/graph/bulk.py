"""The pure part of a bulk load (``kith graph import``): what a whole file shares, worked out once.

An import must validate and answer exactly as per-call upserts do, but a long game is tens of thousands
of calls, and per call ``UpsertExecution`` works everything out again: what the vocabulary says about a
relation (``FileVocabulary``), what each name means, and a validated model for every version it derives
from inputs already validated. ``BulkLoader`` keeps those answers for the file, and the graph as the rows
the save will hold (``game.graph.version_rows``) instead of models. Models are made only for the few reads
an ``UpsertExecution`` asks of it (lines with nodes, ``knownBy`` or ``toldBy``), and for ``writes()``.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from game.graph.file_vocabulary import FileVocabulary
from game.graph.index import GraphIndex
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing, keep_better
from game.graph.models import (
    MAX_CLOSES_PER_CALL,
    MAX_EDGES_PER_CALL,
    MAX_FACT_CHARS,
    MAX_NAME_CHARS,
    MAX_NODES_PER_CALL,
    MAX_RELATION_CHARS,
    MAX_SUMMARY_CHARS,
    MIN_FACT_CHARS,
    NODE_TYPES,
    RELATION_PATTERN,
    Edge,
    Node,
    UpsertCall,
    UpsertResult,
)
from game.graph.names import NameMatch, NameTrie, normalize_name, resolve_name
from game.graph.ports import GraphWrites
from game.graph.trusted import trusted
from game.graph.upsert import (
    CallRejected,
    UpsertExecution,
    authors,
    edge_id_for,
    edge_slug,
    end_refusal,
    excluded_relations,
    heal_key,
    node_ids,
    parse_call,
    unchanged,
)
from game.graph.version_rows import (
    FACT,
    ID,
    INVALID_AT,
    RELATION,
    SOURCE,
    STRENGTH,
    TARGET,
    VALID_AT,
    EdgeRow,
    KnowingRow,
    edge_row,
    knowing_row,
    row_edge,
    row_knowing,
)
from game.graph.vocabulary import NormalizedRelation, Vocabulary
from game.text import has_control


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


_EdgeItem = tuple[str, str, str, float, str, bool]
"""An edge of a line as the lean path reads it: sourceName, targetName, relation, strength, fact, public."""
_CloseItem = tuple[str, str, str]
"""A ``closeEdges`` item: sourceName, targetName, relation."""
_CLOSE_KEYS = frozenset({"sourceName", "targetName", "relation"})
_NEW_NODE_KEYS = frozenset({"name", "summary", "type"})
_NONE: list[Any] = []  # an absent list of items; read, never changed
# The whole text must match, as pydantic's regex engine reads RELATION_PATTERN: Python's ``$`` would also
# match before a final newline, so the anchors become ``fullmatch``.
_RELATION_MATCH = re.compile(RELATION_PATTERN.removeprefix("^").removesuffix("$")).fullmatch


def _is_text(value: str) -> bool:
    """Whether pydantic takes ``value`` as a string: JSON can spell a lone surrogate (``"\\ud800"``), which
    is no character and cannot be written as UTF-8, and pydantic refuses it."""
    if value.isascii():
        return True
    try:
        value.encode()
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class _Relation:
    """What the lean path needs to know about one relation as written, worked out once per file."""

    normalized: NormalizedRelation
    slug: str
    excludes: tuple[NormalizedRelation, ...]
    signed: float
    """The vocabulary's valence as a sign (1 positive, -1 negative, 0 neutral): a strength of the other
    sign is the only one ``sign_problem`` can refuse, so only that one asks it."""


class _Line:
    """One line's changes until it is accepted (a rejected line leaves nothing, as a rejected call)."""

    __slots__ = ("by_key", "closed", "created", "knowings")

    def __init__(self) -> None:
        self.created: dict[str, EdgeRow] = {}
        self.by_key: dict[tuple[str, str, str], list[EdgeRow]] = {}
        self.closed: dict[str, EdgeRow] = {}
        self.knowings: dict[tuple[str, str], KnowingRow] = {}


@dataclass
class BulkLoad:
    """What an import writes: the nodes it created or changed, and the final rows of every version and
    knower row it created or changed (``created_*``: rows that are new to the save)."""

    nodes: dict[str, Node] = field(default_factory=dict)
    created_nodes: set[str] = field(default_factory=set)
    edges: dict[str, EdgeRow] = field(default_factory=dict)  # in the order they were first written
    created_edges: set[str] = field(default_factory=set)
    knowings: dict[tuple[str, str], KnowingRow] = field(default_factory=dict)
    written_knowings: list[dict[tuple[str, str], KnowingRow]] = field(default_factory=list)
    """Every knower row written, new or changed, line by line in order (``knowings`` holds the last of each)."""
    closed: list[EdgeRow] = field(default_factory=list)
    """Every version row closed after a line first wrote it, in order (closing is the only change a
    version ever sees): how a writer that sent rows early knows which to send again."""

    def __bool__(self) -> bool:
        return bool(self.nodes or self.edges or self.knowings)

    def writes(self) -> GraphWrites:
        """The same as models, for a commit that journals every row (a save with played turns)."""
        return GraphWrites(dict(self.nodes), {i: row_edge(r) for i, r in self.edges.items()}, set(self.created_nodes),
                           set(self.created_edges), {k: row_knowing(r) for k, r in self.knowings.items()})


class BulkLoader:
    """Applies an import's lines one by one, each with the rules of one upsert call.

    Most lines of a long import only write or end relations between people who already exist. Those take
    a lean path here in the order of ``UpsertExecution._upsert_edge`` and ``_close`` (sign check, endpoint
    names, inverse and symmetric relations, self-healing of duplicate open versions, exclusions, default
    and public knowers) without its per-call set-up, with names and relations resolved once per file
    instead of once per edge, applying ``game.graph.upsert``'s rules (``unchanged``, ``heal_key``,
    ``end_refusal``, ``authors``, ``excluded_relations``, ``node_ids``, ``edge_id_for``) to rows: the
    rules are not restated here. Every other line (nodes, ``knownBy``, ``toldBy``) goes through
    ``UpsertExecution`` itself, reading this loader's rows as its ``GraphReader``.
    ``tests/test_graph_bulk_rules.py`` and ``tests/test_graph_bulk.py`` hold the two to the same rows.

    Built from the save as it is (``nodes``, merged-away node IDs, its open versions, every version ID
    and every knower row, as table rows); ``load`` holds what the import wrote.
    """

    def __init__(self, vocabulary: Vocabulary, rng: random.Random, *, nodes: Iterable[Node] = (),
                 retired_node_ids: Iterable[str] = (), open_edges: Iterable[Sequence[Any]] = (),
                 edge_ids: Iterable[str] = (), knowings: Iterable[Sequence[Any]] = ()) -> None:
        self.vocabulary = FileVocabulary.of(vocabulary)
        self.rng = rng
        self.nodes = GraphIndex(nodes, retired_node_ids=retired_node_ids)  # names and node IDs
        self.load = BulkLoad()
        self._open: dict[tuple[str, str, str], list[EdgeRow]] = {}
        for stored in open_edges:
            row = list(stored)
            self._open.setdefault((row[SOURCE], row[TARGET], row[RELATION]), []).append(row)
        self._ids: set[str] = set(edge_ids)
        self._by_edge: dict[str, dict[str, KnowingRow]] = {}
        for raw in knowings:
            known: KnowingRow = (raw[0], raw[1], raw[2], raw[3], float(raw[4]), raw[5])
            self._by_edge.setdefault(known[0], {})[known[1]] = known
        # Knower rows accepted since ``_by_edge`` was last brought up to date: only a public line about an
        # unchanged relation, or one through ``UpsertExecution``, asks who knows a version, so most
        # imports never sort 200k rows by version at all.
        self._unsorted: list[dict[tuple[str, str], KnowingRow]] = []
        # Names are resolved once per file: only a line that writes nodes can change what a name means,
        # and such a line forgets every answer kept so far.
        self._names: dict[str, NameMatch] = {}
        self._relations: dict[str, _Relation] = {}
        self._evidence: dict[int, str] = {}
        self._plain_relations: set[str] = set()  # relations as written that ``EdgeInput`` accepts

    async def load_line(self, call: Any, turn: int) -> LineCounts | str:
        """Apply one line's call at ``turn``: what it did, or why it was rejected (nothing of it kept)."""
        new_nodes = self._new_nodes(call, turn)
        if new_nodes is not None:
            return new_nodes
        plain = self._plain_call(call)
        if plain is None:  # not plainly valid: pydantic decides, and words any rejection
            try:
                parsed = parse_call(call)
            except CallRejected as rejected:
                return str(rejected)
            if parsed.nodes or any(edge.known_by is not None or edge.told_by is not None for edge in parsed.edges):
                return await self._through_execution(parsed, turn)
            plain = ([(e.source_name, e.target_name, e.relation, e.strength, e.fact, e.public) for e in parsed.edges],
                     [(c.source_name, c.target_name, c.relation) for c in parsed.close_edges])
        line = _Line()
        try:
            counts = self._edges_only(plain[0], plain[1], turn, line)
        except CallRejected as rejected:
            return str(rejected)
        self._accept(line, turn)
        return counts

    def _plain_call(self, call: Any) -> tuple[list[_EdgeItem], list[_CloseItem]] | None:
        """A line of only edges and closes whose every value ``UpsertCall`` would accept as it stands, as
        the values it would give (the fact's spaces collapsed, a whole-number strength as a float); None
        for anything else, which then goes through ``parse_call``.

        Plain checks cost a fraction of building the models, and most lines of an import are like this.
        They may say None for a call pydantic accepts (it is then parsed), never the other way round:
        every rejection, and so every message, is still pydantic's (``tests/test_graph_bulk.py``).
        """
        if type(call) is not dict:
            return None
        edges = call.get("edges", _NONE)
        closes = call.get("closeEdges", _NONE)
        if len(call) != ("edges" in call) + ("closeEdges" in call) or type(edges) is not list \
                or type(closes) is not list or not (edges or closes) \
                or len(edges) > MAX_EDGES_PER_CALL or len(closes) > MAX_CLOSES_PER_CALL:
            return None
        relations = self._plain_relations
        given: list[_EdgeItem] = []
        for edge in edges:
            # Five keys that are all the required ones, or those and ``public``: nothing unknown.
            if type(edge) is not dict or not 5 <= len(edge) <= 6:
                return None
            try:
                source, target, fact = edge["sourceName"], edge["targetName"], edge["fact"]
                relation, strength = edge["relation"], edge["strength"]
                public = edge["public"] if len(edge) == 6 else False
            except KeyError:
                return None
            if type(source) is not str or type(target) is not str or type(fact) is not str \
                    or type(public) is not bool or not 0 < len(source) <= MAX_NAME_CHARS \
                    or not 0 < len(target) <= MAX_NAME_CHARS \
                    or not (_is_text(source) and _is_text(target) and _is_text(fact)):
                return None
            if type(relation) is not str or (relation not in relations and not self._plain_relation(relation)):
                return None
            if type(strength) is float:
                if not -1.0 <= strength <= 1.0:  # NaN fails the comparison too
                    return None
            elif type(strength) is int and -1 <= strength <= 1:
                strength = float(strength)  # as pydantic reads a whole number for a float field
            else:
                return None
            fact = " ".join(fact.split())
            if not MIN_FACT_CHARS <= len(fact) <= MAX_FACT_CHARS:
                return None
            given.append((source, target, relation, strength, fact, public))
        ended: list[_CloseItem] = []
        for close in closes:
            if type(close) is not dict or not close.keys() <= _CLOSE_KEYS:
                return None
            source, target, relation = close.get("sourceName"), close.get("targetName"), close.get("relation")
            if type(source) is not str or type(target) is not str or not 0 < len(source) <= MAX_NAME_CHARS \
                    or not 0 < len(target) <= MAX_NAME_CHARS or not (_is_text(source) and _is_text(target)):
                return None
            if type(relation) is not str or (relation not in relations and not self._plain_relation(relation)):
                return None
            ended.append((source, target, relation))
        return given, ended

    def _new_nodes(self, call: Any, turn: int) -> LineCounts | None:
        """A line of only new people, groups or factions, each given by name and summary (and type): made
        here as ``UpsertExecution._create_node`` makes them, without a model per input and per node. None
        for any other line, which then goes the usual way (a name already known, an alias, a label, an
        attribute, a value pydantic might refuse or word: all of those are decided there).
        """
        if type(call) is not dict or len(call) != 1:
            return None
        items = call.get("nodes")
        if type(items) is not list or not 0 < len(items) <= MAX_NODES_PER_CALL:
            return None
        made: dict[str, Node] = {}
        keys: set[str] = set()
        for item in items:
            if type(item) is not dict or not 2 <= len(item) <= 3 or not item.keys() <= _NEW_NODE_KEYS:
                return None
            name, summary, kind = item.get("name"), item.get("summary"), item.get("type", "individual")
            if type(name) is not str or type(summary) is not str or type(kind) is not str \
                    or not 0 < len(name) <= MAX_NAME_CHARS or not (_is_text(name) and _is_text(summary)):
                return None
            name, summary, kind = " ".join(name.split()), " ".join(summary.split()), kind.strip().lower()
            if not name or has_control(name) or not 4 <= len(summary) <= MAX_SUMMARY_CHARS or kind not in NODE_TYPES:
                return None
            key = normalize_name(name)
            if key in keys or self.nodes.nodes_with_name(key):
                return None  # the same name twice, or someone already known: an update, decided the usual way
            keys.add(key)
            node_id = next(i for i in node_ids(name) if i not in made and not self.nodes.id_in_use(i))
            made[node_id] = trusted(Node, {
                "id": node_id, "name": name, "aliases": [], "type": kind, "labels": [], "summary": summary,
                "first_seen_turn": turn, "last_seen_turn": turn, "attributes": {}})
        self._names.clear()
        self.nodes.apply(GraphWrites(nodes=made))
        self.load.nodes.update(made)
        self.load.created_nodes |= made.keys()
        return LineCounts(nodes_created=len(made))

    def _plain_relation(self, relation: str) -> bool:
        """Whether ``relation`` passes ``EdgeInput.relation``'s checks (remembered for the file when it does)."""
        if not 0 < len(relation) <= MAX_RELATION_CHARS or _RELATION_MATCH(relation) is None:
            return False
        self._plain_relations.add(relation)
        return True

    # ------------------------------------------------------------------------------------ through upsert

    async def _through_execution(self, call: UpsertCall, turn: int) -> LineCounts | str:
        # A reader per line, never kept: one the loader held would hold the loader in a cycle, and an
        # import runs with the cyclic collector paused (its hundreds of thousands of rows would then
        # outlive it, to be walked and freed by the first collection after).
        execution = UpsertExecution(_Reader(self), self.vocabulary, turn, rng=self.rng)
        outcome = await execution.run(call)
        if outcome.result is None:
            return outcome.error or "rejected"
        writes = execution.writes
        if writes.nodes:
            self._names.clear()
            self.nodes.apply(GraphWrites(nodes=writes.nodes))
            self.load.nodes.update(writes.nodes)
            self.load.created_nodes |= writes.created_nodes
        for edge in writes.edges.values():
            key = (edge.source, edge.target, edge.relation)
            if edge.id in writes.created_edges:
                row = edge_row(edge)
                self._ids.add(edge.id)
                self.load.edges[edge.id] = row
                self.load.created_edges.add(edge.id)
                if edge.invalid_at is None:
                    self._open.setdefault(key, []).append(row)
                continue
            # A version this import found open and changed (closed): its row, changed where it lies.
            held = self._open.get(key, [])
            found = [r for r in held if r[ID] == edge.id]
            row = found[0] if found else edge_row(edge)
            row[:] = edge_row(edge)
            if edge.invalid_at is not None and row in held:
                held.remove(row)
            self.load.edges.setdefault(edge.id, row)
            self.load.closed.append(row)  # (UpsertExecution only ever closes a stored version)
        if writes.knowings:
            rows = {key: knowing_row(knowing) for key, knowing in writes.knowings.items()}
            self._unsorted.append(rows)
            self.load.written_knowings.append(rows)
            self.load.knowings.update(rows)
        return LineCounts.of(outcome.result)

    # ------------------------------------------------------------------------------------ the lean path

    def _match(self, name: str) -> NameMatch:
        found = self._names.get(name)
        if found is None:
            found = self._names[name] = resolve_name(name, self.nodes.nodes_with_name(normalize_name(name)))
        return found

    def _relation(self, written: str) -> _Relation:
        found = self._relations.get(written)
        if found is None:
            normalized = self.vocabulary.normalize(written)
            valence = self.vocabulary.valence(normalized.name)
            found = self._relations[written] = _Relation(
                normalized, edge_slug(normalized.name), tuple(excluded_relations(self.vocabulary, normalized.name)),
                1.0 if valence == "positive" else -1.0 if valence == "negative" else 0.0)
        return found

    def _edges_only(self, edges: list[_EdgeItem], closes: list[_CloseItem], turn: int, line: _Line) -> LineCounts:
        counts = LineCounts()
        evidence = self._evidence.get(turn)
        if evidence is None:
            evidence = self._evidence[turn] = json.dumps([f"turn-{turn}"])
        names, relations = self._names, self._relations
        for source_name, target_name, written_relation, strength, fact, public in edges:
            written = relations.get(written_relation) or self._relation(written_relation)
            relation = written.normalized
            source = (names.get(source_name) or self._match(source_name)).node
            target = (names.get(target_name) or self._match(target_name)).node
            if relation.flipped:
                source, target = target, source
            if written.signed * strength < 0:
                problem = self.vocabulary.sign_problem(relation.name, strength)
                if problem:
                    raise CallRejected(problem)
            if source is None or target is None:
                counts.edges_skipped += 1
                continue
            current = self._self_heal(self._open_versions(line, source.id, target.id, relation), turn, line, counts)
            if current is not None and unchanged(current[STRENGTH], current[FACT], strength, fact):
                if public:  # nothing new about the relation, but now everyone knows it
                    stored = self.knowers(current[ID])
                    for knowing in self._knowings(current[ID], current, source, target, turn, public=True):
                        self._learn(line, knowing, stored.get(knowing[1]))
                counts.edges_skipped += 1
                continue
            if current is not None:
                self._close_version(line, current, turn)
                source_id, target_id = current[SOURCE], current[TARGET]  # a symmetric relation keeps its direction
            else:
                source_id, target_id = source.id, target.id
            # Every value was validated as the call's EdgeInput (strength, fact) or derived here.
            edge_id = self._new_edge_id(line, written.slug)
            row: EdgeRow = [edge_id, source_id, target_id, relation.name, strength, fact, turn, None, evidence]
            line.created[edge_id] = row
            line.by_key.setdefault((source_id, target_id, relation.name), []).append(row)
            knowings = line.knowings  # a new version: nobody knew it before
            for knower in authors(source, target, source_id, target_id):
                knowings[(edge_id, knower)] = (edge_id, knower, "authored", None, 1.0, turn)
            if public:
                knowings[(edge_id, PUBLIC)] = (edge_id, PUBLIC, "authored", None, 1.0, turn)
            for excluded in written.excludes:
                for stale in self._open_versions(line, source_id, target_id, excluded):
                    self._close_version(line, stale, turn)
                    counts.closed += 1
            counts.edges_created += 1
        for ended_source, ended_target, ended_relation in closes:  # as ``UpsertExecution._close``, after the edges
            relation = self._relation(ended_relation).normalized
            source, target = self._match(ended_source).node, self._match(ended_target).node
            if relation.flipped:
                source, target = target, source
            if source is None or target is None:  # a missing or ambiguous name: skipped
                continue
            for stale in self._open_versions(line, source.id, target.id, relation):
                self._close_version(line, stale, turn)
                counts.closed += 1
        return counts

    def _open_versions(self, line: _Line, source: str, target: str, relation: NormalizedRelation) -> list[EdgeRow]:
        name = relation.name
        found: list[EdgeRow] = []
        closed, held, pending = line.closed, self._open, line.by_key
        for first, second in relation.directions(source, target):
            key = (first, second, name)
            rows = held.get(key)
            if rows:
                found += [row for row in rows if row[ID] not in closed] if closed else rows
            rows = pending.get(key)
            if rows:
                found += [row for row in rows if row[ID] not in closed] if closed else rows
        return found

    @staticmethod
    def _self_heal(versions: list[EdgeRow], turn: int, line: _Line, counts: LineCounts) -> EdgeRow | None:
        if not versions:
            return None
        if len(versions) == 1:
            return versions[0]
        created = line.created
        ordered = sorted(versions, key=lambda r: heal_key(r[VALID_AT], r[ID] in created, r[ID]))
        for stale in ordered[:-1]:
            BulkLoader._close_version(line, stale, turn)
            counts.closed += 1
        return ordered[-1]

    @staticmethod
    def _close_version(line: _Line, row: EdgeRow, turn: int) -> None:
        refusal = end_refusal(row[RELATION], row[SOURCE], row[TARGET], row[VALID_AT], turn)
        if refusal:
            raise CallRejected(refusal)
        line.closed[row[ID]] = row

    @staticmethod
    def _knowings(edge_id: str, row: EdgeRow, source: Node, target: Node, turn: int, *,
                  public: bool) -> list[KnowingRow]:
        """``default_knowings`` with no witnesses (its individual ends, authored), plus everyone when public."""
        rows: list[KnowingRow] = [(edge_id, knower, "authored", None, 1.0, turn)
                                  for knower in authors(source, target, row[SOURCE], row[TARGET])]
        if public:
            rows.append((edge_id, PUBLIC, "authored", None, 1.0, turn))
        return rows

    @staticmethod
    def _learn(line: _Line, knowing: KnowingRow, stored: KnowingRow | None = None) -> None:
        key = (knowing[0], knowing[1])
        current = line.knowings.get(key) or stored
        kept = keep_better(row_knowing(current) if current else None, row_knowing(knowing))
        if current is None or knowing_row(kept) != current:
            line.knowings[key] = knowing_row(kept)

    def _new_edge_id(self, line: _Line, slug: str) -> str:
        draw, taken, created = self.rng.getrandbits, self._ids, line.created
        while True:
            candidate = edge_id_for(slug, draw(31))
            if candidate not in created and candidate not in taken:
                return candidate

    def _accept(self, line: _Line, turn: int) -> None:
        """Keep a line's changes: new versions in the order made, then the closes, then knower rows."""
        load = self.load
        self._ids.update(line.created)
        load.edges.update(line.created)
        load.created_edges.update(line.created)
        load.closed += line.closed.values()
        for edge_id, row in line.closed.items():
            row[INVALID_AT] = turn
            held = self._open.get((row[SOURCE], row[TARGET], row[RELATION]))
            if held and row in held:
                held.remove(row)
            load.edges.setdefault(edge_id, row)
        for key, rows in line.by_key.items():
            still = [row for row in rows if row[INVALID_AT] is None]
            if still:
                self._open.setdefault(key, []).extend(still)
        if line.knowings:
            self._unsorted.append(line.knowings)
            load.written_knowings.append(line.knowings)
            load.knowings.update(line.knowings)

    def knowers(self, edge_id: str) -> dict[str, KnowingRow]:
        """Who knows a version as the import stands, by knower."""
        if self._unsorted:
            by_edge = self._by_edge
            for rows in self._unsorted:
                for (version, knower), known in rows.items():
                    held = by_edge.get(version)
                    if held is None:
                        held = by_edge[version] = {}
                    held[knower] = known
            self._unsorted = []
        return self._by_edge.get(edge_id, {})


class _Reader:
    """``GraphReader`` over a loader's state, for the lines that go through ``UpsertExecution``."""

    def __init__(self, loader: BulkLoader) -> None:
        self._loader = loader

    async def nodes_named(self, normalized_names: Iterable[str]) -> dict[str, list[Node]]:
        return await self._loader.nodes.nodes_named(normalized_names)

    async def get_nodes(self, node_ids: Iterable[str]) -> dict[str, Node]:
        return await self._loader.nodes.get_nodes(node_ids)

    async def node_id_taken(self, node_id: str) -> bool:
        return await self._loader.nodes.node_id_taken(node_id)

    async def edge_id_taken(self, edge_id: str) -> bool:
        return edge_id in self._loader._ids

    async def open_edges_of(self, node_id: str) -> list[Edge]:
        return [row_edge(row) for rows in self._loader._open.values() for row in rows
                if node_id in (row[SOURCE], row[TARGET])]

    async def open_edges_between(self, source: str, target: str, relation: str) -> list[Edge]:
        return [row_edge(row) for row in self._loader._open.get((source, target, relation), ())]

    async def open_degree(self, node_ids: Iterable[str]) -> dict[str, int]:
        return {i: len(await self.open_edges_of(i)) for i in node_ids}

    async def longest_name(self) -> int:
        return min(await self._loader.nodes.longest_name(), MAX_NAME_CHARS)

    async def name_trie(self) -> NameTrie:
        return await self._loader.nodes.name_trie()

    async def knowings_of(self, edge_ids: Iterable[str]) -> dict[str, dict[str, Knowing]]:
        found = {i: self._loader.knowers(i) for i in edge_ids}
        return {i: {k: row_knowing(r) for k, r in rows.items()} for i, rows in found.items() if rows}
