"""Upsert by name: resolve nodes, merge them, version relations, buffer everything for one commit.

An ``UpsertExecution`` is one turn's worth of calls. Each call reads the store *and* the writes buffered by
earlier calls of the same execution, so a node created by the first call is found by the second. A call
that fails validation or breaks a rule is rejected whole: its partial writes are rolled back from the
buffer and it reports ``error`` instead of a result. The caller commits ``writes`` once, in the turn's
transaction.

It is one piece (over 400 lines) on purpose: resolving, merging, versioning, exclusions and knowers all
read and write the same per-call buffer and roll back together when a call is rejected; split apart they
would share that state through every signature. Matching and merge planning are already their own
modules (``vocabulary``, ``names``, ``merge_plan``).
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import string
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from game.errors import describe_validation_error
from game.graph.buffer import WriteBuffer
from game.graph.endings import ReadEndings, authored
from game.graph.identity import united_aliases, united_labels
from game.graph.identity_match import IdentityDecision, judge
from game.graph.knowledge import Knowing, default_knowings, keep_better, public_knowing
from game.graph.models import (
    ClosedEdge,
    CloseEdgeInput,
    Edge,
    EdgeInput,
    EdgeResult,
    Node,
    NodeInput,
    NodeResult,
    UpsertCall,
    UpsertResult,
    attributes_problem,
)
from game.graph.names import NameMatch, normalize_name, resolve_name, slugify
from game.graph.ports import GraphReader, GraphWrites
from game.graph.vocabulary import NormalizedRelation, Vocabulary

STRENGTH_TOLERANCE = 1e-9
_SUFFIX_ALPHABET = string.ascii_lowercase + string.digits


class CallRejected(Exception):
    """A rule broken by a call; the message is returned to whoever made it."""


@dataclass
class CallOutcome:
    """A call's result, or the reason it was rejected (exactly one is set)."""

    result: UpsertResult | None = None
    error: str | None = None

    def to_json_dict(self) -> dict[str, Any]:
        if self.result is None:
            return {"error": self.error}
        return self.result.to_json_dict()


CloseGuard = Callable[[Node, Node], str | None]
"""Decides whether a close of a relation between two nodes is allowed; returns a refusal or None."""

NodeSource = Callable[[], Iterable[Node]]
"""Every stored node, for judging who a new name may be (``game.graph.identity_match``)."""


class UpsertExecution:
    """Applies upsert calls at one turn, buffering writes in ``self.writes``."""

    def __init__(
        self,
        reader: GraphReader,
        vocabulary: Vocabulary,
        turn: int,
        *,
        rng: random.Random | None = None,
        close_guard: CloseGuard | None = None,
        endings: ReadEndings | None = None,
        witnesses: Iterable[str] = (),
        identity: NodeSource | None = None,
    ) -> None:
        """``witnesses``: IDs of the individuals who see this execution's relations made (those on stage,
        the player included); they know every version it writes, beside its ends. ``identity``: when
        given (a game's turns), a name that matches no node is judged against these nodes first
        (``judge``): a sure match is that person, an unsure one a new node and a decision in
        ``identities`` for the caller to ask about. ``endings``: when the calls are a reading of a text,
        the one rule its endings are held to (``game.graph.endings``)."""
        self.reader = reader
        self.vocabulary = vocabulary
        self.turn = turn
        self.buffer = WriteBuffer()
        self.outcomes: list[CallOutcome] = []
        self._rng = rng or random.SystemRandom()
        self._close_guard = close_guard
        self.endings = endings
        self.witnesses: tuple[str, ...] = tuple(dict.fromkeys(witnesses))
        self._identity = identity
        self.identities: list[IdentityDecision] = []
        """Identities assumed or left to ask about by the accepted calls, in order."""

    @property
    def writes(self) -> GraphWrites:
        """Everything accepted so far, to be committed once by the caller."""
        return self.buffer.writes

    @writes.setter
    def writes(self, writes: GraphWrites) -> None:
        # The session's rebuild puts back a copy it kept when a turn's extraction fails.
        self.buffer.replace(writes)

    async def run(self, call: UpsertCall | dict[str, Any] | str) -> CallOutcome:
        """Validate and apply one call; on rejection nothing of it stays in the buffer."""
        try:
            parsed = parse_call(call)
        except CallRejected as rejected:
            return self._record(CallOutcome(error=str(rejected)))
        self.buffer.begin_call()
        decided = len(self.identities)
        try:
            result = await self._apply(parsed)
        except CallRejected as rejected:
            self.buffer.roll_back()
            del self.identities[decided:]
            return self._record(CallOutcome(error=str(rejected)))
        return self._record(CallOutcome(result=result))

    def _record(self, outcome: CallOutcome) -> CallOutcome:
        self.outcomes.append(outcome)
        return outcome

    async def _apply(self, call: UpsertCall) -> UpsertResult:
        result = UpsertResult()
        for index, node_input in enumerate(call.nodes):
            node, status = await self._upsert_node(node_input, f"nodes[{index}]")
            result.nodes.results.append(NodeResult(id=node.id, name=node.name, status=status))
        result.nodes.created = sum(1 for r in result.nodes.results if r.status == "created")
        result.nodes.updated = len(result.nodes.results) - result.nodes.created
        for edge_input in call.edges:
            edge_result = await self._upsert_edge(edge_input, result.closed)
            result.edges.results.append(edge_result)
        result.edges.skipped = sum(1 for r in result.edges.results if r.skipped)
        result.edges.created = len(result.edges.results) - result.edges.skipped
        for close in call.close_edges:
            result.closed.extend(await self._close(close))
        return result

    # ----------------------------------------------------------------------------------------- nodes

    async def match_name(self, name: str) -> NameMatch:
        """What a name means here, stored and buffered nodes alike, by the one rule (``resolve_name``)."""
        key = normalize_name(name)
        found: dict[str, Node] = {}
        for node in (await self.reader.nodes_named([key])).get(key, []):
            found[node.id] = self.writes.nodes.get(node.id, node)
        for node in self.buffer.nodes_named(key):
            found[node.id] = node
        # ``resolve_name`` re-checks every candidate's names: a buffered change may have removed the match.
        return resolve_name(name, found.values())

    async def find_node(self, name: str) -> Node | None:
        """The node a name means, or None when it names no node or several (see ``resolve_name``)."""
        return (await self.match_name(name)).node

    async def _upsert_node(self, given: NodeInput, where: str) -> tuple[Node, str]:
        match = await self.match_name(given.name)
        if match.ambiguous:
            raise CallRejected(f"{where}.name: {given.name!r} could mean any of {match.choices()}; "
                               "use the full name of the one you mean")
        existing = match.node
        if existing is None and self._identity is not None:
            verdict = judge(given.name, given.type or "individual", given.aliases, self._identity_pool())
            if verdict.decision == "ask":
                node = await self._create_node(given, where)
                self.identities.append(IdentityDecision(verdict, node.id))
                return node, "created"
            if verdict.candidate is not None:  # assumed: the name becomes one of the candidate's
                existing = self.writes.nodes.get(verdict.candidate.node.id, verdict.candidate.node)
                self.identities.append(IdentityDecision(verdict, existing.id))
        if existing is None:
            return await self._create_node(given, where), "created"
        updated = existing.model_copy(update={
            "aliases": united_aliases(existing, [given.name, *given.aliases]),
            "labels": united_labels(existing.labels, given.labels),
            "summary": given.summary or existing.summary,
            "attributes": {**existing.attributes, **given.attributes},
            "last_seen_turn": max(existing.last_seen_turn, self.turn),
        })
        if updated != existing:
            self._check_attributes(updated, where)
            self.buffer.put_node(updated)
        return updated, "updated"

    def _identity_pool(self) -> Iterable[Node]:
        """Every node as this execution sees it: stored ones (buffered versions first), then new ones."""
        assert self._identity is not None
        buffered = self.writes.nodes
        for node in self._identity():
            yield buffered.get(node.id, node)
        for node_id in self.writes.created_nodes:
            if node_id in buffered:
                yield buffered[node_id]

    @staticmethod
    def _check_attributes(node: Node, where: str) -> None:
        """Attributes merge over many calls; the cap holds for the union, not just for one call."""
        problem = attributes_problem(node.attributes)
        if problem:
            raise CallRejected(f"{where}.{problem} (merged with what {node.name} already has)")

    async def _create_node(self, given: NodeInput, where: str) -> Node:
        if given.summary is None:
            raise CallRejected(f"{where}.summary: required for a new node ({given.name!r} is not in the graph)")
        node = Node(
            id=await self._new_node_id(given.name),
            name=given.name,
            aliases=[a for a in given.aliases if normalize_name(a) != normalize_name(given.name)],
            type=given.type or "individual",
            labels=given.labels,
            summary=given.summary,
            first_seen_turn=self.turn,
            last_seen_turn=self.turn,
            attributes=given.attributes,
        )
        self.buffer.put_node(node, created=True)
        return node

    async def _new_node_id(self, name: str) -> str:
        for candidate in node_ids(name):
            if candidate not in self.writes.nodes and not await self.reader.node_id_taken(candidate):
                return candidate
        raise AssertionError("node_ids never ends")

    # ----------------------------------------------------------------------------------------- edges

    async def _endpoints(
        self, given: EdgeInput | CloseEdgeInput,
    ) -> tuple[NormalizedRelation, Node | None, Node | None, str | None]:
        """The stored relation name and its two ends, swapped when the vocabulary names an inverse.

        The last item says why an end is missing (``skipped``): no such node, or a name that could mean
        several (``resolve_name`` reports ambiguity; an edge is never attached to a guess).
        """
        relation = self.vocabulary.normalize(given.relation)
        matches = [await self.match_name(given.source_name), await self.match_name(given.target_name)]
        skipped = None
        for match in matches:
            if match.ambiguous:
                skipped = f"ambiguous endpoint name {match.wanted!r}: could be {match.choices()}"
                break
        else:
            if any(match.node is None for match in matches):
                skipped = "missing endpoint node"
        source, target = matches[0].node, matches[1].node
        if relation.flipped:
            source, target = target, source
        return relation, source, target, skipped

    async def _upsert_edge(self, given: EdgeInput, closed: list[ClosedEdge]) -> EdgeResult:
        relation, source, target, skipped = await self._endpoints(given)
        problem = self.vocabulary.sign_problem(relation.name, given.strength)
        if problem:
            raise CallRejected(problem)
        knowers = await self._named_knowers(given)
        teller = await self._teller(given)
        if source is None or target is None:
            return EdgeResult(
                id=None, source=source.id if source else None, target=target.id if target else None,
                relation=relation.name, fact=given.fact, skipped=skipped,
            )
        versions = await self._open_versions(source.id, target.id, relation)
        contradicted = await self._excluded_versions(source.id, target.id, relation.name)
        held = self._held_contradiction(contradicted, source, target)
        if held is not None:
            return EdgeResult(id=None, source=source.id, target=target.id, relation=relation.name, fact=given.fact,
                              skipped=held)
        current = self._self_heal(versions, closed)
        if current is not None and unchanged(current.strength, current.fact, given.strength, given.fact):
            if knowers is not None or given.public or teller is not None:
                # Nothing new about the relation, but news about who knows it (a secret told, made public).
                stored = (await self.reader.knowings_of([current.id])).get(current.id, {})
                for knowing in self._knowings(current, source, target, knowers, public=given.public, teller=teller):
                    self._learn(knowing, stored.get(knowing.knower))
            return EdgeResult(
                id=current.id, source=current.source, target=current.target, relation=current.relation,
                fact=current.fact, skipped="unchanged relation",
            )
        if current is not None:
            self._close_version(current)
            # Keep a symmetric relation in the direction it was first written.
            source_id, target_id = current.source, current.target
        else:
            source_id, target_id = source.id, target.id
        edge = Edge(
            id=await self._new_edge_id(relation.name),
            source=source_id,
            target=target_id,
            relation=relation.name,
            strength=given.strength,
            fact=given.fact,
            valid_at=self.turn,
            evidence_turn_ids=[f"turn-{self.turn}"],
        )
        self.buffer.put_edge(edge, created=True)
        for knowing in self._knowings(edge, source, target, knowers, public=given.public, teller=teller):
            self._learn(knowing)
        for stale in contradicted:
            self._close_version(stale)
            closed.append(ClosedEdge(id=stale.id, source=stale.source, target=stale.target,
                                     relation=stale.relation, reason=f"contradicted by {edge.relation}"))
        return EdgeResult(
            id=edge.id, source=edge.source, target=edge.target, relation=edge.relation, fact=edge.fact,
            supersedes=current.id if current else None,
        )

    async def _named_knowers(self, given: EdgeInput) -> list[Node] | None:
        """The individuals ``knownBy`` names (None when it is not given); any name that is not exactly
        one individual rejects the call: a secret told to a guess would be a leak."""
        if given.known_by is None:
            return None
        found: list[Node] = []
        for name in given.known_by:
            match = await self.match_name(name)
            if match.ambiguous:
                raise CallRejected(f"knownBy: {name!r} could mean any of {match.choices()}; use the full name")
            if match.node is None:
                raise CallRejected(f"knownBy: there is no one called {name!r} in the graph")
            if match.node.type != "individual":
                raise CallRejected(f"knownBy: {match.node.name} is a {match.node.type}, and only individuals know "
                                   "things; name its members instead")
            found.append(match.node)
        return found

    async def _teller(self, given: EdgeInput) -> Node | None:
        """The individual ``toldBy`` names, or None. A teller who is not one person (a faction speaking
        through a crowd) tells nobody in particular: the witnesses then simply saw it."""
        if given.told_by is None:
            return None
        match = await self.match_name(given.told_by)
        return match.node if match.node is not None and match.node.type == "individual" else None

    def _knowings(self, edge: Edge, source: Node, target: Node, named: list[Node] | None, *,
                  public: bool, teller: Node | None = None) -> list[Knowing]:
        """Who learns a version: those ``knownBy`` names (as its authors said), else the defaults; plus
        everyone when it is public. With a teller, the witnesses who are not its ends heard it from them."""
        if named is None:
            rows = default_knowings(edge, (source, target), self.witnesses, self.turn)
            if teller is not None:
                rows = [row.model_copy(update={"how": "told", "source": teller.id})
                        if row.how == "witnessed" and row.knower != teller.id else row for row in rows]
                if teller.id not in {row.knower for row in rows}:
                    rows.append(Knowing(edge_id=edge.id, knower=teller.id, how="authored", confidence=1.0,
                                        since_turn=self.turn))
        else:
            rows = [Knowing(edge_id=edge.id, knower=node.id, how="authored", confidence=1.0, since_turn=self.turn)
                    for node in named]
        if public:
            rows.append(public_knowing(edge.id, self.turn))
        return rows

    def _learn(self, knowing: Knowing, stored: Knowing | None = None) -> None:
        """Buffer a knower row, keeping the better of it and what the knower already had (``keep_better``)."""
        current = self.buffer.knowing(knowing.edge_id, knowing.knower) or stored
        kept = keep_better(current, knowing)
        if kept is not current:
            self.buffer.put_knowing(kept)

    async def _excluded_versions(self, source: str, target: str, relation: str) -> list[Edge]:
        """The open relations the vocabulary says cannot stand beside ``relation`` between these ends
        (TRUSTS ends DISTRUSTS): a new version of it closes them."""
        found: list[Edge] = []
        for excluded in excluded_relations(self.vocabulary, relation):
            found += await self._open_versions(source, target, excluded)
        return found

    def _held_contradiction(self, contradicted: list[Edge], source: Node, target: Node) -> str | None:
        """Why a reading may not replace ``contradicted`` by its opposite, or None. Replacing a relation
        by its opposite ends it: "X distrusts Y" said of every pair would end every TRUSTS of the world, so
        it is held to the rule for endings (``game.graph.endings``), counted as one ending; the new relation
        is then not written either, since it cannot stand beside the one kept."""
        if self.endings is None or not contradicted:
            return None
        return self.endings.held_back(next((e for e in contradicted if authored(e)), contradicted[0]), source, target)

    async def _open_versions(self, source: str, target: str, relation: NormalizedRelation) -> list[Edge]:
        """Open versions of a relation between ends in stored order, stored or buffered (both
        directions for a symmetric relation)."""
        found: dict[str, Edge] = {}
        for s, t in relation.directions(source, target):
            for edge in await self.reader.open_edges_between(s, t, relation.name):
                found[edge.id] = self.writes.edges.get(edge.id, edge)
            for edge in self.buffer.edges_between(s, t, relation.name):
                found[edge.id] = edge
        return [e for e in found.values() if e.is_open]

    def _self_heal(self, versions: list[Edge], closed: list[ClosedEdge]) -> Edge | None:
        """Keep the newest open version; close any older ones left open by earlier faults."""
        if not versions:
            return None
        created = self.writes.created_edges
        ordered = sorted(versions, key=lambda e: heal_key(e.valid_at, e.id in created, e.id))
        newest = ordered[-1]
        for stale in ordered[:-1]:
            self._close_version(stale)
            closed.append(ClosedEdge(
                id=stale.id, source=stale.source, target=stale.target, relation=stale.relation,
                reason="duplicate open version",
            ))
        return newest

    def _close_version(self, edge: Edge) -> None:
        refusal = end_refusal(edge.relation, edge.source, edge.target, edge.valid_at, self.turn)
        if refusal:
            raise CallRejected(refusal)
        self.buffer.put_edge(edge.model_copy(update={"invalid_at": self.turn}))

    async def new_edge_id(self, relation: str) -> str:
        """A version ID no saved or buffered version has (for a version written outside a call, such as
        one enrichment reopens)."""
        return await self._new_edge_id(relation)

    async def _new_edge_id(self, relation: str) -> str:
        slug = edge_slug(relation)
        while True:
            candidate = edge_id_for(slug, self._rng.getrandbits(31))
            if candidate not in self.writes.edges and not await self.reader.edge_id_taken(candidate):
                return candidate

    async def _close(self, given: CloseEdgeInput) -> list[ClosedEdge]:
        relation, source, target, skipped = await self._endpoints(given)
        if source is None or target is None:
            return [ClosedEdge(id=None, source=source.id if source else None,
                               target=target.id if target else None, relation=relation.name,
                               skipped=skipped)]
        if self._close_guard is not None:
            refusal = self._close_guard(source, target)
            if refusal:
                raise CallRejected(refusal)
        versions = await self._open_versions(source.id, target.id, relation)
        if not versions:
            return [ClosedEdge(id=None, source=source.id, target=target.id, relation=relation.name,
                               skipped="no open relation")]
        held = self.endings.held_back(versions[-1], source, target) if self.endings is not None else None
        if held is not None:
            return [ClosedEdge(id=None, source=source.id, target=target.id, relation=relation.name, skipped=held)]
        for edge in versions:
            self._close_version(edge)
        return [ClosedEdge(id=e.id, source=e.source, target=e.target, relation=e.relation, reason="closed")
                for e in versions]


@functools.cache
def suffix_triples() -> tuple[str, ...]:
    """Every run of three base-36 digits (``[a-z0-9]``), least significant first, by value: a 31-bit number
    is two runs of three (36**6 > 2**31)."""
    alphabet = _SUFFIX_ALPHABET
    return tuple(alphabet[n % 36] + alphabet[n // 36 % 36] + alphabet[n // 1296] for n in range(36 ** 3))


# ------------------------------------------------------------------------------------------- the rules
# Every rule of versioning a relation, as functions of plain values: ``UpsertExecution`` applies them to
# models, ``game.graph.bulk`` (an import) to the rows the save will hold. One copy, so the two cannot part.


def unchanged(strength: float, fact: str, given_strength: float, given_fact: str) -> bool:
    """Whether a restated relation says nothing new (the same fact, the same strength): a no-op."""
    return abs(strength - given_strength) <= STRENGTH_TOLERANCE and fact == given_fact


def heal_key(valid_at: int, written_here: bool, edge_id: str) -> tuple[int, bool, str]:
    """The order open versions of one relation are kept in when several are open: the last one is kept
    and the rest closed (self-healing). Ties on ``valid_at`` go to a version this execution wrote, then to
    the ID, as in retrieval's ``newest_per_relation``, so the version kept is the one retrieval shows."""
    return valid_at, written_here, edge_id


def end_refusal(relation: str, source: str, target: str, valid_at: int, turn: int) -> str | None:
    """Why a version that began at ``valid_at`` may not end at ``turn``, or None. Only reachable when an
    author writes back in time (``graph upsert --turn``, an import's ``turn``)."""
    if turn >= valid_at:
        return None
    return (f"{relation} from {source} to {target} was last set at turn {valid_at}; "
            f"a change dated turn {turn} would end it before it began (use turn {valid_at} or later)")


def node_ids(name: str) -> Iterator[str]:
    """A new node's readable IDs in the order tried: ``npc-<slug>``, then ``-2``, ``-3``...; the first no
    saved, merged-away or buffered node has is its ID."""
    base = f"npc-{slugify(name) or 'node'}"
    yield base
    for counter in itertools.count(2):
        yield f"{base}-{counter}"


def edge_slug(relation: str) -> str:
    """The relation's part of its versions' IDs."""
    return slugify(relation, max_length=20) or "rel"


def edge_id_for(slug: str, number: int) -> str:
    """The version ID a 31-bit random ``number`` gives: ``edge-<slug>-`` and six base-36 digits, least
    significant first (two table lookups: an import draws a hundred thousand)."""
    triples = suffix_triples()
    return f"edge-{slug}-{triples[number % 46656]}{triples[number // 46656 % 46656]}"


def authors(first: Node, second: Node, source: str, target: str) -> list[str]:
    """Who knows a new version of ``source``'s relation to ``target`` because they are in it: of the two
    ends named (``first``, ``second``), those that are individuals (groups and factions know nothing
    themselves), once each. The first rule of ``default_knowings``, for an import's rows."""
    found: list[str] = []
    first_id, second_id = first.id, second.id
    if first.type == "individual" and first_id in (source, target):
        found.append(first_id)
    if second_id != first_id and second.type == "individual" and second_id in (source, target):
        found.append(second_id)
    return found


def excluded_relations(vocabulary: Vocabulary, relation: str) -> list[NormalizedRelation]:
    """The relations the vocabulary says cannot stand beside ``relation`` between the same ends (TRUSTS
    ends DISTRUSTS): a new version of ``relation`` closes their open versions."""
    return [vocabulary.normalize(name) for name in vocabulary.excluded_by(relation)]


def parse_call(call: UpsertCall | dict[str, Any] | str) -> UpsertCall:
    """Validate a call from a model, a file or code, turning every problem into one actionable message."""
    if isinstance(call, UpsertCall):
        return call
    try:
        # JSON speaks camelCase only: ``source_name`` from a model is an unknown field, not a synonym.
        if isinstance(call, str):
            return UpsertCall.model_validate_json(call, by_alias=True, by_name=False)
        if not isinstance(call, dict):
            raise CallRejected(f"a call must be a JSON object with nodes, edges or closeEdges (got {type(call).__name__})")
        return UpsertCall.model_validate(call, by_alias=True, by_name=False)
    except ValidationError as error:
        raise CallRejected(describe_validation_error(error)) from error


def load_json(text: str) -> Any:
    """JSON text as data; ``ValueError`` for unreadable JSON, including JSON nested past Python's stack
    (``json`` raises ``RecursionError`` there, which would otherwise escape as a traceback)."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def load_calls(text: str) -> list[Any]:
    """Calls from JSON text: one object, or a list of them. Raises ``ValueError`` on unreadable JSON."""
    data = load_json(text)
    return data if isinstance(data, list) else [data]
