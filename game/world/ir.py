"""World IR: the typed facts of one turn, which the extractor turns into graph upserts.

A narrator produces it after telling the turn. It says who was present, which entities were named (and
of what kind), which relations the turn stated or ended (each with the sentence that supports it), and
who is on stage for the next turn. Only characters, groups and factions become graph nodes.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field
from pydantic.json_schema import SkipJsonSchema

from game.graph.models import MAX_RELATION_CHARS, RELATION_PATTERN, CamelModel

EntityKind = Literal["character", "group", "faction", "place", "item", "skill", "concept"]
GRAPH_KINDS: dict[str, str] = {"character": "individual", "group": "group", "faction": "faction"}
"""A World IR kind to the graph node type it becomes; the other kinds never become nodes."""
NODE_KINDS: dict[str, EntityKind] = {"individual": "character", "group": "group", "faction": "faction"}
"""A graph node type to the World IR kind that names it: ``GRAPH_KINDS`` the other way round."""


class IREntity(CamelModel):
    """An entity the turn named."""

    name: str = Field(min_length=1, max_length=100)
    kind: EntityKind
    summary: str | None = Field(default=None, max_length=400)
    aliases: list[str] = Field(default_factory=list, max_length=12)
    labels: list[str] = Field(default_factory=list, max_length=5)


class IRRelation(CamelModel):
    """A relationship the turn stated: ``source`` RELATION ``target``, how strongly, in one sentence."""

    source: str = Field(min_length=1, max_length=100)
    target: str = Field(min_length=1, max_length=100)
    relation: str = Field(min_length=1, max_length=MAX_RELATION_CHARS, pattern=RELATION_PATTERN)
    strength: float = Field(ge=-1.0, le=1.0, allow_inf_nan=False)
    fact: str = Field(min_length=8, max_length=400)
    evidence: str = Field(default="", max_length=600, description="The sentence of the turn that supports it.")
    # Who learns it, as the story engine knows it; left out of the schema a model is shown (a model's IR
    # leaves knowledge to the defaults: the ends and whoever was on stage).
    known_by: SkipJsonSchema[list[str] | None] = Field(default=None, max_length=24)
    public: SkipJsonSchema[bool | None] = None
    told_by: SkipJsonSchema[str | None] = Field(default=None, max_length=100,
                                                description="Who told it to those on stage.")


class IREndedRelation(CamelModel):
    """A relationship the turn ended, with the sentence that says so."""

    source: str = Field(min_length=1, max_length=100)
    target: str = Field(min_length=1, max_length=100)
    relation: str = Field(min_length=1, max_length=MAX_RELATION_CHARS, pattern=RELATION_PATTERN)
    evidence: str = Field(default="", max_length=600)


class IRAttitude(CamelModel):
    """A change to one character's attitude toward the player that the story engine worked out (an act done
    to them, a world rule); a model's attitudes come from its relations toward the player instead."""

    name: str = Field(min_length=1, max_length=100)
    trust: float = Field(default=0.0, ge=-100, le=100, allow_inf_nan=False)
    respect: float = Field(default=0.0, ge=-100, le=100, allow_inf_nan=False)
    friendliness: float = Field(default=0.0, ge=-100, le=100, allow_inf_nan=False)
    reason: str = Field(min_length=1, max_length=200)
class IRAct(CamelModel):
    """Something that passed between the player and one person this turn, as the story engine saw it.

    NPCs' memories are formed from these (``game.features.memories.rules``), never from prose. Only the
    offline story engine states them; they are left out of the schema a model is shown.
    """

    kind: Literal["act", "met", "revealed", "recalled"]
    """``act``: the player did ``verb`` to ``character``; ``met``: their first meeting; ``revealed``:
    ``character`` told the player the revelation ``detail`` (``NAME:KEY``); ``recalled``: ``character``
    spoke of their memory number ``detail``."""
    character: str = Field(min_length=1, max_length=100)
    verb: str = Field(default="", max_length=40)
    detail: str = Field(default="", max_length=200)
    """The item given or shown, the topic asked about, the revelation's ``NAME:KEY``, or a memory's number."""
    text: str = Field(default="", max_length=400)
    """For ``revealed``: the revelation's sentence."""


class IRDeed(CamelModel):
    """Something one person did to another this turn: ``actor`` did ``act`` to ``target`` (both on stage).

    Recorded as a deed (``game.features.deeds``) only when both people are known and were where the
    player is; ``act`` is a verb's plain word (threaten, help, give...).
    """

    actor: str = Field(min_length=1, max_length=100)
    act: str = Field(min_length=1, max_length=40)
    target: str = Field(min_length=1, max_length=100)
    thing: str = Field(default="", max_length=200, description="The item given or used, if any.")
    evidence: str = Field(default="", max_length=600, description="The sentence of the turn that says so.")


class WorldIR(CamelModel):
    """Everything the graph may learn from one turn."""

    characters_present: list[str] = Field(default_factory=list, max_length=40)
    entities: list[IREntity] = Field(default_factory=list, max_length=60)
    relations: list[IRRelation] = Field(default_factory=list, max_length=40)
    ended_relations: list[IREndedRelation] = Field(default_factory=list, max_length=20)
    next_cast: list[str] = Field(default_factory=list, max_length=40)
    location: str | None = None
    # The story engine's own (left out of the schema a model is shown; docs/architecture.md, "Attitudes").
    attitudes: SkipJsonSchema[list[IRAttitude] | None] = Field(default=None, max_length=20)
    acts: SkipJsonSchema[list[IRAct] | None] = Field(default=None, max_length=40)
    """What passed between the player and the people here (offline story only; None from a model)."""
    # Described to the model in the prompt's field list, not its schema: the schema is inlined for servers
    # that cannot enforce one, and a small context has no room for another nested object.
    deeds: SkipJsonSchema[list[IRDeed] | None] = Field(default=None, max_length=12)
    """What people did to each other this turn, as the narration shows it (recorded as deeds when both
    people are known and on stage: ``game.features.deeds.record``)."""

    def named(self) -> set[str]:
        """Every name this IR mentions anywhere (used to bound what a model may close)."""
        names = {*self.characters_present, *self.next_cast}
        names.update(e.name for e in self.entities)
        for entity in self.entities:
            names.update(entity.aliases)
        for relation in self.relations:
            names.update((relation.source, relation.target))
        for ended in self.ended_relations:
            names.update((ended.source, ended.target))
        return names
