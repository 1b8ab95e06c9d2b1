"""Whom a line calls by their rank: "Sire" is the king, "your Eminence" the cardinal, "your Grace" the duke.

A court novel's dialogue seldom names the one it speaks to: "“Sire,” said the Cardinal, “the Queen deceives
you.”" says who "you" is only by the word of address. When the story has one person of that rank (one king,
one cardinal), the call is theirs; with two kings, or none, nobody is taken for the one spoken to. Pure: no I/O.
"""

from __future__ import annotations

import re

from game.graph.fast_extract.gazetteer import Entity, NameIndex

_RANKS: dict[str, frozenset[str]] = {
    "sire": frozenset({"king", "emperor"}),
    "majesty": frozenset({"king", "queen", "emperor", "empress"}),
    "eminence": frozenset({"cardinal"}),
    "grace": frozenset({"duke", "duchess", "archbishop"}),
    "highness": frozenset({"prince", "princess"}),
    "monseigneur": frozenset({"cardinal", "duke", "prince", "bishop"}),
}
# "Sire," and "Monseigneur!" alone, and "your Majesty" wherever it stands ("If your Majesty would condescend")
_CALL = re.compile(r"(?:(?:^|[,;]\s*|\bmy\s+)(?P<alone>sire|monseigneur)(?=\s*(?:[,!?;]|\.?\W*$))"
                   r"|\byour\s+(?P<yours>majesty|eminence|grace|highness)\b)", re.IGNORECASE)


def called_by_rank(body: str, index: NameIndex) -> list[Entity]:
    """The one person of the rank ``body`` calls ("Sire", "your Eminence"), when the story has exactly one."""
    found: dict[str, Entity] = {}
    for call in _CALL.finditer(body):
        titles = _RANKS[(call.group("alone") or call.group("yours")).casefold()]
        holders = {entity.id: entity for key, entities in index.names.items() if _rank_of(key) in titles
                   for entity in entities if entity.type == "individual"}
        if len(holders) == 1:
            (holder,) = holders.values()
            found.setdefault(holder.id, holder)
    return list(found.values())


def _rank_of(key: str) -> str:
    """The rank a name's first word gives ("the king" and "king louis": king)."""
    words = key.replace(".", " ").split()
    words = words[1:] if words[:1] == ["the"] else words
    return words[0] if words else ""
