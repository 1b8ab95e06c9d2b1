"""News of deeds: what someone says when word of what the player *did* has reached them.

Chosen by the deed (its act, its valence, whom it was done to, who told them), in a line whose ``acts``
name the act (``[[characters.news]]`` first, then ``[[world.news]]``); ``{act}`` fills in the act's words
("threatened Tibby"). Only a deed the hearer was told or heard as a rumour, by the player, not neutral,
and not yet remarked on. A relation change with no deed behind it is never told as a deed: relation news
(``game.story.word``) speaks of how people stand, never of "what you did".
"""

from __future__ import annotations

from dataclasses import dataclass

from game.features.deeds.model import Deed, DeedBook, DeedKnowing
from game.features.deeds.rules import APOLOGY, deed_phrase
from game.graph.knowing_terms import DEFAULT_FLOOR
from game.graph.models import Node
from game.story.context import OBJECT_PRONOUNS, Turn
from game.world import CharacterDef
from game.world.schema import NewsLine


@dataclass(frozen=True)
class DeedNews:
    """One deed a hearer was told of, with the line that fits it."""

    deed: Deed
    row: DeedKnowing
    line: NewsLine


def book_of(turn: Turn) -> DeedBook | None:
    book = turn.features.get("deeds")
    return book if isinstance(book, DeedBook) else None


def news_key(name: str, deed: Deed) -> str:
    return f"{name}|{deed.deed_id}"


def heard_deeds(turn: Turn, hearer: Node, player: Node, people: set[str]) -> list[tuple[Deed, DeedKnowing]]:
    """The player's deeds to ``hearer``'s own ``people`` that they know second-hand and have not remarked
    on, the newest learned first."""
    book = book_of(turn)
    if book is None:
        return []
    found = []
    for deed, row in book.known_by(hearer.id):
        if row.how == "seen" or row.confidence < DEFAULT_FLOOR or deed.actor != player.id:
            continue
        if deed.valence == "neutral" or deed.target == hearer.id or deed.target not in people:
            continue  # news of one's own people only: what moved them (game.features.deeds.attitudes)
        if news_key(hearer.name, deed) in turn.play.story.news_told:
            continue
        if _amends_known(book, deed, hearer.id):
            continue  # the apology that answers it is the news now, and says what it was for
        found.append((deed, row))
    found.sort(key=lambda pair: (-int(pair[0].target in people), -pair[1].since_turn, pair[0].deed_id))
    return found


def _amends_known(book: DeedBook, harm: Deed, hearer: str) -> bool:
    """Whether ``hearer`` knows an apology of the player's that answers ``harm``."""
    return any(book.knowing(a.deed_id, hearer) is not None for a in book.amends(harm))


def answered_keys(turn: Turn, hearer: Node, apology: Deed) -> list[str]:
    """The news keys of the harms ``apology`` answers that ``hearer`` knows: said with the apology's news,
    they are not said again as news of their own."""
    book = book_of(turn)
    if book is None or apology.act != APOLOGY:
        return []
    return [news_key(hearer.name, harm) for harm, _ in book.known_by(hearer.id)
            if harm.valence == "harmful" and apology in book.amends(harm)]


def said_as_deed(turn: Turn, hearer: Node, about: str, made: int) -> bool:
    """Whether ``hearer`` already spoke of a deed to ``about`` done at turn ``made``: the relation that deed
    made (Hob's trust after you helped him) is the same news, and is not said again as a second one."""
    book = book_of(turn)
    if book is None:
        return False
    return any(deed.target == about and deed.turn == made and news_key(hearer.name, deed) in turn.play.story.news_told
               for deed, _ in book.known_by(hearer.id))


def deed_line(turn: Turn, lines: list[NewsLine], deed: Deed, about: CharacterDef | None) -> NewsLine | None:
    """The first of ``lines`` that speaks of this deed: its act listed, its sign, whom it was done to."""
    sign = "-" if deed.valence == "harmful" else "+"
    about_words = {x.casefold() for x in [*about.names, *about.labels]} if about else set()
    for line in lines:
        if not line.acts or deed.act not in {a.casefold() for a in line.acts}:
            continue
        if line.sign is not None and line.sign != sign:
            continue
        if line.about and not about_words & {a.casefold() for a in line.about}:
            continue
        return line
    return None


def act_words(turn: Turn, deed: Deed, target_name: str, told_by_target: bool = False) -> str:
    """The act said to the player's face: "threatened Tibby", "gave the coin to Hob"; told by the target
    themselves, "threatened him" ("Brann says you threatened him", not "...threatened Brann")."""
    who = turn.short(target_name)
    if told_by_target:
        character = turn.world.character(target_name)
        who = OBJECT_PRONOUNS[character.pronoun if character else None]
    return deed_phrase(deed.act, who, deed.thing)
