"""What a turn said and stated, in order: the prose, and the relations it made or ended.

Actions and rules write here; the turn runner reads it back as the narration and the World IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.story.prose import tidy
from game.world.ir import IRAttitude, IREndedRelation, IRRelation


@dataclass
class TurnLog:
    """What a turn said and stated, in order: the prose, and the relations it made or ended."""

    paragraphs: list[str] = field(default_factory=list)
    relations: list[IRRelation] = field(default_factory=list)
    ended: list[IREndedRelation] = field(default_factory=list)
    named: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
    attitudes: list[IRAttitude] = field(default_factory=list)
    """Changes to attitudes toward the player this turn: acts done to people, world rules."""
    time_passes: bool = True

    def say(self, text: str) -> None:
        text = tidy(text)
        if text:
            self.paragraphs.append(text)

    def name(self, character: str) -> None:
        if character not in self.named:
            self.named.append(character)

    def item(self, item: str) -> None:
        if item not in self.items:
            self.items.append(item)

    @property
    def text(self) -> str:
        return "\n\n".join(self.paragraphs)
