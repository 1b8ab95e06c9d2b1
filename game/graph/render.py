"""Text forms of the graph that narrators and people read."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from game.graph.models import Edge, Node


NPC_CONTEXT_HEADING = "## Known NPC relationships (from graph retrieval)"
POSITIVE_ABOVE = 0.33
NEGATIVE_BELOW = -0.33


def sign_mark(strength: float) -> str:
    """``[+]`` above 0.33, ``[-]`` below -0.33, ``[·]`` between."""
    if strength > POSITIVE_ABOVE:
        return "[+]"
    if strength < NEGATIVE_BELOW:
        return "[-]"
    return "[·]"


def sign_word(strength: float) -> str:
    """``+``, ``-`` or ``0``: the sign a ``{graph}`` check names."""
    return {"[+]": "+", "[-]": "-"}.get(sign_mark(strength), "0")


def fact_line(edge: Edge, nodes: Mapping[str, Node]) -> str:
    source = nodes[edge.source].name if edge.source in nodes else edge.source
    target = nodes[edge.target].name if edge.target in nodes else edge.target
    return f"- {sign_mark(edge.strength)} **{source}** → **{target}** ({edge.relation}): {edge.fact}"


def render_npc_context(edges: Sequence[Edge], nodes: Mapping[str, Node]) -> str:
    """The Markdown list handed to the narrator, or ``""`` when nothing was found."""
    if not edges:
        return ""
    return "\n".join([NPC_CONTEXT_HEADING, "", *(fact_line(edge, nodes) for edge in edges)])

