"""A model writes the sentence of a consolidated memory ("Wren has often helped me at the ferry").

One small non-streamed request per consolidation. What comes back is untrusted: the caller
(``game.features.memories.consolidate.summary``) bounds it in time, checks it (one plain paragraph, bounded,
no control characters) and keeps the deterministic summary on anything else, a failed request included.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from game.features.memories.book import Memory
from game.narrator.llm.calls import Requests
from game.narrator.llm.transport import first_message

SUMMARY_TOKENS = 120
SYSTEM = ("You condense a character's memories of the player into ONE sentence of at most 40 words, written "
          "from the character's point of view, in plain prose. Reply with the sentence only: no quotes, no "
          "lists, no JSON.")


class ModelSummarizer:
    """``Summarizer`` over the narrator's own requests (usage counted with the turn, key masked)."""

    def __init__(self, requests: Requests, model: Callable[[], Awaitable[str]]) -> None:
        self._requests = requests
        self._model = model

    async def summarize(self, npc_name: str, memories: Sequence[Memory], fallback: str, turn: int) -> str:
        listed = "\n".join(f"- turn {m.turn}: {m.text}" for m in sorted(memories, key=lambda m: (m.turn, m.seq)))
        params = {
            "model": await self._model(),
            "messages": [{"role": "system", "content": SYSTEM},
                         {"role": "user", "content": f"The memories of {npc_name}:\n{listed}\n\n"
                                                     f"A plain summary for reference: {fallback}"}],
            "max_tokens": SUMMARY_TOKENS,
            "temperature": 0.3,
        }
        completion = await self._requests.complete(turn, "memory", params)
        content = first_message(completion).get("content")
        return content if isinstance(content, str) else ""
