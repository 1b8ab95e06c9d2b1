"""How many tokens a line costs, and which lines of each section fit the context's budget.

Servers differ in tokenizers and Kith ships none, so tokens are estimated: about four characters a token
for alphabetic scripts, one a token for CJK. The estimate errs high, the safe side for a budget. It lives
here, at the bottom of the layers that count tokens, so the orchestrator and the model narrator count
alike; the model narrator scales it by what its server reports (``game.narrator.llm.tokens``) and hands
the scaled count to the orchestrator.

The budget is cut in two steps. ``allot`` gives each section its share of the budget and lets what a
section does not need flow to the sections that need more, in proportion to their shares (water
filling), so no token of the budget is idle while a section is short. ``trim`` then drops a section's
lightest lines until the rest fit its allotment; what trimming frees is offered once more to the sections
that dropped lines, heaviest line first.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from game.graph.names import cjk_pattern

TokenCount = Callable[[str], int]
"""How many tokens a text costs: the plain estimate, or a narrator's calibrated one."""

LINE_OVERHEAD = 1
"""Tokens a line costs beyond its text and its tag (``[MEMORY] ``): the line break after it."""


def line_cost(section: str, text: str, count: TokenCount) -> int:
    """What one line costs in a prompt, counted as the model reads it: ``[SECTION] text`` and a line break.
    (Sections with blocks of their own print no tag; counting it anyway errs on the safe side.)"""
    return count(f"[{section}] {text}") + LINE_OVERHEAD


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: one per CJK character, one per 3.6 other characters, rounded up."""
    if not text:
        return 0
    if text.isascii():  # no CJK possible: the same count without looking at every character
        return math.ceil(len(text) / 3.6)
    cjk = len(cjk_pattern().findall(text))
    return cjk + math.ceil((len(text) - cjk) / 3.6)


def allot(budget: int, needs: Mapping[str, int], shares: Mapping[str, float]) -> dict[str, int]:
    """Tokens for each section: its share of ``budget``, and more from what other sections leave unused.

    ``needs`` is what each section would cost whole; ``shares`` are weights (any positive numbers; they
    are normalised over the sections present). No section is given more than it needs, and the
    allotments never add up to more than ``budget``.
    """
    given = dict.fromkeys(needs, 0)
    short = [name for name in needs if needs[name] > 0]
    left = max(budget, 0)
    while short and left > 0:
        total_share = sum(max(shares.get(name, 0.0), 0.0) for name in short)
        if total_share <= 0:
            total_share, weights = float(len(short)), dict.fromkeys(short, 1.0)
        else:
            weights = {name: max(shares.get(name, 0.0), 0.0) for name in short}
        offered = {name: int(left * weights[name] / total_share) for name in short}
        if not any(offered.values()):
            # Fewer tokens left than sections asking: the heaviest share gets them, one section at a time.
            first = max(short, key=lambda name: (weights[name], -short.index(name)))
            offered = {name: (left if name == first else 0) for name in short}
        spent = 0
        for name in short:
            take = min(offered[name], needs[name] - given[name])
            given[name] += take
            spent += take
        left -= spent
        if spent == 0:
            break
        short = [name for name in short if given[name] < needs[name]]
    return given


def trim(costs: Sequence[int], weights: Sequence[float], allotment: int) -> list[int]:
    """Indexes of the lines kept (in their order) when the lightest are dropped until the rest fit.

    Ties in weight drop the later line first, so a provider's own order decides among equals.
    """
    kept = set(range(len(costs)))
    used = sum(costs)
    for index in sorted(range(len(costs)), key=lambda i: (weights[i], -i)):
        if used <= allotment:
            break
        kept.discard(index)
        used -= costs[index]
    return sorted(kept)


def refill(costs: Sequence[int], weights: Sequence[float], kept: list[int], spare: int) -> tuple[list[int], int]:
    """``kept`` with dropped lines added back, heaviest first, while they fit in ``spare`` tokens.

    Returns the new kept indexes (in order) and the spare tokens left.
    """
    chosen = set(kept)
    for index in sorted(range(len(costs)), key=lambda i: (-weights[i], i)):
        if index not in chosen and costs[index] <= spare:
            chosen.add(index)
            spare -= costs[index]
    return sorted(chosen), spare
