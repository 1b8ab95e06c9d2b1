"""Word travelling through the story: what the player passes on when telling, and news heard second-hand.

Telling: ``tell Hob about Tibby`` passes on what the player knows about Tibby (``show ITEM to Hob``: what
the player knows that names the item). The story states those
relations again in the World IR, told by the player, so everyone on stage learns them (``told``, from the
player) through the same upsert path as any other relation; nothing here writes the graph.

News: gossip carries what happened between turns. When someone on stage was told (or heard a rumour) how
one of their own people stands with the player, and has not said anything about it yet, they say so once,
in a line the world supplies (``[[characters.news]]`` first, then ``[[world.news]]``).
"""

from __future__ import annotations

import re

from game.graph.knowing_terms import DEFAULT_FLOOR, PUBLIC
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.story import deed_news
from game.story.context import Turn
from game.story.prose import fill
from game.story.resolve import character_named
from game.story.tiers import soured
from game.world import CharacterDef
from game.world.ir import IRRelation
from game.world.schema import Item, NewsLine
from game.world.words import strip_articles

MAX_PASSED_ON = 4
"""How many facts one telling passes on: the most relevant to the listener first."""
SECOND_HAND = frozenset({"told", "rumour"})


def _known(rows: dict[str, Knowing], knower: str, floor: float = DEFAULT_FLOOR) -> Knowing | None:
    """``knower``'s own row of a version, else the public one, when sure enough to count as knowing."""
    for who in (knower, PUBLIC):
        row = rows.get(who)
        if row is not None and row.confidence >= floor:
            return row
    return None


async def _ties(turn: Turn, node_id: str) -> set[str]:
    """``node_id``'s own people: everyone joined to them by an open relation."""
    return {edge.other_end(node_id) for edge in await turn.rules.view.reader.open_edges_of(node_id)} - {node_id}


# ------------------------------------------------------------------------------------------ telling


async def pass_on(turn: Turn, listener: CharacterDef, topic: str) -> None:
    """``tell LISTENER about TOPIC``: state again, told by the player, what the player knows about the
    person ``topic`` names that the listener does not know yet (their own people's news first)."""
    about = character_named(turn.world, topic) if topic else None
    if about is None or about.name == listener.name:
        return
    subject = await turn.rules.view.node(about.name)
    if subject is None:
        return
    edges = await turn.rules.view.reader.open_edges_of(subject.id)
    await _tell(turn, listener, edges, f"You tell {listener.short_name} what you know of {about.short_name}.")


async def pass_on_item(turn: Turn, listener: CharacterDef, item: Item) -> None:
    """``show ITEM to LISTENER``: what the player knows that the item bears witness to (the relations
    among the world's people whose fact names it) is passed on, as told by the player."""
    forms = {strip_articles(name).casefold() for name in item.names} - {""}
    pattern = re.compile(r"\b(?:" + "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True)) + r")\b")
    edges: dict[str, Edge] = {}
    for character in turn.world.characters:
        node = await turn.rules.view.node(character.name)
        if node is not None:
            edges.update({e.id: e for e in await turn.rules.view.reader.open_edges_of(node.id)
                          if pattern.search(e.fact.casefold())})
    await _tell(turn, listener, list(edges.values()), f"You show {listener.short_name} {item.name}.")


async def _tell(turn: Turn, listener: CharacterDef, edges: list[Edge], evidence: str) -> None:
    """State again, told by the player, those of ``edges`` the player knows and the listener does not."""
    view, reader = turn.rules.view, turn.rules.view.reader
    player, hearer = await view.node(turn.world.player_name), await view.node(listener.name)
    if player is None or hearer is None:
        return
    rows = await reader.knowings_of([e.id for e in edges])
    theirs = await _ties(turn, hearer.id) | {hearer.id}
    told = [e for e in edges if _known(rows.get(e.id, {}), player.id) is not None
            and _known(rows.get(e.id, {}), hearer.id, floor=0.0) is None]
    told.sort(key=lambda e: (-int(e.source in theirs or e.target in theirs), -e.valid_at, -abs(e.strength), e.id))
    names = {n.id: n.name for n in (await reader.get_nodes({x for e in told for x in (e.source, e.target)})).values()}
    for edge in told[:MAX_PASSED_ON]:
        if edge.source not in names or edge.target not in names:
            continue
        turn.log.relations.append(IRRelation(
            source=names[edge.source], target=names[edge.target], relation=edge.relation, strength=edge.strength,
            fact=edge.fact, evidence=evidence, told_by=turn.world.player_name,
        ))
        turn.log.name(names[edge.source])
        turn.log.name(names[edge.target])


# ------------------------------------------------------------------------------------------ news


async def react_to_news(turn: Turn) -> bool:
    """At most one person says what they heard about their own people and the player, once.

    Only someone the player spoke to or acted on this turn, and who is still here: news is said to your
    face when you come to them, not called across the quay while you wait. True when someone said it.
    """
    world, play, view = turn.world, turn.play, turn.rules.view
    if not _has_news_lines(turn):
        return False
    player = await view.node(world.player_name)
    if player is None:
        return False
    present = play.present(world)
    for name in [n for n in turn.acted_on if n in present]:
        character = world.character(name)
        hearer = await view.node(name)
        # HOSTILE people say only their tier line; the news waits until they thaw (it is told once, when said).
        if character is None or character.type != "individual" or hearer is None or turn.rules.tier(name) == "HOSTILE":
            continue
        # Their own people by a warm tie: word of those is what moved their attitude, so it is what they say.
        warm = {e.other_end(hearer.id) for e in await view.reader.open_edges_of(hearer.id) if e.strength > 0}
        deeds = deed_news.heard_deeds(turn, hearer, player, warm - {hearer.id})
        relations = await _news_of(turn, hearer, player)
        # The hearer's own lines before the world's (an authored line says it best); within each, a deed
        # before a relation: what you did is the news, how someone now stands with you its echo.
        for pool in ("own", "own relations", "world", "world relations"):
            if pool.endswith("relations"):
                for edge, known, about in relations:
                    pooled = character.news if pool == "own relations" else world.section.news
                    if await _tell_relation(turn, character, pooled, edge, known, about):
                        # The deed behind it is the same news: it is not told again as a second one.
                        play.story.news_told.extend(deed_news.news_key(character.name, deed)
                                                    for deed, _ in deeds if deed.target == about.id)
                        return True
                continue
            lines = character.news if pool == "own" else world.section.news
            for deed, row in deeds:
                if deed.valence == "kind" and soured(turn, character.name):
                    continue
                names = await view.reader.get_nodes([deed.target, *([row.source] if row.source else [])])
                target = names.get(deed.target)
                line = deed_news.deed_line(turn, lines, deed, world.character(target.name) if target else None)
                if line is None or target is None:
                    continue
                play.story.news_told.append(deed_news.news_key(character.name, deed))
                play.story.news_told.extend(deed_news.answered_keys(turn, hearer, deed))  # said with it
                # The relation the deed made is the same news: it is not told again as a second one.
                play.story.news_told.extend(f"{character.name}|{edge.id}" for edge, _, who in relations
                                            if who.id == deed.target)
                teller = names.get(row.source or "")
                turn.say_cold(character.name, fill(turn.pick(line.text), {
                    "name": character.short_name, "who": turn.short(target.name),
                    "teller": turn.short(teller.name) if teller else "someone",
                    "act": deed_news.act_words(turn, deed, target.name, row.source == deed.target),
                }), deed.valence == "harmful")
                turn.touch(character.name)
                return True
    return False


async def _tell_relation(turn: Turn, character: CharacterDef, lines: list[NewsLine], edge: Edge, row: Knowing,
                         about: Node) -> bool:
    """Say the relation news ``edge`` in the first of ``lines`` that fits, once; True when it was said."""
    play, view = turn.play, turn.rules.view
    key = f"{character.name}|{edge.id}"
    if key in play.story.news_told:
        return False
    hearer = await view.node(character.name)
    if hearer is not None and deed_news.said_as_deed(turn, hearer, about.id, edge.valid_at):
        play.story.news_told.append(key)  # heard as the deed that made it: said once, already
        return False
    if edge.strength >= 0 and soured(turn, character.name):
        return False  # good news is not warmly remarked on by someone you have just wronged, or who is cold
    line = _line(turn, lines, edge, about)
    if line is None:
        return False
    play.story.news_told.append(key)
    teller = await view.reader.get_nodes([row.source] if row.source else [])
    told_by = next(iter(teller.values())).name if teller else "someone"
    turn.say_cold(character.name, fill(turn.pick(_variants(line.text, told_by == about.name)), {
        "name": character.short_name, "who": turn.short(about.name), "teller": turn.short(told_by),
    }), edge.strength < 0)
    turn.touch(character.name)
    return True


def _variants(texts: list[str], told_by_subject: bool) -> list[str]:
    """The variants of a news line that read right: when the one the news is about told it themselves,
    "Vance told me about you and Vance" says nothing true, so a variant that names no teller is said instead
    (and "someone" fills the teller when every variant names one)."""
    if not told_by_subject:
        return texts
    return [text for text in texts if "{teller}" not in text] or [
        re.sub(r'(^|[".!?] *)\{teller\}', r"\1Someone", text).replace("{teller}", "someone") for text in texts]


def _has_news_lines(turn: Turn) -> bool:
    world = turn.world
    return bool(world.section.news) or any(c.news for c in world.characters)


async def _news_of(turn: Turn, hearer: Node, player: Node) -> list[tuple[Edge, Knowing, Node]]:
    """Relations between the player and one of ``hearer``'s own people that ``hearer`` knows second-hand,
    newest learned first, each with whom it is about."""
    reader = turn.rules.view.reader
    # Their own people by a warm tie: only such news moves them (game.features.attitudes.step), and a line
    # without a change would be a warmth or a chill /relationship does not show.
    warm = {e.other_end(hearer.id) for e in await reader.open_edges_of(hearer.id) if e.strength > 0}
    people = await reader.get_nodes(warm - {player.id, hearer.id})
    found: list[tuple[Edge, Node]] = []
    for person in people.values():
        found += [(e, person) for e in await reader.open_edges_of(person.id) if e.other_end(person.id) == player.id]
    rows = await reader.knowings_of([e.id for e, _ in found])
    news = []
    for edge, person in found:
        row = rows.get(edge.id, {}).get(hearer.id)
        if row is not None and row.how in SECOND_HAND and row.confidence >= DEFAULT_FLOOR \
                and not _there_when_said(edge, row):
            news.append((edge, row, person))
    news.sort(key=lambda n: (-n[1].since_turn, n[0].id))
    return news


def _there_when_said(edge: Edge, row: Knowing) -> bool:
    """Whether the hearer learned ``edge`` on stage as it was said (the captain marking you as trouble in
    front of his sergeant): the story's own words make the people there "told" by the speaker, but it is
    not word that got about. Gossip never passes on a fact in the turn it was learned, so a row "told"
    in the very turn the version was made was heard there and then."""
    return row.how == "told" and row.since_turn == edge.valid_at


def _line(turn: Turn, lines: list[NewsLine], edge: Edge, about: Node) -> NewsLine | None:
    """The first of ``lines`` that fits this relation news (lines naming ``acts`` are for deeds only)."""
    vocabulary = turn.world.vocabulary
    about_def = turn.world.character(about.name)
    about_words = {x.casefold() for x in ([*about_def.names, *about_def.labels] if about_def else [about.name])}
    sign = "-" if edge.strength < 0 else "+"
    for line in lines:
        if line.acts:
            continue
        if line.relations and edge.relation not in {vocabulary.normalize(r).name for r in line.relations}:
            continue
        if line.sign is not None and line.sign != sign:
            continue
        if line.about and not about_words & {a.casefold() for a in line.about}:
            continue
        return line
    return None
