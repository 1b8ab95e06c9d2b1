"""`/relationship NAME` and `/relationship NAME set trust|respect|friendliness VALUE`: reading and words.

The feature's meta command (``relationship_command``) finds the person and keeps a set as a turn of its
own; what the command means and what it prints are here, so the text is the same wherever it is shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from game.errors import KithError
from game.features.attitudes.model import DIMENSIONS, Attitude
from game.world.tiers import LIMIT

USAGE = ("Type `/relationship NAME` to see how someone stands toward you, or "
         "`/relationship NAME set trust|respect|friendliness VALUE` (from -100 to 100) to set it.")
RECENT = 8
"""How many of the latest changes `/relationship NAME` lists."""
_SET = re.compile(r"^(?P<name>.+?)\s+set\s+(?P<dim>\S+)\s+(?P<value>\S+)\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class RelationshipRequest:
    """What a `/relationship` line asks: whom, and a dimension to set (None: only show)."""

    name: str
    dimension: str | None = None
    value: float = 0.0


def parse_relationship(argument: str) -> RelationshipRequest:
    """The request ``argument`` (the text after `/relationship`) makes; a ``KithError`` says what is wrong."""
    text = argument.strip()
    if not text:
        raise KithError(USAGE, title="Relationship")
    match = _SET.match(text)
    if match is None:
        if re.search(r"\sset(\s|$)", text, re.IGNORECASE):
            raise KithError(USAGE, title="Relationship")
        return RelationshipRequest(text)
    dimension = match.group("dim").lower()
    if dimension not in DIMENSIONS:
        raise KithError(f"{match.group('dim')!r} is not something you can set; choose trust, respect or "
                        "friendliness.", title="Relationship")
    try:
        value = float(match.group("value"))
    except ValueError:
        raise KithError(f"{match.group('value')!r} is not a number; give one from -100 to 100.",
                        title="Relationship") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise KithError(f"{match.group('value')!r} is not a number; give one from -100 to 100.", title="Relationship")
    return RelationshipRequest(match.group("name").strip(), dimension, max(-LIMIT, min(LIMIT, value)))


def set_attitude(attitude: Attitude, request: RelationshipRequest, turn: int) -> Attitude:
    """``attitude`` with the request's dimension set (absolute, clamped), recorded at ``turn``."""
    assert request.dimension is not None
    values = {d: attitude.value(d) for d in DIMENSIONS}
    values[request.dimension] = request.value
    reason = f"set by hand: {request.dimension} {values[request.dimension]:g}"
    return attitude.set_to(values["trust"], values["respect"], values["friendliness"], turn, reason)


def describe(attitude: Attitude) -> str:
    """The `/relationship NAME` reply: the three values, disposition and tier, and the recent changes."""
    lines = [
        f"**{attitude.name}** toward you: **{attitude.tier}** (disposition {attitude.disposition:g}).",
        f"Trust {attitude.trust:g}/100, respect {attitude.respect:g}/100, friendliness "
        f"{attitude.friendliness:g}/100. Interactions: {attitude.interactions}.",
    ]
    if attitude.history:
        lines += ["", "Recent changes:"]
        for change in attitude.history[-RECENT:]:
            # The values after the change, said so: "trust -5" after a help read as if helping cost trust.
            lines.append(f"- turn {change.turn} ({change.reason}): now trust {change.trust:g}, respect "
                         f"{change.respect:g}, friendliness {change.friendliness:g}")
    else:
        lines += ["", "Nothing has changed it yet: this is how things stood from the start."]
    return "\n".join(lines)


def describe_set(before: Attitude, after: Attitude, dimension: str) -> str:
    """The reply to a set: the value now, and the tier when it moved."""
    text = f"{after.name}'s {dimension} toward you is now {after.value(dimension):g}."
    if after.tier != before.tier:
        text += f" Their tier moves from {before.tier} to {after.tier}."
    else:
        text += f" Their tier stays {after.tier}."
    return text + " (`undo` takes it back.)"
