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
from dataclasses import dataclass, field
from typing import Any

from game.config import LLMSettings
from game.errors import NarratorError
from game.narrator.base import NarrationRequest, PastTurn
from game.narrator.llm.calls import Requests
from game.narrator.llm.json_reply import (
    JSONReplyError,
    looks_like_text_tool_call_start,
    parse_json_reply,
    text_tool_calls,
)
from game.narrator.llm.prompts import (
    continue_messages,
    history_pair,
    memory_section,
    narrate_system_v1,
    narrate_v1,
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
from game.narrator.llm.tokens import estimate_tokens, fit_newest, message_tokens, tools_tokens
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
        self._stray_reasoning: bool | None = None
        """Whether this model's replies close think blocks they never opened (R1-style templates): None
        until a reply shows it, then each reply's start is held back while it may be reasoning."""

    async def tell(self, request: NarrationRequest, model: str, usage: TurnUsage, notices: list[str],
                   deadline: float, seconds: float) -> AsyncGenerator[str, None]:
        """The turn's prose as it arrives; ``deadline`` (a loop time) bounds every round together."""
        book = CharacterBook(self.world, request.graph)
        tools = narration_tools()
        system = narrate_system_v1(self.world, request.scene, request.npc_context, request.turn,
                                   request.knowledge) + memory_section(request.memory)
        history, said = self._window(request, tools, system)
        notices.extend(said)
        messages = self._messages(request, history, system)
        emitted = ""
        rounds = 0
        squeeze = 0
        caps = self.requests.caps
        while True:
            offer = caps.tools and rounds < self.llm.max_tool_rounds
            params: dict[str, Any] = {"model": model, "messages": list(messages),
                                      "temperature": self.llm.temperature, "max_tokens": self.llm.narration_tokens}
            if caps.tools and self.llm.max_tool_rounds > 0:
                params["tools"] = tools
                if not offer:
                    params["tool_choice"] = "none"
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
                if error.kind != "context" or emitted or not history or squeeze >= MAX_SQUEEZES:
                    raise
                # The server counted more tokens than the estimate: learn from it, see fewer past turns,
                # and tell the turn again from the start (nothing of it was shown).
                self.requests.calibration.overflowed()
                squeeze += 1
                history = history[len(history) // 2:] if len(history) > 1 else []
                kept, _ = self._window(request, tools, system)
                history = history if len(history) <= len(kept) else history[len(history) - len(kept):]
                if not self._warned_overflow:
                    self._warned_overflow = True
                    notices.append(f"The model server's context is smaller than the story needs: the narrator "
                                   f"now sees only the {len(history)} latest turn(s). The relationship memory "
                                   "still holds the rest (context_size under [llm]).")
                messages = self._messages(request, history, system)
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
                messages.append({"role": "assistant", "content": round_.held})
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
                            visible = think.feed(content)
                            if not visible:
                                continue
                            round_.text += visible
                            if holding:
                                round_.held += visible
                                # A tool call written as text must not reach the screen: hold the start back.
                                if looks_like_text_tool_call_start(round_.held):
                                    continue
                                holding = False
                                visible, round_.held = round_.held, ""
                            yield visible
                if round_.finish is None:
                    raise LLMError(f"The model server at {self.where} ended its reply without finishing it (no "
                                   "finish reason): the reply was cut off, so the turn was not kept.", "stream")
                rest = think.flush()
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

    def _messages(self, request: NarrationRequest, history: list[PastTurn], system: str) -> list[dict[str, Any]]:
        """The narrate prompt's messages, with the player's Author's note and a ``continue``'s tail."""
        said = with_authors_note(request.player_input, request.authors_note)
        messages = narrate_v1(self.world, request.scene, request.npc_context, request.turn, history, said,
                              system=system).messages
        if request.mode == "continue":
            messages += continue_messages(request.continue_from)
        return messages

    def _window(self, request: NarrationRequest, tools: list[dict[str, Any]], system: str
                ) -> tuple[list[PastTurn], list[str]]:
        """The newest past turns that fit the context, and what the player should hear about it."""
        fixed = (estimate_tokens(system) + tools_tokens(tools) + estimate_tokens(request.player_input)
                 + estimate_tokens(request.authors_note) + estimate_tokens(request.continue_from)
                 + self.llm.narration_tokens + LOOKUP_RESERVE)
        budget = self.requests.calibration.budget(self.llm.context_size) - fixed
        past = list(request.history)
        window = fit_newest(len(past), lambda i: message_tokens(history_pair(past[i])), budget)
        notices: list[str] = []
        if window.dropped and not self._warned_dropping:
            self._warned_dropping = True
            notices.append(f"The story is now longer than the model's context ({self.llm.context_size} tokens): "
                           f"the narrator no longer sees the {window.dropped} oldest turn(s). The relationship "
                           "memory still holds them.")
        elif window.nearly_full and not window.dropped and not self._warned_full:
            self._warned_full = True
            notices.append(f"The story so far nearly fills the model's context (about {window.used} of "
                           f"{max(budget, 0)} tokens for past turns); soon the oldest turns will drop out of "
                           "the narrator's view (context_size under [llm]).")
        return [past[i] for i in window.kept], notices


def _joined(before: str, piece: str, fresh: bool) -> str:
    """A piece as it should follow the text so far: no leading blank at the start, a space between rounds."""
    if not before:
        return piece.lstrip()
    if fresh and piece and not piece[0].isspace() and not before[-1].isspace():
        return " " + piece
    return piece


def no_narration() -> NarratorError:
    return NarratorError("The model returned no narration for this turn; try again, or try another model.")
