"""The details of one node, as Markdown: who they are, their relations now, and how those came to be."""

from __future__ import annotations

import re
from collections.abc import Sequence

from game.graph.map.view import edge_open_at
from game.graph.models import Edge, Node
from game.graph.render import sign_mark
from game.text import strip_control

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>#|])")


def _escape(text: str) -> str:
    """Untrusted text as literal Markdown: control sequences removed, Markdown's special characters escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", strip_control(text))


def describe_node(node: Node, nodes: Sequence[Node], edges: Sequence[Edge], at_turn: int | None = None) -> str:
    """Summary, labels, aliases, the relations that hold (at ``at_turn``, else now) with their facts, and
    the history of every relation touching the node, turn by turn."""
    names = {n.id: n.name for n in nodes}
    own = [e for e in edges if node.id in (e.source, e.target)]
    seen = (f"seen at turn {node.first_seen_turn}" if node.first_seen_turn == node.last_seen_turn
            else f"seen turns {node.first_seen_turn}–{node.last_seen_turn}")
    lines = [f"### {_escape(node.name)}", "", f"*{node.type}* · {seen}"]
    if node.labels:
        lines.append(f"  \n**Labels:** {_escape(', '.join(node.labels))}")
    if node.aliases:
        lines.append(f"  \n**Also known as:** {_escape(', '.join(node.aliases))}")
    lines += ["", _escape(node.summary), ""]

    current = sorted((e for e in own if edge_open_at(e, at_turn)), key=lambda e: (-abs(e.strength), e.relation))
    lines.append(f"**Relations at turn {at_turn}**" if at_turn is not None else "**Relations now**")
    lines.append("")
    if not current:
        lines.append("None yet.")
    for edge in current:
        lines.append(f"- {_relation(edge, names)}: {_escape(edge.fact)} *(since turn {edge.valid_at})*")
    history = _history(own, names, at_turn)
    if history:
        lines += ["", "**History**", "", *history]
    return "\n".join(lines)


def _relation(edge: Edge, names: dict[str, str], *, strength: bool = True) -> str:
    """``[+] **Ambry** → **Tibby** (KIN_OF, +0.80)``: both ends named, as ``/why`` writes a relation, so a
    line reads whole on its own whichever end the selected node is."""
    mark = sign_mark(edge.strength).replace("[", "\\[").replace("]", "\\]")
    source = _escape(names.get(edge.source, edge.source))
    target = _escape(names.get(edge.target, edge.target))
    how = f"{edge.relation}, {edge.strength:+.2f}" if strength else edge.relation
    return f"{mark} **{source}** → **{target}** ({how})"


def _history(own: Sequence[Edge], names: dict[str, str], at_turn: int | None) -> list[str]:
    """One line per change: a relation began, changed (a new version replaced the open one) or ended."""
    by_key: dict[tuple[str, str, str], list[Edge]] = {}
    for edge in own:
        by_key.setdefault((edge.source, edge.target, edge.relation), []).append(edge)
    events: list[tuple[int, int, str]] = []
    for versions in by_key.values():
        versions.sort(key=lambda e: (e.valid_at, e.id))
        ended_at = {e.invalid_at for e in versions if e.invalid_at is not None}
        starts = {e.valid_at for e in versions}
        for order, edge in enumerate(versions):
            verb = "changed" if edge.valid_at in ended_at else "began"
            events.append((edge.valid_at, order, f"{verb}: {_relation(edge, names)}: {_escape(edge.fact)}"))
            if edge.invalid_at is not None and edge.invalid_at not in starts:
                events.append((edge.invalid_at, order, f"ended: {_relation(edge, names, strength=False)}"))
    events.sort(key=lambda item: (item[0], item[1], item[2]))
    return [f"- Turn {turn}, {text}" for turn, _order, text in events if at_turn is None or turn <= at_turn]
