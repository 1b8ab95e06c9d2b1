"""The tools the model may call, their schemas, and the character lookups that answer the narrator.

``upsert_npc_graph``'s parameters are generated from the graph's own pydantic input model, with every
``$ref`` inlined (several local servers turn schemas into grammars and do not follow references), so the
tool and the validation that judges its calls can never disagree. The narrator's ``list_characters`` and
``get_character`` answer from the world's cast and the graph's nodes, including characters who are not on
stage: the graph supplements them, the world's profiles are the authority on who someone is.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from game.graph.index import GraphIndex
from game.graph.models import Edge, Node, UpsertCall
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.graph.render import sign_mark
from game.world import World

LIST_CHARACTERS = "list_characters"
GET_CHARACTER = "get_character"
UPSERT = "upsert_npc_graph"
DONE = "runtime_done"
NARRATION_TOOLS = (LIST_CHARACTERS, GET_CHARACTER)
EXTRACTION_TOOLS = (UPSERT, DONE)
MAX_TOOL_RESULT_CHARS = 6000
MAX_LISTED = 60
MAX_RELATIONS_SHOWN = 12


def inline_refs(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema with ``$ref`` replaced by the definitions they name, and titles dropped (they cost tokens)."""
    definitions = schema.get("$defs", {})

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                target = copy.deepcopy(definitions[ref.removeprefix("#/$defs/")])
                extra = {k: v for k, v in value.items() if k != "$ref"}
                return walk({**target, **extra})
            return {k: walk(v) for k, v in value.items() if k not in {"$defs", "title"}}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    result = walk(schema)
    assert isinstance(result, dict)
    return result


_SCHEMAS: dict[str, dict[str, Any]] = {}


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """A pydantic model's JSON schema (camelCase, as the model must write it), references inlined."""
    key = f"{model.__module__}.{model.__qualname__}"
    if key not in _SCHEMAS:
        # Generating a schema takes milliseconds and the models never change while the game runs.
        _SCHEMAS[key] = inline_refs(model.model_json_schema(by_alias=True))
    return copy.deepcopy(_SCHEMAS[key])


def _function(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def narration_tools() -> list[dict[str, Any]]:
    return [
        _function(LIST_CHARACTERS,
                  "List every character, group and faction of the story, on stage or not, with a one-line "
                  "summary. Use it when you need someone the scene does not name.",
                  {"type": "object", "properties": {}, "additionalProperties": False}),
        _function(GET_CHARACTER,
                  "The full profile of one character, group or faction by name or alias: who they are, how "
                  "they speak, where they are, and their known relationships.",
                  {"type": "object", "properties": {"name": {"type": "string", "description": "Name or alias."}},
                   "required": ["name"], "additionalProperties": False}),
    ]


def extraction_tools() -> list[dict[str, Any]]:
    return copy.deepcopy(_extraction_tools())


@functools.cache
def _extraction_tools() -> list[dict[str, Any]]:
    upsert = _annotated(model_schema(UpsertCall))
    upsert["description"] = (
        "Nodes, edges and closeEdges for this turn, all by name (never IDs). At most 8 nodes, 12 edges and "
        "12 closeEdges per call; make several calls in the same reply for more."
    )
    return [
        _function(UPSERT,
                  "Record this turn in the relationship graph: create or update characters, groups and "
                  "factions (nodes), open or change relations (edges), and end relations the turn ended "
                  "(closeEdges). Nodes are found by name or alias; a new node needs a summary.",
                  upsert),
        _function(DONE,
                  "Say that you are finished: call it when this turn changes nothing in the graph, or after "
                  "your upserts succeeded.",
                  {"type": "object", "properties": {"reason": {"type": "string"}}, "additionalProperties": False}),
    ]


_HINTS: dict[tuple[str, str], dict[str, Any]] = {
    ("nodes", "type"): {"description": "individual, group or faction (places, items and ideas are not nodes)",
                        "enum": ["individual", "group", "faction"]},
    ("nodes", "summary"): {"description": "Who they are now, 4-400 characters; required for a new node."},
    ("edges", "relation"): {"description": "UPPER_SNAKE_CASE, from the vocabulary when one fits."},
    ("edges", "strength"): {"description": "-1 (deadly enemy) to 1 (loyal unto death); 0.2 is a nod."},
    ("edges", "fact"): {"description": "One concrete sentence saying why, 8-400 characters."},
}


def _annotated(schema: dict[str, Any]) -> dict[str, Any]:
    """Field hints the validation messages would otherwise have to teach, one rejected call at a time."""
    for (array, name), hint in _HINTS.items():
        properties = schema["properties"][array]["items"]["properties"]
        if name == "type":
            properties[name] = {"type": "string", **hint}
        else:
            properties[name] = {**properties[name], **hint}
    return schema


def tool_result(data: Any) -> str:
    """A tool result as the model reads it: JSON, cut to a size that cannot flood the context."""
    text = json.dumps(data, ensure_ascii=False)
    if len(text) > MAX_TOOL_RESULT_CHARS:
        text = text[:MAX_TOOL_RESULT_CHARS] + " …(cut)"
    return text


class CharacterBook:
    """Answers the narrator's character lookups from the world and the graph."""

    def __init__(self, world: World, graph: GraphReader) -> None:
        self.world = world
        self.graph = graph

    async def list_characters(self, cast: Sequence[str]) -> dict[str, Any]:
        on_stage = {normalize_name(name) for name in cast}
        entries: list[dict[str, Any]] = []
        seen: set[str] = set()
        for character in self.world.characters:
            keys = {normalize_name(n) for n in character.names}
            seen |= keys
            entries.append({
                "name": character.name, "aliases": list(character.aliases), "type": character.type,
                "summary": character.summary, "onStage": bool(keys & on_stage),
            })
        if isinstance(self.graph, GraphIndex):
            met = sorted(self.graph.nodes.values(), key=lambda n: (-n.last_seen_turn, n.name))
            for node in met:
                keys = {normalize_name(n) for n in node.names}
                if keys & seen or node.attributes.get("player"):
                    continue
                seen |= keys
                entries.append({"name": node.name, "aliases": list(node.aliases), "type": node.type,
                                "summary": node.summary, "onStage": bool(keys & on_stage)})
        return {"player": self.world.player_name, "characters": entries[:MAX_LISTED],
                "more": max(0, len(entries) - MAX_LISTED)}

    async def get_character(self, name: str) -> dict[str, Any]:
        key = normalize_name(name)
        if not key:
            return {"error": "give the name or alias of a character"}
        character = self.world.character(name)
        nodes = (await self.graph.nodes_named([key])).get(key, [])
        if character is not None and not nodes:
            canonical = normalize_name(character.name)
            nodes = (await self.graph.nodes_named([canonical])).get(canonical, [])
        if character is None and not nodes:
            if self.world.is_player(name):
                return {"name": self.world.player_name, "player": True, "summary": self.world.player.summary}
            return {"error": f"no character, group or faction is called {name!r}; list_characters shows who exists"}
        found: dict[str, Any] = {}
        if character is not None:
            place = self.world.place(character.location) if character.location else None
            found.update({
                "name": character.name, "aliases": list(character.aliases), "type": character.type,
                "summary": character.summary,
            })
            if character.profile:
                found["profile"] = character.profile
            if place is not None:
                found["usuallyAt"] = place.name
        node = nodes[0] if nodes else None
        if node is not None:
            found.setdefault("name", node.name)
            found.setdefault("type", node.type)
            found.setdefault("aliases", list(node.aliases))
            found["remembered"] = node.summary
            if node.labels:
                found["labels"] = list(node.labels)
            found["relationships"] = await self._relations(node)
        return found

    async def _relations(self, node: Node) -> list[str]:
        edges = sorted(await self.graph.open_edges_of(node.id),
                       key=lambda e: (-e.valid_at, -abs(e.strength), e.id))[:MAX_RELATIONS_SHOWN]
        others = await self.graph.get_nodes({e.other_end(node.id) for e in edges} | {node.id})
        return [relation_line(edge, others) for edge in edges]


def relation_line(edge: Edge, nodes: Mapping[str, Node]) -> str:
    """``Bram → Elin (KIN_OF, +0.80) [+]: fact`` — names only, never IDs."""
    source = nodes[edge.source].name if edge.source in nodes else edge.source
    target = nodes[edge.target].name if edge.target in nodes else edge.target
    return f"{source} → {target} ({edge.relation}, {edge.strength:+.2f}) {sign_mark(edge.strength)}: {edge.fact}"
