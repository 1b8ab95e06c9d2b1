"""``render_map``: the relationship map of a save, drawn into a grid of cells.

Pure: nodes, edges and positions in, a ``MapDrawing`` out. The TUI widget, the ``kith graph map``
command and the benchmarks all call this one function, so what a player sees in either place agrees.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

from game.graph.map.canvas import EMPTY, NODE_LABEL, Canvas, Run, runs_ansi, runs_plain
from game.graph.map.centre import centring_offset, drawn_box, shift, stretched
from game.graph.map.flow import fit_list
from game.graph.map.footer import NOTE_STYLE, footer_rows, padded, wrap_text
from game.graph.map.frames import MEMBERSHIP, Frame, draw_frames, memberships, place_framed
from game.graph.map.labels import label_edge, lead_of, mark_sign
from game.graph.map.layout import Position, compute_layout, normalise
from game.graph.map.listing import (
    KEEP,
    LIST_STYLE,
    MIN_DRAWING_ROWS,
    Item,
    Said,
    kept,
    list_cap,
    short_names,
)
from game.graph.map.place import LabelRequest, Placed
from game.graph.map.route import ARROWS, Route, best_route
from game.graph.map.style import (
    EMPTY_TEXT,
    FOCUS_TEXT_COLOUR,
    PLAIN,
    CellStyle,
    shared_style,
    sign_colour,
    sign_glyph,
    type_brackets,
    type_colour,
)
from game.graph.map.view import MapView, edge_open_at, select_view
from game.graph.models import Edge, Node
from game.text import strip_control

CELLS_PER_EDGE_LABEL = 80
MIN_EDGE_LABELS = 4
MAX_ZOOM = 8.0
TALL = 30
LONELY = "no known ties"
CROWD = 8
"""Names in the everyone view past which some of its relations will likely need the list."""
"""A map this many rows tall keeps its legend however long its list (the 120x40 screen's pane is 30)."""
PLAYER_REACH = 4
"""Past ``CROWD`` names, a line of the player's that gives way (``yielding``) is drawn only if it is at most
a quarter of the drawing's width plus height long: their ties to people across the pane are the list's
first rows (a few names far apart keep their long lines: there is nothing for them to tangle with)."""
RETRIES = 4
"""Drawings with fewer of the player's lines giving way that ``render_map`` tries before drawing them all."""


@dataclass
class DrawnEdge:
    """One line of the map (all the relations between a pair of names) and where its label went."""

    source: str
    target: str
    """The direction of the relation the line stands for (the strongest of the pair's)."""
    relation: str
    """Every relation between the pair, strongest first, as the label writes them: ``TRUSTS/OWES``."""
    sign: str
    cells: list[tuple[int, int]]
    """The cells the line occupies, end to end; empty when no path keeps the routing rules."""
    label: tuple[int, int, str] | None = None
    """Where the relation's label was written on the drawing: (x, y, text)."""
    core: bool = False
    """A relation that must be readable: any in the scene and person views (all of them touch the core
    there, or the cast is drawn whole), the selection's in the everyone view."""
    boxed: bool = False
    """A person's membership of the group whose frame they are drawn in: the frame says it, no line."""
    signed: bool = True
    """Its sign shows as a glyph, on its label or its line (a line too short for one is listed)."""
    listed: bool = False
    """Written in the list below the drawing (no room on the line, or no line at all)."""
    gave_way: bool = False
    """A line of the player's not drawn because every simple path for it met another line or ran long
    (``yielding``)."""

    @property
    def labelled(self) -> bool:
        return self.label is not None or self.listed or self.boxed


@dataclass
class MapDrawing:
    """A drawn map: rows of styled runs, where each name landed, and the positions to keep."""

    width: int
    height: int
    rows: list[list[Run]]
    positions: dict[str, Position]
    boxes: dict[str, Placed] = field(default_factory=dict)
    focus: str | None = None
    total: int = 0
    """Nodes in the graph at the turn shown."""
    lines: dict[tuple[str, str], list[tuple[int, int]]] = field(default_factory=dict)
    """Each pair of node IDs joined by a line (lower ID first), with the line's cells from end to end."""
    notes: list[str] = field(default_factory=list)
    view: str = "everyone"
    edges: list[DrawnEdge] = field(default_factory=list)
    listed: list[str] = field(default_factory=list)
    """Node IDs written in the list under the drawing instead of on it."""
    names: dict[str, str] = field(default_factory=dict)
    """Every node in view (drawn or listed): ID -> name as shown."""
    area: int = 0
    """Rows the drawing itself takes; the list, the legend and the notes are below them."""
    frames: dict[str, Frame] = field(default_factory=dict)
    """The everyone view's groups and factions drawn as boxes round their members, by the group's ID."""

    def plain(self) -> str:
        """The map as text without colour (trailing spaces trimmed)."""
        return runs_plain(self.rows)

    def ansi(self) -> str:
        """The map with 24-bit ANSI colour, for a terminal."""
        return runs_ansi(self.rows)

    def node_at(self, x: int, y: int) -> str | None:
        """The node whose name covers cell (x, y), for mouse selection."""
        for node_id, box in self.boxes.items():
            if box.y == y and box.x <= x <= box.end:
                return node_id
        return None


def render_map(
    nodes: Sequence[Node],
    edges: Sequence[Edge],
    width: int,
    height: int,
    positions: Mapping[str, Position] | None = None,
    focus: str | None = None,
    show_closed: bool = False,
    at_turn: int | None = None,
    *,
    zoom: float = 1.0,
    legend: bool = True,
    view: str = "everyone",
    stage: Collection[str] = (),
) -> MapDrawing:
    """Draw the map into ``width`` x ``height`` cells.

    ``positions`` are kept for nodes that have them and computed for the rest (see ``compute_layout``);
    ``focus`` is a node ID, name or alias (``InputError`` if none matches); ``at_turn`` shows the graph as
    it stood after that turn; ``show_closed`` adds ended relations, dashed and dim; ``view`` is one of
    ``VIEWS`` and ``stage`` the IDs on stage (the scene view's core).

    In the scene view the player's own lines give way to the others' (``yielding``) unless the list then
    cannot say everything in view: then fewer of them give way (as many fewer as the list lacked room for,
    again while it still runs short, ``RETRIES`` times), and at last none when that says more (a small
    pane draws them as before rather than count them away).
    """
    draw = partial(_render, nodes, edges, width, height, positions, focus, show_closed, at_turn, zoom=zoom,
                   legend=legend, view=view, stage=stage)
    drawing = draw(refusals=len(edges))
    refused = sum(edge.gave_way for edge in drawing.edges)
    unsaid = _unsaid(drawing)
    for _attempt in range(RETRIES):
        if not refused or not unsaid:
            break
        refused = max(0, refused - unsaid)
        drawing = draw(refusals=refused)
        unsaid = _unsaid(drawing)
    if not unsaid:
        return drawing
    # Even with none of them giving way, the player's lines leading the list can crowd out what the
    # plain drawing says (a random 27-person graph at 24x10 left a name and a relation unsaid).
    plain = draw(refusals=0)
    return plain if _unsaid(plain) < unsaid else drawing


def _unsaid(drawing: MapDrawing) -> int:
    """The names in view neither drawn nor listed, and the relations that must be readable but are not."""
    return (sum(1 for i in drawing.names if i not in drawing.boxes and i not in drawing.listed)
            + sum(1 for edge in drawing.edges if edge.core and not edge.labelled))


def _render(nodes: Sequence[Node], edges: Sequence[Edge], width: int, height: int,
            positions: Mapping[str, Position] | None, focus: str | None, show_closed: bool, at_turn: int | None,
            *, zoom: float, legend: bool, view: str, stage: Collection[str], refusals: int) -> MapDrawing:
    """``render_map``'s drawing, where up to ``refusals`` of the player's lines may give way (scene view)."""
    width, height = max(1, width), max(1, height)
    known = positions or {}
    if all(node.id in known for node in nodes):
        laid_out = {node.id: known[node.id] for node in nodes}
    else:
        laid_out = compute_layout(nodes, edges, known)
    chosen = select_view(nodes, edges, width=width, height=height, focus=focus, show_closed=show_closed,
                         at_turn=at_turn, kind=view, stage=stage)
    drawing = MapDrawing(width, height, [], laid_out, focus=chosen.focus, total=chosen.total, view=chosen.kind)
    drawing.names = {i: strip_control(chosen.by_id[i].name) for i in [n.id for n in chosen.nodes] + chosen.listed}
    short = short_names(drawing.names, {i for i in drawing.names if chosen.by_id[i].type == "individual"})
    if not any(edge.source != edge.target for edge in chosen.edges):
        # A relationship map without relationships says so, rather than showing names adrift.
        canvas = Canvas(width, height)
        _empty_state(canvas)
        drawing.rows = canvas.rows()
        return drawing

    notes = _notes(chosen, at_turn, show_closed, zoom)
    player = yielding(chosen) if refusals else None
    shown = _zoomed(chosen, laid_out, zoom, width, height)
    # Oldest first, so names already on the map keep their cells when a turn adds someone.
    placing = sorted((n for n in chosen.nodes if n.id in shown), key=lambda n: (n.first_seen_turn, n.id))
    # Names come from models and files: an escape sequence in one must not reach the terminal or the pane.
    requests = [LabelRequest(n.id, drawing.names[n.id], type_brackets(n.type), shown[n.id]) for n in placing]
    homes = memberships(chosen.nodes, chosen.edges, shown, at_turn) if chosen.kind == "everyone" else {}
    off_screen = len(chosen.nodes) - len(shown)
    if off_screen:
        notes.append(f"{off_screen} off-screen")
    fixed_rows = (footer_rows(width, notes) if legend else [])[: max(0, height - 3)]
    cap = list_cap(height, len(fixed_rows), 3 if chosen.kind == "everyone" else 2)
    # Rows for relations the drawing may leave unlabelled or without a line. The everyone view is drawn
    # once (a second drawing would cost a second frame), so past ``CROWD`` names it keeps a third of the list's
    # rows for them: a share of the pane, not of the graph, so a newcomer's relations never move the names.
    spare = max(1, cap // 3) if chosen.kind == "everyone" and len(chosen.nodes) > CROWD else 1
    before = (height, 0)  # the first drawing's rows and names drawn
    for _pass in range(2):
        left_out: list[str] = []
        area = height
        for _attempt in range(2):
            said, bare = _node_items(chosen, [*chosen.listed, *left_out], drawing.names, (), short)
            rows = fit_list(said, bare + _roster_items(chosen, width), width, cap).rows
            area = max(1, height - len(fixed_rows) - min(cap, len(rows) + spare))
            drawing.boxes, drawing.frames = place_framed(requests, homes, width, area)
            missing = [n.id for n in placing if n.id not in drawing.boxes]
            if missing == left_out:
                break
            left_out = missing
        while _pass and area < before[0] and len(drawing.boxes) < before[1]:
            # Not so short that a name the first drawing held is left out: the list would have to say it.
            area += 1
            drawing.boxes, drawing.frames = place_framed(requests, homes, width, area)
        before = (area, len(drawing.boxes))
        left_out = [n.id for n in placing if n.id not in drawing.boxes]
        canvas = Canvas(width, area)
        drawing.area = area
        _draw_names(canvas, chosen, drawing.boxes)
        draw_frames(canvas, drawing.frames, drawing.boxes,
                    {i: CellStyle(fg=type_colour(chosen.by_id[i].type), dim=True) for i in drawing.frames})
        drawing.edges = _draw_edges(canvas, chosen, drawing.boxes, at_turn, drawing.names, drawing.frames, player,
                                    refusals)
        drawing.lines = {(min(e.source, e.target), max(e.source, e.target)): e.cells for e in drawing.edges if e.cells}
        _centre(canvas, drawing, area)
        # Listed first: the core's relations the drawing could not label, then any pair of drawn names the
        # routing rules left without a line (the drawing never hides an edge by drawing it ambiguously).
        unrouted = [e for e in drawing.edges
                    if not e.cells and not e.boxed and e.source in drawing.boxes and e.target in drawing.boxes]
        pending = [e for e in drawing.edges if e.cells and ((e.core and e.label is None) or not e.signed)]  # a listed name's own item
        # labels its relation
        pending = [e for e in unrouted if e.core] + pending + [e for e in unrouted if not e.core]
        pending.sort(key=lambda e: player not in (e.source, e.target))  # the player's own first (scene view)
        said, bare = _node_items(chosen, [*chosen.listed, *left_out], drawing.names, drawing.boxes, short)
        said = [Said(short[e.source], f"{e.sign}{e.relation}", short[e.target], (e.source, e.target))
                for e in pending] + said
        rest = bare + _roster_items(chosen, width)
        listing = fit_list(said, rest, width, max(0, height - area - len(fixed_rows)))
        if listing.complete or _pass or chosen.kind == "everyone":
            break  # the everyone view lists what it can: drawing it twice would cost a frame
        # The list overflowed the rows kept for it. Below 30 rows the legend and the "N of M drawn" note give
        # theirs first (each listed relation says its sign in words, the roster who is not drawn); then, once,
        # the drawing is drawn again with the rows the list needs, down to a readable height.
        if legend and height < TALL:
            fixed_rows = footer_rows(width, [n for n in notes if not n.startswith(f"{chosen.kind} · ")],
                                      legend=False)[: max(0, height - 3)]
            cap = max(cap, height - len(fixed_rows) - MIN_DRAWING_ROWS)
        at_cap = fit_list(said, rest, width, cap)
        wanted = len(at_cap.rows) if at_cap.complete else cap + 1  # cut short even at its cap: all it can
        room = height - area - len(fixed_rows)
        if wanted <= room:
            listing = fit_list(said, rest, width, room)
            break
        spare += wanted - room
    if not listing.complete:
        # Still more than the list's rows: the drawing's blank rows above and below it go to the list.
        area = drawing.area = _trim(canvas, drawing, area)
        listing = fit_list(said, rest, width, max(0, height - area - len(fixed_rows)))
    list_rows, listed = listing.rows, listing.shown
    listed_pairs = {pair for item in listed for pair in (*item.pairs, *([item.pair] if item.pair else []))}
    listed_nodes = {item.node_id for item in listed if item.node_id}
    for edge in drawing.edges:
        edge.listed = (edge.source, edge.target) in listed_pairs
    drawing.listed = [i for i in [*chosen.listed, *left_out] if i in listed_nodes]
    drawing.listed += [i for item in listed if item.members for i in item.members]
    drawing.notes = notes
    footer = [[(row, LIST_STYLE)] for row in list_rows] + fixed_rows
    blank = [[("", PLAIN)]] * max(0, height - area - len(footer))
    drawing.rows = canvas.rows()[:area] + [padded(row, width) for row in blank + footer]
    drawing.rows = drawing.rows[:height]
    return drawing


def _node_items(view: MapView, ids: Sequence[str], names: Mapping[str, str], drawn: Collection[str],
                short: Mapping[str, str]) -> tuple[list[Said], list[Item]]:
    """A listed name, written whole, with each of its relations to the view's core (or, without one or
    when the name is the core, to a drawn name), which the items then label; the other end is written as
    ``short_names`` has it unless it is listed too. Returns the relations (for ``merged``) and the names
    with none to say (those with no known tie at all in one item, ``no known ties: Maud Quaile``)."""
    bare: list[Item] = []
    said: list[Said] = []
    lonely: list[str] = []
    for node_id in dict.fromkeys(ids):
        anchors = (view.core - {node_id}) or set(drawn)  # a centre too wide to draw: its tie to a drawn name
        ties = [e for e in view.edges if node_id in (e.source, e.target) and e.source in names
                and e.target in names and ({e.source, e.target} - {node_id}) & anchors]
        if not ties:
            if any(node_id in (e.source, e.target) for e in view.edges):
                bare.append(Item(names[node_id], node_id=node_id))
            else:
                lonely.append(node_id)
            continue
        by_other: dict[str, list[Edge]] = {}
        for tie in ties:
            by_other.setdefault(tie.target if tie.source == node_id else tie.source, []).append(tie)
        for versions in sorted(by_other.values(), key=lambda found: -abs(lead_of(found).strength)):
            lead = lead_of(versions)
            relations = "/".join(dict.fromkeys(e.relation for e in sorted(versions, key=lambda e: -abs(e.strength))))
            source, target = (names[end] if end == node_id or end in ids else short[end]
                              for end in (lead.source, lead.target))
            said.append(Said(source, f"{sign_glyph(lead.strength)}{relations}", target, _pair_of(view, lead),
                             node_id))
    if lonely:
        bare.append(Item(f"{LONELY}: " + ", ".join(kept(names[i]) for i in lonely),
                         members=tuple(lonely)))
    return said, bare


def _pair_of(view: MapView, lead: Edge) -> tuple[str, str]:
    """The (source, target) the drawing's entry for this pair carries: that of the pair's lead relation."""
    versions = [e for e in view.edges if {e.source, e.target} == {lead.source, lead.target}]
    top = lead_of(versions)
    return top.source, top.target


def _roster_items(view: MapView, width: int) -> list[Item]:
    """The scene view's roster: ``Group: A, B (3 ties)``, a group too long for a row split over several."""
    items: list[Item] = []
    for group, members, ties in view.roster:
        named = [i for i in members if view.by_id[i].name != group]  # a group or faction heads its own line
        # Each name's words kept together (``KEEP``): a roster item wraps between names, never inside one.
        names = [kept(strip_control(view.by_id[i].name)) for i in named]
        title = kept(strip_control(group))
        head = f"{title}: " if named else title
        tail = f" ({ties}{KEEP}tie{'s' if ties != 1 else ''}{KEEP}hidden)" if ties else ""
        if not named:
            items.append(Item(head + tail, members=tuple(members)))
            continue
        members = named
        chunk: list[str] = []
        chunk_ids: list[str] = []
        for name, member in zip(names, members, strict=True):
            text = head + ", ".join([*chunk, name]) + tail
            if chunk and len(text) > width:
                items.append(Item(head + ", ".join(chunk), members=tuple(chunk_ids)))
                head, chunk, chunk_ids = "", [], []
            chunk.append(name)
            chunk_ids.append(member)
        if chunk:
            items.append(Item(head + ", ".join(chunk) + tail, members=tuple(chunk_ids)))
    return items


def _centre(canvas: Canvas, drawing: MapDrawing, area: int) -> None:
    """Move a drawing smaller than the map's area to its middle (a view offset: positions are untouched),
    with the names' boxes and the lines' cells, so clicks and tests find them where they are drawn."""
    box = drawn_box(canvas, area)
    _move(canvas, drawing, area, *centring_offset([box] if box else [], canvas.width, area))


def _trim(canvas: Canvas, drawing: MapDrawing, area: int) -> int:
    """Move the drawing to the top of its area and return the rows it needs: an overflowing list gets
    the blank rows centring left above and below it."""
    box = drawn_box(canvas, area)
    if box is None:
        return area
    _move(canvas, drawing, area, 0, -box[1])
    return box[3] - box[1] + 1


def _move(canvas: Canvas, drawing: MapDrawing, area: int, dx: int, dy: int) -> None:
    """Move everything drawn in the area by (dx, dy), with the names' boxes and the lines' cells."""
    if not dx and not dy:
        return
    shift(canvas, area, dx, dy)
    drawing.boxes = {node_id: replace(placed, x=placed.x + dx, y=placed.y + dy)
                     for node_id, placed in drawing.boxes.items()}
    drawing.lines = {pair: [(x + dx, y + dy) for x, y in cells] for pair, cells in drawing.lines.items()}
    drawing.frames = {group: frame.moved(dx, dy) for group, frame in drawing.frames.items()}
    for edge in drawing.edges:
        edge.cells = [(x + dx, y + dy) for x, y in edge.cells]
        if edge.label is not None:
            edge.label = (edge.label[0] + dx, edge.label[1] + dy, edge.label[2])


def _zoomed(view: MapView, positions: Mapping[str, Position], zoom: float, width: int,
            height: int) -> dict[str, Position]:
    """Positions inside the zoomed window, rescaled to [0, 1]; the window follows the focus."""
    zoom = min(MAX_ZOOM, max(1.0, zoom))
    if view.kind == "person" and len(view.nodes) > 1:
        positions = _ring(view, positions)
    elif not view.whole:
        # Only a neighbourhood is shown: let it fill the pane rather than the corner it holds in the
        # whole graph's layout.
        positions = normalise({node.id: positions[node.id] for node in view.nodes})
    else:
        widest = max(len(strip_control(node.name)) + 2 for node in view.nodes)
        fill = (max(0.3, 1 - (widest + 2) / width), max(0.3, 1 - 4 / height))
        positions = stretched({node.id: positions[node.id] for node in view.nodes}, fill)
    half = 0.5 / zoom
    cx, cy = positions.get(view.focus, (0.5, 0.5)) if view.focus else (0.5, 0.5)
    cx, cy = min(max(cx, half), 1 - half), min(max(cy, half), 1 - half)
    shown: dict[str, Position] = {}
    for node in view.nodes:
        x, y = positions[node.id]
        zx, zy = (x - cx) * zoom + 0.5, (y - cy) * zoom + 0.5
        if -1e-9 <= zx <= 1 + 1e-9 and -1e-9 <= zy <= 1 + 1e-9:
            shown[node.id] = (min(max(zx, 0.0), 1.0), min(max(zy, 0.0), 1.0))
    return shown


def _ring(view: MapView, positions: Mapping[str, Position]) -> dict[str, Position]:
    """The person view: the centre in the middle, each neighbour on a ring in the direction it lies from
    the centre on the whole map (so the picture agrees with the other views), spaced evenly by that order."""
    centre = view.nodes[0].id
    cx, cy = positions[centre]
    around = sorted((math.atan2(positions[n.id][1] - cy, positions[n.id][0] - cx), n.id) for n in view.nodes[1:])
    out = {centre: (0.5, 0.5)}
    count = len(around)
    start = around[0][0]
    for number, (_angle, node_id) in enumerate(around):
        angle = start + 2 * math.pi * number / count
        out[node_id] = (0.5 + 0.5 * math.cos(angle), 0.5 + 0.5 * math.sin(angle))
    return out


def _node_style(node: Node, view: MapView) -> CellStyle:
    colour = type_colour(node.type)
    if view.focus is None:
        return shared_style(colour, bold=True)
    if node.id == view.focus:
        return CellStyle(fg=FOCUS_TEXT_COLOUR, bg=colour, bold=True)
    if node.id in view.hops:
        return shared_style(colour, bold=True)
    return shared_style(colour, dim=True)


def _draw_names(canvas: Canvas, view: MapView, boxes: Mapping[str, Placed]) -> None:
    for node in view.nodes:
        box = boxes.get(node.id)
        if box is not None:
            canvas.write(box.x, box.y, box.text, _node_style(node, view), NODE_LABEL)


def _draw_edges(canvas: Canvas, view: MapView, boxes: Mapping[str, Placed], at_turn: int | None,
                names: Mapping[str, str], frames: Mapping[str, Frame], yields: str | None,
                refusals: int) -> list[DrawnEdge]:
    """Route, draw and label a line per pair of names in view; a pair with a name not drawn, or with no
    path that keeps the routing rules, gets an entry without cells (the list may label it). A person's
    only relation to the group whose frame holds them is said by the frame: no line. In the scene view the
    player's own lines (``yields``, see ``yielding``) are routed last, and the first ``refusals`` of them
    that meet another line on every simple path, or whose path is long (``PLAYER_REACH``), give way."""
    in_view = set(names)
    framed = {frozenset((member, group)) for group, frame in frames.items() for member in frame.members}
    pairs: dict[tuple[str, str], list[Edge]] = {}
    for edge in view.edges:
        if edge.source == edge.target or edge.source not in in_view or edge.target not in in_view:
            continue
        key = (edge.source, edge.target) if edge.source < edge.target else (edge.target, edge.source)
        pairs.setdefault(key, []).append(edge)

    core, hops = view.core, view.hops

    def importance(item: tuple[tuple[str, str], list[Edge]]) -> tuple[bool, int, float, tuple[str, str]]:
        (a, b), versions = item
        near = 0 if a in core or b in core or view.focus in (a, b) else 1 if (a in hops and b in hops) else 2
        strongest = abs(versions[0].strength) if len(versions) == 1 else max(abs(e.strength) for e in versions)
        return yields in (a, b), near, -strongest, (a, b)

    out: list[DrawnEdge] = []
    routed: list[tuple[DrawnEdge, str, list[Edge], Route, CellStyle, list[str]]] = []
    for (a, b), versions in sorted(pairs.items(), key=importance):
        current = [e for e in versions if edge_open_at(e, at_turn)]
        said = current or versions
        if len(said) == 1:  # most pairs: one relation, its own lead
            lead, relations = said[0], [said[0].relation]
        else:
            lead = lead_of(said)
            relations = list(dict.fromkeys(e.relation for e in sorted(said, key=lambda e: -abs(e.strength))))
        drawn = DrawnEdge(lead.source, lead.target, "/".join(relations), sign_glyph(lead.strength), [],
                          core=a in core or b in core or view.focus in (a, b) or view.kind != "everyone")
        out.append(drawn)
        if framed and frozenset((a, b)) in framed and relations == [MEMBERSHIP]:
            drawn.boxed = True
            continue
        if a not in boxes or b not in boxes:
            continue
        gives_way = refusals > 0 and yields in (a, b)
        route = best_route(boxes[a], boxes[b], canvas, clear=gives_way)
        if (gives_way and route is not None and len(view.nodes) > CROWD
                and len(route.cells) * PLAYER_REACH > canvas.width + canvas.height):
            route = None  # a long line of the player's across a crowded drawing: the list says it
        if route is None:
            drawn.gave_way = gives_way
            refusals -= gives_way
            continue
        near = view.focus is None or (a in view.hops and b in view.hops and min(view.hops[a], view.hops[b]) <= 1)
        style = shared_style(sign_colour(lead.strength), dim=not current or not near,
                             bold=view.focus is not None and view.focus in (a, b))
        canvas.add_line(route.cells, style, bool(current))
        drawn.cells = route.coordinates()
        routed.append((drawn, a, current or versions, route, style, relations))
    canvas.finish_lines()
    for _drawn, a, versions, route, style, _relations in routed:
        last, first = route.cells[-1][0], route.cells[0][0]
        if any(e.source == a for e in versions) and canvas.kind[last] == EMPTY:
            canvas.set_cell(last, ARROWS[route.into_b], style)
        if any(e.target == a for e in versions) and canvas.kind[first] == EMPTY:
            canvas.set_cell(first, ARROWS[route.into_a], style)
    budget = max(MIN_EDGE_LABELS, canvas.width * canvas.height // CELLS_PER_EDGE_LABEL)
    for drawn, _a, _versions, route, style, relations in routed:
        # The core's relations are always labelled where they fit; the rest while the budget lasts.
        if drawn.core or budget > 0:
            drawn.label = label_edge(canvas, route, relations, drawn.sign, style)
        if drawn.label is not None:
            budget -= 1
        if drawn.label is None or not drawn.label[2].startswith(drawn.sign):
            # No room for the sign on the label: it goes on the line, or the relation is listed.
            drawn.signed = mark_sign(canvas, route, drawn.sign, style)
    return out


def yielding(view: MapView) -> str | None:
    """The player, in a scene view where they are neither on stage nor selected: their relations are said
    first in the list (see ``render_map``), and a line of theirs is drawn only where it meets no other and
    is short (``PLAYER_REACH``), so the drawing shows the stage's ties to one another rather than a knot of lines through the player."""
    if view.kind != "scene":
        return None
    player = next((i for i, node in view.by_id.items() if node.attributes.get("player") is True), None)
    return None if player in view.core or player == view.focus else player


def _empty_state(canvas: Canvas) -> None:
    lines = wrap_text(EMPTY_TEXT, canvas.width)
    top = max(0, (canvas.height - len(lines)) // 2)
    for offset, line in enumerate(lines[: canvas.height]):
        canvas.write(max(0, (canvas.width - len(line)) // 2), top + offset, line, NOTE_STYLE)


def _notes(view: MapView, at_turn: int | None, show_closed: bool, zoom: float) -> list[str]:
    notes: list[str] = []
    if at_turn is not None:
        notes.append(f"As of turn {at_turn}")
    if view.kind != "everyone" and len(view.nodes) < view.total:
        notes.append(f"{view.kind} · {len(view.nodes)} of {view.total} drawn")
    elif len(view.nodes) + len(view.listed) < view.total:  # the everyone view lists only the tie-less
        who = "the selected node" if view.focus else "the centre"
        notes.append(f"{len(view.nodes)} of {view.total} shown, around {who}")
    if show_closed:
        notes.append("ended relations dashed")
    if zoom > 1:
        notes.append(f"zoom x{min(zoom, MAX_ZOOM):g}")
    return notes
