"""What the people of the story remember of the player, as one turn reads it and adds to it.

The story engine reads NPCs' memories (``game.features.memories.book``) through a ``MemoryView`` of the book as the
turn began, and states what passes between the player and each person this turn as ``IRAct``s in the
World IR: the player's acts, first meetings, secrets revealed, memories recalled. The turn pipeline forms
memories from those facts after the turn (``game.features.memories.rules``); nothing here writes anything.

Three things a person says stay true because they read this, not a flag: a first meeting happens once
(``has_met``), a confession stays confessed and a secret once told is not denied again (``has_revealed``,
``confessed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.features.memories.book import MemoryView
from game.story.relations import RelationView
from game.world import World
from game.world.ir import IRAct

MET = "met"
RECALLED = "recalled"


def revealed_key(subject: str, key: str) -> str:
    """The ``said`` key of a revelation told: ``revealed:CANONICAL NAME:KEY``."""
    return f"revealed:{subject}:{key}"


@dataclass
class Remembered:
    """The turn's window on NPCs' memories, and the acts the turn states for memories to be formed from."""

    world: World
    relations: RelationView
    view: MemoryView | None = None
    """The book as the turn began; None when the narrator was handed no memories (every NPC a blank)."""
    acts: list[IRAct] = field(default_factory=list)
    answered: set[str] = field(default_factory=set)
    """Who answered the player's act with a reaction of theirs this turn (help accepted, a gift taken)."""

    async def npc_id(self, name: str) -> str | None:
        node = await self.relations.node(name)
        return node.id if node is not None and node.type == "individual" else None

    async def said(self, name: str) -> list[str]:
        """What ``name`` remembers saying before this turn (``said`` keys)."""
        npc = await self.npc_id(name) if self.view is not None else None
        return [] if npc is None or self.view is None else self.view.said_keys(npc)

    async def has_met(self, name: str) -> bool:
        """Whether ``name`` remembers meeting the player before this turn."""
        return MET in await self.said(name)

    def _said_now(self, name: str, key: str) -> bool:
        return any(a.kind == "revealed" and a.character == name and revealed_key(*_split(a.detail)) == key
                   for a in self.acts)

    async def has_revealed(self, name: str, ref: str) -> bool:
        """Whether ``name`` has told the player the revelation ``ref`` (``NAME:KEY``, or ``KEY`` of their own),
        before or during this turn."""
        subject, key = _split(ref, default=name)
        wanted = revealed_key(self.world.canonical(subject) or subject, key)
        return self._said_now(name, wanted) or wanted in await self.said(name)

    async def confessed(self, name: str) -> bool:
        """Whether ``name`` has told the player one of their own secrets (before or during this turn)."""
        own = f"revealed:{name}:"
        return (any(k.startswith(own) for k in await self.said(name))
                or any(a.kind == "revealed" and a.character == name and _split(a.detail)[0] == name for a in self.acts))

    def note(self, act: IRAct) -> None:
        if act not in self.acts:
            self.acts.append(act)

    def note_met(self, name: str) -> None:
        if not any(a.kind == "met" and a.character == name for a in self.acts):
            self.acts.append(IRAct(kind="met", character=name))

    def note_revealed(self, speaker: str, refs: list[str]) -> None:
        """``speaker`` told the player these revelations (``NAME:KEY`` as content writes them)."""
        for ref in refs:
            subject, key = _split(ref.strip(), default=speaker)
            canonical = self.world.canonical(subject.strip()) or subject.strip()
            found = self.world.character(canonical)
            revelation = found.revelation(key.strip()) if found is not None else None
            self.note(IRAct(kind="revealed", character=speaker, detail=f"{canonical}:{key.strip()}"[:200],
                            text=self.world.text(revelation.text) if revelation is not None else ""))


def _split(ref: str, default: str = "") -> tuple[str, str]:
    """``NAME:KEY`` into its two parts (a bare ``KEY`` belongs to ``default``)."""
    name, _, key = ref.rpartition(":")
    return (name.strip() or default), key.strip()
