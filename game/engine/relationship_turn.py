"""``/relationship NAME set ...`` as a turn: the attitude set by hand, the graph kept in agreement with it,
both committed as a turn of its own so ``undo`` takes them back like any other."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

from game.engine.events import Event
from game.engine.turn import TurnPipeline
from game.features.attitudes.model import AttitudeView
from game.features.attitudes.relationship import RelationshipRequest, describe_set, set_attitude
from game.features.attitudes.step import set_by_hand
from game.graph.models import Node
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary


async def set_attitude_turn(pipeline: TurnPipeline, vocabulary: Vocabulary, seed: int, npc: Node,
                            request: RelationshipRequest, text: str) -> AsyncIterator[Event]:
    """Set ``npc``'s attitude as ``request`` says; ``text`` is the command as typed (the turn's input)."""
    state = pipeline.state
    turn = state.turn + 1
    before = AttitudeView(state.attitudes, state.graph).of(npc)
    after = set_attitude(before, request, turn)
    execution = UpsertExecution(state.graph, vocabulary, turn, rng=random.Random(f"{seed}:{turn}"),
                                witnesses=sorted(state.graph.player_ids))
    writes, changes = await set_by_hand(state.graph, execution, before, after)
    reply = describe_set(before, after, request.dimension or "trust")
    for event in await pipeline.commit_command(text, reply, "relationship", writes, (after.row(),), changes):
        yield event
