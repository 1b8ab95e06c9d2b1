"""The reading commands: ``dump``, ``retrieve``, ``stats``, ``node``, ``neighbours``, ``path``, ``history``.

None of them writes, and none creates a save. ``retrieve``, ``node`` and ``neighbours`` read through the
save's indexes only; ``dump``, ``stats`` and ``path`` are whole-graph questions and read everything.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from game.cli.graph_common import find_knower, find_node, node_ref, open_save, print_json, print_text
from game.cli.graph_text import Step, history_text, knows_text, node_text, path_text, stats_text
from game.config import Settings
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing
from game.graph.metapaths import active_patterns, patterns_from_json
from game.graph.models import Edge, Node
from game.graph.ports import GraphReader
from game.graph.retrieve import RetrievalSettings, newest_per_relation, retrieve
from game.graph.vocabulary import Vocabulary
from game.store import metapath_patterns, node_identity

DEGREE_BUCKETS: tuple[tuple[str, int, int], ...] = (
    ("0", 0, 0), ("1", 1, 1), ("2-5", 2, 5), ("6-10", 6, 10), ("11-30", 11, 30), ("31+", 31, 1 << 62),
)
TOP_HUBS = 5


async def dump(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        nodes = await db.graph.all_nodes()
        edges = await db.graph.all_edges()
    print_json({"nodes": [n.to_json_dict() for n in nodes], "edges": [e.to_json_dict() for e in edges]})
    return 0


async def retrieve_command(args: argparse.Namespace, settings: Settings) -> int:
    message = " ".join(args.message)
    config = settings.retrieval
    async with open_save(args, settings) as db:
        meta = await db.meta()
        discovered = await metapath_patterns.discovered(db) if config.discovered_patterns else ()
        budget = RetrievalSettings(max_hops=config.max_hops, hub_threshold=config.hub_threshold,
                                   max_fanout=config.max_fanout, limit=config.limit,
                                   patterns=active_patterns(config.metapaths, patterns_from_json(meta.get("metapaths")),
                                                            discovered))
        knower = None if args.as_name is None else (await find_knower(db, args.as_name)).id
        found = await retrieve(db.graph, message, args.cast or [], budget, as_knower=knower)
    print_json({
        "npcContext": found.npc_context,
        "seedNodes": [n.to_json_dict() for n in found.seed_nodes],
        "matchedNodes": [n.to_json_dict() for n in found.matched_nodes],
        "edgeCount": found.edge_count,
    })
    return 0


async def knows(args: argparse.Namespace, settings: Settings) -> int:
    """What one person knows: every open relation they know, or everyone does, with how and from whom
    (``--deeds``: the deeds they know instead)."""
    if args.deeds:
        from game.cli.graph_deeds import knows_deeds

        return await knows_deeds(args, settings)
    async with open_save(args, settings) as db:
        knower = await find_knower(db, args.name)
        rows: dict[str, Knowing] = {k.edge_id: k for k in await db.graph.knowings_by(PUBLIC)}
        rows.update({k.edge_id: k for k in await db.graph.knowings_by(knower.id)})  # their own row first
        edges = {e.id: e for e in await db.graph.edges_by_ids(list(rows)) if e.is_open}
        ends = {end for e in edges.values() for end in (e.source, e.target)}
        tellers = {k.source for k in rows.values() if k.source}
        names = {n.id: n.name for n in (await db.graph.get_nodes(ends | tellers)).values()}
    facts = []
    for edge_id, row in rows.items():
        edge = edges.get(edge_id)
        if edge is None:
            continue
        facts.append({
            "edgeId": edge.id, "source": names.get(edge.source, edge.source),
            "target": names.get(edge.target, edge.target), "relation": edge.relation, "fact": edge.fact,
            "how": row.how, "from": names.get(row.source, row.source) if row.source else None,
            "confidence": row.confidence, "sinceTurn": row.since_turn,
        })
    # Oldest learned first; then by names, so the order reads well and never depends on random edge IDs.
    facts.sort(key=lambda f: (f["sinceTurn"], f["source"], f["relation"], f["target"], f["edgeId"]))
    if args.json:
        print_json(facts)
    else:
        print_text(knows_text(knower, facts))
    return 0


def graph_stats(nodes: Sequence[Node], edges: Sequence[Edge], vocabulary: Vocabulary,
                merges: list[dict[str, Any]]) -> dict[str, Any]:
    """Counts a graph's health is read from, early warnings of a graph going wrong: fragmentation, hubs,
    vocabulary drift."""
    open_edges = [e for e in edges if e.is_open]
    degree: Counter[str] = Counter({n.id: 0 for n in nodes})
    for edge in open_edges:
        degree[edge.source] += 1
        if edge.target != edge.source:
            degree[edge.target] += 1
    known = {n.id for n in nodes}
    degrees = [degree[n.id] for n in nodes]
    buckets = {label: sum(1 for d in degrees if low <= d <= high) for label, low, high in DEGREE_BUCKETS}
    names = {n.id: n.name for n in nodes}
    hubs = sorted((node_id for node_id in degree if node_id in known and degree[node_id] > 0),
                  key=lambda node_id: (-degree[node_id], names[node_id], node_id))[:TOP_HUBS]
    unknown = Counter(e.relation for e in edges if not vocabulary.is_known(e.relation))
    return {
        "nodes": {"total": len(nodes), **{kind: sum(1 for n in nodes if n.type == kind)
                                          for kind in ("individual", "group", "faction")}},
        "edges": {"versions": len(edges), "open": len(open_edges), "closed": len(edges) - len(open_edges),
                  "relations": len({e.relation for e in edges})},
        "degree": {"buckets": buckets, "max": max(degrees, default=0),
                   "mean": round(sum(degrees) / len(degrees), 4) if degrees else 0.0},
        "topHubs": [{"id": h, "name": names[h], "degree": degree[h]} for h in hubs],
        "outOfVocabulary": {
            "versions": sum(unknown.values()),
            "share": round(sum(unknown.values()) / len(edges), 4) if edges else 0.0,
            "relations": dict(sorted(unknown.items(), key=lambda item: (-item[1], item[0]))),
        },
        "merges": {"count": len(merges), "log": merges},
    }


async def stats(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        result = graph_stats(await db.graph.all_nodes(), await db.graph.all_edges(), await db.vocabulary(),
                             [m.to_json_dict() for m in await node_identity.merges(db)])
        name = db.name
    if args.json:
        print_json(result)
    else:
        print_text(stats_text(result, name))
    return 0


async def node_command(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        node = await find_node(db, args.name)
        edges = newest_per_relation(await db.graph.open_edges_of(node.id))
        edges.sort(key=lambda e: (-e.valid_at, -abs(e.strength), e.id))
        degree = (await db.graph.open_degree([node.id]))[node.id]
        every = await db.graph.edges_touching(node.id)
        closed = sum(1 for e in every if not e.is_open)
        neighbours = await db.graph.get_nodes({e.other_end(node.id) for e in edges} | {node.id})
    if args.json:
        print_json({
            "node": node.to_json_dict(),
            "degree": degree,
            "edges": [e.to_json_dict() for e in edges],
            "closedVersions": closed,
            "neighbours": [node_ref(n) for n in sorted(neighbours.values(), key=lambda n: n.id) if n.id != node.id],
        })
    else:
        print_text(node_text(node, degree, edges, closed, neighbours))
    return 0


async def neighbour_paths(reader: GraphReader, start: Node, hops: int) -> tuple[list[list[Step]], dict[str, Node]]:
    """Every open relation leading one layer further out, as paths from ``start``, layer by layer.

    A node appears at its shortest distance; each relation from the previous layer that reaches it is a
    path of its own, so two relations between the same people both show.
    """
    nodes: dict[str, Node] = {start.id: start}
    layer: list[tuple[str, list[Step]]] = [(start.id, [])]
    placed = {start.id}
    paths: list[list[Step]] = []
    for _hop in range(hops):
        reached: dict[str, list[list[Step]]] = {}
        for node_id, path in layer:
            edges = newest_per_relation(await reader.open_edges_of(node_id))
            edges.sort(key=lambda e: (-abs(e.strength), e.relation, e.id))
            for edge in edges:
                other = edge.other_end(node_id)
                if other in placed:
                    continue
                reached.setdefault(other, []).append([*path, Step(edge, edge.source == node_id)])
        found = await reader.get_nodes(reached)
        nodes.update(found)
        # A dangling edge (its far end missing) is not a path anywhere.
        layer = []
        for other, routes in reached.items():
            if other not in found:
                continue
            placed.add(other)
            paths.extend(routes)
            layer.append((other, routes[0]))
        if not layer:
            break
    return paths, nodes


def path_json(start: str, steps: Sequence[Step], nodes: dict[str, Node]) -> dict[str, Any]:
    ids = [start]
    for step in steps:
        ids.append(step.edge.other_end(ids[-1]))
    return {
        "nodes": ids,
        "edges": [s.edge.id for s in steps],
        "relations": [s.edge.relation for s in steps],
        "directions": ["forward" if s.forward else "backward" for s in steps],
        "text": path_text(start, steps, nodes),
    }


async def neighbours(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        start = await find_node(db, args.name)
        paths, nodes = await neighbour_paths(db.graph, start, args.hops)
    shown = paths[: args.limit]
    if args.json:
        print_json({"node": node_ref(start), "hops": args.hops, "paths": [path_json(start.id, p, nodes) for p in shown],
                    "truncated": len(paths) - len(shown)})
        return 0
    if not paths:
        print_text(f"{start.name} ({start.id}) has no open relations.")
        return 0
    print_text(f"{start.name} ({start.id}) within {args.hops} hop(s): {len(paths)} path(s)")
    for steps in shown:
        print_text(f"  {path_text(start.id, steps, nodes)}")
    if len(paths) > len(shown):
        print_text(f"  ... and {len(paths) - len(shown)} more (use --limit)")
    return 0


def shortest_path(edges: Sequence[Edge], source: str, target: str) -> list[Step] | None:
    """Fewest hops over open relations in either direction (networkx), the strongest relation per step."""
    import networkx as nx

    best: dict[frozenset[str], Edge] = {}
    for edge in sorted(newest_per_relation(edges), key=lambda e: e.id):
        if edge.source == edge.target:
            continue
        pair = frozenset((edge.source, edge.target))
        held = best.get(pair)
        if held is None or abs(edge.strength) > abs(held.strength):
            best[pair] = edge
    graph = nx.Graph()
    for pair, edge in best.items():
        graph.add_edge(*sorted(pair), edge=edge)
    if source not in graph or target not in graph:
        return None
    try:
        route: list[str] = nx.shortest_path(graph, source, target)
    except nx.NetworkXNoPath:
        return None
    steps = []
    for here, there in pairwise(route):
        edge = graph.edges[here, there]["edge"]
        steps.append(Step(edge, edge.source == here))
    return steps


async def path_command(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        a = await find_node(db, args.a)
        b = await find_node(db, args.b)
        steps = [] if a.id == b.id else shortest_path(await db.graph.all_edges(open_only=True), a.id, b.id)
        nodes = await db.graph.get_nodes(
            {a.id, b.id} | {s.edge.source for s in steps or []} | {s.edge.target for s in steps or []}
        )
    if args.json:
        print_json({"from": node_ref(a), "to": node_ref(b), "found": steps is not None,
                    "hops": len(steps) if steps is not None else None,
                    "path": path_json(a.id, steps, nodes) if steps is not None else None})
    elif a.id == b.id:
        print_text(f"{args.a!r} and {args.b!r} are the same node, {a.name} ({a.id}).")
    elif steps is None:
        print_text(f"No path between {a.name} and {b.name} over open relations.")
    else:
        print_text(f"{path_text(a.id, steps, nodes)}   ({len(steps)} hop{'s' if len(steps) != 1 else ''})")
    return 0 if steps is not None else 1


async def history(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        a = await find_node(db, args.a)
        b = await find_node(db, args.b)
        versions = await db.graph.edges_between(a.id, b.id)
    nodes = {a.id: a, b.id: b}
    if args.json:
        print_json({"a": node_ref(a), "b": node_ref(b), "versions": [e.to_json_dict() for e in versions]})
    else:
        print_text(history_text(a, b, versions, nodes))
    return 0

