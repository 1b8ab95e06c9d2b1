"""The deeds feature's commands: ``kith graph deeds`` and ``kith graph knows NAME --deeds``.

The parser and the JSON shapes are the feature's (docs/graph-cli.md, "deeds"; an outside acceptance suite
reads them exactly); the command line's ``game.cli.graph_deeds`` opens the save and prints them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from typing import Any

from game.features.deeds.model import Deed, DeedBook
from game.features.feature import Handler
from game.graph.index import GraphIndex


def add_deeds_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser],
                     handler: Callable[[str, str], Handler]) -> None:
    deeds = actions.add_parser(
        "deeds", help="what people did: every deed, oldest first, with who saw it",
        description="Every deed recorded in the save (who did what to whom, at which turn and place, "
                    "before whom), oldest first; --actor and --target keep those of one person.")
    deeds.add_argument("--save", required=True, metavar="S", help="the save's name or path")
    deeds.add_argument("--actor", metavar="NAME", help="only deeds NAME did ('player': the player)")
    deeds.add_argument("--target", metavar="NAME", help="only deeds done to NAME")
    deeds.add_argument("--json", action="store_true", help="print JSON (a list of deeds)")
    deeds.set_defaults(handler=handler("graph_deeds", "deeds_command"))


def _name(names: Mapping[str, str], node_id: str) -> str:
    return names.get(node_id, node_id)


def deed_json(deed: Deed, names: Mapping[str, str]) -> dict[str, Any]:
    """One deed as ``kith graph deeds --json`` prints it (names, not IDs)."""
    return {"deedId": deed.deed_id, "turn": deed.turn, "actor": _name(names, deed.actor), "act": deed.act,
            "target": _name(names, deed.target) if deed.target_kind == "person" else deed.target,
            "place": deed.place, "valence": deed.valence,
            "witnesses": [_name(names, w) for w in deed.witnesses], "sentence": deed.sentence}


def deeds_json(book: DeedBook, names: Mapping[str, str], actor: str | None = None,
               target: str | None = None) -> list[dict[str, Any]]:
    """Every deed (of ``actor``, to ``target``: node IDs), oldest first."""
    deeds = sorted(book.deeds.values(), key=lambda d: (d.turn, _number(d.deed_id), d.deed_id))
    return [deed_json(d, names) for d in deeds
            if (actor is None or d.actor == actor) and (target is None or d.target == target)]


def known_json(book: DeedBook, knower: str, names: Mapping[str, str]) -> list[dict[str, Any]]:
    """The deeds ``knower`` knows, as ``kith graph knows NAME --deeds --json`` prints them."""
    return [{"deedId": deed.deed_id, "act": deed.act, "actor": _name(names, deed.actor),
             "target": _name(names, deed.target) if deed.target_kind == "person" else deed.target,
             "turn": deed.turn, "how": row.how, "from": _name(names, row.source) if row.source else None,
             "confidence": row.confidence, "sinceTurn": row.since_turn}
            for deed, row in book.known_by(knower)]


HOW_WORDS = {"seen": "saw it", "told": "was told", "rumour": "heard a rumour"}


def deeds_text(deeds: list[dict[str, Any]]) -> str:
    if not deeds:
        return "No deeds recorded."
    lines = [f"{len(deeds)} deed{'s' if len(deeds) != 1 else ''}:"]
    for deed in deeds:
        seen = f" (seen by {', '.join(deed['witnesses'])})" if deed["witnesses"] else ""
        lines.append(f"  turn {deed['turn']}: {deed['sentence']} [{deed['valence']}]{seen}")
    return "\n".join(lines)


def known_text(name: str, known: list[dict[str, Any]]) -> str:
    if not known:
        return f"{name} knows of no deeds."
    lines = [f"{name} knows of {len(known)} deed{'s' if len(known) != 1 else ''}:"]
    for row in known:
        told = f" from {row['from']}" if row["from"] else ""
        lines.append(f"  {row['actor']} {row['act']} {row['target']} (turn {row['turn']}): "
                     f"{HOW_WORDS[row['how']]}{told} at turn {row['sinceTurn']}, confidence {row['confidence']:.2f}")
    return "\n".join(lines)


WHY_HOW = {"seen": "saw it", "told": "heard it from", "rumour": "heard a rumour of it from"}


def why_lines(book: DeedBook, knower: str, graph: GraphIndex) -> list[str]:
    """``/why NAME``'s deeds section: what NAME knows people did, and how (saw it, heard it from whom)."""
    known = [(deed, row) for deed, row in book.known_by(knower) if deed.valence != "neutral"]
    if not known:
        return []
    node = graph.nodes.get(knower)
    lines = [f"**What {node.name if node else knower} knows of what people did:**", ""]
    for deed, row in known:
        teller = graph.nodes.get(row.source or "")
        who = "" if row.how == "seen" else (" you" if row.source in graph.player_ids
                                            else f" {teller.name if teller else 'someone'}")
        lines.append(f"- {deed.sentence.rstrip('.')} (turn {deed.turn}): {WHY_HOW[row.how]}{who} at turn {row.since_turn}")
    return lines


def _number(deed_id: str) -> int:
    tail = deed_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0
