"""Step 1: the narration, streamed, with ``list_characters`` / ``get_character`` rounds in between.

A round streams text as it arrives, holding back only what may not be shown yet: a reply's start that
may be reasoning closed by a stray tag (R1-style templates), and a start that looks like a tool call
written as text. When the model calls the lookup tools the answers go back and another round streams,
up to ``max_tool_rounds``. Every chunk is checked for shape (``stream.read_chunk``); a reply that ends
without a finish reason is a broken stream, not a short turn; and the whole reply, all rounds together,
must arrive before a deadline, however steadily a server trickles keep-alives or single characters.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field, replace
from typing import Any

from game.config import LLMSettings
from game.errors import NarratorError
from game.graph.metapaths_gaps import thread_to_pick_up
from game.graph.names import normalize_name
from game.mind.context import ComposedContext
from game.mind.context_budget import estimate_tokens
from game.narrator.base import NarrationRequest, PastTurn
from game.narrator.llm.calls import Requests
from game.narrator.llm.guard import SafeStream, through_end, until_end
from game.narrator.llm.json_reply import (
    JSONReplyError,
    looks_like_text_tool_call_start,
    parse_json_reply,
    text_tool_calls,
)
from game.narrator.llm.narrate_prompt import (
    GROW_TO,
    Conversation,
    Item,
    narrate_system,
    render_block,
    turn_items,
    turn_message,
    unsaid,
)
from game.narrator.llm.prompts import (
    continue_messages,
    identity_note,
    with_authors_note,
)
from game.narrator.llm.stream import (
    HOLD_CHARS,
    ChunkShapeError,
    ThinkFilter,
    ToolCall,
    ToolCallAssembler,
    read_chunk,
)
from game.narrator.llm.tokens import (
    MESSAGE_OVERHEAD,
    WARN_AT,
    message_tokens,
    request_tokens,
    tools_tokens,
)
from game.narrator.llm.tools import (
    GET_CHARACTER,
    LIST_CHARACTERS,
    NARRATION_TOOLS,
    CharacterBook,
    narration_tools,
    tool_result,
)
from game.narrator.llm.transport import ChatCall, LLMError
from game.narrator.llm.usage import TurnUsage
from game.world import World

MAX_NARRATION_CHARS = 8000
MAX_LOOKUPS_PER_ROUND = 4
MAX_SQUEEZES = 4
"""Times a turn is sent again with fewer past turns after the server refused it as too long."""
LOOKUP_RESERVE = 800
"""Tokens kept free for character lookups when the history window is fitted."""
NARRATION_FLOOR = 256
"""The reply room below which lookups, then memory lines, give way: two to five sentences fit well within."""
MIN_NARRATION_TOKENS = 64
"""The least room a narration is ever asked for; a prompt that leaves less is an error, not a request."""
_REASONING_MODEL = re.compile(r"(?i)(?<![a-z0-9])r1(?![0-9])|qwq|reason|think")
"""Model names whose chat templates often open the think block in the prompt (DeepSeek-R1 and its
distills, QwQ): their first reply is held back too, before any reply has shown the habit."""


@dataclass
class Round:
    """What one streamed narration round produced besides the text shown."""

    text: str = ""
    raw: str = ""
    held: str = ""
    finish: str | None = None
    usage: dict[str, Any] | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    cut: bool = False

    def reset(self) -> None:
        self.text = self.raw = self.held = ""
        self.finish = None
        self.usage = None
        self.tool_calls = []


class Narration:
    """Tells turns as streamed text; remembers across turns what the model's replies have shown."""

    def __init__(self, requests: Requests, llm: LLMSettings, world: World, where: str) -> None:
        self.requests = requests
        self.llm = llm
        self.world = world
        self.where = where
        self._warned_full = False
        self._warned_dropping = False
        self._warned_overflow = False
        self.conversation = Conversation()
        """What this session has sent, so that each prompt extends the previous one (prefix caches)."""
        self._stray_reasoning: bool | None = None
        """Whether this model's replies close think blocks they never opened (R1-style templates): None
        until a reply shows it, then each reply's start is held back while it may be reasoning."""

    async def stream(self, request: NarrationRequest, model: str, usage: TurnUsage, notices: list[str],
                   deadline: float, seconds: float) -> AsyncGenerator[str, None]:
        """The turn's prose as it arrives; ``deadline`` (a loop time) bounds every round together."""
        book = CharacterBook(self.world, request.graph)
        caps = self.requests.caps
        thread = await _thread(request)
        plan = self._plan(request, len(request.history), thread)
        notices.extend(plan.notices)
        messages = list(plan.messages)
        emitted = ""
        rounds = 0
        squeeze = 0
        while True:
            tools = plan.tools if caps.tools else None
            offer = tools is not None and rounds < self.llm.max_tool_rounds
            params: dict[str, Any] = {"model": model, "messages": list(messages),
                                      "temperature": self.llm.temperature, "max_tokens": plan.max_tokens}
            if tools is not None:
                params["tools"] = tools
                if not offer:
                    params["tool_choice"] = "none"
            room = self.requests.calibration.room(self.llm.context_size, request_tokens(params))
            if rounds and room < NARRATION_FLOOR:
                # The lookups filled the context: the turn is told from the first round's prompt, without
                # them (it fitted, and sending no tools only makes it smaller).
                messages = list(plan.messages)
                params = {**params, "messages": list(messages)}
                params.pop("tools", None)
                params.pop("tool_choice", None)
                offer = False
                room = self.requests.calibration.room(self.llm.context_size, request_tokens(params))
            params["max_tokens"] = max(1, min(plan.max_tokens, room))
            if caps.stream_usage:
                params["stream_options"] = {"include_usage": True}
            round_ = Round()
            started = time.monotonic()
            fresh = True
            try:
                async with aclosing(self._stream_round(params, round_, deadline, seconds)) as pieces:
                    async for piece in pieces:
                        text = _joined(emitted, piece, fresh)
                        fresh = False
                        emitted += text
                        yield text
                        if len(emitted) > MAX_NARRATION_CHARS:
                            round_.cut = True
                            break
            except LLMError as error:
                if error.kind != "context" or emitted or squeeze >= MAX_SQUEEZES:
                    raise
                # The server counted more tokens than the estimate: learn from it, see fewer past turns,
                # and tell the turn again from the start (nothing of it was shown).
                self.requests.calibration.overflowed(request_tokens(params), error.detail)
                squeeze += 1
                had = len(plan.history)
                plan = self._plan(request, had // 2 if had > 1 else 0, thread)
                notices.extend(plan.notices)
                if had and not self._warned_overflow:
                    self._warned_overflow = True
                    notices.append(f"The model server's context is smaller than the story needs: the narrator "
                                   f"now sees only the {len(plan.history)} latest turn(s). The relationship "
                                   "graph still holds the rest (context_size under [llm]).")
                messages = list(plan.messages)
                rounds = 0
                continue
            finally:
                usage.model_seconds += time.monotonic() - started
            usage.count("narrate", params, round_.usage,
                        round_.raw + "".join(c.arguments for c in round_.tool_calls))
            if round_.cut:
                notices.append("The narration ran very long and was cut short.")
                break
            if round_.finish == "length":
                notices.append("The model stopped at its length limit; the narration may end abruptly.")
            calls = round_.tool_calls
            written: list[tuple[str, Any]] = []
            if not calls and round_.held:
                written = text_tool_calls(round_.held, NARRATION_TOOLS)
                if not written:
                    text = _joined(emitted, round_.held, fresh)
                    emitted += text
                    yield text
            if offer and calls:
                messages.append({"role": "assistant", "content": round_.text or None,
                                 "tool_calls": [call.to_message() for call in calls]})
                for index, call in enumerate(calls):
                    answer = (await self._lookup(book, call.name, call.arguments, request.scene.cast)
                              if index < MAX_LOOKUPS_PER_ROUND else {"error": "too many lookups at once"})
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": tool_result(answer)})
                rounds += 1
                continue
            if offer and written:
                # The server cannot carry tool calls, so the lookups go back as a user message.
                answers = [await self._lookup(book, name, args, request.scene.cast)
                           for name, args in written[:MAX_LOOKUPS_PER_ROUND]]
                messages.append({"role": "assistant", "content": until_end(round_.held)[0]})
                messages.append({"role": "user", "content": "Lookup results (not shown to the player): "
                                 + tool_result(answers) + "\nNow tell the turn, in prose."})
                rounds += 1
                continue
            break

    async def _stream_round(self, params: dict[str, Any], round_: Round, deadline: float, seconds: float
                            ) -> AsyncGenerator[str, None]:
        """Text of one round as it arrives; tool calls, usage and finish reason land in ``round_``.

        A 400 that refuses ``stream_options`` or ``tools`` (it comes before any chunk) turns the feature
        off and sends the round again; ``params`` is updated in place so the caller counts what was sent.
        """
        while True:
            assembler = ToolCallAssembler()
            hold = self._stray_reasoning or (self._stray_reasoning is None
                                             and _REASONING_MODEL.search(str(params.get("model"))) is not None)
            think = ThinkFilter(HOLD_CHARS if hold else 0)
            watch = SafeStream()
            """Sees the end-of-turn marker in what the server sends, before the think filter: a reply held
            back while it may be reasoning (or a marker inside a think block) must end the read as soon as
            the marker comes, not when the hold would have ended."""
            holding = True
            round_.reset()
            try:
                async with aclosing(self.requests.transport.stream(ChatCall("narrate", params))) as chunks:
                    while (chunk := await self._next(chunks, deadline, seconds)) is not None:
                        try:
                            parts = read_chunk(chunk)
                        except ChunkShapeError as error:
                            raise LLMError(f"The model server at {self.where} sent a reply Kith cannot read "
                                           f"({error}).", "protocol") from None
                        if parts.usage is not None:
                            round_.usage = parts.usage
                        assembler.add(parts.tool_fragments)
                        if parts.finish:
                            round_.finish = parts.finish
                        for content in parts.content:
                            round_.raw += content
                            watch.feed(content)
                            visible = think.feed(content)
                            if watch.ended:
                                # What the think filter still holds, as far as the marker (kept, for the
                                # narrator's guard to cut at and to see that the model writes markers).
                                visible += through_end(think.flush())
                            if not visible:
                                continue
                            round_.text += visible
                            if holding:
                                round_.held += visible
                                # A tool call written as text must not reach the screen: hold the start back.
                                if looks_like_text_tool_call_start(round_.held) or watch.ended:
                                    continue
                                holding = False
                                visible, round_.held = round_.held, ""
                            yield visible
                        if watch.ended:
                            # The model wrote its turn's end marker: what follows is a turn it makes up.
                            # Leaving the block closes the response, so the server stops generating.
                            round_.finish = round_.finish or "stop"
                            round_.raw = until_end(round_.raw)[0]  # counted as its recording replays it
                            break
                if round_.finish is None:
                    raise LLMError(f"The model server at {self.where} ended its reply without finishing it (no "
                                   "finish reason): the reply was cut off, so the turn was not kept.", "stream")
                rest = "" if watch.ended else think.flush()
                if think.stray_close:
                    self._stray_reasoning = True
                elif round_.raw.strip() and not think.saw_tag and self._stray_reasoning is None:
                    # A reply with no reasoning tag at all: later replies stream from their first word.
                    self._stray_reasoning = False
                round_.text += rest
                if holding and rest:
                    # The whole reply may have been held back as possible reasoning: same test as above.
                    round_.held += rest
                    if not looks_like_text_tool_call_start(round_.held):
                        holding = False
                        rest, round_.held = round_.held, ""
                if not holding and rest:
                    yield rest
            except LLMError as error:
                feature = self.requests.caps.refused(error, ("stream_options", "tools")) if not round_.raw else None
                if feature is None:
                    raise
                simpler = self.requests.without(params, feature)
                params.clear()
                params.update(simpler)
                continue
            round_.tool_calls = assembler.calls()
            return

    async def _next(self, chunks: AsyncIterator[dict[str, Any]], deadline: float, seconds: float) -> Any:
        """The next stream event, or None at the end; past the deadline, a timeout error."""
        try:
            async with asyncio.timeout_at(deadline):
                return await anext(chunks)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            raise LLMError(f"The model server at {self.where} did not finish its reply within {seconds:g} s "
                           "(it kept sending, but too slowly); the turn was not kept.", "timeout") from None

    async def _lookup(self, book: CharacterBook, name: str, arguments: Any, cast: list[str]) -> Any:
        if name == LIST_CHARACTERS:
            return await book.list_characters(cast)
        if name == GET_CHARACTER:
            args = arguments
            if isinstance(arguments, str):
                try:
                    args = parse_json_reply(arguments) if arguments.strip() else {}
                except JSONReplyError as error:
                    return {"error": f"the arguments are {error}; send {{\"name\": \"...\"}}"}
            wanted = args.get("name") if isinstance(args, dict) else args if isinstance(args, str) else None
            if not isinstance(wanted, str):
                return {"error": 'get_character needs {"name": "<name or alias>"}'}
            return await book.get_character(wanted)
        return {"error": f"unknown tool {name!r}; the tools are {LIST_CHARACTERS} and {GET_CHARACTER}"}

    def _messages(self, request: NarrationRequest, history: list[PastTurn], system: str, block: str,
                  extra: str) -> list[dict[str, Any]]:
        """The narrate prompt's messages (``narrate_prompt``), with the Author's note and a ``continue``'s tail."""
        said = with_authors_note(request.player_input, request.authors_note)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for past in history:
            messages += self.conversation.pair(past)
        messages.append({"role": "user", "content": turn_message(block, extra, said)})
        if request.mode == "continue":
            messages += continue_messages(request.continue_from)
        return messages

    def _plan(self, request: NarrationRequest, most: int, thread: str = "") -> Plan:
        """The first round's prompt fitted to the context, keeping at most ``most`` past turns.

        What gives way, in order: the oldest past turns (the window keeps room for a whole reply and
        for lookups, and is compacted once when it no longer fits: ``Conversation.window``), then the
        lookups themselves (no tools this turn), then the reply's ``max_tokens`` down to
        ``NARRATION_FLOOR``, then the thread to pick up (``thread``), the relationship graph and what each
        person knows, from their least relevant lines, and last the people's minds (memories, attitudes);
        a prompt that leaves even less than ``MIN_NARRATION_TOKENS`` is a plain error, never a request the
        server must refuse.
        """
        tools: list[dict[str, Any]] | None = (
            narration_tools() if self.requests.caps.tools and self.llm.max_tool_rounds > 0 else None)
        npc_context, knowledge, mind = request.npc_context, dict(request.knowledge or {}), request.context
        system = narrate_system(self.world, request.memory)  # the player's Memory is always in the prompt
        items = turn_items(self.world, request.scene, npc_context, knowledge, mind, thread)
        asked = identity_note(mind)
        history, notices = self._window(request, tools, system, most, items, asked)
        said = self.conversation.said(history)
        block_items = unsaid(items, said)

        def fitted() -> tuple[list[dict[str, Any]], int]:
            messages = self._messages(request, history, system, render_block(block_items), asked)
            return messages, self.requests.calibration.room(
                self.llm.context_size, message_tokens(messages) + tools_tokens(tools or []))

        messages, room = fitted()
        if room < NARRATION_FLOOR and tools is not None:
            tools = None
            messages, room = fitted()
        while room < NARRATION_FLOOR:
            smaller = _shrunk(npc_context, knowledge)
            if thread:
                thread = ""  # a thread to pick up is a suggestion: the first thing a small context gives up
            elif smaller is not None:
                npc_context, knowledge = smaller
            else:
                # The people's minds go last: what they remember and feel is what makes them themselves.
                thinner = _thinner(mind)
                if thinner is None:
                    break
                mind = thinner
            block_items = unsaid(turn_items(self.world, request.scene, npc_context, knowledge, mind, thread), said)
            messages, room = fitted()
        if room < MIN_NARRATION_TOKENS:
            # The player's own notes are in every prompt and never trimmed: when they are there, they are the
            # one part the player can shorten at once, so the message names them first.
            mine = [f"{name} ({len(text)} characters, /{command})" for name, text, command in
                    (("Memory", request.memory.strip(), "memory"), ("Author's note", request.authors_note.strip(),
                                                                     "note")) if text]
            raise NarratorError(
                f"The model's context ({self.llm.context_size} tokens) is too small for this turn's prompt "
                "even without past turns and the relationship graph; "
                + (f"shorten your {' and '.join(mine)}, or " if mine else "")
                + "raise context_size under [llm] (and the server's own) "
                "if the server allows, or use a model with a larger context.")
        self.conversation.remember(request.turn, request.player_input, block_items, render_block(block_items))
        return Plan(messages, history, tools, min(self.llm.narration_tokens, room), notices)

    def _window(self, request: NarrationRequest, tools: list[dict[str, Any]] | None, system: str, most: int,
                items: list[Item], extra: str) -> tuple[list[PastTurn], list[str]]:
        """The past turns (at most ``most``) the prompt holds beside a whole reply and room for lookups
        (``Conversation.window``), and what the player should hear about it."""
        reserve = self.llm.narration_tokens + (LOOKUP_RESERVE if tools else 0)
        fixed = (estimate_tokens(system) + tools_tokens(tools or []) + estimate_tokens(request.player_input)
                 + estimate_tokens(request.authors_note) + estimate_tokens(request.continue_from)
                 + estimate_tokens(extra) + 2 * MESSAGE_OVERHEAD)
        budget = self.requests.calibration.budget(
            self.requests.calibration.room(self.llm.context_size, 0) - reserve) - fixed
        past = list(request.history)
        past = past[len(past) - most:] if most < len(past) else past

        def block_cost(kept: list[int]) -> int:
            said = self.conversation.said([past[i] for i in kept])
            return estimate_tokens(render_block(unsaid(items, said)))

        kept, used = self.conversation.window(
            past, lambda i: message_tokens(self.conversation.pair(past[i])), budget, block_cost)
        notices: list[str] = []
        dropped = len(request.history) - len(kept)
        if dropped and not self._warned_dropping:
            self._warned_dropping = True
            notices.append(f"The story is now longer than the model's context ({self.llm.context_size} tokens): "
                           f"the narrator no longer sees the {dropped} oldest turn(s). The relationship "
                           "graph still holds them.")
        elif budget > 0 and used >= WARN_AT * GROW_TO * budget and not dropped and not self._warned_full:
            self._warned_full = True
            notices.append(f"The story so far nearly fills the model's context (about {used} of "
                           f"{int(GROW_TO * budget)} tokens for past turns); soon the oldest turns will drop "
                           "out of the narrator's view (context_size under [llm]).")
        return [past[i] for i in kept], notices


@dataclass(frozen=True)
class Plan:
    """A turn's first-round prompt as fitted: messages, the past turns in them, the tools offered (None:
    no lookups this turn) and the reply's ``max_tokens``."""

    messages: list[dict[str, Any]]
    history: list[PastTurn]
    tools: list[dict[str, Any]] | None
    max_tokens: int
    notices: list[str]


def _shrunk(npc_context: str, knowledge: dict[str, list[str]]) -> tuple[str, dict[str, list[str]]] | None:
    """The graph's and the knowledge sections with half their lines left out, least relevant first (the relationship lines
    are ranked, so the last go; then each person's knowledge); None when nothing is left to leave out."""
    lines = npc_context.splitlines()
    facts = [i for i, line in enumerate(lines) if line.startswith("- ")]
    if facts:
        cut = set(facts[len(facts) - max(1, len(facts) // 2):])
        kept = [line for i, line in enumerate(lines) if i not in cut]
        return ("\n".join(kept) if len(facts) > len(cut) else ""), knowledge
    if npc_context.strip():
        return "", knowledge
    if any(knowledge.values()):
        return npc_context, {name: list(facts_[: len(facts_) // 2]) for name, facts_ in knowledge.items()}
    return None


def _thinner(mind: ComposedContext) -> ComposedContext | None:
    """The people's minds with the second half of each section's lines left out (a section keeps its
    provider's order, most relevant first); None when no line is left to leave out."""
    if not any(section.lines for section in mind.sections):
        return None
    sections = tuple(replace(section, lines=section.lines[: len(section.lines) // 2],
                             tokens=section.tokens // 2, dropped=section.dropped + len(section.lines)
                             - len(section.lines) // 2) for section in mind.sections)
    return replace(mind, sections=sections)


def _joined(before: str, piece: str, fresh: bool) -> str:
    """A piece as it should follow the text so far: no leading blank at the start, a space between rounds."""
    if not before:
        return piece.lstrip()
    if fresh and piece and not piece[0].isspace() and not before[-1].isspace():
        return " " + piece
    return piece


def no_narration() -> NarratorError:
    return NarratorError("The model returned no narration for this turn; try again, or try another model.")


class CannotNarrate(NarratorError):
    """A model that answers with nothing but chat-template markers, or its prompt written back (a base
    model): no retry helps."""

    retry_helps = False


async def _thread(request: NarrationRequest) -> str:
    """The name of one person the player knows of who has gone quiet (a thread to pick up), or ""."""
    known = request.scene.known or {}
    cast = {normalize_name(name) for name in request.scene.cast}
    on_stage = [node_id for node_id, seen in known.items() if normalize_name(seen.name) in cast]
    gap = await thread_to_pick_up(request.graph, known, on_stage, request.turn)
    return "" if gap is None else gap.name
