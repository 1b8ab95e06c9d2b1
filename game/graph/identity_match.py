"""Who might a new name be? Candidate matches with a confidence, decided as a pure function.

Upsert resolves only exact normalized names and declared aliases (``game.graph.names``). A name that is
none of those may still be someone known: a near spelling ("Bram Kettel"), a title and a surname
("Captain Kettle" for Bram Kettle), a first name alone, a description that fits one person only ("the
sailor"), or a new node whose declared aliases are an old node's names. Each rule gives a confidence:

- at or above ``ASSUME`` (0.8) the name is assumed to be that person (the name becomes an alias; the
  merge log says why);
- below ``ASK`` (0.4) it is a new person, as before;
- between, it is a new node for now and a *pending* question: the story asks the player, or an author
  answers with ``kith graph resolve``. It is never merged silently.

The two errors are not symmetric (seed 002): a duplicate is visible and fixed by one answer, a wrong
merge silently corrupts both people's histories. So the rules that may assume are narrow (declared aliases,
a title before a full name, a typo-like slip in a long name), and when two people could be meant nothing
is assumed.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from game.graph.models import Node
from game.graph.names import normalize_name
from game.graph.sexes import FRENCH_TITLE_SEX, NOUN_SEX, SEX_ATTRIBUTE, TITLE_SEX, sex_of_words

ASSUME = 0.8
"""At or above: the same person, assumed and logged."""
ASK = 0.4
"""At or above (and below ``ASSUME``): ask before merging."""
UNSURE_CAP = 0.7
"""The most a match gets when another person could be meant just as well: always a question."""

TITLES = frozenset({
    "captain", "capt", "cap'n", "skipper", "mr", "mrs", "ms", "miss", "mister", "master", "mistress", "madam",
    "lady", "lord", "sir", "dame", "doctor", "dr", "father", "mother", "sister", "brother", "old", "young",
    "sergeant", "sgt", "lieutenant", "lt", "bosun", "mate", "aunt", "uncle", "granny", "gran", "widow",
    "goodman", "goodwife", "elder", "reverend", "professor", "prof", "judge", "warden", "keeper", "constable",
}) | frozenset(FRENCH_TITLE_SEX)
"""Words that say what someone is, not who: "Captain Kettle" names a Kettle, "Old Hob" a Hob, "Mme. Bovary" a
Bovary."""
ARTICLES = frozenset({"the", "a", "an", "that", "this"})

Decision = Literal["new", "ask", "assume"]

_WORD = re.compile(r"[\w']+")


@dataclass(frozen=True)
class Candidate:
    """An existing node a new name may mean, how sure that is (0..1) and why, in words."""

    node: Node
    confidence: float
    evidence: str


@dataclass(frozen=True)
class Verdict:
    """What to do with a new name: a new node, a question about ``candidate``, or ``candidate`` assumed."""

    name: str
    decision: Decision
    candidate: Candidate | None = None


@dataclass(frozen=True)
class IdentityDecision:
    """A verdict an upsert acted on: ``node_id`` is the candidate when assumed, the new node when asked."""

    verdict: Verdict
    node_id: str


@lru_cache(maxsize=1 << 16)
def words(name: str) -> tuple[str, ...]:
    """A name's words, normalized, with the dots of "Capt." and "Dr." dropped."""
    return tuple(_WORD.findall(normalize_name(name).replace(".", " ")))


def _core(tokens: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Leading titles and articles apart from the rest: ("captain",), ("kettle",)."""
    index = 0
    while index < len(tokens) - 1 and (tokens[index] in TITLES or tokens[index] in ARTICLES):
        index += 1
    return tuple(tokens[:index]), tuple(tokens[index:])


def typo_distance(a: str, b: str) -> tuple[int, bool]:
    """Edit distance (with adjacent swaps) between ``a`` and ``b``, capped at 3, and whether a single edit
    is typo-like: two letters swapped, or a doubled letter written once (or a single one twice)."""
    if abs(len(a) - len(b)) > 2:
        return 3, False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]:
            return 1, True
    if abs(len(a) - len(b)) == 1:
        short, long_ = (a, b) if len(a) < len(b) else (b, a)
        for i in range(len(long_)):
            if long_[:i] + long_[i + 1:] == short:
                doubled = (i > 0 and long_[i - 1] == long_[i]) or (i + 1 < len(long_) and long_[i + 1] == long_[i])
                return 1, doubled
    return _capped_distance(a, b), False


def _capped_distance(a: str, b: str, cap: int = 3) -> int:
    """Damerau-Levenshtein (optimal string alignment) distance, or ``cap`` when it is that or more.

    Only the diagonal band the cap allows is computed (a cell further off it is at least ``cap`` away),
    and a row whose every cell has reached the cap ends the count: scoring a new name against everyone who
    shares a word with it (thousands, in a story naming thousands) stays a few steps per letter.
    """
    if abs(len(a) - len(b)) >= cap:
        return cap
    older: list[int] = []
    above = [min(j, cap) for j in range(len(b) + 1)]
    for i in range(1, len(a) + 1):
        row = [cap] * (len(b) + 1)
        lowest = row[0] = min(i, cap)
        here = a[i - 1]
        for j in range(max(1, i - cap + 1), min(len(b), i + cap - 1) + 1):
            best = above[j - 1] if here == b[j - 1] else above[j - 1] + 1
            if above[j] < best:
                best = above[j] + 1
            if row[j - 1] < best:
                best = row[j - 1] + 1
            if i > 1 and j > 1 and here == b[j - 2] and a[i - 2] == b[j - 1] and older[j - 2] < best:
                best = older[j - 2] + 1
            row[j] = best if best < cap else cap
            if best < lowest:
                lowest = best
        if lowest >= cap:
            return cap
        older, above = above, row
    return above[len(b)]


def score(name: str, aliases: Sequence[str], node: Node) -> Candidate | None:
    """How likely ``name`` (declared with ``aliases``) means ``node``; None when there is no reason at all.

    The best of the rules below wins (see the module's docstring for what each confidence does).
    """
    given = words(name)
    if not given:
        return None
    titles, core = _core(given)
    if _other_sex(given, node):
        return None  # "Mr. Garland" is never "Mrs. Garland": a husband and wife share a surname
    best: Candidate | None = None

    def offer(confidence: float, evidence: str) -> None:
        nonlocal best
        if best is None or confidence > best.confidence:
            best = Candidate(node, confidence, evidence)

    known = {normalize_name(n) for n in node.names}
    for alias in aliases:
        if normalize_name(alias) in known:
            offer(0.9, f"{alias!r}, a name it was given, is a name of {node.name}")
    for other in node.names:
        theirs = words(other)
        if len(theirs) < 1:
            continue
        _, their_core = _core(theirs)
        if theirs == given:
            offer(0.9, f"{name!r} is {other!r} but for its stops")  # "Mrs Hudson", "Mrs. Hudson"
        elif titles and core == their_core and len(core) >= 2:
            offer(0.9, f"{name!r} is {other!r} with a title")
        elif titles and core == their_core:
            offer(0.6, f"{name!r} is {other!r} with a title")
        elif titles and len(core) == 1 and len(their_core) >= 2 and core[0] == their_core[-1]:
            fits = any(title in _described(node) for title in titles)
            offer(0.7 if fits else 0.6,
                  f"{name!r} is a title and {other}'s surname" + (f" ({node.name} is a {titles[0]})" if fits else ""))
        elif titles and len(core) == 1 and len(their_core) >= 2 and core[0] == their_core[0]:
            offer(0.55, f"{name!r} is a title and {other}'s first name")
        elif not titles and len(given) == 1 and len(theirs) >= 2 and given[0] == theirs[0]:
            offer(0.55, f"{name!r} is {other}'s first name")
        elif not titles and len(given) == 1 and len(theirs) >= 2 and given[0] == theirs[-1]:
            offer(0.45, f"{name!r} is {other}'s surname")
        elif len(given) == len(theirs) >= 2 and sum(a != b for a, b in zip(given, theirs, strict=True)) == 1:
            a, b = next((a, b) for a, b in zip(given, theirs, strict=True) if a != b)
            distance, typo = typo_distance(a, b)
            length = len(" ".join(given))
            if distance == 1 and typo and length >= 8 and min(len(a), len(b)) >= 4:
                offer(0.85, f"{name!r} is one slip of the pen from {other!r}")
            elif distance == 1 and min(len(a), len(b)) >= 4:
                offer(0.6, f"{name!r} is one letter from {other!r}")
            elif distance == 2 and min(len(a), len(b)) >= 6:
                offer(0.45, f"{name!r} is two letters from {other!r}")
    if given[0] in ARTICLES and len(core) == 1 and core[0] in _labels(node):
        offer(0.45, f"{node.name} is known as a {core[0]}")
    return best


def _sex_of_name(given: Sequence[str]) -> str | None:
    """The sex a name's leading titles say ("Mrs. Bennet", "the old Lady Catherine"), if they say one."""
    leading = []
    for word in given[:-1]:
        if word not in TITLES and word not in ARTICLES and word not in TITLE_SEX:
            break
        leading.append(word)
    return sex_of_words(leading, TITLE_SEX)


def _other_sex(given: Sequence[str], node: Node) -> bool:
    """Whether the name's title says one sex and the node's titles, labels ("widow", "butler") or ``gender``
    attribute (what an imported story said of them) the other."""
    mine = _sex_of_name(given)
    if mine is None:
        return False
    said = {_sex_of_name(words(name)) for name in node.names} | {sex_of_words(_labels(node), NOUN_SEX)}
    said.add(SEX_ATTRIBUTE.get(str(node.attributes.get("gender", "")).casefold()))
    said.discard(None)
    return len(said) == 1 and mine not in said


def _labels(node: Node) -> frozenset[str]:
    return frozenset(w for label in node.labels for w in words(label))


def _described(node: Node) -> frozenset[str]:
    """Words of a node's labels and summary: what it is said to be (a captain, a sister...)."""
    return _labels(node) | frozenset(words(node.summary))


def judge(name: str, node_type: str, aliases: Sequence[str], nodes: Iterable[Node]) -> Verdict:
    """What a new ``name`` of ``node_type`` is among ``nodes``: new, a question, or an assumed identity.

    Only nodes of the same type count, never the player. When a description ("the sailor") fits several
    people, or two people match at all, no single one is assumed: the best is asked about, capped at
    ``UNSURE_CAP``. Ties fall to the node ID, so the verdict is the same on every run.
    """
    found: list[Candidate] = []
    sharing = _clues(name, aliases)
    for node in nodes:
        if sharing.isdisjoint(_node_clues(node)):
            continue  # no word in common: no rule can match, and this keeps a big graph cheap
        if node.type != node_type or node.attributes.get("player") is True:
            continue
        candidate = score(name, aliases, node)
        if candidate is not None and candidate.confidence >= ASK:
            found.append(candidate)
    if not found:
        return Verdict(name, "new")
    found.sort(key=lambda c: (-c.confidence, c.node.id))
    best = found[0]
    if len(found) > 1:
        if found[1].confidence >= best.confidence:
            return Verdict(name, "new")  # equally likely people: asking about one of them would be a guess
        others = ", ".join(c.node.name for c in found[1:3])
        best = Candidate(best.node, min(best.confidence, UNSURE_CAP), f"{best.evidence} (but it could be {others})")
    decision: Decision = "assume" if best.confidence >= ASSUME else "ask"
    return Verdict(name, decision, best)


def _clues(name: str, aliases: Sequence[str]) -> frozenset[str]:
    clue = set(_core(words(name))[1])
    for alias in aliases:
        clue |= set(words(alias))
    return frozenset(clue)


_CLUES: dict[str, tuple[weakref.ref[Node], frozenset[str]]] = {}
"""Each node's words by ID, with a weak reference to the node object they were read from: a changed node
is a new object (nodes are replaced, never edited), so ``is`` tells a stale entry without reading its
names again, and the cache never keeps a node (or a closed save's graph) alive."""
_MAX_CLUES = 1 << 17


def _node_clues(node: Node) -> frozenset[str]:
    cached = _CLUES.get(node.id)
    if cached is not None and cached[0]() is node:
        return cached[1]
    found: set[str] = set()
    for name in node.names:
        found.update(words(name))
    for label in node.labels:
        found.update(words(label))
    clues = frozenset(found)
    if len(_CLUES) >= _MAX_CLUES:
        _CLUES.clear()  # bounded: a process that opens many saves starts again rather than grow
    _CLUES[node.id] = (weakref.ref(node), clues)
    return clues


def question(new_name: str, candidate_name: str) -> str:
    """How the story asks: "The sailor — is that Bram Kettle?"."""
    shown = new_name.strip()
    shown = shown[:1].upper() + shown[1:]
    return f"{shown} — is that {candidate_name}?"
