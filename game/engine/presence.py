"""Who is where in a turn, and so who sees and who is told what: the witnesses of a turn's relations, the
people present, the knowers whose knowledge the narrator is told, and where everyone stands after it.

The steps of a turn (``game.engine.turn_steps``) read these; so do ``/why`` (the scoped view a turn
would have) and ``kith graph gossip`` (where people stand).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphWrites
from game.graph.retrieve import RetrievalSettings, ScopedRetrieval, cast_seeds, retrieve, retrieve_scoped
from game.world.scene import SceneState


async def witnesses(graph: GraphIndex, cast: Iterable[str]) -> list[str]:
    """Who sees a turn's relations made: the player, and the cast on stage when the player acted."""
    on_stage = [node.id for node in await cast_seeds(graph, list(cast))]
    return sorted(graph.player_ids) + [node_id for node_id in on_stage if node_id not in graph.player_ids]


async def present_ids(graph: GraphIndex, writes: GraphWrites, names: Iterable[str]) -> set[str]:
    """The node IDs of the people where the player is this turn (the player included), people the turn
    itself created among them."""
    wanted = list(dict.fromkeys(names))
    found = set(graph.player_ids)
    for reader in (graph, GraphIndex(writes.nodes.values())):
        found.update(node.id for node in await cast_seeds(reader, wanted))
    return found


def seen_where_made(graph: GraphIndex, writes: GraphWrites, present: set[str]) -> GraphWrites:
    """``writes`` with only the witnesses who were where each relation was made.

    The execution hands every relation of a turn to the same witnesses (the stage as the turn began), but
    people move during a turn and a turn also carries relations made elsewhere (a story beat in another
    place, a model telling what happens up the hill). So a ``witnessed`` or ``told`` row of someone not
    ``present`` (with the player this turn) goes, and a relation none of whose people were present is
    known to its own ends only. A relation somebody told this turn (it has ``told`` rows) was spoken of
    here; one with no individual end (a guild against a guild) has no place to be: both keep the
    witnesses who were present.
    """
    spoken = {row.edge_id for row in writes.knowings.values() if row.how == "told"}
    elsewhere: set[str] = set()
    for edge in writes.edges.values():
        ends = [writes.nodes.get(end) or graph.nodes.get(end) for end in (edge.source, edge.target)]
        people = [node.id for node in ends if node is not None and node.type == "individual"]
        if edge.id not in spoken and people and not present.intersection(people):
            elsewhere.add(edge.id)

    def seen(row: Knowing) -> bool:
        if row.how not in ("witnessed", "told"):
            return True
        return row.knower in present and row.edge_id not in elsewhere

    kept = {key: row for key, row in writes.knowings.items() if seen(row)}
    if len(kept) == len(writes.knowings):
        return writes
    trimmed = writes.copy()
    trimmed.knowings = kept
    return trimmed


async def present_knowers(graph: GraphIndex, cast: Iterable[str]) -> list[Node]:
    """Whose knowledge a turn's narrator is told: the player, then each person of the cast on stage."""
    players = [graph.nodes[node_id] for node_id in sorted(graph.player_ids) if node_id in graph.nodes]
    return players + [node for node in await cast_seeds(graph, list(cast)) if node.id not in graph.player_ids]


async def scoped_context(graph: GraphIndex, text: str, cast: Sequence[str],
                         settings: RetrievalSettings) -> ScopedRetrieval:
    """What the narrator is told this turn: only what the people present know (the player included).

    The rule for graphs that cannot say who knows what: with no player node (a bare graph, not a game)
    retrieval is not scoped and ``knowledge`` is empty, as before knowledge existed. A save from before
    knowledge was migrated with every relation known to its two ends and the player aware of everyone,
    so it is scoped like any game and the player's own lines hold what they knew before.
    """
    if not graph.player_ids:
        return ScopedRetrieval(await retrieve(graph, text, cast, settings))
    return await retrieve_scoped(graph, text, cast, await present_knowers(graph, cast), settings)


async def stage_places(graph: GraphIndex, scene: SceneState) -> dict[str, str]:
    """Who stands where after a turn, by node ID: the story's positions, else the cast as one place.

    The offline story keeps everyone's place; a model narrator's scene has only the cast on stage.
    """
    story = scene.story
    named: dict[str, str] = {}
    if story is not None and story.positions:
        named = {name: place for name, place in story.positions.items() if place is not None}
    else:
        named = dict.fromkeys(scene.cast, scene.location or "stage")
    keys = {name: normalize_name(name) for name in named}
    found = await graph.nodes_named(keys.values())
    places: dict[str, str] = {}
    for name, place in named.items():
        people = [n for n in found.get(keys[name], []) if n.type == "individual"]
        if len(people) == 1:
            places[people[0].id] = place
    return places
