"""Step 3: the extractor, which must act through tools, and what it is shown of the graph.

Done means one successful ``upsert_npc_graph`` or an explicit ``runtime_done``; a reply in prose or
JSON that claims an update changes nothing and is answered with a reminder, within the step limit. A
rejected call comes back to the model as its tool result, with the validation message, so it can fix the
call. Two guards run before any call reaches the upsert: a new node must be named by the turn's World IR
(a name the model made up is refused), and a relation may be closed only between characters the World IR
names, as one of the endings the World IR itself states (already limited by ``ir_extract.limit_closes``)
and no more than ``MAX_CLOSES_PER_TURN`` in the turn, so words the player typed or the narration quoted
cannot talk the extractor into wiping the graph.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from game.graph.endings import MAX_CLOSES_PER_TURN
from game.graph.index import GraphIndex
from game.graph.models import Edge, Node, UpsertCall
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.graph.upsert import CallRejected, UpsertExecution, parse_call
from game.narrator.base import ExtractionReport
from game.narrator.ir_extract import junk_summary
from game.narrator.llm.capabilities import Capabilities
from game.narrator.llm.guard import clean_json
from game.narrator.llm.ir import without_knowers
from game.narrator.llm.json_reply import JSONReplyError, echoes_schema, parse_json_reply, text_tool_calls
from game.narrator.llm.prompts import Prompt
from game.narrator.llm.stream import ToolCall, message_tool_calls, strip_reasoning
from game.narrator.llm.tools import DONE, EXTRACTION_TOOLS, UPSERT, extraction_tools, tool_result
from game.narrator.llm.transport import first_message
from game.world.ir import WorldIR

MAX_EXISTING = 60
MIN_REPLY_TOKENS = 256
"""The least room an extractor reply is given; a step whose prompt leaves less is not sent."""
MAX_CALLS_PER_REPLY = 6
MAX_ARGUMENT_CHARS = 20_000

Complete = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
Room = Callable[[dict[str, Any]], int]
"""The tokens a request's arguments leave for the reply in the model's context."""

PROSE_REMINDER = (
    "Text changes nothing in the graph. Call upsert_npc_graph with this turn's nodes and edges, or call "
    "runtime_done if the turn changes nothing."
)
TEXT_CALL_REMINDER = (
    "You wrote the tool call as text, so nothing was recorded. Call upsert_npc_graph (or runtime_done) "
    "through the tool-calling interface, not in the message text."
)


# ------------------------------------------------------------------------------------------ what it sees


async def existing_near(reader: GraphReader, ir: WorldIR, limit: int = MAX_EXISTING
                        ) -> tuple[list[Node], list[Edge], dict[str, Node]]:
    """Nodes and open relations for the prompt, closest to this turn first: the nodes the World IR names,
    their relations (both ends named first), their neighbours, then the most recently seen of the rest.
    Returns the nodes, the relations and every endpoint by ID (to name them)."""
    named = [normalize_name(name) for name in _ordered_names(ir)]
    found = await reader.nodes_named(named)
    seeds: dict[str, Node] = {}
    for key in named:
        for node in found.get(key, []):
            seeds.setdefault(node.id, node)
    edges: dict[str, Edge] = {}
    for node_id in seeds:
        for edge in await reader.open_edges_of(node_id):
            edges[edge.id] = edge
    ranked = sorted(edges.values(), key=lambda e: (
        -((e.source in seeds) + (e.target in seeds)), -e.valid_at, -abs(e.strength), e.id))
    nodes: dict[str, Node] = dict(seeds)
    ends = await reader.get_nodes({end for e in ranked for end in (e.source, e.target)} - set(nodes))
    for edge in ranked:
        for end in (edge.source, edge.target):
            if end in ends and end not in nodes:
                nodes[end] = ends[end]
    if isinstance(reader, GraphIndex):
        for node in sorted(reader.nodes.values(), key=lambda n: (-n.last_seen_turn, n.name, n.id)):
            nodes.setdefault(node.id, node)
            if len(nodes) >= limit:
                break
        rest = sorted((e for e in reader.open_edges.values() if e.id not in edges),
                      key=lambda e: (-e.valid_at, -abs(e.strength), e.id))
        ranked.extend(rest[: max(0, limit - len(ranked))])
    chosen_edges = ranked[:limit]
    names = dict(nodes)
    missing = {end for e in chosen_edges for end in (e.source, e.target)} - set(names)
    names.update(await reader.get_nodes(missing))
    return list(nodes.values())[:limit], chosen_edges, names


def _ordered_names(ir: WorldIR) -> list[str]:
    ordered: list[str] = []
    for name in [*ir.characters_present, *(e.name for e in ir.entities),
                 *(n for r in ir.relations for n in (r.source, r.target)),
                 *(n for r in ir.ended_relations for n in (r.source, r.target)), *ir.next_cast]:
        if name not in ordered:
            ordered.append(name)
    for entity in ir.entities:
        ordered.extend(a for a in entity.aliases if a not in ordered)
    return ordered


# ------------------------------------------------------------------------------------------ the loop


@dataclass
class _Tally:
    replies: int = 0
    calls: int = 0
    succeeded: int = 0
    rejected: int = 0
    prose: int = 0
    done: bool = False
    problems: list[str] = field(default_factory=list)


class ToolExtractor:
    """Runs the extractor's replies until it is done or out of steps."""

    def __init__(self, complete: Complete, caps: Capabilities, model: str, steps: int,
                 max_tokens: int = 1024, room: Room | None = None) -> None:
        self._complete = complete
        self._max_tokens = max_tokens
        self._room = room
        """Each step's ``max_tokens`` is what the context leaves, at most ``max_tokens``: the
        conversation grows with every corrected call."""
        self._caps = caps
        self._model = model
        self._steps = steps
        self._endings: list[tuple[str, str]] = []
        self._closed = 0

    async def run(self, prompt: Prompt, ir: WorldIR, execution: UpsertExecution) -> ExtractionReport:
        allowed = {normalize_name(name) for name in ir.named()}
        self._endings = [(normalize_name(e.source), normalize_name(e.target)) for e in ir.ended_relations]
        self._closed = 0
        messages = list(prompt.messages)
        tools = extraction_tools()
        tally = _Tally()
        for _ in range(self._steps):
            params: dict[str, Any] = {
                "model": self._model, "messages": list(messages), "tools": tools, "temperature": 0,
                "max_tokens": self._max_tokens,
                "tool_choice": "required" if self._caps.tool_choice_required else "auto",
            }
            if self._room is not None:
                params["max_tokens"] = min(self._max_tokens, self._room(params))
                if params["max_tokens"] < MIN_REPLY_TOKENS:
                    tally.problems.append("the corrections outgrew the model's context")
                    break
            completion = await self._complete("extract", params)
            tally.replies += 1
            message = first_message(completion)
            content = strip_reasoning(str(message.get("content") or "")).strip()
            calls = message_tool_calls(message)
            if not calls:
                tally.prose += 1
                written = bool(text_tool_calls(content, EXTRACTION_TOOLS))
                tally.problems.append("wrote a tool call as text" if written else "answered in prose")
                messages.append({"role": "assistant", "content": content})
                messages.append({"role": "user", "content": TEXT_CALL_REMINDER if written else PROSE_REMINDER})
                continue
            messages.append({"role": "assistant", "content": content or None,
                             "tool_calls": [_echoed(call) for call in calls]})
            results, rejected_now, done_now = await self._answer(calls, execution, allowed, tally)
            messages.extend(results)
            if rejected_now:
                continue
            if tally.succeeded or done_now:
                tally.done = True
                break
        return self._report(tally)

    async def _answer(self, calls: list[ToolCall], execution: UpsertExecution, allowed: set[str],
                      tally: _Tally) -> tuple[list[dict[str, Any]], int, bool]:
        answers: list[tuple[ToolCall, Any]] = []
        rejected = 0
        done_ids: list[int] = []
        for index, call in enumerate(calls):
            tally.calls += 1
            if index >= MAX_CALLS_PER_REPLY:
                answers.append((call, {"error": f"too many calls in one reply (at most {MAX_CALLS_PER_REPLY})"}))
                rejected += 1
            elif call.name == UPSERT:
                outcome = await self._upsert(call, execution, allowed)
                if "error" in outcome:
                    rejected += 1
                    tally.problems.append(str(outcome["error"]))
                else:
                    tally.succeeded += 1
                answers.append((call, outcome))
            elif call.name == DONE:
                done_ids.append(len(answers))
                answers.append((call, {"ok": True}))
            else:
                answers.append((call, {"error": f"unknown tool {call.name!r}; use {UPSERT} or {DONE}"}))
                tally.problems.append(f"called an unknown tool {call.name!r}")
                rejected += 1
        tally.rejected += rejected
        if rejected:
            # A "done" beside a refused call would lose that call's facts: the model must see the refusal.
            for position in done_ids:
                answers[position] = (answers[position][0], {
                    "error": "not done: a call in this reply was rejected; fix it, then call runtime_done"})
        messages = [{"role": "tool", "tool_call_id": call.id, "content": tool_result(result)}
                    for call, result in answers]
        return messages, rejected, bool(done_ids) and not rejected

    async def _upsert(self, call: ToolCall, execution: UpsertExecution, allowed: set[str]) -> dict[str, Any]:
        arguments, problem = parse_arguments(call.arguments)
        if problem is not None:
            return {"error": problem}
        arguments = clean_json(arguments)
        if isinstance(arguments, dict) and isinstance(arguments.get("edges"), list):
            # Who learns a relation is not the model's to say (``ir.without_knowers``), here as in the IR.
            arguments = {**arguments, "edges": [without_knowers(e) for e in arguments["edges"]]}
        if echoes_schema(arguments, ("nodes", "edges", "closeEdges")):
            return {"error": "you sent the JSON schema itself; send this turn's nodes, edges and closeEdges"}
        try:
            parsed = parse_call(arguments)
        except CallRejected as rejected:
            return {"error": str(rejected)}
        refusal = await guard(parsed, execution, allowed) or await self._close_refusal(parsed, execution)
        if refusal is None:
            parsed, refusal = await kept_summaries(parsed, execution)
        if refusal is not None:
            return {"error": refusal}
        self._closed += len(parsed.close_edges)
        outcome = await execution.run(parsed)
        return outcome.to_json_dict()

    async def _close_refusal(self, call: UpsertCall, execution: UpsertExecution) -> str | None:
        """Closes must be endings the World IR states, and a turn makes at most a few."""
        if not call.close_edges:
            return None
        if self._closed + len(call.close_edges) > MAX_CLOSES_PER_TURN:
            return (f"a turn may end at most {MAX_CLOSES_PER_TURN} relations; this call would make it "
                    f"{self._closed + len(call.close_edges)}")
        for index, close in enumerate(call.close_edges):
            ends = []
            for end in (close.source_name, close.target_name):
                found = await execution.find_node(end)
                ends.append({normalize_name(n) for n in (found.names if found is not None else [end])})
            if not any((a in ends[0] and b in ends[1]) or (a in ends[1] and b in ends[0]) for a, b in self._endings):
                return (f"closeEdges[{index}]: this turn's World IR does not say that the relation between "
                        f"{close.source_name!r} and {close.target_name!r} ended; close only the endings it lists")
        return None

    def _report(self, tally: _Tally) -> ExtractionReport:
        if tally.done:
            note = f"{tally.rejected} call(s) were rejected and corrected" if tally.rejected else ""
            return ExtractionReport(True, calls=tally.calls, rejected=tally.rejected, message=note)
        if tally.succeeded:
            return ExtractionReport(True, calls=tally.calls, rejected=tally.rejected,
                                    message=f"{tally.rejected} call(s) stayed rejected: {tally.problems[-1]}")
        why = tally.problems[-1] if tally.problems else "it made no call"
        if tally.prose == tally.replies:
            why = ("the model " + why + " instead of calling the graph tools (a server that ignores "
                   'tool_choice or drops tools; extraction = "world-ir" under [llm] avoids tool calls)')
        return ExtractionReport(False, calls=tally.calls, rejected=tally.rejected,
                                message=f"the extractor gave up after {tally.replies} replies: {why}.")


def _echoed(call: ToolCall) -> dict[str, Any]:
    """A call as it goes back to the model: arguments too large to be taken are not sent back whole (the
    tool result says why), or the conversation would outgrow the context the next reply needs."""
    message = call.to_message()
    if len(call.arguments) > MAX_ARGUMENT_CHARS:
        message["function"]["arguments"] = "{}"
    return message


def parse_arguments(raw: str) -> tuple[Any, str | None]:
    """A tool call's arguments as JSON, or the message that tells the model what was wrong with them."""
    if len(raw) > MAX_ARGUMENT_CHARS:
        return None, (f"the arguments are too large ({len(raw)} characters; at most {MAX_ARGUMENT_CHARS}): "
                      "split them into several calls")
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as error:
        try:
            value = parse_json_reply(raw)
        except JSONReplyError:
            return None, (f"the arguments are not valid JSON ({error.msg} at column {error.colno}); "
                          "send one JSON object")
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return None, "the arguments are a string, not a JSON object"
    return value, None


async def kept_summaries(call: UpsertCall, execution: UpsertExecution) -> tuple[UpsertCall, str | None]:
    """The call with the summaries a model may not write left out, the World IR's rules for summaries:
    an authored summary (a node the world begins with) is never replaced by a model's, and a summary
    that is mostly digits or punctuation (a looping model's ``"}, 1, 2, 3, ... 101, "``) says nothing.
    A new node needs a summary, so one with only such a summary is refused with a message instead."""
    nodes = []
    for index, node in enumerate(call.nodes):
        if node.summary is None:
            nodes.append(node)
            continue
        found = await execution.find_node(node.name)
        if found is None:
            if junk_summary(node.summary):
                return call, (f"nodes[{index}].summary: {node.summary[:40]!r} says nothing about "
                              f"{node.name!r}; write one sentence about who they are")
            nodes.append(node)
        elif junk_summary(node.summary) or (found.first_seen_turn == 0 and found.summary):
            nodes.append(node.model_copy(update={"summary": None}))
        else:
            nodes.append(node)
    return call.model_copy(update={"nodes": nodes}), None


async def guard(call: UpsertCall, execution: UpsertExecution, allowed: set[str]) -> str | None:
    """Why a call may not run, or None: made-up new names, and closes the World IR does not name."""
    for index, node in enumerate(call.nodes):
        if normalize_name(node.name) in allowed or any(normalize_name(a) in allowed for a in node.aliases):
            continue
        if await execution.find_node(node.name) is None:
            return (f"nodes[{index}]: {node.name!r} is not in the graph and this turn's World IR does not name "
                    "it; record only characters, groups and factions the turn names")
    for index, close in enumerate(call.close_edges):
        for end in (close.source_name, close.target_name):
            found = await execution.find_node(end)
            names = found.names if found is not None else [end]
            if not any(normalize_name(name) in allowed for name in names):
                return (f"closeEdges[{index}]: {end!r} is not named by this turn's World IR; a relation may "
                        "be closed only between characters the turn names")
    return None

