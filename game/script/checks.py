"""The checks a script line can make, and how each judges one command's output and the game after it.

A check line is peeled RegTest-style: ``!`` (or ``{invert}``) negates, ``{vital}`` stops the test at this
check's failure, ``{graph}`` / ``{state}`` pick what is checked; what remains is the check itself:
``/regex``, ``{count=N} text`` or plain text (a substring). Each check answers "does it hold?" together
with what it saw, so a failure message can say what was there instead, whichever way it was negated.
"""

from __future__ import annotations

import math
import operator
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from game.graph.memory import GraphIndex
from game.graph.models import Edge, Node
from game.graph.names import normalize_name, resolve_name
from game.graph.render import sign_word
from game.graph.vocabulary import Vocabulary
from game.narrator.base import SceneState


class CheckSyntaxError(ValueError):
    """A check line that cannot be understood; the parser adds the file and line."""


class Unanswerable(Exception):
    """The check cannot be judged either way (an ambiguous name); it fails, negated or not."""


@dataclass(frozen=True)
class CheckContext:
    """What a check may look at: the command's output and the game as the command left it."""

    output: str
    scene: SceneState | None = None
    graph: GraphIndex | None = None
    vocabulary: Vocabulary = field(default_factory=Vocabulary.default)
    turn: int = 0


@dataclass(frozen=True)
class Verdict:
    """Whether the check as written (negation included) passed, and what it saw."""

    passed: bool
    detail: str


class Check(ABC):
    """One line under a command. ``text`` is the line as written, for failure messages."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool) -> None:
        self.text = text
        self.line = line
        self.inverse = inverse
        self.vital = vital

    def evaluate(self, context: CheckContext) -> Verdict:
        try:
            holds, detail = self.observe(context)
        except Unanswerable as problem:
            # A name that could mean two people answers neither "yes" nor "no": negation cannot pass it.
            return Verdict(passed=False, detail=str(problem))
        return Verdict(passed=holds != self.inverse, detail=detail)

    @abstractmethod
    def observe(self, context: CheckContext) -> tuple[bool, str]:
        """Whether the un-negated check holds, and a short account of what was found."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.text!r}>"


# ------------------------------------------------------------------------------------------- text

_SPACES = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def loose_text(text: str) -> str:
    """Prose as a text check compares it: curly quotes straightened, runs of white space as one space.

    Narration is reflowed by whoever prints it and narrators use typographic quotes; an author typing a
    check should not have to know where a line broke or which apostrophe was used.
    """
    return _SPACES.sub(" ", text.translate(_QUOTES)).strip()


class TextCheck(Check):
    """Plain text: passes when the output contains it."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, needle: str) -> None:
        super().__init__(text, line, inverse, vital)
        self.needle = loose_text(needle)

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        found = self.needle in loose_text(context.output)
        return found, "found in the output" if found else "not found in the output"


class CountCheck(Check):
    """``{count=N} text``: the text occurs at least N times (overlapping occurrences count, as in RegTest)."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, needle: str, count: int) -> None:
        super().__init__(text, line, inverse, vital)
        self.needle = loose_text(needle)
        self.count = count

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        haystack = loose_text(context.output)
        found = 0
        start = haystack.find(self.needle)
        while start >= 0 and self.needle:
            found += 1
            start = haystack.find(self.needle, start + 1)
        return found >= self.count, f"found {found} time{'s' if found != 1 else ''}, wanted at least {self.count}"


class RegexCheck(Check):
    """``/pattern``: a Python regular expression searched in the output (``^``/``$`` match at lines)."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, pattern: str) -> None:
        super().__init__(text, line, inverse, vital)
        try:
            self.pattern = re.compile(pattern, re.MULTILINE)
        except re.error as error:
            raise CheckSyntaxError(f"bad regular expression /{pattern}: {error}") from error

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        match = self.pattern.search(context.output)
        if match is None:
            return False, "no match in the output"
        return True, f"matched {match.group(0)!r}"


# ------------------------------------------------------------------------------------------- graph

_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "=": operator.eq, "==": operator.eq, "!=": operator.ne,
    ">=": operator.ge, "<=": operator.le, ">": operator.gt, "<": operator.lt,
}
_CONDITION = re.compile(r"\b(sign|strength)\s*(==|!=|>=|<=|=|>|<)\s*(\S+)", re.IGNORECASE)
_SIGN_WORDS = {"+": "+", "positive": "+", "-": "-", "negative": "-", "0": "0", "neutral": "0", "·": "0"}


@dataclass(frozen=True)
class EdgeCondition:
    """``sign=+`` or ``strength>=0.5``: a test one open version must pass."""

    what: str
    op: str
    value: str | float

    def holds(self, edge: Edge) -> bool:
        if self.what == "sign":
            return _COMPARISONS[self.op](sign_word(edge.strength), self.value)
        assert isinstance(self.value, float)
        if self.op in ("=", "==", "!="):
            # Strengths are written as decimals and stored as floats: compare them as a person reads them.
            return math.isclose(edge.strength, self.value, abs_tol=1e-9) == (self.op != "!=")
        return bool(_COMPARISONS[self.op](edge.strength, self.value))

    def __str__(self) -> str:
        return f"{self.what}{self.op}{self.value}"


def parse_conditions(text: str) -> tuple[str, list[EdgeCondition]]:
    """Split ``KIN_OF sign=+ strength>0.5`` into the relation and its conditions."""
    matches = list(_CONDITION.finditer(text))
    head = text[: matches[0].start()] if matches else text
    between = _CONDITION.sub(" ", text[len(head):]).strip()
    if between:
        raise CheckSyntaxError(f"cannot read {between!r}: conditions are sign=+|-|0 or strength>=NUMBER")
    conditions = []
    for match in matches:
        what, op, raw = match.group(1).lower(), match.group(2), match.group(3)
        if what == "sign":
            if op not in ("=", "==", "!="):
                raise CheckSyntaxError(f"sign takes = or != (got {op})")
            sign = _SIGN_WORDS.get(raw.lower())
            if sign is None:
                raise CheckSyntaxError(f"sign={raw}: the sign is +, - or 0")
            conditions.append(EdgeCondition("sign", op, sign))
        else:
            try:
                number = float(raw)
            except ValueError as error:
                raise CheckSyntaxError(f"strength{op}{raw}: {raw!r} is not a number") from error
            if not math.isfinite(number):
                raise CheckSyntaxError(f"strength{op}{raw}: the strength is a number between -1 and 1")
            conditions.append(EdgeCondition("strength", op, number))
    return head.strip(), conditions


def node_called(graph: GraphIndex, name: str) -> Node | None:
    """The node ``name`` means, by the graph's one rule (``resolve_name``); ambiguity is unanswerable."""
    match = resolve_name(name, graph.nodes.values())
    if match.ambiguous:
        raise Unanswerable(f"{name!r} could mean {match.choices()}; use the full name")
    return match.node


def describe_edge(edge: Edge, nodes: Mapping[str, Node]) -> str:
    source = nodes[edge.source].name if edge.source in nodes else edge.source
    target = nodes[edge.target].name if edge.target in nodes else edge.target
    return f"{source} -> {target}: {edge.relation} sign={sign_word(edge.strength)} strength={edge.strength:g}"


def _list(items: Iterable[str], empty: str = "none") -> str:
    shown = list(items)
    if not shown:
        return empty
    more = f" and {len(shown) - 6} more" if len(shown) > 6 else ""
    return "; ".join(shown[:6]) + more


class NodeCheck(Check):
    """``{graph} Name``: a node with that name or alias exists."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, name: str) -> None:
        super().__init__(text, line, inverse, vital)
        self.name = name

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        if context.graph is None:
            return False, "no graph to check"
        found = node_called(context.graph, self.name)
        if found is None:
            return False, f"no node named {self.name!r}"
        return True, f"found {found.name} ({found.id}, {found.type})"


class EdgeCheck(Check):
    """``{graph} A -> B: REL sign=+``: an open version of REL runs from A to B and meets every condition.

    REL goes through the world's vocabulary, so a synonym or an inverse names the stored relation and a
    symmetric relation matches in either direction. Without ``: REL`` any open relation will do.
    """

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, source: str, target: str,
                 relation: str | None, conditions: list[EdgeCondition]) -> None:
        super().__init__(text, line, inverse, vital)
        self.source = source
        self.target = target
        self.relation = relation
        self.conditions = conditions

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        graph = context.graph
        if graph is None:
            return False, "no graph to check"
        source, target = node_called(graph, self.source), node_called(graph, self.target)
        missing = [repr(n) for n, found in ((self.source, source), (self.target, target)) if found is None]
        if missing or source is None or target is None:
            return False, f"no node named {' or '.join(missing)}"
        ends = ({source.id}, {target.id})
        relation = None if self.relation is None else context.vocabulary.normalize(self.relation)

        def joins(edge: Edge, either_way: bool) -> bool:
            forward = edge.source in ends[0] and edge.target in ends[1]
            backward = edge.source in ends[1] and edge.target in ends[0]
            return forward or (either_way and backward)

        between = [e for e in graph.open_edges.values() if joins(e, True)]
        if relation is None:
            # Any relation: each one as the vocabulary stores it, a symmetric one either way round.
            candidates = [e for e in between if joins(e, context.vocabulary.is_symmetric(e.relation))]
        else:
            candidates = [e for e in between if relation.joins(e, *ends)]
        meeting = [e for e in candidates if all(c.holds(e) for c in self.conditions)]
        if meeting:
            return True, "open: " + _list(describe_edge(e, graph.nodes) for e in meeting)
        wanted = relation.name if relation else "relation"
        if candidates:
            unmet = " ".join(str(c) for c in self.conditions)
            return False, (f"open {wanted} does not meet {unmet}: "
                           + _list(describe_edge(e, graph.nodes) for e in candidates))
        return False, (f"no open {wanted} from {self.source} to {self.target}; open between them: "
                       + _list(describe_edge(e, graph.nodes) for e in between))


def parse_graph_check(body: str, text: str, line: int, inverse: bool, vital: bool) -> Check:
    # "→" is how /graph prints an arrow, so a line copied from the game works; "B <- A" reads right to left.
    body = body.replace("→", "->").replace("←", "<-")
    if "<-" in body and "->" not in body:
        target, _, rest = body.partition("<-")
        source, colon, tail = rest.partition(":")
        body = f"{source.strip()} -> {target.strip()}{colon}{tail}"
    if "->" not in body:
        if ":" in body or not body.strip():
            raise CheckSyntaxError("a graph check reads 'A -> B: RELATION [sign=+|-|0]' or 'Name'")
        return NodeCheck(text, line, inverse, vital, body.strip())
    source, _, rest = body.partition("->")
    target, colon, tail = rest.partition(":")
    relation: str | None = None
    conditions: list[EdgeCondition] = []
    if colon:
        relation_text, conditions = parse_conditions(tail)
        if not relation_text:
            raise CheckSyntaxError("no relation after ':' (write 'A -> B' for any relation)")
        relation = None if relation_text == "*" else relation_text
    elif _CONDITION.search(target):
        raise CheckSyntaxError("conditions follow a relation: 'A -> B: RELATION sign=+'")
    source, target = source.strip(), target.strip()
    if not source or not target:
        raise CheckSyntaxError("a graph check names both ends: 'A -> B: RELATION'")
    return EdgeCheck(text, line, inverse, vital, source, target, relation, conditions)


# ------------------------------------------------------------------------------------------- state

STATE_KEYS = (*SceneState.model_fields, "turn")
_STATE = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)\s*(?:(?P<op>==|!=|>=|<=|=|>|<|\bhas\b)\s*(?P<value>.*))?$")


def _loose(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return normalize_name(str(value))


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


class StateCheck(Check):
    """``{state} KEY = VALUE``, ``KEY != VALUE``, ``KEY >= N``, ``KEY has ITEM`` or ``KEY`` (is set).

    KEY is a scene field (``location``, ``ending``, ``inventory``, ``cast``, ``met``, ``visited``,
    ``verbose``), ``turn``, or a dotted path into a mapping (``flags.bribed``). Values compare without
    regard to case; an unset value reads ``none``; a list compared with ``=`` is a comma-separated set.
    """

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, path: list[str],
                 op: str | None, value: str | None) -> None:
        super().__init__(text, line, inverse, vital)
        self.path = path
        self.op = op
        self.value = value

    def lookup(self, context: CheckContext) -> Any:
        head, *rest = self.path
        current: Any = context.turn if head == "turn" else getattr(context.scene, head, None)
        for part in rest:
            current = current.get(part) if isinstance(current, Mapping) else None
        return current

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        if context.scene is None and self.path[0] != "turn":
            return False, "no scene to check"
        actual = self.lookup(context)
        shown = f"{'.'.join(self.path)} is {self._show(actual)}"
        if self.op is None:
            return bool(actual), shown
        assert self.value is not None
        if self.op == "has":
            return self._has(actual, self.value), shown
        if isinstance(actual, list | tuple | set):
            wanted = {_loose(v) for v in self.value.split(",") if v.strip()}
            same = {_loose(v) for v in actual} == wanted
            if self.op in ("=", "==", "!="):
                return same == (self.op != "!="), shown
            return False, f"{shown}: a list compares with =, != or has, not {self.op}"
        if self.op in ("=", "==", "!="):
            left, right = _number(actual), _number(self.value)
            same = left == right if left is not None and right is not None else _loose(actual) == _loose(self.value)
            return same == (self.op != "!="), shown
        left, right = _number(actual), _number(self.value)
        if left is None or right is None:
            return False, f"{shown}, which cannot be compared with {self.op} {self.value}"
        return _COMPARISONS[self.op](left, right), shown

    @staticmethod
    def _has(actual: Any, value: str) -> bool:
        wanted = _loose(value)
        if isinstance(actual, Mapping):
            return any(_loose(key) == wanted for key in actual)
        if isinstance(actual, list | tuple | set):
            return any(_loose(item) == wanted for item in actual)
        return actual is not None and wanted in _loose(actual)

    @staticmethod
    def _show(value: Any) -> str:
        if isinstance(value, list | tuple):
            return "[" + ", ".join(str(v) for v in value) + "]"
        return _loose(value) if value is None or isinstance(value, bool) else repr(value)


def parse_state_check(body: str, text: str, line: int, inverse: bool, vital: bool) -> StateCheck:
    match = _STATE.match(body.strip())
    if match is None:
        raise CheckSyntaxError("a state check reads 'KEY = VALUE', 'KEY has ITEM' or 'KEY'")
    path = match.group("key").split(".")
    if path[0] not in STATE_KEYS:
        raise CheckSyntaxError(f"unknown state key {path[0]!r}; keys: {', '.join(STATE_KEYS)}")
    op = match.group("op")
    value = match.group("value")
    if op is not None and not (value or "").strip():
        raise CheckSyntaxError(f"nothing to compare after {op!r}")
    return StateCheck(text, line, inverse, vital, path, op, value.strip() if value is not None else None)


# ------------------------------------------------------------------------------------------- parse

_MODIFIER = re.compile(r"!|\{[a-z]+\}")


def parse_check(text: str, line: int = 0, vital: bool = False) -> Check:
    """Build the check a stripped script line describes; ``CheckSyntaxError`` says what is wrong."""
    rest = text.strip()
    inverse = False
    kind = "text"
    while True:
        match = _MODIFIER.match(rest)
        if match is None:
            break
        token = match.group(0)
        if token in ("!", "{invert}"):
            inverse = not inverse
        elif token == "{vital}":
            vital = True
        elif token in ("{graph}", "{state}") and kind == "text":
            kind = token[1:-1]
        else:
            raise CheckSyntaxError(f"unknown check modifier {token} (known: !, {{vital}}, {{graph}}, "
                                   "{state}, {count=N}; use /\\{...\\} to look for braces)")
        rest = rest[match.end():].strip()
    if kind == "graph":
        return parse_graph_check(rest, text, line, inverse, vital)
    if kind == "state":
        return parse_state_check(rest, text, line, inverse, vital)
    count = re.match(r"\{count=(\d+)\}", rest)
    if count is not None:
        needle = rest[count.end():].strip()
        if not needle:
            raise CheckSyntaxError("{count=N} needs the text to count")
        return CountCheck(text, line, inverse, vital, needle, int(count.group(1)))
    if rest.startswith("{count"):
        raise CheckSyntaxError("write the count as {count=N} with a whole number")
    if rest.startswith("/"):
        return RegexCheck(text, line, inverse, vital, rest[1:].strip())
    if not rest:
        raise CheckSyntaxError("an empty check")
    return TextCheck(text, line, inverse, vital, rest)
