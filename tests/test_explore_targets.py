"""A game aimed at one piece of content (``game.explore.targets``) reaches what blind play and the endings'
games left behind on Brinefall: content behind a chain of a beat, a relation strong enough and an item
someone else holds (issue 28: "the report lists nothing the world's authors have not fixed or marked").
Real games, offline, in temporary saves; one game of at most 150 turns each."""

from __future__ import annotations

import asyncio
import random

import pytest

from game.config import load_settings
from game.explore.chooser import Chooser
from game.explore.frontier import Relation, open_relations
from game.explore.goals import goal_for
from game.explore.lanes import directed_command, ender_commands
from game.explore.play import play_game
from game.explore.reach import Catalogue
from game.explore.targets import target_goal, targets
from game.graph.index import GraphIndex
from game.world import load_world
from game.world.scene import SceneState

TURNS = 150


@pytest.mark.parametrize("kind, label", [
    ("reactions", "Hob Tarrant: talk #2"),  # Hob's trust at 0.8: the truth told him, not a help (0.5)
    ("reactions", "Dace Merrow: accuse"),  # the ledger taken: it lies upstairs only once Fenn helps
    ("topics", "Orla Vance: the Moot"),  # after accusing her with the ledger in hand
    ("reactions", "Ambry Garrow: accuse"),  # Pell's confession first, the bell that ends the game left alone
    ("topics", "Aldous Crane: the ledger #2"),  # the ledger taken, then dropped: held, his first answer wins
])
def test_a_game_aimed_at_content_reaches_it(kind: str, label: str) -> None:
    settings = load_settings()
    world = load_world(settings.content_dir, "brinefall")
    target = next(t for t in targets(world) if (t.kind, t.label) == (kind, label))
    goal = target_goal(world, target)
    enders = ender_commands(world, [goal_for(world, ending) for ending in world.endings])
    chooser = Chooser(random.Random(label))
    relations: dict[Relation, float] = {}

    def watch(graph: GraphIndex) -> None:
        nonlocal relations
        relations = open_relations(graph)

    def next_command(scene: SceneState, turn: int) -> str | None:
        return directed_command(world, chooser, goal, scene, relations, enders, late=True) if turn < TURNS else None

    game = asyncio.run(play_game(settings, "brinefall", 0, Catalogue.of(world), next_command,
                                 stop_at=lambda g: label in g.reached[kind], watch=watch))
    assert label in game.reached[kind], game.commands
    assert game.ending is None, "a target's game keeps clear of the endings"
    assert not game.faults


def test_every_unmarked_topic_reaction_beat_and_command_is_a_target() -> None:
    """What the report can list as never reached, and only that, is what a target's game may aim at."""
    world = load_world(load_settings().content_dir, "brinefall")
    listed = Catalogue.of(world).everything()
    aimed = {kind: [t.label for t in targets(world) if t.kind == kind] for kind in ("topics", "reactions", "beats", "commands")}
    assert aimed == {kind: listed[kind] for kind in aimed}


def test_a_topic_shadowed_by_an_earlier_answer_on_the_item_in_hand_needs_it_put_down() -> None:
    """Crane answers "the ledger" with his first topic while the player holds it, so the second (the ledger
    taken) is heard only once it is out of their hands: its target says so, and dropping it is how."""
    world = load_world(load_settings().content_dir, "brinefall")
    target = next(t for t in targets(world) if t.label == "Aldous Crane: the ledger #2")
    assert target.when.flags == ["ledger_taken"]
    assert target.when.items == ["!ledger"]
    first = next(t for t in targets(world) if t.label == "Aldous Crane: the ledger")
    assert first.when.items == ["ledger"], "the first answer is not shadowed by anything"
