"""The list under a drawing in as few rows as it takes: ``fit_list`` writes it one item after another
(``listing.wrap_items``, the easiest to read) while that fits, else flowed: each item goes on where the
last one ended and wraps between words, so no row is left part empty; and when even that overflows,
the relations grouped by who holds them, each name written once (``Dace: +OWES→ Orla Vance; +LEADS→
Harbour Watch``).

Whatever the form, items are whole or not written at all (a name is never split over two rows), and
what does not fit is counted (``+3 more``), never dropped without a word.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from game.graph.map.listing import KEEP, SEPARATOR, Item, Said, kept, merged, one_relation, wrap_items

PARTS = "; "
"""Between one name's relations in a grouped item (``Dace: +OWES→ Orla Vance; ←-FEARS Hob``): a comma
already means "and" between names (``Tibby, Hob +TRUSTS→ Wren``), so a comma here, wrapped at the end of a
row, read as ``Wren Tallis, +MOURNS→ Ness Tallis``: Wren in mourning, when it was the head who mourns."""

Wrap = Callable[[Sequence[Item], int, int], tuple[list[str], list[Item]]]
"""How a form's items fill rows: ``wrap_items`` or ``flow_items``."""


@dataclass(frozen=True, slots=True)
class Listing:
    """The list's rows, the items they show, and whether those are all there were."""

    rows: list[str]
    shown: list[Item]
    complete: bool


def fit_list(relations: Sequence[Said], rest: Sequence[Item], width: int, max_rows: int) -> Listing:
    """``relations`` (most important first) then ``rest`` (names with nothing to say, the roster) in at
    most ``max_rows`` rows of ``width``: the first form that holds everything, else the one that holds
    the most."""
    best: Listing | None = None
    for items, wrap in _forms(relations):
        every = [*items, *rest]
        rows, shown = wrap(every, width, max_rows)
        found = Listing(rows, shown, len(shown) == len(every))
        if found.complete:
            return found
        if best is None or _held(found) > _held(best):
            best = found
    assert best is not None
    return best


def _forms(relations: Sequence[Said]) -> Iterator[tuple[list[Item], Wrap]]:
    """The list's forms in the order ``fit_list`` tries them, each worked out only once the one before
    did not hold everything (most lists fit the first), and what two forms share worked out once: the
    merged items, and the names ``by_name`` heads its items with before ``shortest`` moves some."""
    together = merged(relations)
    yield together, wrap_items
    yield together, flow_items
    yield by_source(relations), flow_items
    hubs = _hubs(relations)
    yield _by_hub(relations, hubs), flow_items
    _shorten(relations, hubs)
    yield _by_hub(relations, hubs), flow_items


def _held(listing: Listing) -> int:
    """How many relations and names a list's rows say."""
    return sum(len(item.pairs) + len(item.members) + (item.pair is not None) + (item.node_id is not None)
               for item in listing.shown)


def by_source(relations: Sequence[Said]) -> list[Item]:
    """The relations as one item per source, in the order of its first relation: ``Hob: +TRUSTS→ Ness;
    -FEARS→ Dace`` (a source with one relation as ever, ``Hob +TRUSTS→ Ness``)."""
    groups: dict[str, list[Said]] = {}
    for said in relations:
        groups.setdefault(said.source, []).append(said)
    items: list[Item] = []
    for source, group in groups.items():
        if len(group) == 1:
            items.append(one_relation(group[0]))
            continue
        text = f"{kept(source)}: " + PARTS.join(f"{said.relation}→ {kept(said.target)}" for said in group)
        items.append(Item(text, members=tuple(dict.fromkeys(s.node_id for s in group if s.node_id)),
                          pairs=tuple(said.pair for said in group)))
    return items


def by_name(relations: Sequence[Said], shortest: bool = False) -> list[Item]:
    """The relations grouped under the names they share, each name once: the name in the most relations
    not yet written heads an item of all of them, those it holds pointing on (``+TRUSTS→ Ness``), those
    held towards it pointing back (``←-FEARS Dace``); then the next. With ``shortest``, relations then
    move to the item of their other end while that makes the list shorter (a long listed name in two
    relations heads its own item rather than be written twice). Items keep the order of their first
    relation."""
    hubs = _hubs(relations)
    if shortest:
        _shorten(relations, hubs)
    return _by_hub(relations, hubs)


def _hubs(relations: Sequence[Said]) -> list[str]:
    """The name that heads each relation's item (see ``by_name``)."""
    hubs: list[str] = [""] * len(relations)
    left = list(range(len(relations)))
    while left:
        counts: dict[str, int] = {}
        for number in left:
            for end in dict.fromkeys((relations[number].source, relations[number].target)):
                counts[end] = counts.get(end, 0) + 1
        hub = max(counts, key=lambda name: counts[name])  # the first of the most common, on a tie
        for number in left:
            if hub in (relations[number].source, relations[number].target):
                hubs[number] = hub
        left = [number for number in left if not hubs[number]]
    return hubs


def _by_hub(relations: Sequence[Said], hubs: Sequence[str]) -> list[Item]:
    """The relations as items, one per name in ``hubs`` (the name heading each relation's item)."""
    groups: dict[str, list[Said]] = {}
    for number in sorted(range(len(relations)), key=lambda number: hubs.index(hubs[number])):
        groups.setdefault(hubs[number], []).append(relations[number])
    items: list[Item] = []
    for hub, group in groups.items():
        if len(group) == 1:
            items.append(one_relation(group[0]))
            continue
        parts = [f"{said.relation}→ {kept(said.target)}" if said.source == hub
                 else f"←{said.relation} {kept(said.source)}" for said in group]
        items.append(Item(f"{kept(hub)}: " + PARTS.join(parts),
                          members=tuple(dict.fromkeys(s.node_id for s in group if s.node_id)),
                          pairs=tuple(said.pair for said in group)))
    return items


def _shorten(relations: Sequence[Said], hubs: list[str]) -> None:
    """Move relations to the item of their other end while that writes fewer characters (a few sweeps:
    the list is a pane's worth of relations)."""
    def length(assigned: Sequence[str]) -> int:
        sizes: dict[str, int] = {}
        for hub in assigned:
            sizes[hub] = sizes.get(hub, 0) + 1
        # Each item: its separator, then its head once (the source of a lone relation) and each relation
        # with the name at its other end.
        return sum(len(SEPARATOR) + len(hub) + (2 if sizes[hub] > 1 else 0) for hub in sizes) + sum(
            len(said.relation) + len(said.target if hub == said.source else said.source) + 4
            for said, hub in zip(relations, assigned, strict=True))

    names = list(dict.fromkeys(end for said in relations for end in (said.source, said.target)))
    best = length(hubs)
    for _sweep in range(3):
        moved = False
        # A name takes every relation it is in, or one relation goes to its other end.
        tries = [[name if name in (said.source, said.target) else hub for said, hub in zip(relations, hubs,
                                                                                          strict=True)]
                 for name in names]
        for number, said in enumerate(relations):
            other = said.target if hubs[number] == said.source else said.source
            tries.append([*hubs[:number], other, *hubs[number + 1:]])
        for tried in tries:
            if (cost := length(tried)) < best:
                hubs[:], best, moved = tried, cost, True
        if not moved:
            return


def flow_items(items: Sequence[Item], width: int, max_rows: int) -> tuple[list[str], list[Item]]:
    """As ``wrap_items``, but each item starts where the last ended (after ``SEPARATOR``) and wraps between
    its words: the rows the items fill, at most ``max_rows``, and which items they show (the rest counted
    in a final ``+N more``)."""
    if not items or max_rows <= 0 or width <= 0:
        return [], []
    rows: list[str] = [""]
    shown: list[Item] = []
    for number, item in enumerate(items):
        placed = _placed(rows, item.text, width)
        left = len(items) - number - 1
        if len(placed) > max_rows or (left and not _more_fits(placed, left, width, max_rows)):
            rows = _counted(rows, len(items) - len(shown), width)
            break
        rows = placed
        shown.append(item)
    return [row.replace(KEEP, " ") for row in rows if row], shown


def _placed(rows: Sequence[str], text: str, width: int) -> list[str]:
    """``rows`` with ``text`` written on after the last, wrapped between words (a word longer than a row,
    a name wider than the pane, split where it must be)."""
    out = list(rows)
    for number, word in enumerate(text.split(" ")):
        gap = (SEPARATOR if number == 0 else " ") if out[-1] else ""
        if len(out[-1]) + len(gap) + len(word) <= width:
            out[-1] += gap + word
            continue
        if out[-1]:
            out.append("")
        while len(word) > width:
            out[-1] = word[:width]
            out.append("")
            word = word[width:]
        out[-1] = word
    return out


def _more_fits(rows: Sequence[str], hidden: int, width: int, max_rows: int) -> bool:
    more = f"+{hidden} more"
    return len(rows) < max_rows or len(rows[-1]) + len(SEPARATOR) + len(more) <= width


def _counted(rows: Sequence[str], hidden: int, width: int) -> list[str]:
    """``rows`` ending with ``+N more``: on the last row where it fits, else on a row of its own (the
    caller kept room for it)."""
    more = f"+{hidden} more"
    out = list(rows)
    if not out[-1]:
        out[-1] = more
    elif len(out[-1]) + len(SEPARATOR) + len(more) <= width:
        out[-1] += SEPARATOR + more
    else:
        out.append(more)
    return out
