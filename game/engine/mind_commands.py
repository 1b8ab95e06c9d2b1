"""``/mind NAME``, the sections ``/why NAME`` adds, and ``/knowledge NAME [add SUBJECT PREDICATE OBJECT]``.

``/mind`` and ``/why`` read the context stored with the last told turn (``turn_context``), so they show
what the narrator WAS told, section by section, and which providers were left out, never a fresh guess.
``/knowledge NAME`` lists the knower rows of NAME: each fact they know, how and how sure.
``/knowledge NAME add ...`` writes through the normal upsert path (the vocabulary's validation, the
knower rules) and is kept as a turn of its own, so ``undo`` takes it back exactly.
"""

from __future__ import annotations

import random
import shlex
from typing import TYPE_CHECKING

from game.engine.events import Event, MetaOutput
from game.engine.known_names import heard_of, not_named
from game.engine.player_view import known_ids
from game.errors import KithError
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.render import fact_line
from game.graph.retrieve import confidence_word
from game.graph.upsert import UpsertExecution
from game.mind.context import ComposedContext
from game.text import did_you_mean

if TYPE_CHECKING:
    from game.engine.command_context import CommandContext

MIND_USAGE = "Type `/mind NAME` to see what the narrator was told about someone this turn, section by section."
KNOWLEDGE_USAGE = ("Type `/knowledge NAME` to see what someone knows, or `/knowledge NAME add SUBJECT PREDICATE "
                   "OBJECT` to teach them a fact (quote names of several words: "
                   "`/knowledge Hob add \"Tibby Fenn\" KIN_OF \"Hob Tarrant\"`).")
STRENGTH_BY_VALENCE = {"positive": 0.5, "negative": -0.5, "neutral": 0.0}
"""The strength a fact added by hand gets: a plain middle value of the relation's own sign."""


async def person(session: CommandContext, name: str) -> Node:
    """The one person the player has met or heard of that ``name`` means, or a ``KithError`` saying why
    not, in the same words as ``/graph NAME`` (``known_names``)."""
    match = await heard_of(session, name)
    if match.node is None:
        raise KithError(not_named(session, name, match))
    return match.node


# ------------------------------------------------------------------------------------------ /mind, /why


def section_lines(context: ComposedContext, node_id: str) -> list[str]:
    """``[SECTION] line`` for every line of the context about one person, section by section."""
    lines = []
    for section, kept in context.about(node_id).items():
        lines += [f"- [{section}] {line.text.removeprefix('- ')}" for line in kept]
    return lines


def omissions(context: ComposedContext) -> list[str]:
    return [f"- {omitted.name} was left out: it {omitted.reason}." for omitted in context.omitted]


def budget_line(context: ComposedContext) -> str:
    dropped = [f"{s.name} {s.dropped}" for s in context.sections if s.dropped]
    cut = f"; left out for want of room: {', '.join(dropped)} line(s)" if dropped else ""
    return f"Budget: {context.tokens} of {context.budget} tokens used by every section together{cut}."


async def mind(session: CommandContext, argument: str) -> str:
    """What the narrator was told about NAME at the last told turn, section by section."""
    if not argument:
        return MIND_USAGE
    node = await person(session, argument)
    context = await session.turn_context()
    if context is None:
        return (f"No turn has been told yet, so the narrator has been told nothing about {node.name}. "
                "Play a turn, then ask again.")
    shown = section_lines(context, node.id)
    head = (f"**What the narrator was told about {node.name} at turn {context.turn}, section by section:**"
            if shown else f"The narrator was told nothing about {node.name} at turn {context.turn}.")
    parts = [head]
    if shown:
        parts += ["", *shown]
    parts += ["", budget_line(context)]
    if context.omitted:
        parts += ["", *omissions(context)]
    # The player's own standing notes reach the narrator every turn, whoever is asked about.
    parts += ["", *(f"- {line.label}: {line.text or '(none)'}" for line in session.registry.instructions(session.features))]
    return "\n".join(parts)


async def why_sections(session: CommandContext, node: Node) -> list[str]:
    """What ``/why NAME`` adds below its relations: the sections of the last told turn about NAME."""
    context = await session.turn_context()
    if context is None:
        return []
    shown = section_lines(context, node.id)
    if not shown and not context.omitted:
        return []
    lines = [f"**What the narrator was told about {node.name} at turn {context.turn}, section by section:**", ""]
    lines += shown or [f"- nothing about {node.name}"]
    if context.omitted:
        lines += omissions(context)
    return lines


# ------------------------------------------------------------------------------------------ /knowledge


def _how(row: Knowing, session: CommandContext) -> str:
    sure = f"{round(row.confidence * 100)}% sure"
    if row.knower == PUBLIC:
        return f"everyone knows it (since turn {row.since_turn})"
    if row.how == "authored":
        edge = session.graph.open_edges.get(row.edge_id)
        own = edge is not None and row.knower in (edge.source, edge.target)
        return f"{'their own doing' if own else 'known first-hand'}, since turn {row.since_turn}, {sure}"
    if row.how == "witnessed":
        return f"saw it at turn {row.since_turn}, {sure}"
    teller = session.graph.nodes.get(row.source or "")
    who = "someone" if teller is None else ("you" if teller.id in session.graph.player_ids else teller.name)
    kind = "heard from" if row.how == "told" else "a rumour from"
    return f"{kind} {who} at turn {row.since_turn}, {sure}"


def known_rows(session: CommandContext, node: Node) -> list[tuple[Edge, Knowing]]:
    """Every open relation ``node`` knows (their own row), newest first."""
    graph = session.graph
    rows = []
    for edge_id in graph.known_by(node.id):
        edge = graph.open_edges.get(edge_id)
        row = graph.knowers_of(edge_id).get(node.id)
        if edge is not None and row is not None:
            rows.append((edge, row))
    return sorted(rows, key=lambda pair: (-pair[1].since_turn, -pair[0].valid_at, pair[0].id))


async def knowledge(session: CommandContext, argument: str) -> str:
    """``/knowledge NAME``: what NAME knows. ``/knowledge NAME add ...`` is handled by ``add_knowledge``."""
    if not argument:
        return KNOWLEDGE_USAGE
    node = await person(session, argument)
    rows = known_rows(session, node)
    nodes = session.graph.nodes
    known = known_ids(session.scene, session.graph)
    if known is not None:  # what they know of people the player has not heard of stays theirs
        allowed = set(known) | set(session.graph.player_ids)
        rows = [(edge, row) for edge, row in rows if edge.source in allowed and edge.target in allowed]
    if not rows:
        return f"{node.name} knows nothing of anyone's relations yet (beyond what everyone knows)."
    lines = [f"**What {node.name} knows ({len(rows)} fact{'s' if len(rows) != 1 else ''}), how and how sure:**", ""]
    for edge, row in rows:
        lines.append(f"{fact_line(edge, nodes)} — {confidence_word(row)}: {_how(row, session)}")
    return "\n".join(lines)


def parse_add(argument: str) -> tuple[str, list[str]] | None:
    """``NAME add SUBJECT PREDICATE OBJECT`` as (NAME, [SUBJECT, PREDICATE, OBJECT]), None when it is no add.

    Names of several words are quoted; unquoted, the one word between them that is UPPER_SNAKE_CASE (or
    the middle of exactly three) is the predicate.
    """
    try:
        words = shlex.split(argument)
    except ValueError as error:
        raise KithError(f"{error} in {argument!r}. {KNOWLEDGE_USAGE}") from None
    lowered = [word.lower() for word in words]
    if "add" not in lowered[1:]:
        return None
    at = lowered.index("add", 1)
    name, rest = " ".join(words[:at]), words[at + 1:]
    if len(rest) == 3:
        return name, rest
    predicates = [i for i, word in enumerate(rest) if 0 < i < len(rest) - 1 and word.isupper() and len(word) > 1]
    if len(predicates) == 1:
        i = predicates[0]
        return name, [" ".join(rest[:i]), rest[i], " ".join(rest[i + 1:])]
    raise KithError(f"`/knowledge {name} add` needs a subject, a predicate and an object. {KNOWLEDGE_USAGE}")


async def add_knowledge(session: CommandContext, name: str, triple: list[str]) -> list[Event]:
    """Teach NAME the fact SUBJECT PREDICATE OBJECT, kept as a turn of its own; returns what the player is
    told (the reply, and the committed turn's events)."""
    knower = await person(session, name)
    if knower.type != "individual":
        raise KithError(f"{knower.name} is a {knower.type}; only one person knows things. Name one of them.")
    subject_name, predicate, object_name = triple
    subject, target = await person(session, subject_name), await person(session, object_name)
    vocabulary = session.vocabulary
    relation = vocabulary.normalize(predicate)
    if not relation.known:
        known = sorted(vocabulary.relations)
        raise KithError(f"{predicate!r} is not a relation of this world{did_you_mean(relation.name, known)}. "
                        f"Relations: {', '.join(known)}.")
    if subject.id == target.id:
        raise KithError(f"A fact joins two different people; {subject.name} was named twice.")
    source_id, target_id = relation.orient(subject.id, target.id)
    current = next((edge for a, b in relation.stored_pairs(source_id, target_id)
                    for edge in session.graph.open_between(a, b, relation.name)), None)
    graph = session.graph
    if current is not None:
        held = graph.knowers_of(current.id).get(knower.id)
        if held is not None and held.confidence >= 1.0:
            return [MetaOutput(f"{knower.name} already knows that: {current.fact}", "knowledge")]
        edge = {"sourceName": graph.nodes[current.source].name, "targetName": graph.nodes[current.target].name,
                "relation": current.relation, "strength": current.strength, "fact": current.fact,
                "knownBy": [knower.name]}
    else:
        ends = [node.name for node in (subject, target) if node.type == "individual"]
        # The fact is worded as the relation is stored: "Dace FEARED_BY Lise" is stored as Lise FEARS Dace,
        # and every later line (knowledge, the narrator's context, /why, word passed on) reads this sentence.
        stored_source, stored_target = (subject, target) if source_id == subject.id else (target, subject)
        edge = {"sourceName": subject.name, "targetName": target.name, "relation": predicate,
                "strength": STRENGTH_BY_VALENCE[vocabulary.valence(relation.name)],
                "fact": relation_sentence(stored_source.name, relation.name, stored_target.name),
                "knownBy": list(dict.fromkeys([knower.name, *ends]))}
    turn = session.turn + 1
    execution = UpsertExecution(graph, vocabulary, turn, rng=random.Random(f"{session.settings.seed}:{turn}"))
    outcome = await execution.run({"edges": [edge]})
    if outcome.error is not None or outcome.result is None:
        raise KithError(f"That fact was refused: {outcome.error}. Nothing was changed.")
    result = outcome.result.edges.results[0]
    if result.skipped and not execution.writes.knowings:
        raise KithError(f"That fact was not added ({result.skipped}). Nothing was changed.")
    fact = current.fact if current is not None else str(edge["fact"])
    reply = f"{knower.name} now knows: {fact} (`undo` takes it back.)"
    return await session.commit_command(f"/knowledge {name} add {shlex.join(triple)}", reply, "knowledge",
                                        execution.writes)


_PREPOSITIONS = frozenset({"of", "to", "with", "by", "for", "from", "at", "in", "on"})
_NO_ARTICLE = frozenset({"kin", "part", "bound", "sworn", "loyal", "married", "related", "indebted"})


def relation_sentence(source: str, relation: str, target: str) -> str:
    """``source RELATION target`` as a plain sentence: "Lise Brack fears Dace Merrow.", and a relation
    that ends in a preposition as a state: "Hob Tarrant is a member of Harbour Watch."."""
    words = relation.lower().replace("_", " ").split()
    if len(words) > 1 and words[-1] in _PREPOSITIONS:
        article = "" if words[0] in _NO_ARTICLE else "an " if words[0][0] in "aeiou" else "a "
        return f"{source} is {article}{' '.join(words)} {target}."
    return f"{source} {' '.join(words)} {target}."
