"""Human-readable forms of the graph commands' results: short, aligned, names before IDs.

Kept apart from the commands so the JSON and text forms are built from the same data and never drift.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from game.graph.models import Edge, Node
from game.graph.render import sign_mark


@dataclass(frozen=True)
class Step:
    """One edge of a path, walked with (``forward``) or against its direction."""

    edge: Edge
    forward: bool


def name_of(node_id: str, nodes: Mapping[str, Node]) -> str:
    node = nodes.get(node_id)
    return node.name if node else f"{node_id} (missing)"


def path_text(start: str, steps: Sequence[Step], nodes: Mapping[str, Node]) -> str:
    """``A -[REL]-> B <-[REL]- C``: every step in the direction the relation was stored."""
    parts = [name_of(start, nodes)]
    current = start
    for step in steps:
        following = step.edge.other_end(current)
        arrow = f" -[{step.edge.relation}]-> " if step.forward else f" <-[{step.edge.relation}]- "
        parts.append(arrow + name_of(following, nodes))
        current = following
    return "".join(parts)


def span(edge: Edge) -> str:
    """``turns 3–7`` for a closed version, ``turns 3–now`` for the open one."""
    end = "now" if edge.invalid_at is None else str(edge.invalid_at)
    return f"turns {edge.valid_at}–{end}"


def edge_line(edge: Edge, nodes: Mapping[str, Node]) -> str:
    return (f"{sign_mark(edge.strength)} {name_of(edge.source, nodes)} -[{edge.relation}]-> "
            f"{name_of(edge.target, nodes)} ({edge.strength:+.2f}): {edge.fact}")


def node_text(node: Node, degree: int, edges: Sequence[Edge], closed: int, nodes: Mapping[str, Node]) -> str:
    lines = [f"{node.name} ({node.id}) · {node.type}"]
    if node.aliases:
        lines.append(f"  aliases:    {', '.join(node.aliases)}")
    if node.labels:
        lines.append(f"  labels:     {', '.join(node.labels)}")
    lines.append(f"  seen:       turns {node.first_seen_turn}–{node.last_seen_turn}")
    lines.append(f"  summary:    {node.summary}")
    if node.attributes:
        lines.append(f"  attributes: {json.dumps(node.attributes, ensure_ascii=False, sort_keys=True)}")
    lines.append("")
    lines.append(f"Open relations: {degree}")
    lines.extend(f"  {edge_line(edge, nodes)}  [{span(edge)}]" for edge in edges)
    if closed:
        lines.append(f"Closed versions: {closed} (see: kith graph history)")
    return "\n".join(lines)


def history_text(a: Node, b: Node, versions: Sequence[Edge], nodes: Mapping[str, Node]) -> str:
    if not versions:
        return f"No relation has ever been recorded between {a.name} ({a.id}) and {b.name} ({b.id})."
    lines = [f"History between {a.name} ({a.id}) and {b.name} ({b.id}): {len(versions)} version(s)"]
    groups: dict[tuple[str, str, str], list[Edge]] = {}
    for edge in versions:
        groups.setdefault((edge.source, edge.relation, edge.target), []).append(edge)
    for (source, relation, target), group in groups.items():
        lines.append("")
        lines.append(f"{name_of(source, nodes)} -[{relation}]-> {name_of(target, nodes)}")
        width = max(len(span(e)) for e in group)
        for edge in group:
            lines.append(f"  {span(edge).ljust(width)}  {sign_mark(edge.strength)} {edge.strength:+.2f}  "
                         f"{edge.fact}  ({edge.id}, {', '.join(edge.evidence_turn_ids) or 'no evidence'})")
    return "\n".join(lines)


def stats_text(stats: Mapping[str, Any], save_name: str) -> str:
    nodes, edges, degree = stats["nodes"], stats["edges"], stats["degree"]
    oov, merges = stats["outOfVocabulary"], stats["merges"]
    by_type = ", ".join(f"{kind} {nodes[kind]}" for kind in ("individual", "group", "faction"))
    lines = [
        f"Graph of {save_name}",
        f"  nodes:          {nodes['total']} ({by_type})",
        f"  edge versions:  {edges['versions']} ({edges['open']} open, {edges['closed']} closed)",
        f"  relations:      {edges['relations']} distinct",
        f"  out of vocabulary: {oov['versions']} of {edges['versions']} versions ({oov['share']:.1%})",
    ]
    if oov["relations"]:
        listed = ", ".join(f"{name} ×{count}" for name, count in oov["relations"].items())
        lines.append(f"    {listed}")
    buckets = " · ".join(f"{label}: {count}" for label, count in degree["buckets"].items())
    lines.append(f"  open degree:    {buckets} (max {degree['max']}, mean {degree['mean']:.2f})")
    if stats["topHubs"]:
        hubs = ", ".join(f"{hub['name']} ({hub['id']}) {hub['degree']}" for hub in stats["topHubs"])
        lines.append(f"  top hubs:       {hubs}")
    lines.append(f"  merges:         {merges['count']}")
    for record in merges["log"][-5:]:
        # An assumed identity folded no node (the name became an alias): it has no merged ID to show.
        merged = f" ({record['mergedId']})" if record["mergedId"] else ""
        lines.append(f"    {record['mergedName']}{merged} → {record['keptId']}, "
                     f"{record['strategy']} at turn {record['turn']}: {record['evidence']}")
    return "\n".join(lines)


HOW_WORDS = {"authored": "knows it first-hand", "witnessed": "saw it", "told": "was told", "rumour": "heard a rumour"}


def knows_text(knower: Node, facts: Sequence[Mapping[str, Any]]) -> str:
    """``Tibby Tarrant knows 3 relations:`` then one line per fact, with how and from whom."""
    if not facts:
        return f"{knower.name} knows no open relations."
    lines = [f"{knower.name} knows {len(facts)} relation{'s' if len(facts) != 1 else ''}:"]
    for fact in facts:
        how = HOW_WORDS.get(str(fact["how"]), str(fact["how"]))
        told = f" by {fact['from']}" if fact["from"] else ""
        lines.append(f"  {fact['source']} -[{fact['relation']}]-> {fact['target']}: {fact['fact']}")
        lines.append(f"      {how}{told}, confidence {fact['confidence']:.2f}, since turn {fact['sinceTurn']}")
    return "\n".join(lines)
