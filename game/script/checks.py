"""The checks a script line can make, and how each judges one command's output and the game after it.

A check line is peeled RegTest-style: ``!`` (or ``{invert}``) negates, ``{vital}`` stops the test at this
check's failure, ``{graph}`` / ``{state}`` pick what is checked; what remains is the check itself:
``/regex``, ``{count=N} text`` or plain text (a substring). Each check answers "does it hold?" together
with what it saw, so a failure message can say what was there instead, whichever way it was negated.

It is one piece (over 400 lines) on purpose: every check is a small ``Check`` subclass sharing one
verdict shape and one line syntax, and ``parse_check`` dispatches to them all; the file is the list of
what a script line may check.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from game.features.attitudes.model import DIMENSIONS, AttitudeBook
from game.features.feature import ScriptCheck
from game.graph.index import GraphIndex
from game.graph.models import Edge, Node
from game.graph.names import normalize_name, resolve_name
from game.graph.render import sign_word
from game.graph.vocabulary import Vocabulary
from game.registry import default_registry
from game.text import straighten_quotes
from game.world.refs import COMPARISONS, RefSyntaxError, RelationRef, parse_relation_ref
from game.world.scene import SceneState
from game.world.tiers import TIERS, parse_tier_spec, tier_matches


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
    attitudes: AttitudeBook = field(default_factory=AttitudeBook)
    features: Mapping[str, Any] = field(default_factory=dict)
    """Each registered feature's state (``game.registry``): what the features' own checks read."""


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


def loose_text(text: str) -> str:
    """Prose as a text check compares it: curly quotes straightened, runs of white space as one space.

    Narration is reflowed by whoever prints it and narrators use typographic quotes; an author typing a
    check should not have to know where a line broke or which apostrophe was used.
    """
    return _SPACES.sub(" ", straighten_quotes(text)).strip()


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

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, ref: RelationRef, *,
                 player_word: bool = False) -> None:
        super().__init__(text, line, inverse != ref.negated, vital)
        self.ref = ref
        self.source = ref.source
        self.target = ref.target
        self.player_word = player_word
        """Whether ``player`` names the player character at either end (``{knows}`` checks)."""

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        meeting, detail = self.meeting(context)
        return bool(meeting), detail

    def meeting(self, context: CheckContext) -> tuple[list[Edge], str]:
        """The open versions that match, and what was found (for a message either way)."""
        graph = context.graph
        if graph is None:
            return [], "no graph to check"
        called = person_called if self.player_word else node_called
        source, target = called(graph, self.source), called(graph, self.target)
        missing = [repr(n) for n, found in ((self.source, source), (self.target, target)) if found is None]
        if missing or source is None or target is None:
            return [], f"no node named {' or '.join(missing)}"
        ends = ({source.id}, {target.id})
        relation = None if self.ref.any_relation else context.vocabulary.normalize(self.ref.relation)

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
        meeting = [e for e in candidates if self.ref.holds(e.strength)]
        if meeting:
            return meeting, "open: " + _list(describe_edge(e, graph.nodes) for e in meeting)
        wanted = relation.name if relation else "relation"
        if candidates:
            unmet = " ".join(str(c) for c in self.ref.conditions)
            return [], (f"open {wanted} does not meet {unmet}: "
                        + _list(describe_edge(e, graph.nodes) for e in candidates))
        return [], (f"no open {wanted} from {self.source} to {self.target}; open between them: "
                    + _list(describe_edge(e, graph.nodes) for e in between))


PLAYER_WORD = "player"
"""How a script names the player character in a ``{knows}`` check, whatever the player is called."""


class KnowsCheck(Check):
    """``{knows} NAME: A -> B: REL``: NAME knows an open version of the relation (at the floor or above).

    ``{knows} !NAME: ...`` holds when the relation is open and NAME does not know it, so a secret is
    checked as a secret, not passed by a relation that is missing altogether (that fails either way).
    """

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, knower: str, edge: EdgeCheck) -> None:
        super().__init__(text, line, inverse, vital)
        self.knower = knower
        self.edge = edge

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        graph = context.graph
        if graph is None:
            raise Unanswerable("no graph to check")
        knower = person_called(graph, self.knower)
        if knower is None:
            raise Unanswerable(f"no node named {self.knower!r}")
        meeting, detail = self.edge.meeting(context)
        if not meeting:
            raise Unanswerable(detail)
        knows = [e for e in meeting if graph.knows(knower.id, e.id)]
        if knows:
            return True, f"{knower.name} knows " + _list(describe_edge(e, graph.nodes) for e in knows)
        knowers = {who for e in meeting for who in graph.knowers_of(e.id)}
        names = sorted(graph.nodes[k].name if k in graph.nodes else k for k in knowers)
        return False, f"{knower.name} does not know it; known by: {_list(names)}"


class FeatureCheck(Check):
    """A check a feature offers (``{deed} ...``): the feature judges it from its state and the graph."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, judge: ScriptCheck) -> None:
        super().__init__(text, line, inverse, vital)
        self.judge = judge

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        try:
            return self.judge(context.features, context.graph)
        except ValueError as problem:
            raise Unanswerable(str(problem)) from None


def person_called(graph: GraphIndex, name: str) -> Node | None:
    """``node_called``, where ``player`` also names the player character (when nothing is called that):
    a script cannot know what a world calls its player, yet news about the player is what travels."""
    found = node_called(graph, name)
    if found is None and normalize_name(name) == PLAYER_WORD and len(graph.player_ids) == 1:
        return graph.nodes[next(iter(graph.player_ids))]
    return found


def parse_knows_check(body: str, text: str, line: int, inverse: bool, vital: bool) -> KnowsCheck:
    """``NAME: A -> B: REL`` or ``!NAME: A -> B: REL``."""
    knower, colon, ref_text = body.partition(":")
    knower = knower.strip()
    if knower.startswith("!"):
        inverse, knower = not inverse, knower[1:].strip()
    if not colon or not knower or not any(arrow in ref_text for arrow in ("->", "<-", "→", "←")):
        raise CheckSyntaxError("a knows check reads 'NAME: A -> B: RELATION' (or '!NAME: ...' for a secret)")
    try:
        ref = parse_relation_ref(ref_text, any_relation=True, kind="a knows check")
    except RefSyntaxError as error:
        raise CheckSyntaxError(str(error)) from error
    if ref.negated:
        raise CheckSyntaxError("in a knows check the '!' goes before the knower: '{knows} !NAME: A -> B: REL'")
    return KnowsCheck(text, line, inverse, vital, knower, EdgeCheck(text, line, False, vital, ref, player_word=True))


def parse_graph_check(body: str, text: str, line: int, inverse: bool, vital: bool) -> Check:
    """``Name`` (a node exists) or a relation reference, in the notation content uses (``world.refs``)."""
    if not any(arrow in body for arrow in ("->", "<-", "→", "←")):
        if ":" in body or not body.strip():
            raise CheckSyntaxError("a graph check reads 'A -> B: RELATION [sign=+|-|0]' or 'Name'")
        return NodeCheck(text, line, inverse, vital, body.strip())
    try:
        ref = parse_relation_ref(body, any_relation=True, kind="a graph check")
    except RefSyntaxError as error:
        raise CheckSyntaxError(str(error)) from error
    return EdgeCheck(text, line, inverse, vital, ref)


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
            # ``story.item_places``: the story's own state is a model, read by field like a mapping.
            current = current.get(part) if isinstance(current, Mapping) else (
                getattr(current, part, None) if isinstance(current, BaseModel) else None)
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
        return COMPARISONS[self.op](left, right), shown

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


# ------------------------------------------------------------------------------------------- attitudes

_TIER = re.compile(r"^(?P<name>.+?)\s*(?P<op>!=|>=|<=|==|=)\s*(?P<tier>[A-Za-z]+)$")
_ATTITUDE = re.compile(r"^(?P<name>.+?)\s+(?P<dim>[a-z]+)\s*(?P<op>==|!=|>=|<=|=|>|<)\s*(?P<value>-?\d+(?:\.\d+)?)$")
ATTITUDE_KEYS = (*DIMENSIONS, "disposition")


class TierCheck(Check):
    """``{tier} NAME = FRIENDLY`` (also ``!=``, ``>=``, ``<=``): NAME's attitude tier toward the player."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, name: str, spec: str) -> None:
        super().__init__(text, line, inverse, vital)
        self.name = name
        self.spec = spec

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        graph = context.graph
        if graph is None:
            raise Unanswerable("no graph to check")
        person = node_called(graph, self.name)
        if person is None or person.type != "individual" or person.id in graph.player_ids:
            raise Unanswerable(f"no person named {self.name!r}")
        attitude = context.attitudes.of(graph, person)
        return tier_matches(attitude.tier, self.spec), f"{person.name} is {attitude.tier} ({attitude.disposition:g})"


class AttitudeCheck(Check):
    """``{attitude} NAME trust >= 20``: one of NAME's attitude values (trust, respect, friendliness,
    disposition) compared with a number."""

    def __init__(self, text: str, line: int, inverse: bool, vital: bool, name: str, key: str, op: str,
                 value: float) -> None:
        super().__init__(text, line, inverse, vital)
        self.name, self.key, self.op, self.value = name, key, op, value

    def observe(self, context: CheckContext) -> tuple[bool, str]:
        graph = context.graph
        if graph is None:
            raise Unanswerable("no graph to check")
        person = node_called(graph, self.name)
        if person is None or person.type != "individual" or person.id in graph.player_ids:
            raise Unanswerable(f"no person named {self.name!r}")
        attitude = context.attitudes.of(graph, person)
        actual = attitude.disposition if self.key == "disposition" else attitude.value(self.key)
        return COMPARISONS[self.op](actual, self.value), f"{person.name}'s {self.key} is {actual:g}"


def parse_tier_check(body: str, text: str, line: int, inverse: bool, vital: bool) -> TierCheck:
    match = _TIER.match(body.strip())
    if match is None:
        raise CheckSyntaxError(f"a tier check reads 'NAME = TIER' or 'NAME != TIER' (tiers: {', '.join(TIERS)})")
    op, tier = match.group("op"), match.group("tier").upper()
    try:
        parse_tier_spec(tier)
    except ValueError as error:
        raise CheckSyntaxError(str(error)) from error
    spec = {"!=": f"!{tier}", ">=": f">={tier}", "<=": f"<={tier}"}.get(op, tier)
    return TierCheck(text, line, inverse, vital, match.group("name").strip(), spec)


def parse_attitude_check(body: str, text: str, line: int, inverse: bool, vital: bool) -> AttitudeCheck:
    match = _ATTITUDE.match(body.strip())
    if match is None or match.group("dim") not in ATTITUDE_KEYS:
        raise CheckSyntaxError(f"an attitude check reads 'NAME {{{'|'.join(ATTITUDE_KEYS)}}} OP NUMBER', "
                               "e.g. 'Hob trust >= 20'")
    return AttitudeCheck(text, line, inverse, vital, match.group("name").strip(), match.group("dim"),
                         match.group("op"), float(match.group("value")))


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
        elif (token in ("{graph}", "{state}", "{knows}", "{tier}", "{attitude}") and kind == "text") or (token[1:-1] in default_registry().check_tags() and kind == "text"):
            kind = token[1:-1]
        else:
            raise CheckSyntaxError(f"unknown check modifier {token} (known: !, {{vital}}, {{graph}}, "
                                   "{state}, {knows}, {tier}, {attitude}, {count=N}; use /\\{...\\} to look "
                                   "for braces)")
        rest = rest[match.end():].strip()
    if kind == "graph":
        return parse_graph_check(rest, text, line, inverse, vital)
    if kind == "knows":
        return parse_knows_check(rest, text, line, inverse, vital)
    if kind == "state":
        return parse_state_check(rest, text, line, inverse, vital)
    if kind == "tier":
        return parse_tier_check(rest, text, line, inverse, vital)
    if kind == "attitude":
        return parse_attitude_check(rest, text, line, inverse, vital)
    feature_parser = default_registry().check_parser(kind)
    if feature_parser is not None:
        if rest.startswith("!"):
            inverse, rest = not inverse, rest[1:].strip()
        try:
            return FeatureCheck(text, line, inverse, vital, feature_parser(rest))
        except ValueError as problem:
            raise CheckSyntaxError(str(problem)) from None
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
