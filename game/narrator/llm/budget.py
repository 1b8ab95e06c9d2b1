"""How long one turn with a model can take at most: the two deadlines every turn runs under.

A turn has two phases, and each runs under one deadline that nothing inside it can outlast (retries,
``Retry-After`` waits, lookup rounds, a re-told turn after an overflow, a server that trickles bytes):

- the **narration**, from the request (the model's name looked up first, when none is set) to the last
  word: ``REPLY_DEADLINE_TIMEOUTS`` × ``timeout``;
- the **graph update**, the World IR and the extraction together: ``memory_deadline``.

Past the first the turn fails and nothing is saved; past the second the narration is kept, marked for
``kith graph rebuild``. The engine's own work around them takes milliseconds. So the sum is the longest a
player can wait for a turn, and docs/llm.md states it for the defaults (a test holds the two together).
"""

from __future__ import annotations

from game.config import LLMSettings

REPLY_DEADLINE_TIMEOUTS = 2
"""The whole narration may take this many ``timeout`` periods (2 min at the default 60 s): time for about
700 tokens at six tokens a second, a slow CPU's pace, while the player watches the story arrive."""


def reply_deadline(llm: LLMSettings) -> float:
    """Seconds the whole narration of a turn may take, every round and retry included."""
    return REPLY_DEADLINE_TIMEOUTS * llm.timeout


def worst_case_turn_seconds(llm: LLMSettings) -> float:
    """The longest a turn can take with these settings: the narration's deadline, then the graph update's."""
    return reply_deadline(llm) + llm.memory_deadline
