"""The one rule the inspector commands (``/graph``, ``/relationship``, ``/why``, ``/mind``, ``/npc``,
``/knowledge``) resolve a typed name by: the graph's name rule (``resolve_name``) among the people the
player has met or heard of (``player_view.known_ids``, the set the map and ``/graph`` show).

Someone the player has not heard of reads exactly like no one at all, with the same words, so no command
spoils who exists in the story before the player learns of them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from game.engine.player_view import known_ids
from game.errors import KithError
from game.graph.models import Node
from game.graph.names import NameMatch, normalize_name, resolve_name
from game.text import did_you_mean

if TYPE_CHECKING:
    from game.engine.command_context import KnownWorld


async def heard_of(session: KnownWorld, name: str) -> NameMatch:
    """What ``name`` means to the player: one person they met or heard of, several tied, or nobody.

    The unknown are left out BEFORE the name rule runs, so a known person's alias is not shadowed (nor
    made ambiguous) by the name of someone the player has never heard of.
    """
    key = normalize_name(name)
    # "miller" finds the one the world calls "the miller", and "the smith" the one called "smith", as the
    # story's parser does: the article is how a player says a name, not a part of it.
    other = key[4:] if key.startswith("the ") else f"the {key}"
    named = await session.graph.nodes_named([key, other])
    known = known_ids(session.scene, session.graph)
    for spelled in (key, other):
        candidates = [node for node in named.get(spelled, []) if known is None or node.id in known]
        if candidates:
            return resolve_name(spelled, candidates)
    return resolve_name(name, [])


async def person(session: KnownWorld, name: str) -> Node:
    """The one person the player has met or heard of that ``name`` means, or a ``KithError`` saying why
    not, in the same words as ``/graph NAME``."""
    match = await heard_of(session, name)
    if match.node is None:
        raise KithError(not_named(session, name, match))
    return match.node


def not_named(session: KnownWorld, name: str, match: NameMatch) -> str:
    """The refusal every inspector command gives; a *did you mean* offers only people the player knows."""
    if match.ambiguous:
        return f"{name!r} could mean {match.choices()}; use the full name."
    known = known_ids(session.scene, session.graph)
    names = [alias for node in session.graph.nodes.values() if known is None or node.id in known
             for alias in (node.name, *node.aliases)]
    return f"Nobody called {name!r} is remembered yet{did_you_mean(name, names)}."


def without_strangers(session: KnownWorld, text: str) -> str:
    """``text`` without the lines that name someone the player has not heard of.

    An inspector lists relations and what was heard (``- Tibby Tarrant → Hob Tarrant ...``); a line naming
    a stranger would tell the player who exists before the story does, so it is left out, as the map
    leaves them out. (``/mind`` is the narrator's own window and shows all it was told.)
    Names are matched as written (capitalised), so "the run of the tide" is not the Eel Run.
    """
    known = known_ids(session.scene, session.graph)
    if known is None:
        return text
    graph = session.graph
    names = {alias for node in graph.nodes.values() if node.id not in known and node.id not in graph.player_ids
             for alias in (node.name, *node.aliases) if len(alias) >= 3}
    known_names = {alias for node_id in known if (node := graph.nodes.get(node_id)) is not None
                   for alias in (node.name, *node.aliases)}
    names -= known_names  # a stranger's alias a known person shares ("the Watch") names the known one
    if not names:
        return text
    pattern = re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                         + r")(?![\w])")
    return "\n".join(line for line in text.split("\n")
                     if not (line.startswith("- ") and not line.startswith("- [SCENE]") and pattern.search(line)))
