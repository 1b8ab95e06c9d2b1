"""A drawing's geometry as JSON (``kith graph map --json``): what was drawn where, so tests and tools can
check the map's promises (names whole, lines unshared, labels clear) without reading box-drawing text.

``nodes``: every name in view, with the cells its label covers (``x``, ``y``, ``w``, brackets included)
when ``shown``; ``edges``: one entry per line (all the relations between two names), ``cells`` the
characters its line occupies from end to end (empty when it could not be drawn), ``labelled`` whether its
relation is written on the drawing or in the list (or, ``boxed``, said by the frame the person is drawn
in); ``listed``: the names written in the list instead; ``groups``: the everyone view's groups and
factions drawn as frames, each with its outer cells (``x``, ``y``, ``w``, ``h``) and the members inside.
"""

from __future__ import annotations

from typing import Any

from game.graph.map.draw import MapDrawing


def geometry(drawing: MapDrawing) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = []
    for node_id, name in drawing.names.items():
        box = drawing.boxes.get(node_id)
        nodes.append({"id": node_id, "name": name, "x": box.x if box else None, "y": box.y if box else None,
                      "w": len(box.text) if box else 0, "shown": box is not None})
    names = drawing.names
    edges = [{
        "source": names.get(edge.source, edge.source), "target": names.get(edge.target, edge.target),
        "relation": edge.relation, "sign": edge.sign, "labelled": edge.labelled, "boxed": edge.boxed,
        "cells": [[x, y] for x, y in edge.cells],
        "label": None if edge.label is None else {"x": edge.label[0], "y": edge.label[1], "text": edge.label[2]},
    } for edge in drawing.edges]
    groups = [{"name": names[group_id], "x": frame.x, "y": frame.y, "w": frame.w, "h": frame.h,
               "members": [names[i] for i in frame.members]} for group_id, frame in drawing.frames.items()]
    return {"width": drawing.width, "height": drawing.height, "view": drawing.view, "nodes": nodes,
            "edges": edges, "listed": [names[i] for i in drawing.listed if i in names], "groups": groups}
