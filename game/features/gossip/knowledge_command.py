"""``/knowledge NAME [add SUBJECT PREDICATE OBJECT]``: what someone knows, and a fact taught to them.

``/knowledge NAME`` lists the knower rows of NAME: each fact they know, how and how sure. ``/knowledge NAME
add ...`` writes through the normal upsert path (the vocabulary's validation, the knower rules) and is kept
as a turn of its own (``GraphReach.keep_as_turn``), so ``undo`` takes it back exactly. Names are resolved
by the reach (``GraphReach.named``), by the one rule every inspector command uses.
"""

from __future__ import annotations

import random
import shlex

from game.errors import KithError
from game.features.feature import CommandReach, GraphReach, MetaHandler
from game.graph.knowing_terms import PUBLIC
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.render import fact_line
from game.graph.retrieve import confidence_word
from game.graph.upsert import UpsertExecution
from game.text import did_you_mean

WORD = "knowledge"
HELP = {WORD: "`/knowledge NAME` shows what NAME knows, and `/knowledge NAME add SUBJECT PREDICATE OBJECT` "
              "teaches them a fact (`undo` takes it back);"}
USAGE = ("Type `/knowledge NAME` to see what someone knows, or `/knowledge NAME add SUBJECT PREDICATE "
         "OBJECT` to teach them a fact (quote names of several words: "
         "`/knowledge Hob add \"Tibby Fenn\" KIN_OF \"Hob Tarrant\"`).")
STRENGTH_BY_VALENCE = {"positive": 0.5, "negative": -0.5, "neutral": 0.0}
"""The strength a fact added by hand gets: a plain middle value of the relation's own sign."""


async def knowledge(reach: CommandReach, argument: str) -> str:
    """The command: ``add`` teaches a fact, anything else names whose knowledge to show."""
    if not isinstance(reach, GraphReach):
        raise TypeError("/knowledge needs a GraphReach (GossipFeature.changes_graph)")
    adding = parse_add(argument)
    if adding is None:
        return await show(reach, argument)
    return await add(reach, *adding)


def handler(word: str) -> MetaHandler:
    if word != WORD:
        raise NotImplementedError(f"gossip handles no meta command {word!r}")
    return knowledge


def _how(row: Knowing, reach: GraphReach) -> str:
    sure = f"{round(row.confidence * 100)}% sure"
    graph = reach.graph
    if row.knower == PUBLIC:
        return f"everyone knows it (since turn {row.since_turn})"
    if row.how == "authored":
        edge = graph.open_edges.get(row.edge_id)
        own = edge is not None and row.knower in (edge.source, edge.target)
        return f"{'their own doing' if own else 'known first-hand'}, since turn {row.since_turn}, {sure}"
    if row.how == "witnessed":
        return f"saw it at turn {row.since_turn}, {sure}"
    teller = graph.nodes.get(row.source or "")
    who = "someone" if teller is None else ("you" if teller.id in graph.player_ids else teller.name)
    kind = "heard from" if row.how == "told" else "a rumour from"
    return f"{kind} {who} at turn {row.since_turn}, {sure}"


def known_rows(reach: GraphReach, node: Node) -> list[tuple[Edge, Knowing]]:
    """Every open relation ``node`` knows (their own row), newest first."""
    graph = reach.graph
    rows = []
    for edge_id in graph.known_by(node.id):
        edge = graph.open_edges.get(edge_id)
        row = graph.knowers_of(edge_id).get(node.id)
        if edge is not None and row is not None:
            rows.append((edge, row))
    return sorted(rows, key=lambda pair: (-pair[1].since_turn, -pair[0].valid_at, pair[0].id))


async def show(reach: GraphReach, argument: str) -> str:
    """``/knowledge NAME``: what NAME knows, of people the player knows of."""
    if not argument:
        return USAGE
    node = await reach.named(argument)
    rows = known_rows(reach, node)
    graph = reach.graph
    known = reach.known
    if known is not None:  # what they know of people the player has not heard of stays theirs
        allowed = set(known) | set(graph.player_ids)
        rows = [(edge, row) for edge, row in rows if edge.source in allowed and edge.target in allowed]
    if not rows:
        return f"{node.name} knows nothing of anyone's relations yet (beyond what everyone knows)."
    lines = [f"**What {node.name} knows ({len(rows)} fact{'s' if len(rows) != 1 else ''}), how and how sure:**", ""]
    for edge, row in rows:
        lines.append(f"{fact_line(edge, graph.nodes)} — {confidence_word(row)}: {_how(row, reach)}")
    return "\n".join(lines)


def parse_add(argument: str) -> tuple[str, list[str]] | None:
    """``NAME add SUBJECT PREDICATE OBJECT`` as (NAME, [SUBJECT, PREDICATE, OBJECT]), None when it is no add.

    Names of several words are quoted; unquoted, the one word between them that is UPPER_SNAKE_CASE (or
    the middle of exactly three) is the predicate.
    """
    try:
        words = shlex.split(argument)
    except ValueError as error:
        raise KithError(f"{error} in {argument!r}. {USAGE}") from None
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
    raise KithError(f"`/knowledge {name} add` needs a subject, a predicate and an object. {USAGE}")


async def add(reach: GraphReach, name: str, triple: list[str]) -> str:
    """Teach NAME the fact SUBJECT PREDICATE OBJECT, kept as a turn of its own; returns the reply."""
    knower = await reach.named(name)
    if knower.type != "individual":
        raise KithError(f"{knower.name} is a {knower.type}; only one person knows things. Name one of them.")
    subject_name, predicate, object_name = triple
    subject, target = await reach.named(subject_name), await reach.named(object_name)
    vocabulary, graph = reach.vocabulary, reach.graph
    relation = vocabulary.normalize(predicate)
    if not relation.known:
        known = sorted(vocabulary.relations)
        raise KithError(f"{predicate!r} is not a relation of this world{did_you_mean(relation.name, known)}. "
                        f"Relations: {', '.join(known)}.")
    if subject.id == target.id:
        raise KithError(f"A fact joins two different people; {subject.name} was named twice.")
    source_id, target_id = relation.orient(subject.id, target.id)
    current = next((edge for a, b in relation.stored_pairs(source_id, target_id)
                    for edge in graph.open_between(a, b, relation.name)), None)
    if current is not None:
        held = graph.knowers_of(current.id).get(knower.id)
        if held is not None and held.confidence >= 1.0:
            return f"{knower.name} already knows that: {current.fact}"
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
    turn = reach.turn + 1
    execution = UpsertExecution(graph, vocabulary, turn, rng=random.Random(f"{reach.seed}:{turn}"))
    outcome = await execution.run({"edges": [edge]})
    if outcome.error is not None or outcome.result is None:
        raise KithError(f"That fact was refused: {outcome.error}. Nothing was changed.")
    result = outcome.result.edges.results[0]
    if result.skipped and not execution.writes.knowings:
        raise KithError(f"That fact was not added ({result.skipped}). Nothing was changed.")
    fact = current.fact if current is not None else str(edge["fact"])
    reach.keep_as_turn(f"/knowledge {name} add {shlex.join(triple)}", execution.writes)
    return f"{knower.name} now knows: {fact} (`undo` takes it back.)"


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
