"""Token estimates without a tokenizer, and the history window fitted to the context.

Servers differ in tokenizers and Kith ships none, so counts are estimated (``estimate_tokens``, kept in
``game.mind.context_budget`` so the context orchestrator counts alike), plus a few tokens of framing per
message. The estimate errs
high, which is the safe side for a budget. The window keeps the newest turns that fit and says when it is
close to full, so the player is warned before older turns start to drop out.

The estimate can be far off (a small model's tokenizer took about two characters a token on Kith's
prose, not 3.6), so ``Calibration`` learns, per session, how many real tokens one estimated token is,
from the ``usage`` the server reports and from every overflow it refuses; budgets are divided by it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from game.mind.context_budget import estimate_tokens

MESSAGE_OVERHEAD = 4
MIN_SAMPLE = 200
"""Estimated prompt tokens below which a server's count is too noisy (template framing) to learn from."""
SCALE_RANGE = (1.0, 4.0)
"""Never below 1: the estimate errs high on purpose, and a prompt that fits beats a fuller one that may not."""
OVERFLOW_STEP = 1.25
"""How much more a real token count is assumed to be after the server refused a prompt as too long."""
WARN_AT = 0.8
"""Share of the history budget at which the player is told the window will soon shrink."""


def message_tokens(messages: Iterable[dict[str, Any]]) -> int:
    total = 0
    for message in messages:
        total += MESSAGE_OVERHEAD
        content = message.get("content")
        if isinstance(content, str):
            total += estimate_tokens(content)
        if message.get("tool_calls"):
            total += estimate_tokens(json.dumps(message["tool_calls"]))
    return total


def tools_tokens(tools: Sequence[dict[str, Any]]) -> int:
    return estimate_tokens(json.dumps(tools)) if tools else 0


@dataclass(frozen=True)
class Window:
    """Which past turns fit: ``kept`` oldest first, how many were left out, and how full the budget is."""

    kept: tuple[int, ...]
    dropped: int
    used: int
    budget: int

    @property
    def nearly_full(self) -> bool:
        return self.budget > 0 and self.used >= WARN_AT * self.budget


def fit_newest(count: int, cost: Callable[[int], int], budget: int) -> Window:
    """Keep the newest of ``count`` turns whose estimated cost fits ``budget``, weighing them newest first
    and only until the budget is spent: a long story's older turns are never estimated (about 0.2 ms
    each, every turn)."""
    kept: list[int] = []
    used = 0
    for index in range(count - 1, -1, -1):
        spent = cost(index)
        if used + spent > budget:
            break
        kept.append(index)
        used += spent
    kept.reverse()
    return Window(tuple(kept), count - len(kept), used, max(budget, 0))


@dataclass
class Calibration:
    """Real tokens per estimated token for this session's server (1.0 until it reports a count)."""

    scale: float = 1.0

    def observe(self, estimated: int, reported: int) -> None:
        """The server counted ``reported`` prompt tokens for a prompt estimated at ``estimated``."""
        if estimated >= MIN_SAMPLE and reported > 0:
            self.scale = min(SCALE_RANGE[1], max(SCALE_RANGE[0], reported / estimated))

    def overflowed(self) -> None:
        """The server refused a prompt that the estimate said would fit: the estimate is too low."""
        self.scale = min(SCALE_RANGE[1], self.scale * OVERFLOW_STEP)

    def budget(self, tokens: int) -> int:
        """A budget of ``tokens`` real tokens in estimated tokens."""
        return int(tokens / self.scale)

    def real(self, estimated: int) -> int:
        return math.ceil(estimated * self.scale)
