"""Relation references: ``"Mira -> player: TRUSTS sign=+"``, ``"!Oren -> Vell: ALLY_OF min=0.5"``.

One notation, one parser: content conditions and effects (``when.relations``, ``end``) and the
``{graph}`` checks of test scripts both read ``[!]A -> B: RELATION [conditions]`` through
``parse_relation_ref``, so an author writes it the same way everywhere and a spelling one accepts the
other cannot refuse. ``B <- A`` reads right to left, and ``→``/``←`` (how ``/graph`` prints an arrow)
are accepted so a line copied from the game works.

Conditions test the strength of the open version: ``sign=+|-|0`` (or ``sign!=``), ``strength OP N``
with ``OP`` one of ``= == != > >= < <=``, and the shorthands ``min=N`` (``strength>=N``) and ``max=N``
(``strength<=N``). A leading ``!`` asks that no open version matching the rest exists.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from game.graph.render import sign_word

ANY_RELATION = "*"
"""Where the caller allows it (script checks), ``A -> B`` or ``A -> B: *`` means any relation."""
_SIGN_WORDS = {"+": "+", "positive": "+", "-": "-", "negative": "-", "0": "0", "neutral": "0", "·": "0"}
COMPARISONS: dict[str, Callable[[float, float], bool]] = {
    "=": operator.eq, "==": operator.eq, "!=": operator.ne,
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_CONDITION = re.compile(r"\b(sign|strength|min|max)\s*(==|!=|>=|<=|=|>|<)\s*(\S+)", re.IGNORECASE)
_RELATION = re.compile(r"^[A-Za-z][A-Za-z0-9_ \-]*$")
EXAMPLE = '"Mira -> player: TRUSTS sign=+"'


class RefSyntaxError(ValueError):
    """A reference that cannot be read; the message says how to write it."""


@dataclass(frozen=True)
class EdgeCondition:
    """``sign=+`` or ``strength>=0.5``: a test the strength of one open version must pass."""

    what: Literal["sign", "strength"]
    op: str
    value: str | float

    def holds(self, strength: float) -> bool:
        if self.what == "sign":
            return (sign_word(strength) == self.value) == (self.op != "!=")
        assert isinstance(self.value, float)
        if self.op in ("=", "==", "!="):
            # Strengths are written as decimals and stored as floats: compare them as a person reads them.
            return math.isclose(strength, self.value, abs_tol=1e-9) == (self.op != "!=")
        return COMPARISONS[self.op](strength, self.value)

    def __str__(self) -> str:
        value = self.value if isinstance(self.value, str) else f"{self.value:g}"
        return f"{self.what}{self.op}{value}"


@dataclass(frozen=True)
class RelationRef:
    """A relation between two named ends, optionally constrained by sign or strength, or negated."""

    source: str
    target: str
    relation: str
    negated: bool = False
    conditions: tuple[EdgeCondition, ...] = ()

    @property
    def constrained(self) -> bool:
        return bool(self.conditions)

    @property
    def any_relation(self) -> bool:
        return self.relation == ANY_RELATION

    def holds(self, strength: float) -> bool:
        """Whether an open version of this strength meets every condition (the ``!`` aside)."""
        return all(condition.holds(strength) for condition in self.conditions)

    def __str__(self) -> str:
        text = f"{'!' if self.negated else ''}{self.source} -> {self.target}: {self.relation}"
        return " ".join([text, *(str(c) for c in self.conditions)])


def parse_relation_ref(text: str, *, any_relation: bool = False, kind: str = "a relation reference") -> RelationRef:
    """Read a reference; ``RefSyntaxError`` says what is wrong in words an author can act on.

    With ``any_relation`` (script checks) the relation may be left out or written ``*``; content always
    names one. ``kind`` is what messages call the line (``a graph check`` in a script).
    """
    body = text.strip().replace("→", "->").replace("←", "<-")
    negated = body.startswith("!")
    body = body.removeprefix("!").strip()
    if "<-" in body and "->" not in body:
        target, _, rest = body.partition("<-")
        source, colon, tail = rest.partition(":")
        body = f"{source.strip()} -> {target.strip()}{colon}{tail}"
    if "->" not in body:
        raise RefSyntaxError(f"{text!r} is not a relation reference; write it like {EXAMPLE}")
    source, _, rest = body.partition("->")
    target, colon, tail = rest.partition(":")
    source, target = source.strip(), target.strip()
    if not colon:
        if _CONDITION.search(target):
            raise RefSyntaxError("conditions follow a relation: 'A -> B: RELATION sign=+'")
        if not any_relation:
            raise RefSyntaxError(f"{text!r} names no relation; write it like {EXAMPLE}")
        relation, conditions = ANY_RELATION, list[EdgeCondition]()
    else:
        relation, conditions = parse_conditions(tail)
        if not relation:
            raise RefSyntaxError("no relation after ':'" + (" (write 'A -> B' for any relation)" if any_relation else ""))
        if relation == ANY_RELATION and not any_relation:
            raise RefSyntaxError(f"{text!r}: name the relation; '*' (any relation) is for script checks")
        if relation != ANY_RELATION and not _RELATION.match(relation):
            raise RefSyntaxError(f"{relation!r} is not a relation name (letters, digits, '_', spaces or '-')")
    if not source or not target:
        raise RefSyntaxError(f"{kind} names both ends: 'A -> B: RELATION'")
    return RelationRef(source, target, relation, negated, tuple(conditions))


def parse_conditions(text: str) -> tuple[str, list[EdgeCondition]]:
    """Split ``KIN_OF sign=+ strength>0.5`` into the relation and its conditions."""
    matches = list(_CONDITION.finditer(text))
    head = text[: matches[0].start()] if matches else text
    between = _CONDITION.sub(" ", text[len(head):]).strip()
    if between:
        raise RefSyntaxError(f"cannot read {between!r}: conditions are sign=+|-|0, strength>=N, min=N or max=N")
    return head.strip(), [_condition(m.group(1).lower(), m.group(2), m.group(3)) for m in matches]


def _condition(what: str, op: str, raw: str) -> EdgeCondition:
    if what == "sign":
        if op not in ("=", "==", "!="):
            raise RefSyntaxError(f"sign takes = or != (got {op})")
        sign = _SIGN_WORDS.get(raw.lower())
        if sign is None:
            raise RefSyntaxError(f"sign={raw}: the sign is +, - or 0")
        return EdgeCondition("sign", op, sign)
    if what in ("min", "max"):
        if op != "=":
            raise RefSyntaxError(f"{what} takes = (got {op}); or write strength{'>=' if what == 'min' else '<='}N")
        op = ">=" if what == "min" else "<="
    try:
        number = float(raw)
    except ValueError:
        raise RefSyntaxError(f"{what}{op}{raw}: {raw!r} is not a number") from None
    if not (math.isfinite(number) and -1.0 <= number <= 1.0):
        raise RefSyntaxError(f"{what}{op}{raw}: the strength is a number between -1 and 1")
    return EdgeCondition("strength", op, number)


def strength_matches(ref: RelationRef, strength: float) -> bool:
    """Whether an open version of this strength satisfies the reference's conditions."""
    return ref.holds(strength)
