"""Memories of the player coming up in what people say: "You were kind to Tibby, I heard."

After the player speaks to or acts on someone, that person may bring up one of their memories of the
player: chosen from the memory store (the most relevant few, one of them by a generator seeded by the
turn and the person, so the turn's own choices are not disturbed), said in a line the world supplies
(``[[characters.memories]]``, then ``[[world.memories]]``, then the built-in lines), and not every turn:
only by chance, and never twice within ``RECALL_GAP`` turns from the same person, and only a memory that
fits how they stand toward the player now (``feels_like``: no kindness recalled by someone cold to you).
A memory said is recalled (an ``IRAct``), which strengthens it when the turn is stored.
"""

from __future__ import annotations

import random

from game.features.memories.book import Memory
from game.features.memories.rules import ACTS
from game.story import deed_news
from game.story.context import Turn
from game.story.prose import fill
from game.story.remembered import RECALLED
from game.story.tiers import feels_like, soured
from game.world import CharacterDef
from game.world.ir import IRAct
from game.world.schema import MemoryLine

RECALL_CHANCE = 0.5
"""How likely someone is to bring a memory up when the player comes to them (after the gap)."""
RECALL_GAP = 4
"""Turns between two memories brought up by the same person."""
CANDIDATES = 3
"""A memory is chosen among this many of the most relevant, so the same one does not always come up."""
QUIET_TAGS = frozenset({"met", "ask", "confession", "secret", "told-secret"})
"""Memories not worth bringing up unprompted: a meeting, a question, what they said themselves."""

DEED_TAGS = frozenset(tag for act in ACTS.values() for tag in act.tags)
"""The tags of a memory formed from something the player did in front of them (``game.features.memories.rules.ACTS``)."""

DEED_LINES: tuple[MemoryLine, ...] = (
    # An apology is amends for a harm, not a kindness out of nowhere: said as what it was.
    MemoryLine(heard=True, about="other", tags=["apologize"],
               text=["\"{who} says you came and said sorry,\" {name} says. \"So I hear.\""]),
    MemoryLine(heard=False, about="other", tags=["apologize"],
               text=["\"I heard you say sorry to {who},\" {name} says. \"About time.\""]),
    MemoryLine(about="self", tags=["apologize"], text=["\"You said sorry, and I heard you,\" {name} says."]),
    MemoryLine(heard=True, sign="+", about="other", text=["\"You were kind to {who}, I heard,\" {name} says."]),
    MemoryLine(heard=True, sign="-", about="other",
               text=["\"I heard what you did to {who},\" {name} says."]),
    MemoryLine(heard=False, sign="+", about="other",
               text=["\"I saw what you did for {who},\" {name} says. \"That was decent of you.\""]),
    MemoryLine(heard=False, sign="-", about="other",
               text=["\"I saw what you did to {who},\" {name} says. \"I haven't forgotten it.\""]),
    MemoryLine(sign="+", text=["\"I haven't forgotten what you did for me,\" {name} says."]),
    MemoryLine(sign="-", text=["{name} watches you warily. \"I remember the last time you came,\" {name} says."]),
)
"""The built-in lines for a memory with a deed behind it: only then is it "what you did"."""
STANDING_LINES: tuple[MemoryLine, ...] = (
    MemoryLine(heard=True, sign="+", about="other", text=["\"{who} speaks well of you, I hear,\" {name} says."]),
    MemoryLine(heard=True, sign="-", about="other",
               text=["\"I hear things are bad between you and {who},\" {name} says."]),
    MemoryLine(about="other", sign="+", text=["\"I know how things stand between you and {who},\" {name} says."]),
    MemoryLine(about="other", sign="-",
               text=["\"I know how things stand between you and {who},\" {name} says, and does not smile."]),
    MemoryLine(sign="+", text=["\"I haven't forgotten you,\" {name} says."]),
    MemoryLine(sign="-", text=["{name} watches you warily. \"I remember the last time you came,\" {name} says."]),
)
"""The built-in lines for a memory of how someone stands with the player (a relation heard or stated, no
deed known behind it): never told as something the player did (issue 23)."""


async def recall(turn: Turn, only: CharacterDef | None = None, chance: float = RECALL_CHANCE) -> bool:
    """Someone the player talked to this turn (``only``: that person) brings up a memory of the player,
    maybe. True when one was said. Only on ``talk``: a question or an act gets its own answer."""
    memory_view = turn.memory.view
    if memory_view is None or not turn.log.time_passes:
        return False
    if any(a.kind == "recalled" for a in turn.memory.acts):
        return False
    present = turn.play.present(turn.world)
    talked = [a.character for a in turn.memory.acts if a.kind == "act" and a.verb == "talk"]
    names = [only.name] if only is not None else [n for n in talked if n in present]
    for name in names:
        character = turn.world.character(name)
        npc = await turn.memory.npc_id(name)
        # HOSTILE people say only their tier line: a grievance after "will not speak to you" is speech.
        if character is None or npc is None or turn.rules.tier(name) == "HOSTILE":
            continue
        last = memory_view.said_turn(npc, RECALLED)
        if last is not None and turn.number - last < RECALL_GAP:
            continue
        own = await _own_people(turn, npc)
        sour = soured(turn, name)  # turned against the player this turn: no warm memory beside it
        candidates = [m for m in memory_view.relevant(npc)
                      if _worth_saying(m, turn.number) and feels_like(turn, name, m.valence)
                      and not (m.valence > 0 and sour)
                      and (not m.about or m.about in own or not DEED_TAGS.intersection(m.tags))
                      and not (m.heard and m.about and m.about not in own and await _deed_behind(turn, npc, m))
                      and not await _made_up_for(turn, npc, m)][:CANDIDATES]
        if not candidates:
            continue
        # Its own generator: whether and which memory comes up never changes the turn's other choices.
        rng = random.Random(f"memory:{turn.number}:{npc}:{len(memory_view.memories(npc))}")
        if rng.random() >= chance:
            continue
        memory = rng.choice(candidates)
        line = _line(turn, character, memory, await _deed_behind(turn, npc, memory))
        if line is None:
            continue
        who = await _who(turn, memory)
        # A kind memory is brought up beside the greeting; a grievance replaces a greeting said again, as
        # news of a harm does, so one reply has one tone ("What can the Guild do for you this time?" never
        # stands beside "does not smile"). A first meeting's greeting is who they are, and stays.
        again = await turn.memory.has_met(name)
        turn.say_cold(name, fill(rng.choice(line.text), {"name": character.short_name, "who": who,
                                                          "memory": memory.text}), memory.valence < 0 and again)
        turn.memory.note(IRAct(kind="recalled", character=name, detail=str(memory.seq)))
        turn.touch(name)
        return True
    return False


async def talk_again(turn: Turn, character: CharacterDef) -> None:
    """Talking to someone after the first meeting: their ``again`` line, else a memory, else a nod."""
    if character.again:
        turn.say_text(character.again)
        return
    if await recall(turn, only=character, chance=1.0):
        return
    turn.log.say(f"{character.short_name} gives you a nod; you have spoken before.")


async def _own_people(turn: Turn, npc: str) -> set[str]:
    """Those ``npc`` holds by a warm tie: only a deed done to them moved ``npc`` (game.features.deeds.attitudes),
    so only of them is "I haven't forgotten what you did" not a chill that /relationship lacks."""
    return {e.other_end(npc) for e in await turn.rules.view.reader.open_edges_of(npc) if e.strength > 0} - {npc}


def _worth_saying(memory: Memory, turn: int) -> bool:
    return (memory.turn < turn and abs(memory.valence) >= 0.2
            and not QUIET_TAGS.intersection(memory.tags))


async def _deed_behind(turn: Turn, npc: str, memory: Memory) -> bool:
    """Whether ``memory`` is of something the player did: an act seen (its tags say so), or, for one heard,
    a deed of the player's to the same person, of the same sign, that ``npc`` knows (game.features.deeds)."""
    if not memory.heard:
        return bool(DEED_TAGS.intersection(memory.tags))
    book = deed_news.book_of(turn)
    player = await turn.rules.view.node(turn.world.player_name)
    if book is None or player is None:
        return False
    wanted = "kind" if memory.valence > 0 else "harmful"
    return any(deed.actor == player.id and deed.target == memory.about and deed.valence == wanted
               for deed, _ in book.known_by(npc))


async def _made_up_for(turn: Turn, npc: str, memory: Memory) -> bool:
    """Whether ``memory`` is a grievance of a harm done to someone else that ``npc`` knows the player has
    since said sorry for, every such harm of theirs: Hob, told of Tibby's apology (and saying "That's
    something"), does not bring up "I heard what you did to Tibby" ninety turns on as if it were not."""
    if memory.valence >= 0 or not memory.about:
        return False
    book = deed_news.book_of(turn)
    player = await turn.rules.view.node(turn.world.player_name)
    if book is None or player is None:
        return False
    known = book.known_by(npc)
    told = {deed.deed_id for deed, _ in known}
    harms = [deed for deed, _ in known if deed.actor == player.id and deed.target == memory.about
             and deed.valence == "harmful" and deed.turn <= memory.turn]
    return bool(harms) and all(any(a.deed_id in told for a in book.amends(harm)) for harm in harms)


def _line(turn: Turn, character: CharacterDef, memory: Memory, deed: bool) -> MemoryLine | None:
    """The first line, the character's own, then the world's, then the built-in, that fits ``memory``
    (the built-in lines speak of "what you did" only when ``deed``: a deed is behind the memory)."""
    sign = "+" if memory.valence > 0 else "-"
    about = "other" if memory.about else "self"
    for line in [*character.memories, *turn.world.section.memories, *(DEED_LINES if deed else STANDING_LINES)]:
        if line.heard is not None and line.heard != memory.heard:
            continue
        if line.sign is not None and line.sign != sign:
            continue
        if line.about is not None and line.about != about:
            continue
        if line.tags and not set(line.tags) & set(memory.tags):
            continue
        return line
    return None


async def _who(turn: Turn, memory: Memory) -> str:
    """How the speaker names whom the deed was done to: a short name, or "me" for themselves."""
    if not memory.about:
        return "me"
    found = await turn.rules.view.reader.get_nodes([memory.about])
    node = found.get(memory.about)
    return turn.short(node.name) if node is not None else "someone"
