"""``kith graph patterns``: the meta-path patterns a save's retrieval uses, and discovering new ones.

Without ``--discover`` it lists the patterns in force: the shipped defaults, the world's own (kept in
the save's meta when a game opens), and the ones discovery kept in this save, each marked whether
retrieval uses it under the settings (``[retrieval] metapaths``, ``discovered_patterns``). With
``--discover`` it first walks every candidate relation pair on the save's open relations
(``game.graph.metapaths_discover``), replaces the save's discovered set with the survivors and then lists.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from game.cli.graph_common import add_json_option, add_save_option, handler, open_save, print_json, print_text

if TYPE_CHECKING:
    from game.config import Settings
    from game.graph.metapaths import MetaPath
    from game.graph.metapaths_discover import Candidate
    from game.store.metapath_patterns import KeptPattern


def add_patterns_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    patterns = actions.add_parser(
        "patterns", help="the meta-path patterns retrieval uses; --discover finds new ones on the save",
        description="List the meta-path patterns (defaults, the world's, discovered in this save) and whether "
                    "retrieval uses each. --discover walks every candidate relation pair on the save first "
                    "(fan-out cap, minimum yield, novelty against direct relations) and keeps the survivors.",
    )
    add_save_option(patterns)
    add_json_option(patterns)
    patterns.add_argument("--discover", action="store_true",
                          help="evaluate candidate patterns on the save and keep those that survive")
    patterns.set_defaults(handler=handler("graph_patterns", "patterns_command"))


async def patterns_command(args: argparse.Namespace, settings: Settings) -> int:
    from game.graph.metapaths import DEFAULT_PATTERNS, combine, patterns_from_json
    from game.graph.metapaths_discover import discover
    from game.graph.retrieve import newest_per_relation
    from game.store import metapath_patterns, turn_log
    from game.store.metapath_patterns import KeptPattern

    config = settings.retrieval
    candidates: list[Candidate] | None = None
    async with open_save(args, settings) as db:
        world = patterns_from_json((await db.meta()).get("metapaths"))
        if args.discover:
            found = discover(newest_per_relation(await db.graph.all_edges()), known=combine(DEFAULT_PATTERNS, world))
            by_pair = {c.relations: c for c in found.candidates}
            turn = await turn_log.latest_turn(db)
            await metapath_patterns.replace(db, [
                KeptPattern(p, by_pair[p.relations].yield_, round(by_pair[p.relations].novelty, 3), turn)
                for p in found.kept])
            candidates = found.candidates
        kept = await metapath_patterns.load(db)
    rows = _rows(DEFAULT_PATTERNS, world, kept, config.metapaths, config.discovered_patterns)
    if args.json:
        data: dict[str, Any] = {"metapaths": config.metapaths, "discoveredPatterns": config.discovered_patterns,
                                "patterns": rows}
        if candidates is not None:
            data["candidates"] = [c.to_json_dict() for c in candidates]
        print_json(data)
        return 0
    print_text(_text(rows, candidates, config.metapaths, config.discovered_patterns))
    return 0


def _rows(defaults: tuple[MetaPath, ...], world: tuple[MetaPath, ...], kept: list[KeptPattern], enabled: bool,
          discovered_on: bool) -> list[dict[str, Any]]:
    """Every pattern once: a world's entry replaces a default of the same pair (its weight wins)."""
    from game.graph.metapaths import combine

    rows = [{**p.to_json_dict(), "active": enabled} for p in combine(defaults, world)]
    for k in kept:
        rows.append({**k.pattern.to_json_dict(), "active": enabled and discovered_on, "yield": k.yield_,
                     "novelty": k.novelty, "discoveredAtTurn": k.turn})
    return rows


def _text(rows: list[dict[str, Any]], candidates: list[Candidate] | None, enabled: bool, discovered_on: bool) -> str:
    if not enabled:
        state = "off ([retrieval] metapaths = false): retrieval ranks by recency alone"
    elif discovered_on:
        state = "on, discovered patterns included"
    else:
        state = "on; discovered patterns are not used ([retrieval] discovered_patterns = false)"
    lines = [f"Meta-path patterns: {state}"]
    for row in rows:
        extra = f", yield {row['yield']}, novelty {row['novelty']:.2f}" if row["source"] == "discovered" else ""
        used = "" if row["active"] else ", not used"
        lines.append(f"  {', '.join(row['relations']):<28} {row['weight']:.2f}  {row['source']}{extra}{used}")
    if candidates is not None:
        kept = [c for c in candidates if c.verdict == "kept"]
        lines.append(f"Discovery: {len(candidates)} candidate pairs walked, {len(kept)} kept"
                     + ("." if kept else " (nothing surfaced enough new connections)."))
    return "\n".join(lines)
