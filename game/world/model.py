"""A loaded world: its content, checked and indexed, and the game's state at turn 0.

``World`` is what the engine and narrators read; it never changes after loading. Lookups by name go
through ``normalize_name`` so a player's "the netmender" finds the same character as the content's
"Mira Sallow".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from game.graph.calls import chunk_calls
from game.graph.metapaths import MetaPath
from game.graph.names import normalize_name
from game.graph.vocabulary import Vocabulary
from game.world.scene import SceneState, StoryState
from game.world.schema import (
    Beat,
    CharacterDef,
    Command,
    Ending,
    Item,
    Place,
    PlayerDef,
    RelationChange,
    Replies,
    WorldSection,
)

PLAYER_WORD = "player"
"""How content names the player character in relations and conditions, whatever the player is called."""


@dataclass(frozen=True)
class WorldInfo:
    """A world as ``list_worlds`` shows it; ``error`` is set (and the rest may be thin) when it is broken."""

    id: str
    title: str
    summary: str
    error: str | None = None


@dataclass
class World:
    """A validated world. Build it with ``game.world.load_world``."""

    id: str
    section: WorldSection
    player: PlayerDef
    vocabulary: Vocabulary
    characters: list[CharacterDef]
    places: dict[str, Place]
    items: dict[str, Item]
    relationships: list[RelationChange]
    beats: list[Beat]
    commands: list[Command]
    endings: dict[str, Ending]
    replies: Replies
    metapaths: tuple[MetaPath, ...] = ()
    """The world's own meta-path patterns (canonical relation names), added to the defaults."""
    _by_name: dict[str, CharacterDef] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        for character in self.characters:
            for name in character.names:
                self._by_name.setdefault(normalize_name(name), character)

    # ------------------------------------------------------------------------------------ attributes

    @property
    def title(self) -> str:
        return self.section.title

    @property
    def summary(self) -> str:
        return self.section.summary

    @property
    def premise(self) -> str:
        return self.section.premise

    @property
    def style(self) -> str:
        return self.section.style

    @property
    def player_name(self) -> str:
        return self.player.name

    @property
    def start(self) -> str:
        return self.section.start

    @property
    def ending_titles(self) -> dict[str, str]:
        return {ending.id: ending.title for ending in self.endings.values()}

    @cached_property
    def subject_words(self) -> frozenset[str]:
        """Every word of a name, alias, label or topic in the content: what a subject a player asks about
        may name. A subject with none of them is about nothing in this story."""
        phrases: list[str] = []
        for character in self.characters:
            phrases += [*character.names, *character.labels]
            phrases += [key for topic in character.topics for key in topic.about]
            phrases += [key for reaction in character.reactions for key in reaction.about]
        for item in self.items.values():
            phrases += item.names
        for place in self.places.values():
            phrases += [place.id, place.name, *(n for f in place.features for n in f.names)]
        return frozenset(w for p in phrases for w in re.findall(r"[a-z0-9]+", p.casefold()) if len(w) >= 3)

    # ------------------------------------------------------------------------------------ lookups

    def character(self, name_or_alias: str) -> CharacterDef | None:
        """The character, group or faction a name or alias means (case and spacing do not matter)."""
        return self._by_name.get(normalize_name(name_or_alias))

    def place(self, place_id: str) -> Place | None:
        return self.places.get(place_id)

    def item(self, item_id: str) -> Item | None:
        return self.items.get(item_id)

    def is_player(self, name: str) -> bool:
        key = normalize_name(name)
        return key == PLAYER_WORD or key in {normalize_name(n) for n in (self.player.name, *self.player.aliases)}

    def canonical(self, name: str) -> str | None:
        """The graph node name content means by ``name``: a character's name, or the player's."""
        if self.is_player(name):
            return self.player.name
        found = self.character(name)
        return found.name if found else None

    def text(self, value: str) -> str:
        """Content text with ``{player}`` filled in."""
        return value.replace("{player}", self.player.name)

    # ------------------------------------------------------------------------------------ turn 0

    def initial_scene(self) -> SceneState:
        """Where the story starts: the player's place, who is there, what everyone carries."""
        positions = {c.name: c.location for c in self.characters if c.location}
        item_places: dict[str, str] = {}
        held: dict[str, str] = {}
        inventory: list[str] = []
        for item in self.items.values():
            if item.location is None:
                continue
            if self.is_player(item.location):
                inventory.append(item.id)
            elif item.location in self.places:
                item_places[item.id] = item.location
            else:
                holder = self.character(item.location)
                if holder is not None:
                    held[item.id] = holder.name
        cast = [
            c.name for c in self.characters
            if c.type == "individual" and positions.get(c.name) == self.start
        ]
        return SceneState(
            location=self.start,
            cast=cast,
            inventory=inventory,
            flags={flag: True for flag in self.section.flags},
            met=[],
            visited=[self.start],
            rng_state=0,
            story=StoryState(
                positions=positions, item_places=item_places, held=held, goal=self.section.goal, clock=0,
            ),
        )

    def initial_graph_calls(self) -> list[dict[str, Any]]:
        """Upsert calls that seed the graph at turn 0: every character, the player, the known relations."""
        nodes: list[dict[str, Any]] = []
        player: dict[str, Any] = {
            "name": self.player.name, "type": "individual", "summary": self.text(self.player.summary),
            "attributes": {"player": True},
        }
        if self.player.aliases:
            player["aliases"] = list(self.player.aliases)
        if self.player.labels:
            player["labels"] = list(self.player.labels)
        nodes.append(player)
        for character in self.characters:
            node: dict[str, Any] = {"name": character.name, "type": character.type,
                                    "summary": self.text(character.summary)}
            if character.aliases:
                node["aliases"] = list(character.aliases)
            if character.labels:
                node["labels"] = list(character.labels)
            nodes.append(node)
        edges: list[dict[str, Any]] = []
        for relation in self.relationships:
            edge: dict[str, Any] = {
                "sourceName": self.canonical(relation.source) or relation.source,
                "targetName": self.canonical(relation.target) or relation.target,
                "relation": relation.relation,
                "strength": relation.strength,
                "fact": self.text(relation.fact),
            }
            if relation.known_by is not None:
                edge["knownBy"] = [self.canonical(name) or name for name in relation.known_by]
            if relation.public:
                edge["public"] = True
            edges.append(edge)
        return chunk_calls(nodes, edges, [])
