"""Cross-reference checks: what pydantic cannot see because it spans entries and files.

An exit to a place that does not exist, a beat naming an unknown character, a flag tested but never
set (almost always a typo), two characters answering to the same alias: each is reported with its file
and field path, like a schema error.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from game.graph.names import normalize_name
from game.world.model import PLAYER_WORD, World
from game.world.refs import RelationRef
from game.world.schema import OWNER, Conditions, Effects, RelationChange, WorldDocument
from game.world.words import key_words

NOWHERE = "nowhere"
"""``move = { "Mira" = "nowhere" }`` takes a character off stage."""

# The World IR's and the graph's bounds on the text content hands them (see ``IRRelation``, ``IREntity``),
# checked when the world loads rather than when a turn first passes the text on.
FACT_CHARS = (8, 400)
EVIDENCE_CHARS = (0, 600)
SUMMARY_CHARS = (4, 400)


@dataclass
class Checker:
    world: World
    errors: list[str] = field(default_factory=list)
    flags_set: set[str] = field(default_factory=set)

    def fail(self, label: str, path: str, message: str) -> None:
        self.errors.append(f"{label}: {path}: {message}")

    # ------------------------------------------------------------------------------------ names

    def place_ok(self, label: str, path: str, place: str) -> bool:
        if place in self.world.places:
            return True
        self.fail(label, path, f"unknown place {place!r}{_hint(place, self.world.places)}")
        return False

    def item_ok(self, label: str, path: str, item: str) -> None:
        if item not in self.world.items:
            self.fail(label, path, f"unknown item {item!r}{_hint(item, self.world.items)}")

    def character_ok(self, label: str, path: str, name: str, player_allowed: bool = True) -> None:
        if player_allowed and self.world.is_player(name):
            return
        if self.world.character(name) is None:
            names = [n for c in self.world.characters for n in c.names]
            extra = " (or 'player')" if player_allowed else ""
            self.fail(label, path, f"unknown character {name!r}{_hint(name, names)}{extra}")

    def relation_ok(self, label: str, path: str, relation: str) -> None:
        if not self.world.vocabulary.normalize(relation).known:
            self.fail(label, path, f"unknown relation {relation!r}{_hint(relation.upper(), self.world.vocabulary.relations)}"
                      " (declare it under [[relations]] in vocabulary.toml)")

    def ref_ok(self, label: str, path: str, ref: RelationRef, in_effect: bool) -> None:
        self.character_ok(label, path, ref.source)
        self.character_ok(label, path, ref.target)
        self.relation_ok(label, path, ref.relation)
        if in_effect and (ref.constrained or ref.negated):
            self.fail(label, path, "a relation to end takes no '!', sign or bounds")

    def reveal_ok(self, label: str, path: str, reveal: str) -> None:
        """``"Character Name:key"``: a character (name or alias) and one of their revelations' keys."""
        name, colon, key = reveal.rpartition(":")
        if not colon or not name.strip() or not key.strip():
            self.fail(label, path, f'{reveal!r} should be "Character Name:key" (a revelation of that character)')
            return
        character = self.world.character(name.strip())
        if character is None:
            self.character_ok(label, path, name.strip(), player_allowed=False)
            return
        keys = [r.key for r in character.revelations]
        if key.strip() not in keys:
            known = f"; theirs are {', '.join(keys)}" if keys else "; they have no [[characters.revelations]]"
            self.fail(label, path, f"{character.name} has no revelation {key.strip()!r}{_hint(key.strip(), keys)}{known}")

    # ------------------------------------------------------------------------------------ rules

    def conditions(self, label: str, path: str, cond: Conditions) -> None:
        for i, place in enumerate(cond.place):
            self.place_ok(label, f"{path}.place[{i}]", place.removeprefix("!"))
        for i, flag in enumerate(cond.flags):
            name = flag.removeprefix("!")
            if name not in self.flags_set:
                self.fail(label, f"{path}.flags[{i}]",
                          f"unknown flag {name!r}: no effect ever sets it{_hint(name, self.flags_set)}")
        for i, item in enumerate(cond.items):
            self.item_ok(label, f"{path}.items[{i}]", item.removeprefix("!"))
        for key in ("present", "met"):
            for i, name in enumerate(getattr(cond, key)):
                self.character_ok(label, f"{path}.{key}[{i}]", name.removeprefix("!"), player_allowed=False)
        beat_ids = {b.id for b in self.world.beats}
        for i, beat in enumerate(cond.fired):
            if beat.removeprefix("!") not in beat_ids:
                self.fail(label, f"{path}.fired[{i}]", f"unknown beat {beat.removeprefix('!')!r}{_hint(beat, beat_ids)}")
        for beat, turns in cond.since.items():
            if beat not in beat_ids:
                self.fail(label, f"{path}.since.{beat}", f"unknown beat {beat!r}{_hint(beat, beat_ids)}")
            if turns < 0:
                self.fail(label, f"{path}.since.{beat}", "must be 0 or more turns")
        for name, place in cond.at.items():
            self.character_ok(label, f"{path}.at.{name}", name, player_allowed=False)
            if place.removeprefix("!") != NOWHERE:
                self.place_ok(label, f"{path}.at.{name}", place.removeprefix("!"))
        for i, ref in enumerate(cond.relations):
            self.ref_ok(label, f"{path}.relations[{i}]", ref, in_effect=False)
        for name in cond.tier:
            if name == OWNER:
                self.fail(label, f"{path}.tier", 'a tier without a name belongs in a character\'s own topic or '
                          'reaction; elsewhere name whose it is: tier = { "Hob Tarrant" = "HOSTILE" }')
            else:
                self.character_ok(label, f"{path}.tier.{name}", name, player_allowed=False)
        for i, sub in enumerate(cond.any_of):
            self.conditions(label, f"{path}.any[{i}]", sub)

    def change(self, label: str, path: str, change: RelationChange) -> None:
        self.character_ok(label, f"{path}.source", change.source)
        self.character_ok(label, f"{path}.target", change.target)
        self.relation_ok(label, f"{path}.relation", change.relation)
        problem = self.world.vocabulary.sign_problem(self.world.vocabulary.normalize(change.relation).name,
                                                     change.strength)
        if problem:
            self.fail(label, f"{path}.strength", problem)
        for i, name in enumerate(change.known_by or []):
            self.character_ok(label, f"{path}.known_by[{i}]", name)
            found = self.world.character(name)
            if found is not None and found.type != "individual":
                self.fail(label, f"{path}.known_by[{i}]", f"{found.name} is a {found.type}: only individuals know "
                          "things (name its members)")
        self.told_length(label, f"{path}.fact", change.fact, FACT_CHARS)
        if change.evidence is not None:
            self.told_length(label, f"{path}.evidence", change.evidence, EVIDENCE_CHARS)

    def told_length(self, label: str, path: str, text: str, bounds: tuple[int, int]) -> None:
        """The schema bounds the text as written; the graph bounds it as told, with the player's name in.

        Checked here so a long name cannot turn a world that loads into one whose turns all fail.
        """
        told = " ".join(self.world.text(text).split())
        low, high = bounds
        if len(told) > high:
            self.fail(label, path, f"at most {high} characters once {{player}} is filled in (got {len(told)})")
        elif len(told) < low:
            self.fail(label, path, f"at least {low} characters once {{player}} is filled in (got {len(told)})")

    def effects(self, label: str, path: str, effects: Effects) -> None:
        for i, change in enumerate(effects.relations):
            self.change(label, f"{path}.relations[{i}]", change)
        for i, ref in enumerate(effects.end):
            self.ref_ok(label, f"{path}.end[{i}]", ref, in_effect=True)
        for i, name in enumerate(effects.meet):
            self.character_ok(label, f"{path}.meet[{i}]", name, player_allowed=False)
        for i, moved in enumerate(effects.attitude):
            self.character_ok(label, f"{path}.attitude[{i}].name", moved.name, player_allowed=False)
        for key in ("give", "remove"):
            for i, item in enumerate(getattr(effects, key)):
                self.item_ok(label, f"{path}.{key}[{i}]", item)
        # '!' negates a flag only in conditions; in an effect it would set a flag nothing can test.
        for i, flag in enumerate(effects.set_flags):
            if flag.startswith("!"):
                self.fail(label, f"{path}.set[{i}]", "a flag to set takes no '!' (to unset a flag, use clear)")
        for i, flag in enumerate(effects.clear):
            if flag.startswith("!"):
                self.fail(label, f"{path}.clear[{i}]", "a flag to clear takes no '!'")
        for name, place in effects.move.items():
            self.character_ok(label, f"{path}.move.{name}", name, player_allowed=False)
            if place != NOWHERE:
                self.place_ok(label, f"{path}.move.{name}", place)
        for item, where in effects.put.items():
            self.item_ok(label, f"{path}.put.{item}", item)
            if where not in self.world.places and self.world.character(where) is None:
                self.fail(label, f"{path}.put.{item}",
                          f"unknown place or character {where!r}{_hint(where, self.world.places)}")
        if effects.move_player is not None:
            self.place_ok(label, f"{path}.move_player", effects.move_player)
        for i, reveal in enumerate(effects.reveal):
            self.reveal_ok(label, f"{path}.reveal[{i}]", reveal)
        if effects.ending is not None and effects.ending not in self.world.endings:
            self.fail(label, f"{path}.ending", f"unknown ending {effects.ending!r}{_hint(effects.ending, self.world.endings)}")


def check_world(world: World, documents: list[tuple[str, WorldDocument]], world_label: str) -> list[str]:
    """Every cross-reference problem in the world, as ``file: path: message`` lines."""
    checker = Checker(world)
    checker.flags_set = set(world.section.flags)
    for _label, document in documents:
        for _path, _cond, effects in iter_rules(document):
            if effects is not None:
                checker.flags_set.update(effects.set_flags)

    if world.section.start not in world.places:
        checker.place_ok(world_label, "world.start", world.section.start)
    _check_unique(checker, documents)
    if world.is_player(PLAYER_WORD) and world.character(PLAYER_WORD) is not None:
        checker.fail(world_label, "player", "a character may not be called 'player' (it names the player)")
    player_label = next((label for label, document in documents if document.player is not None), world_label)
    checker.told_length(player_label, "player.summary", world.player.summary, SUMMARY_CHARS)

    for label, document in documents:
        for i, metapath in enumerate(document.metapaths):
            for j, name in enumerate(metapath.relations):
                checker.relation_ok(label, f"metapaths[{i}].relations[{j}]", name)
        for i, place in enumerate(document.places):
            for direction, target in place.exits.items():
                checker.place_ok(label, f"places[{i}].exits.{direction}", target)
            for j, barrier in enumerate(place.barriers):
                if barrier.exit not in place.exits:
                    checker.fail(label, f"places[{i}].barriers[{j}].exit",
                                 f"{place.id!r} has no exit {barrier.exit!r} to bar")
        for i, character in enumerate(document.characters):
            if character.location is not None:
                checker.place_ok(label, f"characters[{i}].location", character.location)
            checker.told_length(label, f"characters[{i}].summary", character.summary, SUMMARY_CHARS)
            if character.type != "individual" and (character.topics or character.reactions):
                checker.fail(label, f"characters[{i}]",
                             f"a {character.type} cannot be talked to; give topics and reactions to its people")
            keys = [r.key for r in character.revelations]
            for j, key in enumerate(keys):
                if key in keys[:j]:
                    checker.fail(label, f"characters[{i}].revelations[{j}].key",
                                 f"{character.name} already has a revelation {key!r}")
            for j, reaction in enumerate(character.reactions):
                if reaction.item is not None:
                    checker.item_ok(label, f"characters[{i}].reactions[{j}].item", reaction.item)
        for i, relation in enumerate(document.relationships):
            checker.change(label, f"relationships[{i}]", relation)
        for i, item in enumerate(document.items):
            if item.location is not None and not (
                item.location in world.places or world.is_player(item.location)
                or world.character(item.location) is not None
            ):
                checker.fail(label, f"items[{i}].location",
                             f"unknown place or character {item.location!r} (use a place id, a character, or 'player')")
        if document.world is not None:
            # A show line's ``to`` may name a person or a label; one that matches nobody is a typo.
            labels = {x.casefold() for c in world.characters for x in [*c.names, *c.labels]}
            for i, show in enumerate(document.world.shows):
                for j, item_id in enumerate(show.items):
                    checker.item_ok(label, f"world.shows[{i}].items[{j}]", item_id)
                for j, who in enumerate(show.to):
                    if who.casefold() not in labels:
                        checker.fail(label, f"world.shows[{i}].to[{j}]",
                                     f"no character is named or labelled {who!r}{_hint(who, sorted(labels))}")
        news = [(f"world.news[{i}]", line) for i, line in enumerate(document.world.news)] if document.world else []
        news += [(f"characters[{i}].news[{j}]", line) for i, character in enumerate(document.characters)
                 for j, line in enumerate(character.news)]
        if news:
            # News lines name people (or labels) and relations: one that matches nothing is a typo.
            labels = {x.casefold() for c in world.characters for x in [*c.names, *c.labels]}
            for path, line in news:
                for j, who in enumerate(line.about):
                    if who.casefold() not in labels:
                        checker.fail(label, f"{path}.about[{j}]",
                                     f"no character is named or labelled {who!r}{_hint(who, sorted(labels))}")
                for j, named in enumerate(line.relations):
                    if not world.vocabulary.is_known(world.vocabulary.normalize(named).name):
                        checker.fail(label, f"{path}.relations[{j}]", f"{named!r} is not in the world's vocabulary")
        for i, beat in enumerate(document.beats):
            for j, seen_at in enumerate(beat.visible):
                checker.place_ok(label, f"beats[{i}].visible[{j}]", seen_at)
        for i, command in enumerate(document.commands):
            for j, phrase in enumerate(command.say):
                # The parser matches cleaned input; a phrase that cleans to "" would answer empty input.
                if not key_words(phrase):
                    checker.fail(label, f"commands[{i}].say[{j}]",
                                 f"no words left once punctuation and filler are dropped (got {phrase!r})")
        for path, cond, effects in iter_rules(document):
            if cond is not None:
                checker.conditions(label, path, cond)
            if effects is not None:
                checker.effects(label, path, effects)
    return checker.errors


def iter_rules(document: WorldDocument) -> Iterator[tuple[str, Conditions | None, Effects | None]]:
    """Every (path, conditions, effects) a document holds, wherever it sits."""
    for i, place in enumerate(document.places):
        for k, detail in enumerate(place.details):
            yield f"places[{i}].details[{k}].when", detail.when, None
        for j, feature in enumerate(place.features):
            yield f"places[{i}].features[{j}].effects", None, feature.effects
            for k, detail in enumerate(feature.details):
                yield f"places[{i}].features[{j}].details[{k}].when", detail.when, None
        for j, barrier in enumerate(place.barriers):
            yield f"places[{i}].barriers[{j}].requires", barrier.requires, None
    for i, character in enumerate(document.characters):
        for j, topic in enumerate(character.topics):
            base = f"characters[{i}].topics[{j}]"
            yield f"{base}.when", topic.when, None
            yield f"{base}.effects", None, topic.effects
        for j, reaction in enumerate(character.reactions):
            base = f"characters[{i}].reactions[{j}]"
            yield f"{base}.when", reaction.when, None
            yield f"{base}.effects", None, reaction.effects
    for i, item in enumerate(document.items):
        yield f"items[{i}].on_take", None, item.on_take
    for i, ending in enumerate(document.endings):
        for k, detail in enumerate(ending.details):
            yield f"endings[{i}].details[{k}].when", detail.when, None
    for i, beat in enumerate(document.beats):
        yield f"beats[{i}].when", beat.when, None
        for k, detail in enumerate(beat.details):
            yield f"beats[{i}].details[{k}].when", detail.when, None
        yield f"beats[{i}].effects", None, beat.effects
    for i, command in enumerate(document.commands):
        yield f"commands[{i}].when", command.when, None
        yield f"commands[{i}].effects", None, command.effects


def _check_unique(checker: Checker, documents: list[tuple[str, WorldDocument]]) -> None:
    seen: dict[tuple[str, str], str] = {}

    def claim(kind: str, key: str, label: str, path: str, shown: str) -> None:
        where = f"{label}: {path}"
        first = seen.setdefault((kind, key), where)
        if first != where:
            checker.fail(label, path, f"duplicate {kind} {shown!r} (first at {first})")

    world = checker.world
    for name in (world.player.name, *world.player.aliases):
        seen[("name", normalize_name(name))] = "the [player] table"
    for label, document in documents:
        ids: list[tuple[str, str, list[str]]] = [
            ("place id", "places", [p.id for p in document.places]),
            ("item id", "items", [i.id for i in document.items]),
            ("beat id", "beats", [b.id for b in document.beats]),
            ("command id", "commands", [c.id for c in document.commands]),
            ("ending id", "endings", [e.id for e in document.endings]),
        ]
        for kind, table, values in ids:
            for i, value in enumerate(values):
                claim(kind, value, label, f"{table}[{i}].id", value)
        for i, character in enumerate(document.characters):
            claim("name", normalize_name(character.name), label, f"characters[{i}].name", character.name)
            for j, alias in enumerate(character.aliases):
                key = normalize_name(alias)
                if key == normalize_name(character.name) or key in {normalize_name(a) for a in character.aliases[:j]}:
                    continue
                claim("name", key, label, f"characters[{i}].aliases[{j}]", alias)


def _hint(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
