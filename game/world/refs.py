"""Relation references in content: ``"Mira -> player: TRUSTS sign=+"`` and ``"!Oren -> Vell: ALLY_OF"``.

The same shape as the ``{graph}`` checks of test scripts, so an author reads one notation everywhere.
A reference names a relation's two ends and its relation; in a condition it may add a sign or a strength
bound, and a leading ``!`` asks that no open version matching it exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from game.graph.render import sign_word

_REF = re.compile(
    r"^\s*(?P<neg>!)?\s*(?P<source>[^!].*?)\s*->\s*(?P<target>.+?)\s*:\s*(?P<relation>[A-Za-z][A-Za-z0-9_ \-]*?)"
    r"(?P<tail>(?:\s+(?:sign|min|max)\s*=\s*\S+)*)\s*$"
)
_TAIL = re.compile(r"(sign|min|max)\s*=\s*(\S+)")
SIGNS = ("+", "-", "0")


@dataclass(frozen=True)
class RelationRef:
    """A relation between two named ends, optionally constrained by sign or strength."""

    source: str
    target: str
    relation: str
    negated: bool = False
    sign: str | None = None
    minimum: float | None = None
    maximum: float | None = None

    @property
    def constrained(self) -> bool:
        return self.sign is not None or self.minimum is not None or self.maximum is not None

    def __str__(self) -> str:
        text = f"{'!' if self.negated else ''}{self.source} -> {self.target}: {self.relation}"
        if self.sign is not None:
            text += f" sign={self.sign}"
        if self.minimum is not None:
            text += f" min={self.minimum:g}"
        if self.maximum is not None:
            text += f" max={self.maximum:g}"
        return text


def parse_relation_ref(text: str) -> RelationRef:
    """Parse a reference; raises ``ValueError`` with a message an author can act on."""
    match = _REF.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not a relation reference; write it like \"Mira -> player: TRUSTS sign=+\""
        )
    sign: str | None = None
    bounds: dict[str, float] = {}
    for key, value in _TAIL.findall(match["tail"] or ""):
        if key == "sign":
            if value not in SIGNS:
                raise ValueError(f"sign must be +, - or 0 (got {value!r})")
            sign = value
        else:
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"{key} must be a number between -1 and 1 (got {value!r})") from None
            if not -1.0 <= number <= 1.0:
                raise ValueError(f"{key} must be between -1 and 1 (got {value!r})")
            bounds[key] = number
    return RelationRef(
        source=match["source"].strip(),
        target=match["target"].strip(),
        relation=match["relation"].strip(),
        negated=bool(match["neg"]),
        sign=sign,
        minimum=bounds.get("min"),
        maximum=bounds.get("max"),
    )


def strength_matches(ref: RelationRef, strength: float) -> bool:
    """Whether an open version of this strength satisfies the reference's sign and bounds."""
    if ref.sign is not None and sign_word(strength) != ref.sign:
        return False
    if ref.minimum is not None and strength < ref.minimum:
        return False
    return not (ref.maximum is not None and strength > ref.maximum)
