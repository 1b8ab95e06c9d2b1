"""Who has confessed, and when: what frees a teller to pass on a shame of their own (issue 23).

A confession is an NPC telling the player a secret of their own (the story records it as said:
``revealed:THEIR NAME:KEY``, ``game.features.memories.rules``; the game reads the same key for "a confession
stays confessed"). The relations that turn opened about them (Pell's bribe, his fear of Crane) are then
owned to, and gossip's discretion lets him tell them; anything else of his stays unsaid.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from game.graph.index import GraphIndex
from game.graph.names import normalize_name

REVEALED = "revealed:"
"""The start of the key of a revelation someone told the player (``revealed:SUBJECT:KEY``)."""


def confessions(said: Mapping[str, Mapping[str, int]], graph: GraphIndex,
                people: Iterable[str]) -> dict[str, frozenset[int]]:
    """For each of ``people`` who has confessed anything, the turns at which they did (only the people
    asked about are looked at: those placed on the stage, never everyone the save remembers)."""
    found: dict[str, frozenset[int]] = {}
    for person in people:
        keys = said.get(person)
        node = graph.nodes.get(person) if keys else None
        if not keys or node is None:
            continue
        own = normalize_name(node.name)
        turns = frozenset(turn for key, turn in keys.items() if key.startswith(REVEALED)
                          and normalize_name(key[len(REVEALED):].rpartition(":")[0]) == own)
        if turns:
            found[person] = turns
    return found
