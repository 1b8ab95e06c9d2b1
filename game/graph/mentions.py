"""Where a text names the nodes of a graph: the one lookup retrieval and the fast extractor share.

Apart from ``game.graph.names``, which ``game.graph.ports`` imports for its types: the lookup needs a
``GraphReader``, and the two modules would otherwise import each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.graph.names import LONG_TEXT, candidate_spans

if TYPE_CHECKING:
    from game.graph.models import Node
    from game.graph.ports import GraphReader


async def spans_named(reader: GraphReader, text: str) -> tuple[list[tuple[int, int, str]], dict[str, list[Node]]]:
    """Where ``text`` names nodes of ``reader``: ``(start, end, key)`` spans of ``normalize_name(text)`` in
    order of start, then end, and the nodes each key names. Linear in the text, however many names."""
    if not text.strip():
        return [], {}
    if len(text) >= LONG_TEXT:
        spans = (await reader.name_trie()).find(text)
    else:
        longest = await reader.longest_name()
        spans = list(candidate_spans(text, longest)) if longest > 0 else []
    named = await reader.nodes_named({key for _, _, key in spans})
    return [span for span in spans if span[2] in named], named
