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
MAX_REPAIR_ECHO = 4000
"""Characters of a bad reply quoted back to the model with the repair request."""
_KIND_SYNONYMS = {
    "person": "character", "npc": "character", "individual": "character", "people": "character",
    "organization": "faction", "organisation": "faction", "guild": "group", "location": "place",
    "object": "item", "thing": "item", "ability": "skill", "idea": "concept", "event": "concept",
}

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
    overflowed = False
    for attempt in range(attempts):
        # Rebuilt each try: a fallback to plain JSON taken meanwhile needs the schema in the prompt.
        inline = schema if requests.caps.structured == "none" else None
        fitted = _fitted(requests, llm, world, request, strip_reasoning(narration), mentioned, inline, repairs)
        if fitted is None:
            return None, "this turn is too long for the model's context to record its facts.", 0
        messages, max_tokens = fitted
        params: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0, "max_tokens": max_tokens}
        fmt = response_format(requests.caps.structured, "world_ir", schema)
        if fmt is not None:
            params["response_format"] = fmt
        try:
            completion = await requests.complete(request.turn, "world-ir", params, ("json_schema", "json_object"))
        except LLMError as error:
            if error.kind != "context" or overflowed:
                raise
            # The calibration has learned from the refusal; fitted again, the prompt is sent once more.
            overflowed = True
            fitted = _fitted(requests, llm, world, request, strip_reasoning(narration), mentioned, inline, repairs)
            if fitted is None:
                return None, "this turn is too long for the model's context to record its facts.", 0
            params = {**params, "messages": fitted[0], "max_tokens": fitted[1]}
            completion = await requests.complete(request.turn, "world-ir", params, ("json_schema", "json_object"))
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


def _fitted(requests: Requests, llm: LLMSettings, world: World, request: NarrationRequest, narration: str,
            mentioned: list[Node], inline: dict[str, Any] | None, repairs: list[dict[str, Any]]
            ) -> tuple[list[dict[str, Any]], int] | None:
    """The prompt and ``max_tokens`` fitted to the context: the reply gets at most ``world_ir_tokens``;
    known characters are left out, then repair turns, before the reply's room falls below
    ``MIN_REPLY_TOKENS``; None when even the bare prompt leaves less than that."""
    calibration = requests.calibration
    shown = list(mentioned)
    extra = list(repairs)
    while True:
        prompt = world_ir_v1(world, request.scene, request.turn, request.player_input, narration, shown, inline)
        messages = [*prompt.messages, *extra]
        room = llm.context_size - calibration.real(message_tokens(messages))
        if room >= MIN_REPLY_TOKENS:
            return messages, min(llm.world_ir_tokens, room)
        if shown:
            shown = shown[: len(shown) // 2]
        elif extra:
            extra = []
        else:
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
    """Forgivable slips: ``null`` for a list, a kind named by a common synonym."""
    if not isinstance(value, dict):
        return value
    value = dict(value)
    value.pop("acts", None)  # the story engine's own record of acts: a model's claim of one is not trusted
    for key in ("charactersPresent", "entities", "relations", "endedRelations", "nextCast"):
        if value.get(key) is None and key in value:
            value[key] = []
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
    the memory. An empty evidence supports nothing.
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

