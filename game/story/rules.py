"""Rules: the conditions content is written in, the effects it causes, and the beats that run on time.

Conditions are evaluated against the turn's working state and the graph (through ``RelationView``).
Effects never write the graph: they become World IR statements, which the extractor turns into upserts
through the same path a model narrator's World IR takes.
"""

from __future__ import annotations

import random

from game.features.attitudes.model import AttitudeView
from game.story.log import TurnLog
from game.story.prose import evidence_sentence, pick
from game.story.relations import RelationView
from game.story.state import Play
from game.world import World
from game.world.checks import NOWHERE
from game.world.ir import IRAttitude, IREndedRelation, IRRelation
from game.world.refs import RelationRef, strength_matches
from game.world.schema import Conditions, Effects
from game.world.tiers import Tier, tier_matches


class Rules:
    """Evaluates conditions, applies effects and runs the beats for one turn."""

    def __init__(self, world: World, play: Play, view: RelationView, log: TurnLog, now: int,
                 rng: random.Random, attitudes: AttitudeView | None = None) -> None:
        self.world = world
        self.play = play
        self.view = view
        self.log = log
        self.attitudes = attitudes
        """Everyone's attitude toward the player as the turn began (None: everyone NEUTRAL)."""
        # The story clock if this turn takes time: ``turn_min``, ``since`` and a beat's firing read it,
        # so looking around and asking for hints never bring the story's end nearer.
        self.now = now
        self.rng = rng

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
            (cond.fired, lambda b: b in play.story.fired),
        ]
        for entries, test in checks:
            for entry in entries:
                negated = entry.startswith("!")
                if test(entry.removeprefix("!")) == negated:
                    return False
        for beat, turns in cond.since.items():
            if beat not in play.story.fired or self.now - play.story.fired[beat] < turns:
                return False
        for name, place in cond.at.items():
            where = play.story.positions.get(self._canonical(name)) or NOWHERE
            if (where == place.removeprefix("!")) == place.startswith("!"):
                return False
        if cond.turn_min is not None and self.now < cond.turn_min:
            return False
        if cond.turn_max is not None and self.now > cond.turn_max:
            return False
        for ref in cond.relations:
            if not await self.relation_holds(ref):
                return False
        for name, spec in cond.tier.items():
            if not tier_matches(self.tier(name), spec):
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

    def tier(self, name: str) -> Tier:
        """``name``'s attitude tier toward the player as this turn began."""
        return "NEUTRAL" if self.attitudes is None else self.attitudes.tier(self._canonical(name))

    # ------------------------------------------------------------------------------------ effects

    def apply(self, effects: Effects, text: str, teller: str | None = None) -> None:
        """Apply ``effects``; ``text`` is the prose that told them, where relations find their evidence.

        ``teller``: the character whose words or deeds these are (a topic's or reaction's): those on stage
        learn its relations as told by them.
        """
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
            # How the teller now stands with the player happens in front of everyone here: they saw it
            # (Maud, beside you, saw Pell cower; she did not hear it from him). Anything else is told.
            shown = teller is not None and teller in (source, target) and (
                self.world.is_player(source) or self.world.is_player(target))
            self.log.relations.append(IRRelation(
                source=source, target=target, relation=change.relation, strength=change.strength,
                fact=fact, evidence=evidence, public=change.public or None, told_by=None if shown else teller,
                known_by=None if change.known_by is None else [self._canonical(n) for n in change.known_by],
            ))
            self.view.record(source, target, change.relation, change.strength)
            self.log.name(source)
            self.log.name(target)
        for reveal in effects.reveal:
            name, _, key = reveal.rpartition(":")
            play.reveals.append((self._canonical(name.strip()), key.strip()))
        for ref in effects.end:
            source, target = self._canonical(ref.source), self._canonical(ref.target)
            self.log.ended.append(IREndedRelation(
                source=source, target=target, relation=ref.relation,
                evidence=evidence_sentence(text, self._forms(source), self._forms(target)),
            ))
            self.view.record(source, target, ref.relation, None)
            self.log.name(source)
            self.log.name(target)
        for moved in effects.attitude:
            self.log.attitudes.append(IRAttitude(
                name=self._canonical(moved.name), trust=moved.trust, respect=moved.respect,
                friendliness=moved.friendliness, reason=self.world.text(moved.reason)))
        if effects.goal is not None:
            play.story.goal = effects.goal
        if effects.ending is not None and play.ending is None:
            play.ending = effects.ending

    # ------------------------------------------------------------------------------------ beats

    async def run_beats(self) -> None:
        """Every beat whose time has come, in the world's order, until one ends the story."""
        play = self.play
        for beat in self.world.beats:
            if play.ending is not None:
                return
            if beat.once and beat.id in play.story.fired:
                continue
            if not await self.holds(beat.when):
                continue
            play.story.fired[beat.id] = self.now
            seen = not beat.visible or play.location in beat.visible
            text = pick(self.world, beat.text, self.rng) if beat.text and seen else ""
            if text:
                details = [pick(self.world, d.text, self.rng) for d in beat.details if await self.holds(d.when)]
                text = " ".join([text, *details])
            self.log.say(text)
            self.apply(beat.effects, text)

    # ------------------------------------------------------------------------------------ helpers

    def move(self, name: str, place: str | None) -> None:
        """Move a character; one who leaves the player's place can be followed next turn."""
        play = self.play
        was = play.story.positions.get(name)
        if place is None:
            play.story.positions.pop(name, None)
        else:
            play.story.positions[name] = place
        if was == play.location and place != play.location and place is not None:
            play.story.departures[name] = place

    def _forms(self, name: str) -> list[str]:
        """The words prose uses for a party: names and aliases, and "you" for the player."""
        if self.world.is_player(name):
            return ["you", "your", "yours", *self.world.player.aliases, self.world.player_name]
        character = self.world.character(name)
        if character is None:
            return [name]
        return [*character.names, *character.name.split()[:1]]
