"""``/mind NAME`` and the sections ``/why NAME`` adds.

``/mind`` and ``/why`` read the context stored with the last told turn (``turn_context``), so they show
what the narrator WAS told, section by section, and which providers were left out, never a fresh guess.
(``/knowledge`` is the gossip feature's: ``game.features.gossip.knowledge_command``.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.engine.known_names import person
from game.mind.context import ComposedContext

if TYPE_CHECKING:
    from game.engine.command_context import CommandContext
    from game.graph.models import Node

MIND_USAGE = "Type `/mind NAME` to see what the narrator was told about someone this turn, section by section."


# ------------------------------------------------------------------------------------------ /mind, /why


def section_lines(context: ComposedContext, node_id: str) -> list[str]:
    """``[SECTION] line`` for every line of the context about one person, section by section."""
    lines = []
    for section, kept in context.about(node_id).items():
        lines += [f"- [{section}] {line.text.removeprefix('- ')}" for line in kept]
    return lines


def omissions(context: ComposedContext) -> list[str]:
    return [f"- {omitted.name} was left out: it {omitted.reason}." for omitted in context.omitted]


def budget_line(context: ComposedContext) -> str:
    dropped = [f"{s.name} {s.dropped}" for s in context.sections if s.dropped]
    cut = f"; left out for want of room: {', '.join(dropped)} line(s)" if dropped else ""
    return f"Budget: {context.tokens} of {context.budget} tokens used by every section together{cut}."


async def mind(session: CommandContext, argument: str) -> str:
    """What the narrator was told about NAME at the last told turn, section by section."""
    if not argument:
        return MIND_USAGE
    node = await person(session, argument)
    context = await session.turn_context()
    if context is None:
        return (f"No turn has been told yet, so the narrator has been told nothing about {node.name}. "
                "Play a turn, then ask again.")
    shown = section_lines(context, node.id)
    head = (f"**What the narrator was told about {node.name} at turn {context.turn}, section by section:**"
            if shown else f"The narrator was told nothing about {node.name} at turn {context.turn}.")
    parts = [head]
    if shown:
        parts += ["", *shown]
    parts += ["", budget_line(context)]
    if context.omitted:
        parts += ["", *omissions(context)]
    # The player's own standing notes reach the narrator every turn, whoever is asked about.
    parts += ["", *(f"- {line.label}: {line.text or '(none)'}" for line in session.registry.instructions(session.features))]
    return "\n".join(parts)


async def why_sections(session: CommandContext, node: Node) -> list[str]:
    """What ``/why NAME`` adds below its relations: the sections of the last told turn about NAME."""
    context = await session.turn_context()
    if context is None:
        return []
    shown = section_lines(context, node.id)
    if not shown and not context.omitted:
        return []
    lines = [f"**What the narrator was told about {node.name} at turn {context.turn}, section by section:**", ""]
    lines += shown or [f"- nothing about {node.name}"]
    if context.omitted:
        lines += omissions(context)
    return lines
