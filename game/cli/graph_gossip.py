"""``kith graph gossip``: run rounds of gossip on a save, as the game does between turns.

Its parser is the knowledge-and-gossip feature's (``game.features.gossip.commands``); this is the command
line's part, which opens the save, runs the feature's rules round after round and prints.

Round ``r`` counts as turn ``T + r``, where ``T`` is the latest turn the save has seen (played, written
ahead with ``upsert --turn``, or gossiped): its seed, its cooldowns and the turn the listeners learned at,
so a save replays identically for a seed. Who can meet: the story's positions in
the save's current scene, else every NPC (a graph made with ``kith graph`` has no places). Everything the
rounds made is committed at the end in one transaction, journaled at the save's turn like any ``kith
graph`` write; ``--dry-run`` prints the same and writes nothing.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from game.cli.graph_common import open_save, print_json, print_text

if TYPE_CHECKING:
    from game.config import Settings
    from game.graph.index import GraphIndex
    from game.store.told_log import Told

async def gossip_command(args: argparse.Namespace, settings: Settings) -> int:
    # Imported here, not for the parser: the engine and the world are this command's alone.
    from game.engine.presence import stage_places
    from game.features.gossip import everyone_meets, gossip_settings, gossip_turn, pair_key
    from game.features.gossip.store import last_talked
    from game.graph.ports import GraphWrites
    from game.store import turn_log
    from game.world.scene import SceneState

    seed = settings.seed if args.seed is None else args.seed
    rules = gossip_settings(settings)
    async with open_save(args, settings) as db:
        graph = await db.load_graph_index()
        turn = await db.current_turn()
        raw = await turn_log.scene_at(db, turn)
        scene = SceneState.model_validate(raw) if raw else None
        has_places = scene is not None and scene.story is not None and bool(scene.story.positions)
        places = await stage_places(graph, scene) if scene is not None and has_places else everyone_meets(graph)
        talked = await last_talked(db)
        # Rounds follow everything the save has seen: played turns, relations written ahead of play, and
        # earlier gossip (so a second run goes on from the first instead of replaying its turns).
        base = max(await turn_log.latest_turn(db), max(talked.values(), default=0))
        made = GraphWrites()
        told: list[tuple[int, Told]] = []
        for number in range(1, args.rounds + 1):
            result = gossip_turn(graph, GraphWrites(), base + number, places, rules, seed, talked)
            graph.apply(GraphWrites(knowings=result.knowings))
            made.knowings.update(result.knowings)
            for exchange in result.told:
                talked[pair_key(exchange.teller, exchange.listener)] = exchange.turn
                told.append((number, exchange))
        if not args.dry_run:
            await db.commit_graph(made, [exchange for _, exchange in told])
    names = {node_id: node.name for node_id, node in graph.nodes.items()}
    rows = [_row(graph, names, number, exchange) for number, exchange in told]
    if args.json:
        print_json({"rounds": args.rounds, "seed": seed, "written": not args.dry_run and bool(told), "told": rows})
    else:
        print_text(_text(rows, args.rounds, args.dry_run))
    return 0


def _row(graph: GraphIndex, names: dict[str, str], number: int, exchange: Told) -> dict[str, Any]:
    edge = graph.open_edges.get(exchange.edge_id)
    heard = graph.knowers_of(exchange.edge_id).get(exchange.listener)
    return {
        "round": number, "turn": exchange.turn, "teller": names.get(exchange.teller, exchange.teller),
        "listener": names.get(exchange.listener, exchange.listener), "edgeId": exchange.edge_id,
        "source": names.get(edge.source, edge.source) if edge else None,
        "target": names.get(edge.target, edge.target) if edge else None,
        "relation": edge.relation if edge else None, "fact": edge.fact if edge else None,
        "how": heard.how if heard else None, "confidence": exchange.confidence,
    }


def _text(rows: list[dict[str, Any]], rounds: int, dry_run: bool) -> str:
    plural = "s" if rounds != 1 else ""
    if not rows:
        return f"Nobody had anything new to tell in {rounds} round{plural}."
    lines = []
    for row in rows:
        lines.append(f"round {row['round']}: {row['teller']} told {row['listener']}: {row['fact']}")
        lines.append(f"      {row['how']}, confidence {row['confidence']:.2f}")
    tail = "Dry run: nothing was written." if dry_run else "Written to the save."
    lines.append(f"{len(rows)} exchange{'s' if len(rows) != 1 else ''} in {rounds} round{plural}. {tail}")
    return "\n".join(lines)
