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
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
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
RECENT_SAMPLES = 8
"""Ratios remembered: the scale is the highest of them, because the prompts of one session differ (prose,
JSON, schemas tokenize differently) and a budget must hold for the hungriest of them."""
SAFETY_SHARE = 0.04
"""Share of the context never planned for: the estimate of a prompt the server has not counted yet is
still an estimate, and a request the server must refuse costs a round trip."""
_OVERFLOW_COUNTS = (
    re.compile(r"request \((\d+) tokens\) exceeds"),                    # llama.cpp
    re.compile(r"\((\d+) in the messages"),                              # vLLM
    re.compile(r"your messages resulted in (\d+) tokens"),                # OpenAI
)
"""Where a server's overflow message states how many tokens the prompt alone took."""


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


def request_tokens(params: dict[str, Any]) -> int:
    """The estimated prompt of a request's arguments: its messages and the tools it sends."""
    return message_tokens(params.get("messages") or []) + tools_tokens(params.get("tools") or [])


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
    """Real tokens per estimated token for this session's server (1.0 until it reports a count): the
    highest ratio among the last few counts, so a budget holds for every kind of prompt the game sends."""

    scale: float = 1.0
    _samples: list[float] = field(default_factory=list)

    def observe(self, estimated: int, reported: int) -> None:
        """The server counted ``reported`` prompt tokens for a prompt estimated at ``estimated``."""
        if estimated >= MIN_SAMPLE and reported > 0:
            self._learn(reported / estimated)

    def overflowed(self, estimated: int = 0, detail: str = "") -> None:
        """The server refused a prompt that the estimate said would fit: the estimate is too low. When the
        server's words say what the prompt counted (llama.cpp, vLLM, OpenAI do), that is learned exactly;
        otherwise the scale grows by a step."""
        counted = overflow_count(detail)
        if counted is not None and estimated >= MIN_SAMPLE and counted / estimated > self.scale:
            self._learn(counted / estimated)
        else:
            self._learn(self.scale * OVERFLOW_STEP)

    def _learn(self, ratio: float) -> None:
        self._samples = [*self._samples[-(RECENT_SAMPLES - 1):], min(SCALE_RANGE[1], max(SCALE_RANGE[0], ratio))]
        self.scale = max(self._samples)

    def budget(self, tokens: int) -> int:
        """A budget of ``tokens`` real tokens in estimated tokens."""
        return int(tokens / self.scale)

    def real(self, estimated: int) -> int:
        return math.ceil(estimated * self.scale)

    def room(self, context_size: int, estimated_prompt: int) -> int:
        """Real tokens left for the reply after a prompt of ``estimated_prompt`` estimated tokens, less a
        safety share of the context: what ``max_tokens`` may be without a request the server must refuse."""
        return context_size - self.real(estimated_prompt) - math.ceil(SAFETY_SHARE * context_size)


def overflow_count(detail: str) -> int | None:
    """The prompt's real token count stated in a server's overflow message, when it states one."""
    for pattern in _OVERFLOW_COUNTS:
        found = pattern.search(detail)
        if found:
            return int(found.group(1))
    return None
