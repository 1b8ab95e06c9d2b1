"""Requests the turn's steps make: fallbacks when a server refuses a feature, usage counted, keys masked.

Each step builds its ``chat.completions`` arguments; this module sends them through the transport and
handles what is common to all: a 400 that refuses a feature still in use turns it off (``capabilities``)
and the request goes again without it; the time waited and the tokens used are counted for the turn; and
whatever the server sent back has the API key masked before any step reads it, so an echoed key cannot
reach the World IR, the graph or the save.
"""

from __future__ import annotations

import json
import time
from typing import Any

from game.narrator.llm.capabilities import Capabilities, response_format
from game.narrator.llm.endpoint import Redactor
from game.narrator.llm.guard import unmarked_completion
from game.narrator.llm.tokens import Calibration, request_tokens
from game.narrator.llm.tools import model_schema
from game.narrator.llm.transport import ChatCall, LLMError, Transport, first_message
from game.narrator.llm.usage import UsageLedger
from game.world.ir import WorldIR


def finish_reason(completion: dict[str, Any]) -> str | None:
    choices = completion.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        reason = choices[0].get("finish_reason")
        return reason if isinstance(reason, str) else None
    return None


class Requests:
    """Sends a step's requests and keeps the session's learned capabilities and usage."""

    def __init__(self, transport: Transport, caps: Capabilities, ledger: UsageLedger) -> None:
        self.transport = transport
        self.caps = caps
        self.ledger = ledger

    @property
    def calibration(self) -> Calibration:
        """Real tokens per estimated token, learned this session (budgets are divided by it)."""
        return self.ledger.calibration

    @property
    def secrets(self) -> list[str]:
        """The exact secrets to mask in what the model says (the key, when the transport has one)."""
        return self.redactor.secrets

    @property
    def redactor(self) -> Redactor:
        return self.transport.redactor

    async def complete(self, turn: int, step: str, params: dict[str, Any], candidates: tuple[str, ...] = (),
                       context_size: int | None = None) -> dict[str, Any]:
        """One non-streamed request; a 400 that refuses one of ``candidates`` retries without it.

        A reply cut at its ``max_tokens`` is half a JSON object or half a tool call: it is asked again
        once with twice the room (never more than ``context_size`` leaves, when given), and if that is
        cut too, or there is no more room, the step fails (``LLMError`` of kind ``length``) rather than
        "repairing" a fragment into facts nobody stated. An overflow teaches the calibration.
        """
        enlarged = False
        while True:
            started = time.monotonic()
            try:
                completion = await self.transport.complete(ChatCall(step, params))
            except LLMError as error:
                if error.kind == "context":
                    self.calibration.overflowed(request_tokens(params), error.detail)
                feature = self.caps.refused(error, candidates)
                if feature is None:
                    raise
                params = self.without(params, feature)
                continue
            finally:
                self.ledger.turn(turn).model_seconds += time.monotonic() - started
            # Read no further than the model's end-of-turn marker (what follows is a turn it made up).
            scrubbed: dict[str, Any] = self.redactor.scrub(unmarked_completion(completion))
            completion = scrubbed
            self.ledger.turn(turn).count_completion(step, params, completion, first_message(completion))
            if finish_reason(completion) == "length" and isinstance(params.get("max_tokens"), int):
                more = 2 * params["max_tokens"]
                if context_size is not None:
                    more = min(more, self.calibration.room(context_size, request_tokens(params)))
                if not enlarged and more > params["max_tokens"]:
                    enlarged = True
                    params = {**params, "max_tokens": more}
                    continue
                again = "again" if enlarged else "and the context leaves no more room"
                raise LLMError(f"the model's {step} reply was cut at its length limit ({params['max_tokens']} "
                               f"tokens) {again}, so it was not used", "length")
            return completion

    def without(self, params: dict[str, Any], feature: str) -> dict[str, Any]:
        """``params`` without a refused feature (or with the next structured-output mode)."""
        params = dict(params)
        if feature == "stream_options":
            params.pop("stream_options", None)
        elif feature == "tools":
            params.pop("tools", None)
            params.pop("tool_choice", None)
        elif feature == "tool_choice":
            params["tool_choice"] = "auto"
        else:
            params.pop("response_format", None)
            fmt = response_format(self.caps.structured, "world_ir", model_schema(WorldIR))
            if fmt is not None:
                params["response_format"] = fmt
            else:
                # Without server-side enforcement the model needs the schema in the prompt.
                params["messages"] = with_schema(params["messages"])
        return params


def with_schema(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    schema = json.dumps(model_schema(WorldIR), separators=(",", ":"))
    first = dict(messages[0])
    first["content"] = f"{first['content']} It must match this JSON schema:\n{schema}"
    return [first, *messages[1:]]
