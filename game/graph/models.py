"""The graph's data: stored nodes and edge versions, upsert calls, and what an upsert reports.

JSON at every boundary is camelCase (``firstSeenTurn``, ``sourceName``); Python uses snake_case through
pydantic aliases. Input models forbid unknown fields so a model's typo is an error it can correct, not a
field silently ignored.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from game.text import has_control

NodeType = Literal["individual", "group", "faction"]
NODE_TYPES: tuple[NodeType, ...] = ("individual", "group", "faction")

MAX_LABELS = 5
MAX_NODES_PER_CALL = 8
MAX_EDGES_PER_CALL = 12
MAX_CLOSES_PER_CALL = 12
MAX_RELATION_CHARS = 48
MAX_KNOWN_BY = 24
MAX_NAME_CHARS = 100
MAX_SUMMARY_CHARS = 400
MIN_FACT_CHARS = 8
MAX_FACT_CHARS = 400
RELATION_PATTERN = r"^[A-Za-z][A-Za-z0-9_ \-]*$"
MAX_ATTRIBUTE_KEYS = 32
MAX_ATTRIBUTES_BYTES = 4096
"""Attributes are a node's small notes (``player: true``, a title), not a store for documents: every
retrieval and map redraw carries them, so one runaway call must not bloat every later turn."""
MAX_ATTRIBUTE_DEPTH = 16
"""Nesting deeper than this is refused: serializers (pydantic's, a reader's) give up long before JSON does."""
MAX_TURN = 2**53 - 1
"""The largest turn accepted: the largest whole number every JSON reader keeps exact (SQLite would
overflow at 2**63, and the exports are read by tools in other languages)."""


class CamelModel(BaseModel):
    """Base for every boundary model: camelCase aliases, snake_case attributes."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", ser_json_inf_nan="null"
    )

    def to_json_dict(self) -> dict[str, Any]:
        """The camelCase JSON form, without unset optional fields."""
        return self.model_dump(mode="json", by_alias=True, exclude_none=True)


class Node(CamelModel):
    """A stored individual, group or faction. ``name`` and ``type`` never change once created."""

    id: str
    name: str
    aliases: list[str] = Field(default_factory=list)
    type: NodeType
    labels: list[str] = Field(default_factory=list, max_length=MAX_LABELS)
    summary: str
    first_seen_turn: int
    last_seen_turn: int
    attributes: dict[str, Any] = Field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        """The name followed by every alias."""
        return [self.name, *self.aliases]


class Edge(CamelModel):
    """One version of the relation ``(source, target, relation)``; open while ``invalid_at`` is None."""

    id: str
    source: str
    target: str
    relation: str
    strength: float = Field(ge=-1.0, le=1.0, allow_inf_nan=False)
    fact: str
    valid_at: int
    invalid_at: int | None = None
    evidence_turn_ids: list[str] = Field(default_factory=list)

    @property
    def is_open(self) -> bool:
        return self.invalid_at is None

    def other_end(self, node_id: str) -> str:
        """The endpoint that is not ``node_id`` (the same one for a self-relation)."""
        return self.target if self.source == node_id else self.source


def attributes_problem(attributes: dict[str, Any]) -> str | None:
    """Why a node's attributes are too big to keep, or None: at most 32 keys, 4 KiB as JSON."""
    if len(attributes) > MAX_ATTRIBUTE_KEYS:
        return f"attributes: at most {MAX_ATTRIBUTE_KEYS} keys per node (got {len(attributes)})"
    try:
        size = len(json.dumps(attributes, ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError, RecursionError):
        return "attributes: must be plain JSON (objects, lists, text, numbers, true/false, null), not nested too deeply"
    if size > MAX_ATTRIBUTES_BYTES:
        return f"attributes: at most {MAX_ATTRIBUTES_BYTES} bytes of JSON per node (got {size}); keep short notes only"
    if _depth(attributes) > MAX_ATTRIBUTE_DEPTH:
        return f"attributes: nested more than {MAX_ATTRIBUTE_DEPTH} levels; keep short, flat notes"
    return None


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in ``value``, counted without recursion (it may be very deep)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        current, level = stack.pop()
        if isinstance(current, dict | list):
            deepest = max(deepest, level)
            stack.extend((item, level + 1) for item in (current.values() if isinstance(current, dict) else current))
    return deepest


def _collapse_spaces(value: Any) -> Any:
    """Runs of white space become one space and the ends are trimmed; non-strings are left to validation."""
    return " ".join(value.split()) if isinstance(value, str) else value


def _plain_text(value: str, what: str) -> str:
    """Spaces collapsed; blank text and control characters refused (a name is printed on terminals,
    and an escape sequence in it could clear a screen or write to a clipboard)."""
    value = " ".join(value.split())
    if not value:
        raise ValueError(f"{what} must not be blank")
    if has_control(value):
        raise ValueError(f"{what} must not contain control characters or escape sequences")
    return value


def _strict_number(value: Any) -> Any:
    """``true`` is not 1.0 and ``"0.5"`` is not 0.5: pydantic would coerce both; a model that writes them
    has misread the schema and is better told so than silently believed."""
    if isinstance(value, bool | str):
        raise ValueError(f"must be a number between -1 and 1, not {json.dumps(value)}")
    return value


class NodeInput(CamelModel):
    """A node named in an upsert call. Found by name or alias; created when not found."""

    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    type: NodeType | None = None
    aliases: list[str] = Field(default_factory=list, max_length=12)
    labels: list[str] = Field(default_factory=list)
    summary: str | None = Field(default=None, min_length=4, max_length=MAX_SUMMARY_CHARS)
    attributes: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return _plain_text(value, "name")

    # Before the length check, so a blank or space-padded summary cannot pass for 4 characters.
    @field_validator("summary", mode="before")
    @classmethod
    def _summary(cls, value: Any) -> Any:
        return _collapse_spaces(value)

    # Before the Literal check, so "Faction" is accepted and anything else gets a message a model can use.
    @field_validator("type", mode="before")
    @classmethod
    def _type(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        lowered = value.strip().lower()
        if lowered not in NODE_TYPES:
            raise ValueError(
                f"type {value!r} is not a graph node type; use individual, group or faction "
                "(places, items, skills and concepts are not nodes)"
            )
        return lowered

    @field_validator("attributes")
    @classmethod
    def _attributes(cls, value: dict[str, Any]) -> dict[str, Any]:
        problem = attributes_problem(value)
        if problem:
            raise ValueError(problem.removeprefix("attributes: "))
        return value

    @field_validator("labels")
    @classmethod
    def _labels(cls, value: list[str]) -> list[str]:
        cleaned = _dedupe([_plain_text(label, "a label") for label in value])
        if len(cleaned) > MAX_LABELS:
            raise ValueError(f"at most {MAX_LABELS} labels per node (got {len(cleaned)})")
        return cleaned

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: list[str]) -> list[str]:
        cleaned = [_plain_text(alias, "an alias") for alias in value]
        for alias in cleaned:
            if len(alias) > MAX_NAME_CHARS:
                raise ValueError(f"an alias may be at most {MAX_NAME_CHARS} characters")
        return _dedupe(cleaned)


class EdgeInput(CamelModel):
    """A relation named in an upsert call, by the names of its two ends."""

    source_name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    target_name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    relation: str = Field(min_length=1, max_length=MAX_RELATION_CHARS, pattern=RELATION_PATTERN)
    strength: float = Field(ge=-1.0, le=1.0, allow_inf_nan=False)
    fact: str = Field(min_length=MIN_FACT_CHARS, max_length=MAX_FACT_CHARS)
    # Left out of the JSON schema: the narrator's tool schema is generated from this model, and recorded
    # model sessions are keyed by it; authors and the CLI write these fields, a model need not.
    known_by: SkipJsonSchema[list[str] | None] = Field(
        default=None, max_length=MAX_KNOWN_BY,
        description="Who knows this relation, replacing the default knowers (its ends and the witnesses).")
    public: SkipJsonSchema[bool] = Field(default=False, description="Everyone knows it (the whole town's knowledge).")
    told_by: SkipJsonSchema[str | None] = Field(
        default=None, max_length=MAX_NAME_CHARS,
        description="Who told it to the witnesses: they learn it as told by them, not as seen.")

    @field_validator("strength", mode="before")
    @classmethod
    def _strength(cls, value: Any) -> Any:
        return _strict_number(value)

    @field_validator("told_by")
    @classmethod
    def _told_by(cls, value: str | None) -> str | None:
        return None if value is None else _plain_text(value, "toldBy")

    @field_validator("known_by")
    @classmethod
    def _known_by(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        names = [_plain_text(name, "a knownBy name") for name in value]
        for name in names:
            if len(name) > MAX_NAME_CHARS:
                raise ValueError(f"a knownBy name may be at most {MAX_NAME_CHARS} characters")
        return _dedupe(names)

    # Before the length check, so a fact padded to 8 characters with spaces is still too short.
    @field_validator("fact", mode="before")
    @classmethod
    def _fact(cls, value: Any) -> Any:
        return _collapse_spaces(value)


class CloseEdgeInput(CamelModel):
    """A relation to end without a successor."""

    source_name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    target_name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    relation: str = Field(min_length=1, max_length=MAX_RELATION_CHARS, pattern=RELATION_PATTERN)


class UpsertCall(CamelModel):
    """One call of the upsert tool: up to 8 nodes, 12 edges and 12 closes, at least one item."""

    nodes: list[NodeInput] = Field(default_factory=list, max_length=MAX_NODES_PER_CALL)
    edges: list[EdgeInput] = Field(default_factory=list, max_length=MAX_EDGES_PER_CALL)
    close_edges: list[CloseEdgeInput] = Field(default_factory=list, max_length=MAX_CLOSES_PER_CALL)

    @model_validator(mode="after")
    def _not_empty(self) -> UpsertCall:
        if not (self.nodes or self.edges or self.close_edges):
            raise ValueError("a call needs at least one node, edge or closeEdges item")
        return self


class NodeResult(CamelModel):
    id: str
    name: str
    status: Literal["created", "updated"]


class NodeResults(CamelModel):
    created: int = 0
    updated: int = 0
    results: list[NodeResult] = Field(default_factory=list)


class EdgeResult(CamelModel):
    """What happened to one edge of a call. ``id`` is the version written (or the unchanged one)."""

    id: str | None
    source: str | None
    target: str | None
    relation: str
    fact: str
    skipped: str | None = None
    supersedes: str | None = None


class EdgeResults(CamelModel):
    created: int = 0
    skipped: int = 0
    results: list[EdgeResult] = Field(default_factory=list)


class ClosedEdge(CamelModel):
    """A version that this call closed, or a close that found nothing open (``skipped``)."""

    id: str | None
    source: str | None
    target: str | None
    relation: str
    reason: str | None = None
    skipped: str | None = None


class UpsertResult(CamelModel):
    nodes: NodeResults = Field(default_factory=NodeResults)
    edges: EdgeResults = Field(default_factory=EdgeResults)
    closed: list[ClosedEdge] = Field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        """The contract shape; an edge's ``id``, ``source`` and ``target`` stay present even when null."""
        data = super().to_json_dict()
        data["edges"]["results"] = [
            # Rebuilt rather than patched so the keys keep the contract's order (id, source, target first).
            {"id": result.id, "source": result.source, "target": result.target, **raw}
            for raw, result in zip(data["edges"]["results"], self.edges.results, strict=True)
        ]
        return data


def _dedupe(values: list[str]) -> list[str]:
    seen: set[str] = set()
    kept: list[str] = []
    for value in values:
        key = value.casefold()
        if key not in seen:
            seen.add(key)
            kept.append(value)
    return kept
