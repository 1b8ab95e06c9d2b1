"""The list under a drawing: what the view holds but the drawing could not show, so nothing in view is
dropped silently.

Items are kept whole (a name is never split across rows, and an item longer than a row is word-wrapped
over rows of its own); the rows the list may take are capped so the drawing keeps a readable height, and what does not fit is counted ("+3 more") rather than cut off.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from game.graph.map.style import CellStyle

LIST_STYLE = CellStyle(dim=False)
SEPARATOR = " · "
MIN_DRAWING_ROWS = 6
"""The drawing keeps at least this many rows when the list is long (fewer only in a tinier pane, where the
list keeps one row)."""


@dataclass(frozen=True, slots=True)
class Item:
    """One entry of the list: its text, and the node it names or the (source, target) it labels."""

    text: str
    node_id: str | None = None
    pair: tuple[str, str] | None = None
    members: tuple[str, ...] = ()
    """A roster item's people, or the listed names a merged relation item holds."""
    pairs: tuple[tuple[str, str], ...] = ()
    """Every (source, target) a merged relation item labels."""


KEEP = "\u00a0"
"""Joins the words of one name in an item's text, so wrapping never splits a name over two rows; the rows
``wrap_items`` returns have plain spaces again."""


@dataclass(frozen=True, slots=True)
class Said:
    """One relation for the list: its ends as written, its sign and name (``+TRUSTS``), the drawing's
    (source, target) for it, and the listed name it also stands for."""

    source: str
    relation: str
    target: str
    pair: tuple[str, str]
    node_id: str | None = None


def kept(text: str) -> str:
    """``text`` with its spaces kept from wrapping (``KEEP``): a name or a relation's words stay on one row."""
    return text.replace(" ", KEEP)


def one_relation(said: Said) -> Item:
    """A relation alone as an item: ``Hob +TRUSTS→ Ness``."""
    return Item(f"{kept(said.source)} {said.relation}→ {kept(said.target)}", node_id=said.node_id, pair=said.pair)


def merged(relations: Sequence[Said]) -> list[Item]:
    """The relations as items, those with the same source and relation as one (``Wren +KNOWS→ Pell, Orla``),
    then those with the same relation and target (``Tibby, Hob +TRUSTS→ Wren``): in the person view every
    relation shares the centre, and one row can say what took four. Items keep the order of their first
    relation (most important first)."""
    by_left: dict[tuple[str, str], list[Said]] = {}
    for said in relations:
        by_left.setdefault((said.source, said.relation), []).append(said)
    by_right: dict[tuple[str, str], list[Said]] = {}
    for said in relations:
        if len(by_left[(said.source, said.relation)]) == 1:
            by_right.setdefault((said.relation, said.target), []).append(said)
    groups = [group for group in by_left.values() if len(group) > 1] + list(by_right.values())
    groups.sort(key=lambda group: relations.index(group[0]))
    items: list[Item] = []
    for group in groups:
        first = group[0]
        if len(group) == 1:
            items.append(one_relation(first))
            continue
        if all(said.source == first.source for said in group):
            text = f"{kept(first.source)} {first.relation}→ " + ", ".join(kept(said.target) for said in group)
        else:
            text = ", ".join(kept(said.source) for said in group) + f" {first.relation}→ {kept(first.target)}"
        items.append(Item(text, members=tuple(s.node_id for s in group if s.node_id),
                          pairs=tuple(said.pair for said in group)))
    return items


def short_names(names: Mapping[str, str], people: Collection[str]) -> dict[str, str]:
    """Each name as the list writes it beside a name drawn whole: a person's (an ID in ``people``) first
    word when no other name in view starts with that word (``Lise`` for Lise Brack), else the whole name
    (a group's first word, ``Harbour`` or ``Eel``, names nothing). A relation ``Lise +TRUSTS→
    Wren`` then fits one row of a narrow pane where ``Lise Brack +TRUSTS→ Wren Tallis`` took two, and the
    drawn ``(Lise Brack)`` says who is meant; a listed name (drawn nowhere) is always written whole."""
    first = {node_id: name.split(" ", 1)[0] for node_id, name in names.items()}
    counts = Counter(word.casefold() for word in first.values())
    whole = {name.casefold() for name in names.values()}
    return {node_id: first[node_id] if node_id in people and counts[first[node_id].casefold()] == 1
            and (first[node_id] == name or first[node_id].casefold() not in whole) else name
            for node_id, name in names.items()}


def list_cap(height: int, other_rows: int, share: int = 3) -> int:
    """How many rows the list may take in a map ``height`` rows tall beside ``other_rows`` of legend and
    notes: ``1/share`` of the map (a third; half in the scene and person views, whose list holds
    relations that must be readable), never so many that the drawing falls below ``MIN_DRAWING_ROWS``."""
    spare = height - other_rows - MIN_DRAWING_ROWS
    # A pane too small for a readable drawing still keeps one row, so what it cannot draw is said
    # ("+2 more") rather than left out without a word.
    return max(0, min(max(1, height // share), max(spare, 1 if height - other_rows >= 3 else 0)))


def wrap_items(items: Sequence[Item], width: int, max_rows: int, lead: str = "") -> tuple[list[str], list[Item]]:
    """The rows the items fill at ``width`` (after ``lead`` on the first row), at most ``max_rows``, and
    which items those rows show. Items past the last row are counted in a final ``+N more``."""
    rows, shown = _wrapped(items, width, max_rows, lead)
    return [row.replace(KEEP, " ") for row in rows], shown


def _wrapped(items: Sequence[Item], width: int, max_rows: int, lead: str) -> tuple[list[str], list[Item]]:
    if not items or max_rows <= 0 or width <= 0:
        return [], []
    rows: list[str] = [lead]
    shown: list[Item] = []
    for number, item in enumerate(items):
        piece = item.text if rows[-1] in ("", lead) else SEPARATOR + item.text
        left = len(items) - number - 1
        if len(item.text) > width:
            # Longer than a row: word-wrapped over rows of its own (continued, never cut short).
            pieces = _words(item.text, width)
            start = 0 if rows[-1] in ("", lead) else 1
            if len(rows) + start + len(pieces) - 1 > max_rows or (left and len(rows) + start + len(pieces) > max_rows):
                return _close(rows, shown, len(items) - len(shown), width)
            if start:
                rows.append("")
            rows[-1] += pieces[0]
            rows.extend(pieces[1:])
            shown.append(item)
            if left:
                rows.append("")
            continue
        if len(rows[-1]) + len(piece) > width:
            if len(rows) == max_rows:
                return _close(rows, shown, len(items) - len(shown), width)
            rows.append("")
            piece = item.text
        if len(rows) == max_rows and left and len(rows[-1]) + len(piece) + len(f" +{left} more") > width:
            return _close(rows, shown, len(items) - len(shown), width)
        rows[-1] += piece
        shown.append(item)
    return rows, shown


def _words(text: str, width: int) -> list[str]:
    """``text`` word-wrapped to ``width``; a single word longer than a row is split where it must be."""
    rows = [""]
    for word in text.split(" "):
        while len(word) > width:
            if rows[-1]:
                rows.append("")
            rows[-1], word = word[:width], word[width:]
            rows.append("")
        candidate = f"{rows[-1]} {word}" if rows[-1] else word
        if len(candidate) > width:
            rows.append(word)
        else:
            rows[-1] = candidate
    return [row for row in rows if row]


def _close(rows: list[str], shown: list[Item], hidden: int, width: int) -> tuple[list[str], list[Item]]:
    """End the last row with ``+N more``, dropping its last items while the count does not fit."""
    more = f"+{hidden} more"
    while shown and len(rows[-1]) + len(SEPARATOR) + len(more) > width and rows[-1].endswith(shown[-1].text):
        rows[-1] = rows[-1][: len(rows[-1]) - len(shown[-1].text)].removesuffix(SEPARATOR)
        shown.pop()
        more = f"+{hidden + 1} more"
        hidden += 1
    rows[-1] = (rows[-1] + SEPARATOR + more) if rows[-1].strip() else more
    return [row for row in rows if row], shown
