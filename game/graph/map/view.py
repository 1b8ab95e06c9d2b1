"""Which nodes and edges a map shows: the graph as it stood at a turn, closed versions or not, and which
of the three views (``VIEWS``) is drawn.

- *scene*: the people on stage and the selected person, every relation among them and to their close
  ties; everyone else is a roster in the list below the drawing, grouped by their group or faction.
- *person*: one person at the centre and a line to each neighbour; neighbours past the pane's capacity
  are listed, with the relation, rather than dropped.
- *everyone*: the whole cast, or the neighbourhood of the selection when it would be too crowded.
"""


from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from game.errors import InputError
from game.graph.models import Edge, Node
from game.graph.names import resolve_name

CELLS_PER_NODE = 60
"""About 25 nodes fit a 50x30 pane before names start to crowd each other out."""
MIN_CAPACITY = 6
CELLS_PER_PERSON = 150
CELLS_PER_SCENE = 100
"""The scene and person views draw fewer names than fit, so that every line can be routed and labelled
(about 9 and 13 names in a 46x30 pane); the rest go to the list."""
MIN_FOCUSED = 4
MAX_SCENE = 16
MAX_PERSON = 13
"""However large the pane, a view that answers "who is this to whom" at a glance holds a dozen or so
names; a wider pane gives them room, not company."""
NEIGHBOURHOOD_HOPS = 2
VIEWS = ("scene", "person", "everyone")
MEMBERSHIP_TYPES = ("faction", "group")


def edge_open_at(edge: Edge, turn: int | None) -> bool:
    """Whether this version held at ``turn`` (now, when ``turn`` is None)."""
    if turn is None:
        return edge.invalid_at is None
    return edge.valid_at <= turn and (edge.invalid_at is None or edge.invalid_at > turn)


def edge_closed_by(edge: Edge, turn: int | None) -> bool:
    """Whether this version had begun and already ended by ``turn``."""
    if edge.invalid_at is None:
        return False
    return turn is None or (edge.valid_at <= turn and edge.invalid_at <= turn)


def capacity(width: int, height: int) -> int:
    """How many nodes a pane of this size shows before it falls back to a neighbourhood."""
    return max(MIN_CAPACITY, (width * height) // CELLS_PER_NODE)


def focus_node(nodes: Iterable[Node], wanted: str) -> Node:
    """The node map focus means by ``wanted`` (an ID, name or alias, by ``resolve_name``'s rule)."""
    match = resolve_name(wanted, nodes, by_id=True)
    if match.ambiguous:
        raise InputError(f"{wanted!r} names more than one character: {match.choices()}. Use the ID.", "Map")
    if match.node is None:
        raise InputError(f"No character, group or faction called {wanted!r} in this save.", "Map")
    return match.node


@dataclass
class MapView:
    """What to draw, in the order names should claim space (most important first)."""

    nodes: list[Node]
    edges: list[Edge]
    focus: str | None = None
    hops: dict[str, int] = field(default_factory=dict)
    """Distance from the focus, for nodes within two hops (empty without a focus)."""
    degree: dict[str, int] = field(default_factory=dict)
    total: int = 0
    """Nodes that existed at the turn shown; more than ``len(nodes)`` when only a neighbourhood fits."""
    kind: str = "everyone"
    core: set[str] = field(default_factory=set)
    """Whose relations must all be readable: the stage and the selection (scene), the centre (person)."""
    listed: list[str] = field(default_factory=list)
    """Nodes in view that are listed below the drawing instead of drawn, most important first."""
    roster: list[tuple[str, list[str], int]] = field(default_factory=list)
    """Scene view: the rest of the cast as (group name, member IDs, ties not drawn), biggest group first."""
    by_id: dict[str, Node] = field(default_factory=dict)
    whole: bool = False
    """Everyone with a known tie is drawn (the rest listed): the drawing may be spread to fill the pane."""


def select_view(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    *,
    width: int,
    height: int,
    focus: str | None = None,
    show_closed: bool = False,
    at_turn: int | None = None,
    kind: str = "everyone",
    stage: Collection[str] = (),
) -> MapView:
    """The nodes and edges of view ``kind`` (``VIEWS``); ``stage`` holds the IDs on stage (scene view)."""
    present = [n for n in nodes if at_turn is None or n.first_seen_turn <= at_turn]
    present_ids = {n.id for n in present}
    shown_edges = [
        e for e in edges
        if e.source in present_ids and e.target in present_ids
        and (edge_open_at(e, at_turn) or (show_closed and edge_closed_by(e, at_turn)))
    ]
    adjacency: dict[str, set[str]] = defaultdict(set)
    for edge in shown_edges:
        if edge.source != edge.target:
            adjacency[edge.source].add(edge.target)
            adjacency[edge.target].add(edge.source)
    degree = {n.id: len(adjacency[n.id]) for n in present}
    by_id = {n.id: n for n in present}

    focus_id: str | None = None
    if focus is not None:
        node = focus_node(nodes, focus)
        focus_id = node.id if node.id in present_ids else None

    if kind in ("scene", "person") and present:
        per, most = (CELLS_PER_PERSON, MAX_PERSON) if kind == "person" else (CELLS_PER_SCENE, MAX_SCENE)
        room = max(MIN_FOCUSED, min(most, (width * height) // per))
        return _around(kind, present, shown_edges, adjacency, degree, focus_id, stage, room)
    hops = _distances(focus_id, adjacency) if focus_id else {}
    kept = list(present)
    limit = capacity(width, height)
    if len(present) > limit and present:
        centre = focus_id or _default_centre(present, degree)
        around = hops if centre == focus_id else _distances(centre, adjacency)
        ordered = sorted(around, key=lambda i: (around[i], -degree[i], by_id[i].name.casefold(), i))
        kept = [by_id[i] for i in ordered[:limit]]
    else:
        kept.sort(key=lambda n: (-degree[n.id], n.name.casefold(), n.id))
    if focus_id:
        kept.sort(key=lambda n: (hops.get(n.id, NEIGHBOURHOOD_HOPS + 1), -degree[n.id]))
    # A name with no known tie would float alone in the drawing (and stretch it): the list says it instead.
    lonely = [n.id for n in kept if not degree[n.id]] if any(degree.values()) else []
    kept = [n for n in kept if n.id not in lonely]
    kept_ids = {n.id for n in kept}
    return MapView(
        nodes=kept,
        listed=lonely,
        whole=len(present) <= limit,
        edges=[e for e in shown_edges if e.source in kept_ids and e.target in kept_ids],
        focus=focus_id,
        hops=hops,
        degree=degree,
        total=len(present),
        by_id=by_id,
    )


def _strongest(edges: Iterable[Edge]) -> dict[tuple[str, str], float]:
    """The strongest relation (of either sign) between each pair, both ways round."""
    out: dict[tuple[str, str], float] = {}
    for edge in edges:
        for pair in ((edge.source, edge.target), (edge.target, edge.source)):
            out[pair] = max(out.get(pair, 0.0), abs(edge.strength))
    return out


def _around(kind: str, present: Sequence[Node], edges: Sequence[Edge], adjacency: Mapping[str, set[str]],
            degree: Mapping[str, int], focus: str | None, stage: Collection[str], limit: int) -> MapView:
    """The scene or person view: a core of people whose every relation is shown, their ties around them."""
    by_id = {n.id: n for n in present}
    if kind == "person":
        core = [focus or _default_centre(present, degree)]
    else:
        core = [i for i in sorted(stage) if i in by_id] + ([focus] if focus and focus not in stage else [])
        core = core or [_default_centre(present, degree)]
    strength = _strongest(edges)

    def closeness(node_id: str) -> tuple[float, str, str]:
        pull = max((strength.get((node_id, c), 0.0) for c in core), default=0.0)
        return -pull, by_id[node_id].name.casefold(), node_id

    whole = kind == "scene" and len(present) <= limit  # a small cast is drawn whole: no roster needed
    # ...but for anyone with no known tie, who would be a name adrift in the drawing: the roster says them.
    near = ({i for i in by_id if adjacency.get(i)} if whole
            else {other for c in core for other in adjacency.get(c, ())})
    ties = sorted(near - set(core), key=closeness)
    room = max(0, limit - len(core))
    drawn, listed = [*core, *ties[:room]], ties[room:]
    core_set, drawn_set = set(core), set(drawn)
    if kind == "person":
        kept_edges = [e for e in edges if core[0] in (e.source, e.target) and e.source != e.target]
    else:
        kept_edges = [e for e in edges if (whole or e.source in core_set or e.target in core_set)
                      and e.source != e.target]
    hops = {node_id: 0 if node_id in core_set else 1 for node_id in drawn}
    roster = _roster(present, edges, drawn_set | set(listed)) if kind == "scene" else []
    return MapView(
        nodes=[by_id[i] for i in drawn],
        edges=[e for e in kept_edges if e.source in drawn_set | set(listed) and e.target in drawn_set | set(listed)],
        focus=focus if focus in by_id else None, hops=hops, degree=dict(degree), total=len(present),
        kind=kind, core=core_set, listed=listed, roster=roster, by_id=by_id, whole=whole,
    )


def _roster(present: Sequence[Node], edges: Sequence[Edge], shown: set[str]) -> list[tuple[str, list[str], int]]:
    """Everyone not in view, grouped under the first group or faction each belongs to (by name), with how
    many of the group's relations the drawing leaves out."""
    by_id = {n.id: n for n in present}
    home: dict[str, str] = {}
    for edge in sorted(edges, key=lambda e: (by_id[e.target].name.casefold(), e.id)):
        target = by_id[edge.target]
        if edge.source not in shown and target.type in MEMBERSHIP_TYPES and edge.source not in home:
            home[edge.source] = target.name
    groups: dict[str, list[str]] = defaultdict(list)
    for node in sorted(present, key=lambda n: (n.name.casefold(), n.id)):
        if node.id not in shown:
            groups[home.get(node.id, node.name if node.type in MEMBERSHIP_TYPES else "others")].append(node.id)
    hidden: dict[str, int] = defaultdict(int)
    group_of = {member: name for name, members in groups.items() for member in members}
    for edge in edges:
        for end in {edge.source, edge.target}:
            if end in group_of:
                hidden[group_of[end]] += 1
    return sorted(((name, members, hidden[name]) for name, members in groups.items()),
                  key=lambda item: (item[0] == "others", -len(item[1]), item[0].casefold()))


def _distances(start: str, adjacency: Mapping[str, set[str]]) -> dict[str, int]:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        current = queue.popleft()
        if seen[current] == NEIGHBOURHOOD_HOPS:
            continue
        for other in sorted(adjacency.get(current, ())):
            if other not in seen:
                seen[other] = seen[current] + 1
                queue.append(other)
    return seen


def _default_centre(present: Sequence[Node], degree: Mapping[str, int]) -> str:
    """The player when there is one (their circle matters most), else the best-connected node."""
    for node in present:
        if node.attributes.get("player") is True:
            return node.id
    return max(present, key=lambda n: (degree[n.id], n.name.casefold(), n.id)).id
