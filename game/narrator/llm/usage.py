"""Usage accounting: requests, tokens and time spent waiting on the model, by step, for recent turns.

Servers report token usage when asked (``stream_options.include_usage``, or a completion's ``usage``);
when one does not, the figures are estimated from the text sent and received (``tokens``), and the turn's
``estimated`` count says how many steps were guessed. Only the last few turns are kept: the engine reads
a turn's figures right after it is told.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from game.mind.context_budget import estimate_tokens
from game.narrator.llm.tokens import Calibration, request_tokens

KEPT_TURNS = 3


@dataclass
class TurnUsage:
    """Requests and tokens by step for one turn; ``estimated`` counts steps the server gave no usage for."""

    counts: dict[str, int] = field(default_factory=dict)
    model_seconds: float = 0.0
    calibration: Calibration = field(default_factory=Calibration)
    """The session's (shared by every turn): each reported prompt count calibrates the estimate."""

    def add(self, step: str, prompt: int, completion: int, estimated: bool) -> None:
        for key, value in ((f"{step}.calls", 1), (f"{step}.prompt_tokens", prompt),
                           (f"{step}.completion_tokens", completion), ("estimated", int(estimated))):
            self.counts[key] = self.counts.get(key, 0) + value

    def count(self, step: str, params: dict[str, Any], reported: Any, produced: str) -> None:
        """One request: the server's own figures when it sent them (``reported``), else estimates."""
        sent = request_tokens(params)
        if isinstance(reported, dict):
            prompt = _int(reported.get("prompt_tokens"))
            self.calibration.observe(sent, prompt)
            self.add(step, prompt, _int(reported.get("completion_tokens")), False)
            return
        self.add(step, sent, estimate_tokens(produced), True)

    def count_completion(self, step: str, params: dict[str, Any], completion: dict[str, Any],
                         message: dict[str, Any]) -> None:
        produced = str(message.get("content") or "") + json.dumps(message.get("tool_calls") or [])
        self.count(step, params, completion.get("usage"), produced)


class UsageLedger:
    """The ``TurnUsage`` of the last few turns, by turn number."""

    def __init__(self) -> None:
        self._turns: dict[int, TurnUsage] = {}
        self.calibration = Calibration()

    def turn(self, number: int) -> TurnUsage:
        if number not in self._turns:
            for old in [t for t in self._turns if t < number - (KEPT_TURNS - 1)]:
                del self._turns[old]
            self._turns[number] = TurnUsage(calibration=self.calibration)
        return self._turns[number]

    def restart(self, number: int) -> TurnUsage:
        """A fresh account for a turn told again (a retry after a failure counts only itself)."""
        self._turns.pop(number, None)
        return self.turn(number)

    def figures(self, number: int) -> dict[str, int]:
        usage = self.turn(number)
        return {**usage.counts, "model_ms": round(usage.model_seconds * 1000)}


def _int(value: Any) -> int:
    """A reported token count; anything that is not a plain number counts as nothing."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
