"""The next step toward an ending from where a game stands: what can be done now about its unmet conditions.

``goals`` says, once per world, every command that may matter to an ending. A directed game also asks,
each turn, which of those can happen *now*: the ending's producers (a beat, a command) are read against
the scene's flags and inventory; an unmet flag or item leads to whatever sets or gives it, and so on
back, until a producer whose own flags and items already hold. Its command is the frontier, and its place
where to go. Producers that set a flag another ending also waits on (the bell that calls the Moot) are
kept for last: fired early, they end the game in whichever ending is ready first. Relations are read
from the game's graph (``open_relations``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from game.explore.chooser import candidates, item_word
from game.explore.goals import FIRED, LYING, WITHOUT, fired_flags, producers, step_toward
from game.graph.index import GraphIndex
from game.world import World
from game.world.refs import EdgeCondition
from game.world.scene import SceneState
from game.world.schema import Conditions, Effects

DEPTH = 10
AGAIN = 3


@dataclass(frozen=True)
class Frontier:
    commands: frozenset[str]
    places: frozenset[str]
    typed_at: frozenset[tuple[str, str]] = frozenset()
    """(command, place) pairs: where each command is to be typed ("" where it does not matter)."""


Producer = tuple[Effects, Conditions, list[str], str | None]


Relation = tuple[str, str, str]
Needs = tuple[set[str], set[str], dict[Relation, tuple[EdgeCondition, ...]]]
"""Flags, items, and relations (each with the bounds its strength must meet) a condition still lacks."""


def _relation(world: World, source: str, target: str, relation: str) -> Relation:
    return (world.canonical(source) or source, world.canonical(target) or target, relation.upper())


@dataclass(frozen=True)
class _Index:
    """Which producers (by their place in ``producers(world)``) set each flag, give or put each item (to
    the player, or where it can be taken), and make each relation, at what strength."""

    flags: dict[str, list[int]]
    items: dict[str, list[int]]
    relations: dict[Relation, list[tuple[int, float]]]


def _index(world: World, found: list[Producer]) -> _Index:
    flags: dict[str, list[int]] = {}
    items: dict[str, list[int]] = {}
    relations: dict[Relation, list[tuple[int, float]]] = {}
    for index, (effects, _when, _typed, _where) in enumerate(found):
        for flag in dict.fromkeys(effects.set_flags):
            flags.setdefault(flag, []).append(index)
        for item in dict.fromkeys([*effects.give, *effects.put]):
            items.setdefault(item, []).append(index)
        for change in effects.relations:
            key = _relation(world, change.source, change.target, change.relation)
            relations.setdefault(key, []).append((index, change.strength))
    return _Index(flags, items, relations)


def _makers(world: World, need_flags: set[str], need_items: set[str],
            need_relations: Mapping[Relation, tuple[EdgeCondition, ...]]) -> list[int]:
    """The producers, in the world's order, that set a needed flag, give or put a needed item, or make a
    needed relation strong enough (a 0.5 trust is not the 0.8 one wanted)."""
    index = _producers_index(world)
    found = {i for flag in need_flags for i in index.flags.get(flag, ())}
    found |= {i for item in need_items for i in index.items.get(item, ())}
    found |= {i for key, bounds in need_relations.items() for i, strength in index.relations.get(key, ())
              if all(bound.holds(strength) for bound in bounds)}
    return sorted(found)


def _unmet(world: World, when: Conditions, flags: set[str], items: set[str],
           relations: Mapping[Relation, float], cast: frozenset[str] = frozenset()) -> Needs:
    """The flags, items and relations ``when`` asks for that the game lacks (an ``any`` met by one of them)."""
    need_flags = {f for f in when.flags if not f.startswith("!") and f not in flags} | (fired_flags(when) - flags)
    # An item it needs out of the player's hands, while they hold it: put down (``WITHOUT``, set by dropping).
    need_flags |= {WITHOUT + i[1:] for i in when.items if i.startswith("!") and i[1:] in items}
    need_items = {i for i in when.items if not i.startswith("!") and i not in items}
    need_relations = {key: tuple(r.conditions) for r in when.relations if not r.negated
                      if (key := _relation(world, r.source, r.target, r.relation)) not in relations
                      or not all(c.holds(relations[key]) for c in r.conditions)}
    if when.any_of:
        options = [(_unmet(world, sub, flags, items, relations, cast), _absent(world, sub, cast))
                   for sub in when.any_of]
        if not any(not any(needs) and not blocked for needs, blocked in options):
            # None holds: work on the first that names something to do (not only someone to be away).
            needs = next((needs for needs, _blocked in options if any(needs)), options[0][0])
            need_flags |= needs[0]
            need_items |= needs[1]
            need_relations |= needs[2]
    return need_flags, need_items, need_relations


def _absent(world: World, when: Conditions, cast: frozenset[str]) -> bool:
    """Whether ``when``'s ``present`` fails now (someone it needs away, or here when it needs them gone)."""
    for name in when.present:
        person = world.canonical(name.removeprefix("!")) or name.removeprefix("!")
        if (person in cast) == name.startswith("!"):
            return True
    return False


_FOUND: dict[int, tuple[World, list[Producer], _Index]] = {}


def _kept(world: World) -> tuple[World, list[Producer], _Index]:
    """``producers(world)`` and their index, made once per world: the frontier is asked every turn of a
    directed game."""
    kept = _FOUND.get(id(world))
    if kept is None or kept[0] is not world:
        found = producers(world)
        kept = _FOUND[id(world)] = (world, found, _index(world, found))
    return kept


def _producers(world: World) -> list[Producer]:
    return _kept(world)[1]


def _producers_index(world: World) -> _Index:
    return _kept(world)[2]


def _shared_flags(world: World, found: list[Producer], ending: str | None) -> set[str]:
    """Flags the producers of ``ending`` and of another ending both wait on; with no ending (a barrier's or
    a target's game), every flag an ending waits on: set early, it ends the game before the goal is met."""
    per_ending: dict[str, set[str]] = {}
    for effects, when, _typed, _where in found:
        if effects.ending is not None:
            per_ending.setdefault(effects.ending, set()).update(_unmet(world, when, set(), set(), {})[0])
    if ending is None:
        return {f for wanted in per_ending.values() for f in wanted}
    mine = per_ending.get(ending, set())
    return {f for other, wanted in per_ending.items() if other != ending for f in wanted & mine}


_SHARED: dict[tuple[int, str | None], tuple[World, set[str]]] = {}


def _shared(world: World, ending: str | None) -> set[str]:
    """``_shared_flags``, read once per world and ending: the frontier is asked every turn."""
    kept = _SHARED.get((id(world), ending))
    if kept is None or kept[0] is not world:
        kept = _SHARED[(id(world), ending)] = (world, _shared_flags(world, _producers(world), ending))
    return kept[1]


def open_relations(graph: GraphIndex) -> dict[Relation, float]:
    """(source, target, RELATION) by node name, to its strength, for every open relation of the game's graph."""
    names = {node_id: node.name for node_id, node in graph.nodes.items()}
    return {(names.get(e.source, e.source), names.get(e.target, e.target), e.relation.upper()): e.strength
            for e in graph.open_edges.values()}


def frontier(world: World, scene: SceneState, ending: str,
             relations: Mapping[Relation, float] | None = None,
             opens: tuple[Conditions, str] | None = None, typed: Sequence[str] = ()) -> Frontier:
    """What can be done now toward ``ending``; ``relations``: the game's open relations (``open_relations``).
    ``opens``: toward a barrier instead (what it requires, the place behind it; ``goals.barrier_goals``), or
    toward a content target, whose ``typed`` commands are typed there once it holds (``targets``)."""
    relations = relations or {}
    found = _producers(world)
    flags = {name for name, value in scene.flags.items() if value}
    lying = scene.story.item_places if scene.story is not None else {}
    flags |= {FIRED + beat for beat in (scene.story.fired if scene.story is not None else [])}
    flags |= {LYING + item for item in lying}
    found = [_taken_where_it_lies(producer, lying) for producer in found]
    items = set(scene.inventory)
    shared = _shared(world, None if opens else ending)
    # Each producer with whether it was reached through a shared flag: that chain is played last.
    level: list[tuple[Producer, bool]] = ([((Effects(), opens[0], list(typed), opens[1]), False)] if opens else
             [(p, False) for p in found if p[0].ending == ending])
    seen: set[int] = set()
    deferred: Frontier | None = None
    for _ in range(DEPTH):
        ready: list[tuple[Producer, bool]] = []
        needs: list[tuple[Needs, bool]] = []
        for producer, late in level:
            more = _unmet(world, producer[1], flags, items, relations)
            for barrier in _barriers(world, scene.location or "", _places(producer)):
                behind = _unmet(world, barrier, flags, items, relations, frozenset(scene.cast))
                more = (more[0] | behind[0], more[1] | behind[1], more[2] | behind[2])
            if any(more):
                needs.append((more, late))
            else:
                ready.append((producer, late))
        # A beat with nothing to type and nowhere to be fires by itself: nothing for the game to do about it.
        ready = [(p, late) for p, late in ready if p[2] or _places(p)]
        early = [p for p, late in ready if not late]
        if early:
            return _as_frontier(early)
        if ready and deferred is None:
            deferred = _as_frontier([p for p, _late in ready])
        level = []
        for (need_flags, need_items, need_relations), late in needs:
            for index in _makers(world, need_flags, need_items, need_relations):
                if index in seen:
                    continue
                producer = found[index]
                seen.add(index)
                level.append((producer, late or bool(set(producer[0].set_flags) & need_flags & shared)))
            for item in need_items:
                held = world.items.get(item)
                where = lying.get(item, held.location if held is not None else None)
                if held is not None and where in world.places:  # lying somewhere now: go and take it
                    level.append(((Effects(), Conditions(), [f"take {item_word(held)}"], where), late))
        if not level:
            break
    return deferred or Frontier(frozenset(), frozenset())


def _taken_where_it_lies(producer: Producer, lying: Mapping[str, str]) -> Producer:
    """An item's taking (its ``LYING`` condition) typed where the item lies now, wherever it was put."""
    effects, when, typed, _where = producer
    waits = [flag.removeprefix(LYING) for flag in when.flags if flag.startswith(LYING)]
    return (effects, when, typed, lying[waits[0]]) if waits and waits[0] in lying else producer


def _barriers(world: World, here: str, targets: set[str]) -> list[Conditions]:
    """What the barriers on the shortest way from ``here`` to the nearest of ``targets`` require."""
    if here in targets or not targets or here not in world.places:
        return []
    paths: dict[str, list[Conditions]] = {here: []}
    queue: deque[str] = deque([here])
    while queue:
        place = queue.popleft()
        for direction, to in world.places[place].exits.items():
            if to in paths or to not in world.places:
                continue
            paths[to] = [*paths[place], *(b.requires for b in world.places[place].barriers if b.exit == direction)]
            if to in targets:
                return paths[to]
            queue.append(to)
    return []


def _places(producer: Producer) -> set[str]:
    _effects, when, _typed, where = producer
    return {p for p in when.place if not p.startswith("!")} | ({where} if where is not None else set())


def _as_frontier(ready: list[Producer]) -> Frontier:
    commands = {command.casefold() for _effects, _when, typed, _where in ready for command in typed}
    typed_at = frozenset((command.casefold(), place) for producer in ready for command in producer[2]
                         for place in (_places(producer) or {""}))
    return Frontier(frozenset(commands), frozenset(p for producer in ready for p in _places(producer)), typed_at)


def toward(world: World, scene: SceneState, ending: str, relations: Mapping[Relation, float] | None = None,
           tried: Mapping[str, int] | None = None, opens: tuple[Conditions, str] | None = None,
           typed: Sequence[str] = ()) -> str | None:
    """The frontier's command when it can be typed here, else the first step toward its place (None: no
    frontier, or nothing of it to do from here). ``tried``: how often this game typed each command; one typed
    ``AGAIN`` times already is left to roaming (a cold person who will not answer it, whatever the scene says)."""
    tried = tried or {}
    ahead = frontier(world, scene, ending, relations, opens, typed)
    fresh = {c for c in ahead.commands if tried.get(c, 0) < AGAIN}
    here = sorted((c for c in candidates(world, scene) if c.casefold() in fresh), key=lambda c: tried.get(c, 0))
    if here:
        return here[0]
    local = sorted(c for c, place in ahead.typed_at if c in fresh and place in {"", scene.location})
    if local:  # to be typed here, in the world's own words though not among the candidates (bribe maud)
        return min(local, key=lambda c: tried.get(c, 0))
    return step_toward(world, scene.location or "", {p for c, p in ahead.typed_at if c in fresh and p})
