"""What a world holds for the explorer to reach, and what one turn reached of it.

Places, beats and revelations are read from the scene; topics, reactions and world commands from the
output, by their authored replies (``matching``). Labels are what the report prints: a place or beat or
command id, ``Name: subject`` for a topic, ``Name: act`` for a reaction, ``Name:key`` for a revelation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.explore.matching import keys, told
from game.world import World
from game.world.scene import SceneState

KINDS = ("places", "topics", "reactions", "beats", "revelations", "commands")


def _unique(label: str, taken: dict[str, list[str]]) -> str:
    """The label, numbered when an earlier entry has it already (two topics on the same subject)."""
    if label not in taken:
        return label
    number = 2
    while f"{label} #{number}" in taken:
        number += 1
    return f"{label} #{number}"


@dataclass
class Catalogue:
    """Every reachable thing of one world, by kind, with the text keys that show a topic or reply fired."""

    world: World
    topics: dict[str, list[str]] = field(default_factory=dict)
    reactions: dict[str, list[str]] = field(default_factory=dict)
    commands: dict[str, list[str]] = field(default_factory=dict)
    hidden: set[tuple[str, str]] = field(default_factory=set)
    """(kind, label) of topics, reactions and commands the world marks ``explore = false``: never listed as
    unreached."""
    lies: list[tuple[str, list[str], list[str], list[str]]] = field(default_factory=list)
    """(speaker, reply keys, revelation keys it denies, the speaker's own keys) of every lie topic."""

    @classmethod
    def of(cls, world: World) -> Catalogue:
        catalogue = cls(world)
        for character in world.characters:
            own = [r.key for r in character.revelations]
            for topic in character.topics:
                label = _unique(f"{character.name}: {topic.about[0]}", catalogue.topics)
                catalogue.topics[label] = keys(world, topic.reply)
                if not topic.explore:
                    catalogue.hidden.add(("topics", label))
                if topic.lie:
                    catalogue.lies.append((character.name, keys(world, topic.reply), list(topic.denies), own))
            for reaction in character.reactions:
                act = "/".join(reaction.act) + (f" {reaction.item}" if reaction.item else "")
                label = _unique(f"{character.name}: {act}", catalogue.reactions)
                catalogue.reactions[label] = keys(world, reaction.reply)
                if not reaction.explore:
                    catalogue.hidden.add(("reactions", label))
        for command in world.commands:
            catalogue.commands[command.id] = keys(world, command.reply)
            if not command.explore:
                catalogue.hidden.add(("commands", command.id))
        return catalogue

    def everything(self) -> dict[str, list[str]]:
        world = self.world
        revelations = [f"{c.name}:{r.key}" for c in world.characters for r in c.revelations]
        return {"places": list(world.places), "topics": self._shown("topics", self.topics),
                "reactions": self._shown("reactions", self.reactions),
                "beats": [b.id for b in world.beats if b.explore],
                "revelations": revelations, "commands": self._shown("commands", self.commands)}

    def _shown(self, kind: str, labels: dict[str, list[str]]) -> list[str]:
        return [label for label in labels if (kind, label) not in self.hidden]

    def reached(self, scene: SceneState, output: str) -> dict[str, set[str]]:
        """What this scene and this (squashed) output show as reached."""
        story = scene.story
        revealed = {f"{a.name}:{key}" for a in (scene.known or {}).values() for key in a.revealed}
        return {
            "places": set(scene.visited),
            "topics": {label for label, k in self.topics.items() if told(output, k)},
            "reactions": {label for label, k in self.reactions.items() if told(output, k)},
            "beats": set(story.fired) if story is not None else set(),
            "revelations": revealed,
            "commands": {label for label, k in self.commands.items() if told(output, k)},
        }
