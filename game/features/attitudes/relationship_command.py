"""``/relationship NAME [set DIMENSION VALUE]``: the attitudes feature's meta command.

Showing reads the feature's own state (the ``AttitudeBook``); setting one by hand is kept as a turn of its
own through the core's one commit (``GraphReach.keep_as_turn``), the attitude's row and the graph's
agreement with its tier together, so ``undo`` takes both back like any turn. The words are
``relationship``'s, so the reply reads the same wherever it is shown.
"""

from __future__ import annotations

import random

from game.errors import KithError
from game.features.attitudes.model import AttitudeBook, AttitudeView
from game.features.attitudes.relationship import describe, describe_set, parse_relationship, set_attitude
from game.features.attitudes.step import set_by_hand
from game.features.feature import CommandReach, GraphReach, MetaHandler
from game.graph.upsert import UpsertExecution

WORD = "relationship"
HELP = {WORD: "`/relationship NAME` shows how NAME regards you (trust, respect, friendliness, tier), and "
              "`/relationship NAME set trust|respect|friendliness VALUE` sets one (`undo` takes it back);"}


async def relationship(reach: CommandReach, argument: str) -> str:
    """The command: show NAME's regard, or set one dimension of it as a turn of its own."""
    if not isinstance(reach, GraphReach):
        raise TypeError("/relationship needs a GraphReach (AttitudesFeature.changes_graph)")
    request = parse_relationship(argument)
    node = await reach.named(request.name)
    if node.type != "individual" or node.id in reach.graph.player_ids:
        raise KithError(f"{node.name} is not a person whose regard you can have.", title="Relationship")
    book = reach.state if isinstance(reach.state, AttitudeBook) else AttitudeBook()
    before = AttitudeView(book, reach.graph).of(node)
    if request.dimension is None:
        return describe(before)
    turn = reach.turn + 1
    after = set_attitude(before, request, turn)
    execution = UpsertExecution(reach.graph, reach.vocabulary, turn, rng=random.Random(f"{reach.seed}:{turn}"),
                                witnesses=sorted(reach.graph.player_ids))
    writes, changes = await set_by_hand(reach.graph, execution, before, after)
    reach.keep_as_turn(f"/relationship {argument}".strip(), writes, (after.row(),), changes)
    return describe_set(before, after, request.dimension)


def handler(word: str) -> MetaHandler:
    if word != WORD:
        raise NotImplementedError(f"attitudes handle no meta command {word!r}")
    return relationship
