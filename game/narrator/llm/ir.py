"""Step 2: the turn's World IR, asked for as JSON and repaired within a bounded number of replies.

The request uses ``json_schema`` where the server supports it, else JSON mode, else plain text with the
schema in the prompt (``capabilities`` learns which). A reply that is not JSON, echoes the schema or
fails validation is answered with what was wrong, up to ``repair_attempts`` times; on the last try the
items that validate are kept and the rest counted (never invented). Relations whose evidence is not in
the narration the player saw are dropped afterwards (``supported_only``).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from game.config import LLMSettings
from game.errors import describe_validation_error
from game.graph.models import Node
from game.graph.retrieve import find_mentions
from game.narrator.base import NarrationRequest
from game.narrator.llm.calls import Requests
from game.narrator.llm.capabilities import response_format
from game.narrator.llm.compact import world_ir_compact_v1
from game.narrator.llm.guard import clean_json
from game.narrator.llm.json_reply import JSONReplyError, echoes_schema, parse_json_reply
from game.narrator.llm.prompts import world_ir_v1
from game.narrator.llm.stream import strip_reasoning
from game.narrator.llm.tokens import message_tokens
from game.narrator.llm.tools import model_schema
from game.narrator.llm.transport import LLMError, first_message
from game.text import straighten_quotes
from game.world import World
from game.world.ir import GRAPH_KINDS, WorldIR

IR_FIELDS = ("charactersPresent", "entities", "relations", "endedRelations", "nextCast", "location")
MIN_REPLY_TOKENS = 256
"""The least room a World IR reply is asked for; a prompt that leaves less is not sent."""
MAX_REFITS = 3
"""Times one World IR request is fitted and sent again after an overflow or a refused response format."""
FORMATS = ("json_schema", "json_object")
MAX_REPAIR_ECHO = 4000
"""Characters of a bad reply quoted back to the model with the repair request."""
_KIND_SYNONYMS = {
    "person": "character", "npc": "character", "individual": "character", "people": "character",
    "organization": "faction", "organisation": "faction", "guild": "group", "location": "place",
    "object": "item", "thing": "item", "ability": "skill", "idea": "concept", "event": "concept",
}

MODEL_MAY_NOT_WRITE = frozenset({
    "acts", "attitudes", "attitude", "memories", "memory", "npcMemories", "knowledge", "knowings", "knows",
    "knownFacts", "beliefs", "gossip",
})
"""World IR keys only the story engine writes (its acts and attitude changes), or that would write
someone's attitude, memory or knowledge directly. A model's turn changes those only through the relations
it states (checked like any other), so a reply carrying them is read without them: six people at trust
-100 "(model says so)" move nobody."""
KNOWER_KEYS = ("knownBy", "known_by", "public", "toldBy", "told_by")
"""Who learns a relation: the story engine's to say. A model's relation is known by its ends and whoever
was on stage (the defaults), never by everyone it lists."""

IRAnswer = tuple[WorldIR | None, str | None, int]
"""The World IR (None when none could be read), why not, and how many unreadable items were left out."""


async def ask_world_ir(requests: Requests, llm: LLMSettings, world: World, request: NarrationRequest,
                       narration: str, model: str) -> IRAnswer:
    """The turn's World IR, with bounded repair turns; (None, why, 0) when none could be read."""
    mentioned = await find_mentions(request.graph, f"{request.player_input}\n{narration}")
    schema = model_schema(WorldIR)
    repairs: list[dict[str, Any]] = []
    attempts = 1 + llm.repair_attempts
    problem = "no reply"
    last_value: Any = None
    for attempt in range(attempts):
        completion = await _ask(requests, llm, world, request, strip_reasoning(narration), mentioned, schema,
                                repairs, model)
        if completion is None:
            return None, "this turn is too long for the model's context to record its facts.", 0
        text = reply_text(completion)
        try:
            value = clean_json(parse_json_reply(text))
        except JSONReplyError as error:
            problem = f"the reply is {error}"
        else:
            last_value = value
            if echoes_schema(value, IR_FIELDS):
                problem = ("you sent back the JSON schema itself; fill it in with this turn's facts "
                           "(charactersPresent, entities, relations, endedRelations, nextCast, location)")
            else:
                try:
                    return WorldIR.model_validate(tidy_ir(value)), None, 0
                except ValidationError as error:
                    problem = describe_validation_error(error)
        if attempt + 1 < attempts:
            repairs += [{"role": "assistant", "content": text[:MAX_REPAIR_ECHO]},
                        {"role": "user", "content": f"That reply cannot be used: {problem}. Reply again "
                                                    "with one corrected JSON object and nothing else."}]
    if not echoes_schema(last_value, IR_FIELDS):
        salvaged = salvage(last_value)
        if salvaged is not None:
            return salvaged
    return None, f"the model's facts for this turn could not be read ({problem}).", 0


async def _ask(requests: Requests, llm: LLMSettings, world: World, request: NarrationRequest, narration: str,
               mentioned: list[Node], schema: dict[str, Any], repairs: list[dict[str, Any]], model: str
               ) -> dict[str, Any] | None:
    """One World IR request, fitted to the context; None when even the compact prompt does not fit.

    A refused response format and an overflow both change what fits (the schema moves into the prompt;
    the calibration learns the server's real count), so the prompt is fitted again before each send,
    ``MAX_REFITS`` times at most.
    """
    for refit in range(MAX_REFITS + 1):
        # Rebuilt each try: a fallback to plain JSON taken meanwhile needs the schema in the prompt.
        inline = schema if requests.caps.structured == "none" else None
        fitted = _fitted(requests, llm, world, request, narration, mentioned, inline, repairs)
        if fitted is None:
            return None
        messages, max_tokens = fitted
        params: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
        fmt = response_format(requests.caps.structured, "world_ir", schema)
        if fmt is not None:
            params["response_format"] = fmt
        try:
            return await requests.complete(request.turn, "world-ir", params, context_size=llm.context_size)
        except LLMError as error:
            last = refit == MAX_REFITS
            if last or (error.kind != "context" and requests.caps.refused(error, FORMATS) is None):
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _fitted(requests: Requests, llm: LLMSettings, world: World, request: NarrationRequest, narration: str,
            mentioned: list[Node], inline: dict[str, Any] | None, repairs: list[dict[str, Any]]
            ) -> tuple[list[dict[str, Any]], int] | None:
    """The prompt and ``max_tokens`` fitted to the context: the reply gets at most ``world_ir_tokens``,
    and never more than the context leaves. Known characters are left out first, then the compact
    prompt (``compact``) replaces the full one, then repair turns go; None when even the bare compact
    prompt leaves less than ``MIN_REPLY_TOKENS``."""
    calibration = requests.calibration
    shown = list(mentioned)
    while True:
        messages = [*world_ir_v1(world, request.scene, request.turn, request.player_input, narration, shown,
                                 inline).messages, *repairs]
        room = calibration.room(llm.context_size, message_tokens(messages))
        if room >= MIN_REPLY_TOKENS:
            return messages, min(llm.world_ir_tokens, room)
        if not shown:
            break
        shown = shown[: len(shown) // 2]
    compact = world_ir_compact_v1(world, request.scene, request.turn, request.player_input, narration,
                                  mentioned).messages
    for messages in ([*compact, *repairs], compact) if repairs else (compact,):
        room = calibration.room(llm.context_size, message_tokens(messages))
        if room >= MIN_REPLY_TOKENS:
            return messages, min(llm.world_ir_tokens, room)
    return None


def reply_text(completion: dict[str, Any]) -> str:
    """The reply's text; a JSON reply some servers put in a tool call's arguments instead is taken too."""
    message = first_message(completion)
    content = message.get("content")
    if isinstance(content, str) and content.strip():
        return content
    calls = message.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        arguments = function.get("arguments") if isinstance(function, dict) else None
        if isinstance(arguments, str) and arguments.strip():
            return arguments
    return ""


def tidy_ir(value: Any) -> Any:
    """Forgivable slips: ``null`` for a list, a kind named by a common synonym. And what a model may not
    write at all is dropped (``MODEL_MAY_NOT_WRITE``, ``without_knowers``), the rest of its reply kept."""
    if not isinstance(value, dict):
        return value
    value = {key: item for key, item in value.items() if key not in MODEL_MAY_NOT_WRITE}
    for key in ("charactersPresent", "entities", "relations", "endedRelations", "nextCast"):
        if value.get(key) is None and key in value:
            value[key] = []
    if isinstance(value.get("relations"), list):
        value["relations"] = [without_knowers(r) for r in value["relations"]]
    entities = value.get("entities")
    if isinstance(entities, list):
        tidy = []
        for entity in entities:
            if isinstance(entity, dict) and isinstance(entity.get("kind"), str):
                kind = entity["kind"].strip().lower()
                entity = {**entity, "kind": _KIND_SYNONYMS.get(kind, kind)}
            tidy.append(entity)
        value["entities"] = tidy
    return value


def without_knowers(item: Any) -> Any:
    """A relation (or an upsert edge) as a model may write it: without who learns it (``KNOWER_KEYS``)."""
    if not isinstance(item, dict) or not any(key in item for key in KNOWER_KEYS):
        return item
    return {key: field for key, field in item.items() if key not in KNOWER_KEYS}


def salvage(value: Any) -> IRAnswer | None:
    """On the last try, keep the items that validate and count the ones left out (never invent any)."""
    if not isinstance(value, dict):
        return None
    value = tidy_ir(value)
    kept: dict[str, Any] = {}
    dropped = 0
    for key in ("charactersPresent", "nextCast"):
        items = value.get(key)
        if isinstance(items, list):
            kept[key] = [i for i in items if isinstance(i, str) and i.strip()]
            dropped += len(items) - len(kept[key])
    for key in ("entities", "relations", "endedRelations"):
        items = value.get(key)
        if not isinstance(items, list):
            continue
        good = []
        for item in items:
            try:
                WorldIR.model_validate({key: [item]})
            except ValidationError:
                dropped += 1
                continue
            good.append(item)
        kept[key] = good
    if isinstance(value.get("location"), str):
        kept["location"] = value["location"]
    try:
        ir = WorldIR.model_validate(kept)
    except ValidationError:
        return None
    if not (ir.entities or ir.relations or ir.ended_relations):
        # Nothing usable survived: the turn is better marked not extracted than recorded as uneventful.
        return None
    return ir, None, dropped


def _normal(text: str) -> str:
    return " ".join(straighten_quotes(text).casefold().split())


def supported_only(ir: WorldIR, narration: str) -> tuple[WorldIR, int]:
    """The IR without relations and endings whose evidence the narration does not contain.

    The narration the player saw is the only source of facts: a relation quoting anything else (the
    player's own words dressed up as narration, or a model's invention) would let typed input rewrite
    the graph. An empty evidence supports nothing.
    """
    told = _normal(narration)
    relations = [r for r in ir.relations if (e := _normal(r.evidence)) and e in told]
    ended = [r for r in ir.ended_relations if (e := _normal(r.evidence)) and e in told]
    dropped = len(ir.relations) - len(relations) + len(ir.ended_relations) - len(ended)
    if not dropped:
        return ir, 0
    return ir.model_copy(update={"relations": relations, "ended_relations": ended}), dropped


def records_anything(ir: WorldIR) -> bool:
    return bool(ir.relations or ir.ended_relations or any(e.kind in GRAPH_KINDS for e in ir.entities))

