"""``/why NAME``'s part that this feature holds: what NAME heard from others, and who told them."""

from __future__ import annotations

from game.features.gossip.log import WordLog
from game.graph.index import GraphIndex


def heard_lines(log: WordLog, node_id: str, graph: GraphIndex, name_of: str) -> list[str]:
    """The section: one line per open relation ``node_id`` knows second-hand (who told them, when, how
    sure), under its heading; none when they know nothing second-hand.

    The knower row names who they believe it from; the log adds anyone else who told them the same.
    """
    rows = [row for edge_id in graph.known_by(node_id)
            if (row := graph.knowers_of(edge_id).get(node_id)) is not None and row.how in ("told", "rumour")
            and edge_id in graph.open_edges]
    if not rows:
        return []
    also: dict[str, list[str]] = {}
    for told in log.told_to(node_id):
        also.setdefault(told.edge_id, []).append(told.teller)

    def name(node: str | None) -> str:
        found = graph.nodes.get(node or "")
        return "someone" if found is None else ("you" if node in graph.player_ids else found.name)

    lines = [f"**What {name_of} heard from others, and who told them:**", ""]
    for row in sorted(rows, key=lambda r: (r.since_turn, r.edge_id)):
        edge = graph.open_edges[row.edge_id]
        others = sorted({name(t) for t in also.get(row.edge_id, []) if t != row.source})
        more = f"; also heard from {', '.join(others)}" if others else ""
        kind = "a rumour" if row.how == "rumour" else "told"
        teller = name(row.source)
        lines.append(f"- {teller[:1].upper()}{teller[1:]} told them at turn {row.since_turn}: {edge.fact} "
                     f"({kind}, {round(row.confidence * 100)}% sure{more})")
    return lines
