"""The headless scripts' ``{deed} NAME: ACT TARGET`` check: NAME knows that the player did ACT to TARGET.

``{deed} !NAME: ACT TARGET`` (the script runner reads the ``!``) holds when NAME does not know it: a deed
nobody did fails both ways round only if the names cannot be read (an unknown or ambiguous name).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from game.features.deeds.model import DeedBook
from game.features.deeds.rules import canonical
from game.features.feature import ScriptCheck
from game.graph.index import GraphIndex
from game.graph.knowing_terms import DEFAULT_FLOOR
from game.graph.models import Node
from game.graph.names import normalize_name

PLAYER_WORD = "player"


class DeedCheckError(ValueError):
    """A check whose names the save cannot answer for: it fails, negated or not."""


def person_named(graph: GraphIndex, name: str) -> Node:
    """The one individual ``name`` means (``player``: the player character)."""
    key = normalize_name(name)
    found = [n for n in graph.nodes_with_name(key) if n.type == "individual"]
    exact = [n for n in found if normalize_name(n.name) == key]
    chosen = {n.id: n for n in (exact or found)}
    if not chosen and key == PLAYER_WORD and len(graph.player_ids) == 1:
        return graph.nodes[next(iter(graph.player_ids))]
    if len(chosen) != 1:
        raise DeedCheckError(f"no one person is called {name!r}" if not chosen else f"{name!r} could be "
                             + " or ".join(sorted(n.name for n in chosen.values())))
    return next(iter(chosen.values()))


def parse_deed_check(body: str) -> ScriptCheck:
    """``NAME: ACT TARGET`` (the leading ``!`` already taken by the runner)."""
    knower_name, colon, rest = body.partition(":")
    words = rest.split(None, 1)
    if not colon or not knower_name.strip() or len(words) != 2:
        raise ValueError("write a deed check as {deed} NAME: ACT TARGET (for example {deed} Hob: threaten Tibby)")
    act, target_name = canonical(words[0]), words[1].strip()

    def check(states: Mapping[str, Any], graph: GraphIndex | None) -> tuple[bool, str]:
        if graph is None:
            raise DeedCheckError("no game to check")
        knower = person_named(graph, knower_name.strip())
        target = person_named(graph, target_name)
        book = states.get("deeds")
        book = book if isinstance(book, DeedBook) else DeedBook()
        deeds = [d for d in book.deeds.values()
                 if d.actor in graph.player_ids and d.act == act and d.target == target.id]
        if not deeds:
            return False, f"the player did not {act} {target.name} (no such deed)"
        for deed in deeds:
            row = book.knowing(deed.deed_id, knower.id)
            if row is not None and row.confidence >= DEFAULT_FLOOR:
                told = f" from {graph.nodes[row.source].name}" if row.source in graph.nodes else ""
                return True, f"{knower.name} knows it ({row.how}{told}, turn {row.since_turn})"
        return False, f"{knower.name} does not know that the player did {act} {target.name}"

    return check
