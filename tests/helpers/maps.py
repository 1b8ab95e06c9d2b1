"""Shared builders for the map tests."""

from __future__ import annotations

import random

from game.graph.map.draw import MapDrawing
from game.graph.models import Edge, Node, NodeType

FIRST = ["Mira", "Tomas", "Oren", "Ash", "Bram", "Elin", "Veyra", "Kest", "Lin", "Yao", "Dov", "Sera",
         "Ilse", "Rook", "Petra", "Hale"]
RELATIONS = ["TRUSTS", "FEARS", "KIN_OF", "MEMBER_OF", "OWES", "RIVAL_OF", "SERVES"]


def person(node_id: str, name: str, kind: NodeType = "individual", turn: int = 0, **attributes: object) -> Node:
    return Node(id=node_id, name=name, type=kind, summary=f"{name}, who lives by the harbour.",
                first_seen_turn=turn, last_seen_turn=turn, attributes=dict(attributes))


def relation(edge_id: str, source: str, target: str, name: str, strength: float, valid_at: int = 0,
             invalid_at: int | None = None, fact: str | None = None) -> Edge:
    return Edge(id=edge_id, source=source, target=target, relation=name, strength=strength,
                fact=fact or f"{source} and {target} go back a long way.", valid_at=valid_at,
                invalid_at=invalid_at, evidence_turn_ids=[f"turn-{valid_at}"])


def harbour() -> tuple[list[Node], list[Edge]]:
    """The small cast of the design's screen mock-up."""
    nodes = [
        person("npc-mira", "Mira"), person("npc-tomas", "Tomas"), person("npc-oren", "Oren"),
        person("npc-lantern-guild", "Lantern Guild", "group"), person("npc-harbour-watch", "Harbour Watch", "faction"),
    ]
    edges = [
        relation("edge-1", "npc-mira", "npc-tomas", "TRUSTS", 0.7, fact="Mira has trusted Tomas since the flood."),
        relation("edge-2", "npc-mira", "npc-oren", "KIN_OF", 0.1, fact="Mira and Oren are cousins on their mothers' side."),
        relation("edge-3", "npc-mira", "npc-harbour-watch", "FEARS", -0.6, fact="Mira fears the Watch will find the ledger."),
        relation("edge-4", "npc-tomas", "npc-lantern-guild", "MEMBER_OF", 0.5, fact="Tomas keeps the Lantern Guild's books."),
    ]
    return nodes, edges


HARBOUR_POSITIONS = {
    "npc-mira": (0.15, 0.1), "npc-tomas": (0.75, 0.1), "npc-oren": (0.1, 0.8),
    "npc-lantern-guild": (0.8, 0.75), "npc-harbour-watch": (0.45, 0.95),
}


def random_graph(size: int, seed: int = 1) -> tuple[list[Node], list[Edge]]:
    """A connected story-like graph: each node relates to one or two earlier ones."""
    rng = random.Random(seed)
    kinds = ["individual"] * 6 + ["group", "faction"]
    nodes = []
    for i in range(size):
        name = rng.choice(FIRST) + (f" {rng.choice(FIRST)}" if rng.random() < 0.3 else "") + f" {i}"
        nodes.append(person(f"npc-{i}", name, rng.choice(kinds), turn=i // 3))
    edges: list[Edge] = []
    for i in range(1, size):
        for _ in range(1 if rng.random() < 0.5 else 2):
            j = rng.randrange(0, i)
            edges.append(relation(f"edge-{len(edges)}", f"npc-{i}", f"npc-{j}", rng.choice(RELATIONS),
                                  round(rng.uniform(-1, 1), 2), valid_at=i // 3))
    return nodes, edges


def cell(drawing: MapDrawing, x: int, y: int) -> str:
    """The character drawn at (x, y), reading the styled rows the widget shows."""
    text = "".join(run.text for run in drawing.rows[y])
    return text[x]


def style_at(drawing: MapDrawing, x: int, y: int) -> object:
    column = 0
    for run in drawing.rows[y]:
        if column <= x < column + len(run.text):
            return run.style
        column += len(run.text)
    raise IndexError(x)


NEGATIVE_RELATIONS = {"FEARS", "RIVAL_OF"}


def import_lines(size: int, seed: int = 1, per_line: int = 6) -> list[str]:
    """A ``graph import`` file for a story-shaped graph of ``size`` nodes: each person relates to one or
    two earlier ones, ``per_line`` people per line (the upsert call's limits allow 8 nodes, 12 edges)."""
    import json

    nodes, edges = random_graph(size, seed)
    names = {node.id: node.name for node in nodes}
    by_source: dict[str, list[Edge]] = {}
    for edge in edges:
        by_source.setdefault(edge.source, []).append(edge)
    lines = []
    for start in range(0, size, per_line):
        chunk = nodes[start:start + per_line]
        chunk_edges = [edge for node in chunk for edge in by_source.get(node.id, [])]
        lines.append(json.dumps({
            "turn": start // per_line,
            "nodes": [{"name": node.name, "type": node.type, "summary": node.summary} for node in chunk],
            "edges": [{"sourceName": names[e.source], "targetName": names[e.target], "relation": e.relation,
                       "strength": -abs(e.strength) if e.relation in NEGATIVE_RELATIONS else abs(e.strength),
                       "fact": e.fact} for e in chunk_edges],
        }))
    return lines
