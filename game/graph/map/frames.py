"""Groups and factions as frames in the everyone view: a box drawn round the people who belong to one,
its name on the top border, so membership reads at a glance instead of as a fan of ``MEMBER_OF`` lines
that crowd everything else out.

A person goes in the frame of the group or faction they belong to most strongly (an open ``MEMBER_OF``);
their other memberships stay lines, to the other frame's name. Only people go inside: a group that is
itself a member of a faction is drawn beside it with its line, as nesting frames would cost more rows
than a pane has. The frame's border is part of the line layer, so the routing rules hold for it as for
any line: another line may cross it only straight at right angles (``┼``), never run along it or touch a
corner, and labels never cover it. A frame that fits nowhere is not drawn: its people and its name are
placed as plain names, joined by lines, as before.

Inside, each row of names has a blank row above and below and a blank column at each side, and names in
a row are two cells apart: every name keeps free cells on all four sides for a line to end in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from game.graph.map.canvas import EAST, HORIZONTAL, NORTH, SOUTH, VERTICAL, WEST, Canvas
from game.graph.map.place import LabelRequest, Placed, Placer, place_packed, place_shelved
from game.graph.map.style import CellStyle
from game.graph.map.view import edge_open_at
from game.graph.models import Edge, Node

MEMBERSHIP = "MEMBER_OF"
GAP = 2
"""Cells between two names on a row inside a frame."""
MIN_MEMBERS = 2
"""A group with one person drawn keeps its ``MEMBER_OF`` line: a frame round one name costs four rows and
says no more than the line."""
ROW_TARGET = 30
"""The widest a frame's row of names grows to (fewer where the pane is narrower) before starting another."""


@dataclass(frozen=True, slots=True)
class Frame:
    """A group's box: its outer cells ``x`` to ``x + w - 1``, rows ``y`` to ``y + h - 1``, its title
    (``title``, the group's own placed name on the top border) and the members drawn inside."""

    node_id: str
    x: int
    y: int
    w: int
    h: int
    members: tuple[str, ...]

    def border(self, title: Placed) -> list[tuple[int, int, int]]:
        """(x, y, connection mask) of every border cell but those under the title."""
        right, bottom = self.x + self.w - 1, self.y + self.h - 1
        cells = [(self.x, self.y, SOUTH | EAST), (right, self.y, SOUTH | WEST),
                 (self.x, bottom, NORTH | EAST), (right, bottom, NORTH | WEST)]
        cells += [(x, self.y, HORIZONTAL) for x in range(self.x + 1, right) if not title.x <= x <= title.end]
        cells += [(x, bottom, HORIZONTAL) for x in range(self.x + 1, right)]
        cells += [(side, y, VERTICAL) for y in range(self.y + 1, bottom) for side in (self.x, right)]
        return cells

    def moved(self, dx: int, dy: int) -> Frame:
        return Frame(self.node_id, self.x + dx, self.y + dy, self.w, self.h, self.members)


def memberships(nodes: Sequence[Node], edges: Sequence[Edge], shown: Mapping[str, object],
                at_turn: int | None) -> dict[str, list[str]]:
    """Group or faction ID -> the people drawn inside its frame (oldest first, so a newcomer joins the
    end of the frame and nobody already in it moves): each shown person with an open ``MEMBER_OF`` to a
    shown group goes in the one they belong to most strongly (by name on a tie)."""
    by_id = {node.id: node for node in nodes if node.id in shown}
    best: dict[str, tuple[float, str, str]] = {}
    for edge in edges:
        member, group = by_id.get(edge.source), by_id.get(edge.target)
        if (edge.relation != MEMBERSHIP or not edge_open_at(edge, at_turn) or member is None or group is None
                or member.type != "individual" or group.type not in ("group", "faction")):
            continue
        rank = (-abs(edge.strength), group.name.casefold(), group.id)
        if member.id not in best or rank < best[member.id]:
            best[member.id] = rank
    homes: dict[str, list[str]] = {}
    for member_id in sorted(best, key=lambda i: (by_id[i].first_seen_turn, i)):
        homes.setdefault(best[member_id][2], []).append(member_id)
    return {group: members for group, members in homes.items() if len(members) >= MIN_MEMBERS}


def pack(texts: Sequence[str], limit: int) -> list[list[int]]:
    """The members' names in rows at most ``limit`` cells wide (a name longer than that on its own row)."""
    rows: list[list[int]] = [[]]
    used = 0
    for number, text in enumerate(texts):
        need = len(text) + (GAP if rows[-1] else 0)
        if rows[-1] and used + need > limit:
            rows.append([])
            used, need = 0, len(text)
        rows[-1].append(number)
        used += need
    return rows


def place_framed(requests: Sequence[LabelRequest], homes: Mapping[str, list[str]], width: int,
                 height: int) -> tuple[dict[str, Placed], dict[str, Frame]]:
    """Frames first (each as near the middle of its people's positions as it fits, oldest group first),
    then every other name as ``place_labels`` places them; a frame with no room is left to plain names."""
    placer = Placer(width, height)
    by_id = {request.node_id: request for request in requests}
    placed: dict[str, Placed] = {}
    frames: dict[str, Frame] = {}
    for group_id in [r.node_id for r in requests if r.node_id in homes]:
        members = [by_id[i] for i in homes[group_id] if i in by_id]
        if len(members) < MIN_MEMBERS:
            continue
        found = _place_frame(placer, by_id[group_id], members, width, height)
        if found is not None:
            frame, names = found
            frames[group_id] = frame
            placed.update(names)
    for request in requests:
        if request.node_id not in placed:
            spot = placer.place(request)
            if spot is not None:
                placed[request.node_id] = spot
    if not frames and len(placed) < len(requests):
        # A name left out for want of room: names on every other row may hold them all.
        packed = place_packed(requests, width, height)
        if len(packed) < len(requests):
            packed = place_shelved(requests, width, height) or packed
        if len(packed) > len(placed):
            return packed, frames
    return placed, frames


def _place_frame(placer: Placer, group: LabelRequest, members: Sequence[LabelRequest], width: int,
                 height: int) -> tuple[Frame, dict[str, Placed]] | None:
    title = _text(group)
    texts = [_text(member) for member in members]
    inner = max(len(title), *(len(text) for text in texts))
    limit = max(inner, min(ROW_TARGET, width - 4))
    rows = pack(texts, limit)
    inner = max(len(title), *(sum(len(texts[i]) for i in row) + GAP * (len(row) - 1) for row in rows))
    w, h = inner + 4, 2 * len(rows) + 3
    if w > width or h > height:
        return None
    points = [group.at, *(member.at for member in members)]
    cx = sum(p[0] for p in points) / len(points) * (width - 1)
    cy = sum(p[1] for p in points) / len(points) * (height - 1)
    spot = placer.nearest_block(round(cx - w / 2), round(cy - h / 2), w, h)
    if spot is None:
        return None
    x, y = spot
    placer.claim_block(x, y, w, h)
    names = {group.node_id: Placed(group.node_id, x + 2, y, title)}
    for number, row in enumerate(rows):
        column = x + 2
        for index in row:
            names[members[index].node_id] = Placed(members[index].node_id, column, y + 2 + 2 * number, texts[index])
            column += len(texts[index]) + GAP
    return Frame(group.node_id, x, y, w, h, tuple(members[i].node_id for row in rows for i in row)), names


def _text(request: LabelRequest) -> str:
    return f"{request.brackets[0]}{request.name}{request.brackets[1]}"


def draw_frames(canvas: Canvas, frames: Mapping[str, Frame], boxes: Mapping[str, Placed],
                styles: Mapping[str, CellStyle]) -> None:
    """Each frame's border into the canvas's line layer, where routing treats it as a line."""
    for group_id, frame in frames.items():
        canvas.add_frame([(y * canvas.width + x, mask) for x, y, mask in frame.border(boxes[group_id])],
                         styles[group_id])
