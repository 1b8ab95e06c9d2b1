"""The people of a story imported without a world, and the questions of identity among them.

``kith import-story`` without ``--world`` is a story nobody here wrote, so no world's characters belong
in it (``game.engine.enrich_import.story_world``): the save keeps the default world's places, its player is
the story's reader, and nobody else is there. The story's own people are read from the whole text first (``read_story``): each a
node at turn 0 with the shorter names the story uses for them as aliases, every alias logged in the merge
log with the reason it was taken. A name that may be someone found before it is judged as a game's turns
judge a new name (``game.graph.identity_match``: "Captain Kettle" after "Bram Kettle" is a question), and
two names the dialogue says are one person ("I am the King", said by the man who gave his name as the
Count Von Kramm) are a question too, or one person when the speaker was named outright; the evidence is
the line that says so.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from game.errors import SaveError
from game.features.identity.answers import decided
from game.features.identity.questions import questions
from game.graph.upsert import UpsertExecution

if TYPE_CHECKING:
    from game.graph.fast_extract.prose import StoryReading
    from game.store.database import SaveDatabase
    from game.store.merge_log import MergeEntry
    from game.world import World

SUMMARY = "Named in the imported story."
ASKED = 0.6
"""How sure a question raised by the story's own words is: asked, never merged by itself."""


async def add_story_people(db: SaveDatabase, world: World, text: str) -> tuple[list[str], list[str]]:
    """The story's people as nodes at turn 0, and the questions of identity among them (as the story asks
    them). Returns the names added and the questions."""
    from game.graph.fast_extract.gazetteer import Gazetteer
    from game.graph.fast_extract.kin_apart import kept_apart
    from game.graph.fast_extract.prose import cast_index, read_story
    from game.graph.fast_extract.units import story_sexes
    from game.graph.identity_match import question

    known = await Gazetteer(db.graph).index_for(text)
    reading = read_story(text, known)
    if not reading.people:
        return [], []
    nodes, folded = _nodes(reading, story_sexes(text, cast_index(reading.people, known)))
    execution = UpsertExecution(db.graph, world.vocabulary, 0, rng=random.Random(0), identity=lambda: ())
    for start in range(0, len(nodes), 8):
        outcome = await execution.run({"nodes": nodes[start:start + 8]})
        if outcome.error:
            raise SaveError(f"the people found in the story could not be added: {outcome.error}")
    created = {node.name: node for node_id, node in execution.writes.nodes.items()
               if node_id in execution.writes.created_nodes}
    # "Linton Heathcliff was Heathcliff's son": a father and son who share a name are no question
    decisions = [d for d in execution.identities if not (d.verdict.candidate is not None and kept_apart(
        d.verdict.name, d.verdict.candidate.node.name, reading.apart))]
    decisions.extend(_asked(reading, created))
    rows, merges = decided(decisions, 0, {item.id for item in await questions(db)})
    merges = [*merges, *_aliases_logged(reading, created, folded)]
    await db.commit_graph(execution.writes, rows=rows, merges=merges)
    asked = [question(d.verdict.name, d.verdict.candidate.node.name) for d in decisions
             if d.verdict.decision == "ask" and d.verdict.candidate is not None]
    return [name for name in (n["name"] for n in nodes) if name in created], asked


def _nodes(reading: StoryReading, sexes: dict[str, str]) -> tuple[list[dict[str, Any]], dict[str, tuple[str, str]]]:
    """Upsert nodes for the story's people, full names first and titled short ones after ("Captain Kettle"
    is judged against "Bram Kettle", never the other way round); a person the dialogue says outright is
    someone else is folded into them: ``folded`` maps the name to (its person, the words that say so). Each
    keeps the sex the story gives them (``sexes``), so "Mr. Garland" is not asked about as a Lucy Garland
    the story calls "she"."""
    from game.graph.identity_match import ARTICLES, TITLES, words

    folded = {same.name: (same.other, same.evidence) for same in reading.same if same.sure}
    extra: dict[str, list[str]] = {}
    for name, (other, _) in folded.items():
        person = next(p for p in reading.people if p.name == name)
        extra.setdefault(other, []).extend([name, *(alias for alias, _ in person.aliases)])
    order = {person.name: number for number, person in enumerate(reading.people)}

    def titled(name: str) -> tuple[bool, int]:
        first = words(name)[:1]
        return bool(first) and (first[0] in TITLES or first[0] in ARTICLES), order[name]

    nodes: list[dict[str, Any]] = []
    for person in sorted(reading.people, key=lambda p: titled(p.name)):
        if person.name in folded:
            continue
        node: dict[str, Any] = {"name": person.name, "type": person.type, "summary": SUMMARY}
        if person.name in sexes:
            node["attributes"] = {"gender": sexes[person.name]}
        aliases = [alias for alias, _ in person.aliases] + extra.get(person.name, [])
        if aliases:
            node["aliases"] = aliases
        nodes.append(node)
    return nodes, folded


def _asked(reading: StoryReading, created: dict[str, Any]) -> list[Any]:
    """A question for each pair of names the dialogue says are one person, its speaker inferred."""
    from game.graph.fast_extract.prose import hub_first
    from game.graph.identity_match import Candidate, IdentityDecision, Verdict

    found: list[IdentityDecision] = []
    for same in hub_first([s for s in reading.same if not s.sure]):
        new, candidate = created.get(same.name), created.get(same.other)
        if new is None or candidate is None:
            continue
        evidence = f"the story says so: \u201c{same.evidence[:200]}\u201d"
        found.append(IdentityDecision(Verdict(same.name, "ask", Candidate(candidate, ASKED, evidence)), new.id))
    return found


def _aliases_logged(reading: StoryReading, created: dict[str, Any],
                    folded: dict[str, tuple[str, str]]) -> list[MergeEntry]:
    """Every alias the story gave a person, as an ``assumed`` entry of the merge log with its reason."""
    from game.store.merge_log import MergeEntry

    merges: list[MergeEntry] = []
    for person in reading.people:
        node = created.get(person.name)
        if node is not None:
            merges.extend(MergeEntry(node.id, None, alias, "assumed", why) for alias, why in person.aliases)
    for name, (other, said) in folded.items():
        node = created.get(other)
        if node is not None:
            merges.append(MergeEntry(node.id, None, name, "assumed", f"the story says so: \u201c{said[:200]}\u201d"))
    return merges
