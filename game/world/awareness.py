"""What the player knows of people: who they have met, who they have heard of, what they have learned.

Kept in the scene (``SceneState.known``), so every turn's snapshot holds it and undo, saves and restore
rewind it exactly. Narrators never write it: the turn pipeline updates it after each turn from what
the player could see (the people on stage) and read (the names in the narration), whichever narrator
told the turn, and the story engine adds the revelations its effects carry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphReader, GraphWrites
from game.graph.retrieve import find_mentions
from game.world.model import World
from game.world.scene import Awareness

Known = dict[str, Awareness]


async def nodes_called(readers: Sequence[GraphReader], names: Iterable[str]) -> list[Node]:
    """The nodes each name means (an exact name or alias), looked up in each reader in turn."""
    keys = [normalize_name(n) for n in names if n.strip()]
    found: dict[str, Node] = {}
    for reader in readers:
        for nodes in (await reader.nodes_named(keys)).values():
            for node in nodes:
                found.setdefault(node.id, node)
    return list(found.values())


async def nodes_mentioned(readers: Sequence[GraphReader], text: str) -> list[Node]:
    """The people, groups and factions ``text`` names, by the graph's own mention rule."""
    found: dict[str, Node] = {}
    for reader in readers:
        for node in await find_mentions(reader, text):
            found.setdefault(node.id, node)
    return list(found.values())


def meet(known: Known, nodes: Iterable[Node], turn: int) -> None:
    """Stood on stage with the player: ``met`` (a person only heard of until now is met from now)."""
    for node in nodes:
        if node.type != "individual":
            continue
        had = known.get(node.id)
        if had is None:
            known[node.id] = Awareness(name=node.name, how="met", since_turn=turn)
        elif had.how != "met":
            known[node.id] = had.model_copy(update={"how": "met"})


def hear_of(known: Known, nodes: Iterable[Node], turn: int) -> None:
    """Named where the player could read it: ``heard`` unless already known."""
    for node in nodes:
        if node.id not in known:
            known[node.id] = Awareness(name=node.name, how="heard", since_turn=turn)


def reveal(known: Known, node: Node, key: str, turn: int) -> None:
    """The player learns the revelation ``key`` about ``node`` (and so has heard of them)."""
    hear_of(known, [node], turn)
    had = known[node.id]
    if key not in had.revealed:
        known[node.id] = had.model_copy(update={"revealed": [*had.revealed, key]})


async def nodes_by_id(readers: Sequence[GraphReader], node_ids: Iterable[str]) -> list[Node]:
    """The nodes with these ids, in the order asked, each from the first reader that has it."""
    wanted = list(dict.fromkeys(node_ids))
    found: dict[str, Node] = {}
    for reader in readers:
        for node_id, node in (await reader.get_nodes(wanted)).items():
            found.setdefault(node_id, node)
    return [found[i] for i in wanted if i in found]


def ends_of_known(graph: GraphIndex, writes: GraphWrites) -> list[str]:
    """The ends of every relation version the player learned in ``writes`` (they know its fact, so they
    have heard of both people in it), in the order written.

    What the whole town knows (``PUBLIC``) names nobody to the player by itself: a public relation shows
    once the player has heard of both its ends some other way."""
    learners = set(graph.player_ids)
    ends: list[str] = []
    for (edge_id, knower) in writes.knowings:
        edge = writes.edges.get(edge_id) or graph.open_edges.get(edge_id)
        if knower in learners and edge is not None:
            ends += [edge.source, edge.target]
    return ends


async def after_turn(known: Known | None, readers: Sequence[GraphReader], turn: int, cast: Iterable[str],
                     narration: str, told_of: Iterable[str] = ()) -> Known | None:
    """The player's awareness after a told turn: the cast met; heard of, everyone the narration names
    and the node ids ``told_of`` (the ends of relations the player learned).

    ``None`` (a save from before awareness was kept, where the player knows everyone) stays ``None``.
    """
    if known is None:
        return None
    updated = dict(known)
    meet(updated, await nodes_called(readers, cast), turn)
    hear_of(updated, await nodes_mentioned(readers, narration), turn)
    hear_of(updated, await nodes_by_id(readers, told_of), turn)
    return updated


def opening_text(world: World) -> str:
    """Everything a new game's opening can say: every variant of the opening, and the first place."""
    place = world.places.get(world.start)
    parts = [world.text(v) for v in world.section.opening]
    if place is not None:
        parts.append(world.text(place.description))
        parts.extend(world.text(v) for d in place.details if d.when.is_empty() for v in d.text)
    return "\n\n".join(parts)


async def at_start(world: World, graph: GraphIndex, cast: Iterable[str]) -> Known:
    """Turn 0: the player themself, whoever stands with them, and everyone the opening names."""
    known: Known = {}
    player = [n for n in graph.nodes.values() if n.attributes.get("player") is True]
    meet(known, player, 0)
    meet(known, await nodes_called([graph], cast), 0)
    hear_of(known, await nodes_mentioned([graph], opening_text(world)), 0)
    # The relations the opening states, the world's turn-0 relations the player knows themself, name the
    # people in them; public ones wait until the player has heard of both ends.
    own = {i for p in graph.player_ids for i in graph.known_by(p) if p in graph.knowers_of(i)}
    edges = [graph.open_edges[i] for i in sorted(own) if i in graph.open_edges]
    hear_of(known, await nodes_by_id([graph], [end for e in edges for end in (e.source, e.target)]), 0)
    return known
