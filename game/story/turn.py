"""One turn of the story: read the input, perform the action, let the world's beats run, tell the ending.

``play_turn`` is the story engine's one entry point. It works on a copy of the scene and returns the prose,
the World IR (who was on stage, what was named, which relations changed) and the next ``SceneState``.
Randomness comes only from a generator seeded by ``seed``, the scene and the input, so the same seed and
input always tell the same turn.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from game.features.attitudes.model import AttitudeView
from game.features.memories.book import MemoryView
from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.mind.context import ComposedContext
from game.story import memory_acts, memory_lines, pronouns, typos
from game.story.actions import ACTIONS
from game.story.actions.base import finish
from game.story.context import Refusal, Turn
from game.story.parser import Intent, parse
from game.story.word import react_to_news
from game.world import World, awareness
from game.world.ir import NODE_KINDS, IREntity, WorldIR
from game.world.scene import SceneState
from game.world.schema import Command
from game.world.words import key_words


@dataclass
class TurnOutcome:
    """A told turn: its prose, its World IR and the scene after it."""

    text: str
    world_ir: WorldIR
    scene: SceneState


async def play_turn(world: World, scene: SceneState, graph: GraphReader, number: int, player_input: str,
               seed: str, mind: ComposedContext | None = None,
               attitudes: AttitudeView | None = None, memories: MemoryView | None = None,
               features: Mapping[str, Any] | None = None) -> TurnOutcome:
    """Tell turn ``number`` for ``player_input`` from ``scene``; ``scene`` itself is left untouched.

    ``mind`` is the turn's composed context (``game.mind.context``), read by the actions through ``Turn.mind``;
    ``attitudes``: everyone's attitude toward the player as the turn begins (tier conditions and the
    per-tier lines of ordinary replies read it); None reads everyone as NEUTRAL. ``memories``: what the
    people of the story remember of the player as the turn begins (none: nothing).
    """
    turn = Turn.start(world, scene, graph, number, player_input, seed, mind, attitudes, memories)
    turn.features = features or {}
    play = turn.play
    # Who left last turn can be followed this turn, and only this turn.
    turn.followable, play.story.departures = play.story.departures, {}
    # ``again``/``g`` never reach the story: the turn pipeline (game/engine/turn.py) repeats the last line.
    if not await custom_command(turn, player_input):
        await dispatch(turn, parse(player_input), typed=player_input)
    if play.ending is None:
        await react_to_news(turn) or await memory_lines.recall(turn)
    if turn.log.time_passes:
        play.story.clock = turn.rules.now
        if play.ending is None:
            await turn.rules.run_beats()
    if play.ending is not None and scene.ending is None:
        ending = world.endings[play.ending]
        turn.log.say(f"**{ending.title}**")
        told = " ".join([world.text(ending.text), *await turn.details(ending.details)])
        turn.log.say(told)
    if not turn.log.paragraphs:
        turn.log.say(turn.reply("wait"))
    await learn_revelations(turn, graph)
    return TurnOutcome(turn.log.text, world_ir(turn), play.to_scene(world, turn.rng.randrange(2**31)))


async def learn_revelations(turn: Turn, graph: GraphReader) -> None:
    """What this turn's effects taught the player: the revelations told, added to what the player knows
    of each character, and the people an effect says they now know (``meet``)."""
    play = turn.play
    if play.known is None:
        return
    for name, key in play.reveals:
        for node in await _nodes_called(graph, name):
            awareness.reveal(play.known, node, key, turn.number)
    play.reveals = []
    for name in play.met:
        if name not in turn.before.met:
            awareness.meet(play.known, await _nodes_called(graph, name), turn.number)


async def _nodes_called(graph: GraphReader, name: str) -> list[Node]:
    """The node a content name means: the one named exactly, else the first answering to it as an alias."""
    nodes = (await graph.nodes_named([normalize_name(name)])).get(normalize_name(name), [])
    exact = [n for n in nodes if normalize_name(n.name) == normalize_name(name)]
    return (exact or nodes)[:1]


async def dispatch(turn: Turn, intent: Intent, typed: str | None = None) -> None:
    """Perform ``intent``. With ``typed`` (the line as the player wrote it), a line that fails is read
    once more with its typos corrected, and the correction is used only if that reading can happen."""
    intent = pronouns.resolve(turn, intent)
    action = ACTIONS[intent.verb]
    touched = list(turn.acted_on), list(turn.mentioned_people)
    plan = await action.check(turn, intent)
    if isinstance(plan, Refusal) and typed is not None:
        refused = list(turn.acted_on), list(turn.mentioned_people)
        # Whoever the refused reading touched is not on stage for the corrected one.
        turn.acted_on, turn.mentioned_people = touched
        if await _typo_reading(turn, typed):
            return
        turn.acted_on, turn.mentioned_people = refused
    await finish(action, turn, plan)
    await memory_acts.note_action(turn, intent.verb, plan)
    pronouns.remember(turn)


async def _typo_reading(turn: Turn, typed: str) -> bool:
    """Tell the corrected reading of ``typed`` if there is one that can happen; True when it was told."""
    line = typos.corrected(turn, typed)
    if line is None:
        return False
    note = f"(taking that as '{line}')"
    if _custom_matches(turn, line):
        turn.log.say(note)
        await custom_command(turn, line)
        return True
    intent = pronouns.resolve(turn, parse(line))
    if intent.verb == "unknown":
        return False
    action = ACTIONS[intent.verb]
    plan = await action.check(turn, intent)
    if isinstance(plan, Refusal):
        return False
    turn.log.say(note)
    await finish(action, turn, plan)
    await memory_acts.note_action(turn, intent.verb, plan)
    pronouns.remember(turn)
    return True


async def custom_command(turn: Turn, line: str) -> bool:
    """The world's own verbs ("ring the bell"); True when one matched (whether or not it could run)."""
    play = turn.play
    matching = _custom_matches(turn, line)
    if not matching:
        return False
    for command in matching:
        key = f"command:{command.id}"
        if command.once and play.spent(key):
            continue
        if await turn.rules.holds(command.when):
            if command.once:
                play.spend(key)
            text = turn.say_text(command.reply)
            turn.rules.apply(command.effects, text)
            return True
    refusal = next((c.otherwise for c in matching if c.otherwise), None)
    turn.fail(turn.pick(refusal) if refusal else f"{turn.reply('unknown')} {turn.hint()}")
    return True


# Verbs a world's own phrases may be typed with: "enter the ferry" is "board the ferry".
COMMAND_SYNONYMS: dict[str, str] = {
    "enter": "board", "get in": "board", "get into": "board", "get on": "board", "get aboard": "board",
    "climb into": "board", "climb aboard": "board", "step into": "board", "step onto": "board",
    "tug": "pull", "yank": "pull", "haul": "pull", "toll": "ring", "sound": "ring",
}
_SYNONYMS_LONGEST_FIRST = sorted(COMMAND_SYNONYMS, key=len, reverse=True)


# Cached: every turn matches the line against each phrase of each of the world's commands.
@lru_cache(maxsize=4096)
def command_key(phrase: str) -> str:
    """A phrase as the world's verbs are matched: its words, with a synonym verb read as the usual one."""
    words = key_words(phrase)
    for synonym in _SYNONYMS_LONGEST_FIRST:
        if words == synonym or words.startswith(synonym + " "):
            return COMMAND_SYNONYMS[synonym] + words[len(synonym):]
    return words


def _custom_matches(turn: Turn, line: str) -> list[Command]:
    wanted = command_key(line)
    return [c for c in turn.world.commands if wanted in {command_key(s) for s in c.say}]


def world_ir(turn: Turn) -> WorldIR:
    """The turn's facts: who was on stage or acted on, what was named, the relations stated and ended."""
    world, play, log = turn.world, turn.play, turn.log
    present = play.present(world)
    on_stage = [*present, *(n for n in turn.acted_on if n not in present)]
    named = [*on_stage, *(n for n in log.named if n not in on_stage)]
    entities = [_entity(world, name) for name in named]
    entities.append(IREntity(name=world.places[play.location].name, kind="place"))
    for item_id in log.items:
        entities.append(IREntity(name=world.items[item_id].name, kind="item"))
    return WorldIR(
        characters_present=[n for n in on_stage if not world.is_player(n)][:40],
        entities=entities[:60],
        relations=log.relations[:40],
        ended_relations=log.ended[:20],
        next_cast=present[:40],
        location=play.location,
        attitudes=log.attitudes[:20] or None,
        acts=turn.memory.acts[:40] or None,
    )


def _entity(world: World, name: str) -> IREntity:
    if world.is_player(name):
        player = world.player
        return IREntity(name=player.name, kind="character", summary=world.text(player.summary),
                        aliases=list(player.aliases), labels=list(player.labels))
    character = world.character(name)
    assert character is not None
    return IREntity(name=character.name, kind=NODE_KINDS[character.type],
                    summary=world.text(character.summary), aliases=list(character.aliases),
                    labels=list(character.labels))
