"""Conditions and effects: the rules content is written in, evaluated against the scene and the graph.

Relationship conditions read the graph through the request's ``GraphReader``, overlaid with the
changes this turn has already made, so a beat sees a trust the player won a moment earlier in the
same turn. Effects never write the graph: they become World IR statements, which the extractor turns
into upserts through the same path an LLM narrator's World IR takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.narrator.offline_state import Play
from game.narrator.offline_text import evidence_sentence, tidy
from game.world import World
from game.world.checks import NOWHERE
from game.world.ir import IREndedRelation, IRRelation
from game.world.refs import RelationRef, strength_matches
from game.world.schema import Conditions, Effects

RelationKey = tuple[str, str, str]


@dataclass
class TurnLog:
    """What a turn said and stated, in order: the prose, and the relations it made or ended."""

    paragraphs: list[str] = field(default_factory=list)
    relations: list[IRRelation] = field(default_factory=list)
    ended: list[IREndedRelation] = field(default_factory=list)
    named: list[str] = field(default_factory=list)
    items: list[str] = field(default_factory=list)
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


class RelationView:
    """Open relations as the graph holds them, plus this turn's changes not yet committed."""

    def __init__(self, world: World, reader: GraphReader) -> None:
        self.world = world
        self.reader = reader
        self.pending: dict[RelationKey, float | None] = {}
        self._nodes: dict[str, Node | None] = {}

    def key(self, source: str, target: str, relation: str) -> tuple[RelationKey, bool]:
        """The stored form of a relation (canonical name and direction), and whether it is symmetric."""
        normalized = self.world.vocabulary.normalize(relation)
        if normalized.flipped:
            source, target = target, source
        if normalized.symmetric and normalize_name(target) < normalize_name(source):
            source, target = target, source
        return (normalize_name(source), normalize_name(target), normalized.name), normalized.symmetric

    def record(self, source: str, target: str, relation: str, strength: float | None) -> None:
        self.pending[self.key(source, target, relation)[0]] = strength

    async def strength(self, source: str, target: str, relation: str) -> float | None:
        """The strength of the open version of ``source -relation-> target``, or None when none is open."""
        (s_key, t_key, name), symmetric = self.key(source, target, relation)
        if (s_key, t_key, name) in self.pending:
            return self.pending[(s_key, t_key, name)]
        s_node, t_node = await self._node(s_key), await self._node(t_key)
        if s_node is None or t_node is None:
            return None
        edges = list(await self.reader.open_edges_between(s_node.id, t_node.id, name))
        if symmetric:
            edges += await self.reader.open_edges_between(t_node.id, s_node.id, name)
        if not edges:
            return None
        return max(edges, key=lambda e: (e.valid_at, e.id)).strength

    async def _node(self, key: str) -> Node | None:
        if key not in self._nodes:
            found = (await self.reader.nodes_named([key])).get(key, [])
            exact = [n for n in found if normalize_name(n.name) == key]
            if key == normalize_name(self.world.player_name):
                exact = [n for n in exact if n.attributes.get("player")] or exact
            candidates = exact or found
            self._nodes[key] = candidates[0] if candidates else None
        return self._nodes[key]


class Rules:
    """Evaluates conditions and applies effects for one turn."""

    def __init__(self, world: World, play: Play, view: RelationView, log: TurnLog, turn: int) -> None:
        self.world = world
        self.play = play
        self.view = view
        self.log = log
        self.turn = turn

    # ------------------------------------------------------------------------------------ conditions

    async def holds(self, cond: Conditions) -> bool:
        play = self.play
        if cond.place:
            wanted = [p for p in cond.place if not p.startswith("!")]
            if wanted and play.location not in wanted:
                return False
            if play.location in {p[1:] for p in cond.place if p.startswith("!")}:
                return False
        checks = [
            (cond.flags, play.flag),
            (cond.items, play.carries),
            (cond.present, lambda n: self._canonical(n) in play.present(self.world)),
            (cond.met, lambda n: self._canonical(n) in play.met),
            (cond.fired, lambda b: b in play.fired),
        ]
        for entries, test in checks:
            for entry in entries:
                negated = entry.startswith("!")
                if test(entry.removeprefix("!")) == negated:
                    return False
        for beat, turns in cond.since.items():
            if beat not in play.fired or self.turn - play.fired[beat] < turns:
                return False
        for name, place in cond.at.items():
            where = play.positions.get(self._canonical(name)) or NOWHERE
            if (where == place.removeprefix("!")) == place.startswith("!"):
                return False
        if cond.turn_min is not None and self.turn < cond.turn_min:
            return False
        if cond.turn_max is not None and self.turn > cond.turn_max:
            return False
        for ref in cond.relations:
            if not await self.relation_holds(ref):
                return False
        if cond.any_of:
            for sub in cond.any_of:
                if await self.holds(sub):
                    return True
            return False
        return True

    async def relation_holds(self, ref: RelationRef) -> bool:
        strength = await self.view.strength(self._canonical(ref.source), self._canonical(ref.target), ref.relation)
        found = strength is not None and strength_matches(ref, strength)
        return found != ref.negated

    def _canonical(self, name: str) -> str:
        return self.world.canonical(name) or name

    # ------------------------------------------------------------------------------------ effects

    def apply(self, effects: Effects, text: str) -> None:
        """Apply ``effects``; ``text`` is the prose that told them, where relations find their evidence."""
        play = self.play
        for flag in effects.set_flags:
            play.flags[flag] = True
        for flag in effects.clear:
            play.flags.pop(flag, None)
        for item in effects.give:
            play.give_player(item)
            self.log.item(item)
        for item in effects.remove:
            play.remove_item(item)
        for name, place in effects.move.items():
            self.move(self._canonical(name), None if place == NOWHERE else place)
        for item, where in effects.put.items():
            if where in self.world.places:
                play.put(item, place=where)
            else:
                play.put(item, holder=self._canonical(where))
        if effects.move_player is not None:
            play.move_player(effects.move_player)
        for name in effects.meet:
            play.meet(self._canonical(name))
            self.log.name(self._canonical(name))
        for change in effects.relations:
            source, target = self._canonical(change.source), self._canonical(change.target)
            fact = self.world.text(change.fact)
            evidence = self.world.text(change.evidence) if change.evidence else evidence_sentence(
                text, self._forms(source), self._forms(target))
            self.log.relations.append(IRRelation(
                source=source, target=target, relation=change.relation, strength=change.strength,
                fact=fact, evidence=evidence,
            ))
            self.view.record(source, target, change.relation, change.strength)
            self.log.name(source)
            self.log.name(target)
        for ref in effects.end:
            source, target = self._canonical(ref.source), self._canonical(ref.target)
            self.log.ended.append(IREndedRelation(
                source=source, target=target, relation=ref.relation,
                evidence=evidence_sentence(text, self._forms(source), self._forms(target)),
            ))
            self.view.record(source, target, ref.relation, None)
            self.log.name(source)
            self.log.name(target)
        if effects.goal is not None:
            play.goal = effects.goal
        if effects.ending is not None and play.ending is None:
            play.ending = effects.ending

    def move(self, name: str, place: str | None) -> None:
        """Move a character; one who leaves the player's place can be followed next turn."""
        play = self.play
        was = play.positions.get(name)
        if place is None:
            play.positions.pop(name, None)
        else:
            play.positions[name] = place
        if was == play.location and place != play.location and place is not None:
            play.departures[name] = place

    def _forms(self, name: str) -> list[str]:
        """The words prose uses for a party: names and aliases, and "you" for the player."""
        if self.world.is_player(name):
            return ["you", "your", "yours", *self.world.player.aliases, self.world.player_name]
        character = self.world.character(name)
        if character is None:
            return [name]
        return [*character.names, *character.name.split()[:1]]
