"""How names are compared, slugged and found in free text.

Identity is conservative, because a wrong merge mixes two people's histories and a missed one only
leaves a duplicate to merge by hand: two names are the same only when their normalized forms are equal.
Normalization folds case and Unicode width and collapses white space, nothing more, so "Anna Lee" and
"Anna Leigh" stay two people.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from functools import lru_cache
from itertools import accumulate, compress, count
from typing import TYPE_CHECKING, NamedTuple

from game.text import straighten_quotes, strip_control

if TYPE_CHECKING:
    from game.graph.models import Node

LONG_TEXT = 2_000
"""From this length on, a text's names are found by walking it through every name (``NameTrie``) rather
than by looking its candidate spans up: a turn's narration stays below it and reads few rows; a story or
one huge paragraph would make millions of candidates."""

_SPACES = re.compile(r"\s+")


# Cached: upsert and mention matching normalize the same few thousand names over and over.
@lru_cache(maxsize=1 << 16)
def normalize_name(name: str) -> str:
    """The form names are compared in: NFKC, case-folded, every quote straightened, spaces collapsed."""
    folded = straighten_quotes(unicodedata.normalize("NFKC", name)).casefold()
    return _SPACES.sub(" ", folded).strip()


class NameMatch(NamedTuple):
    """What a typed name means: exactly one node, several tied (ambiguous), or none.

    ``node`` is set only when the answer is unambiguous; ``tied`` lists the nodes an ambiguous name could
    mean, so the caller can report them instead of picking one. A NamedTuple, not a dataclass: ``kith
    graph retrieve`` imports this module, and ``dataclasses`` would cost it a tenth of its run (issue 15).
    """

    wanted: str
    node: Node | None = None
    tied: tuple[Node, ...] = ()

    @property
    def ambiguous(self) -> bool:
        return len(self.tied) > 1

    def choices(self) -> str:
        """``Tom Reed (npc-tom-reed), Tom Hale (npc-tom-hale)``: the tied nodes, for a message (names made
        safe to print: a save written before names were checked may hold escape sequences)."""
        return ", ".join(f"{strip_control(node.name)} ({node.id})" for node in self.tied)


def resolve_name(wanted: str, nodes: Iterable[Node], *, by_id: bool = False) -> NameMatch:
    """The node ``wanted`` names among ``nodes``: the one rule every part of Kith resolves names by.

    Tiers, first match wins:

    1. with ``by_id`` (commands a person types: the CLI, map focus), the node whose ID is exactly ``wanted``;
    2. the nodes whose *name* equals ``wanted`` once both are normalized (``normalize_name``);
    3. the nodes with an *alias* equal to ``wanted``, normalized.

    The first tier with any match decides. One node there is the answer. Several are an ambiguous name:
    the match reports them all in ``tied`` and ``node`` stays None. Nothing breaks the tie (not age, not
    ID), because identity is never guessed: merging two people wrongly corrupts every later turn, so a
    name that could mean two people is for the author or the model to make precise, with a full name or
    an ID.
    """
    nodes = list(nodes)
    if by_id:
        for node in nodes:
            if node.id == wanted:
                return NameMatch(wanted, node, (node,))
    key = normalize_name(wanted)
    if not key:
        return NameMatch(wanted)
    named = _unique(n for n in nodes if normalize_name(n.name) == key)
    if not named:
        named = _unique(n for n in nodes if any(normalize_name(alias) == key for alias in n.aliases))
    named.sort(key=lambda n: n.id)
    if len(named) == 1:
        return NameMatch(wanted, named[0], (named[0],))
    return NameMatch(wanted, None, tuple(named))


def _unique(nodes: Iterable[Node]) -> list[Node]:
    """Nodes once each by ID (a caller may pass a stored and a buffered copy; the later one wins)."""
    return list({node.id: node for node in nodes}.values())


def is_cjk(char: str) -> bool:
    """True for characters of scripts written without spaces between words (Han, kana, Hangul...)."""
    code = ord(char)
    return (
        0x2E80 <= code <= 0x9FFF  # CJK radicals, kana, CJK unified ideographs
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0xF900 <= code <= 0xFAFF  # CJK compatibility ideographs
        or 0xFF66 <= code <= 0xFF9D  # half-width katakana
        or 0x20000 <= code <= 0x3FFFF  # CJK extensions
        or 0x0E00 <= code <= 0x0EFF  # Thai and Lao: no spaces between words either
    )


@lru_cache(maxsize=1)
def cjk_pattern() -> re.Pattern[str]:
    """The characters ``is_cjk`` accepts, for scanning a whole text at C speed (a turn scans its narration
    several times, and a Python test per character was a tenth of an offline turn). Compiled when first
    needed: its ranges take 2 ms to compile, which ``kith graph retrieve`` would pay for nothing."""
    return re.compile("[\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9d\U00020000-\U0003ffff\u0e00-\u0eff]")


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _boundary(text: str, index: int) -> bool:
    """Whether a name may start or end at ``index`` (between ``text[index-1]`` and ``text[index]``).

    In a spaced script a name must stand as a word, so the only place it may not start or end is between
    two word characters (inside a word). Between two non-word characters is fine: "Voss Jr." ends after
    its full stop, before a space or a comma. A CJK character is a word of its own, which lets a CJK name
    match anywhere inside CJK text.
    """
    if index <= 0 or index >= len(text):
        return True
    before, after = text[index - 1], text[index]
    if is_cjk(before) or is_cjk(after):
        return True
    return not (_is_word(before) and _is_word(after))


def candidate_spans(text: str, max_chars: int) -> Iterator[tuple[int, int, str]]:
    """Every substring of normalized ``text`` that could be a whole name, as ``(start, end, substring)``.

    A candidate starts and ends on a boundary, neither starts nor ends with a space, and is at most
    ``max_chars`` long. The number of candidates follows the message's length, not the graph's size, so
    the caller can look each up in an index instead of scanning every known name.
    """
    norm, starts, ends = _span_bounds(text)
    for start in starts:
        limit = start + max_chars
        for end in ends[bisect_right(ends, start):bisect_right(ends, limit)]:
            yield start, end, norm[start:end]


@lru_cache(maxsize=64)
def _span_bounds(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """``text`` normalized, where a name may start in it and where one may end (ascending). Cached: a turn
    looks for names in its narration once per reader (the save's graph, the turn's own writes)."""
    norm = normalize_name(text)
    if not norm.isascii() and cjk_pattern().search(norm) is not None:  # isascii is O(1) on CPython's strings
        starts = [i for i in range(len(norm)) if not norm[i].isspace() and _boundary(norm, i)]
        ends = [i for i in range(1, len(norm) + 1) if not norm[i - 1].isspace() and _boundary(norm, i)]
        return norm, tuple(starts), tuple(ends)
    # No CJK: a name may start or end anywhere but inside a word, so test each character once.
    word = [char.isalnum() or char == "_" for char in norm]
    space = [char.isspace() for char in norm]
    last = len(norm) - 1
    starts = [i for i in range(len(norm)) if not space[i] and (i == 0 or not (word[i - 1] and word[i]))]
    ends = [i + 1 for i in range(len(norm)) if not space[i] and (i == last or not (word[i] and word[i + 1]))]
    return norm, tuple(starts), tuple(ends)


class _TrieNode:
    __slots__ = ("key", "next")

    def __init__(self) -> None:
        self.next: dict[str, _TrieNode] = {}
        self.key: str | None = None  # set where a whole name ends


@lru_cache(maxsize=1)
def _piece_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A text's pieces, and a run of word characters. A piece is a token with the space before it, if
    any; a token is a run of word characters of a spaced script, or any other single character but a space
    (a CJK character, a punctuation mark). Token edges are exactly where ``_boundary`` lets a name start
    or end, so a name is a run of whole tokens, and a normalized text (single spaces) is its pieces end to
    end."""
    word = rf"[^\W{cjk_pattern().pattern[1:-1]}]"
    return re.compile(rf" ?(?:{word}+|\S)"), re.compile(rf"{word}+")


class NameTrie:
    """Normalized names by their tokens, to find every one a text holds in one pass over the text.

    Looking a text's candidate spans up one by one costs dozens of lookups a character (every substring
    between two boundaries, up to the longest name); here the text is cut into pieces by one regular
    expression and only the pieces that begin a name are walked on, whatever the number of names. A token
    after a name's first is keyed with the space before it, if any ("voss jr." and "voss jr ." differ);
    a first token is keyed both ways, as the piece it is read from may have its space in front.
    """

    BLOCK = 1 << 16
    """Characters read into pieces at once: a story of 2 MB is not held as a million strings."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._first: dict[str, _TrieNode] = {}
        self.size = 0
        self.longest = 0
        for key in keys:
            self.add(key)

    def add(self, key: str) -> None:
        """Find ``key`` (a normalized name) from now on; adding one twice changes nothing."""
        pieces = _piece_patterns()[0].findall(key)
        if not pieces or pieces[0].startswith(" "):  # not normalized: a name never begins with a space
            return
        node = self._first.get(pieces[0])
        if node is None:
            node = self._first[pieces[0]] = self._first[" " + pieces[0]] = _TrieNode()
        for piece in pieces[1:]:
            child = node.next.get(piece)
            if child is None:
                child = node.next[piece] = _TrieNode()
            node = child
        if node.key is None:
            node.key = key
            self.size += 1
            self.longest = max(self.longest, len(key))

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Every ``(start, end, key)`` where a key stands in ``normalize_name(text)`` (offsets into it), in
        order of start, then end: the spans ``candidate_spans`` would give that are keys, in linear time."""
        norm = normalize_name(text)
        found: list[tuple[int, int, str]] = []
        if not self._first:
            return found
        pieces_of, word_run = _piece_patterns()
        first = self._first
        block = 0
        while block < len(norm):
            # A block ends, and its look-ahead for names begun in it ends, where a name may end.
            until = _cut(norm, block + self.BLOCK, word_run)
            pieces = pieces_of.findall(norm, block, _cut(norm, until + self.longest, word_run))
            offsets = list(accumulate(map(len, pieces), initial=block))
            for i in compress(count(), map(first.__contains__, pieces)):
                start = offsets[i] + (pieces[i][0] == " ")
                if start >= until:
                    break
                node: _TrieNode | None = first[pieces[i]]
                j = i
                while node is not None:
                    j += 1
                    if node.key is not None:
                        found.append((start, offsets[j], node.key))
                    node = node.next.get(pieces[j]) if j < len(pieces) and node.next else None
            block = until
        return found


def _cut(norm: str, index: int, word_run: re.Pattern[str]) -> int:
    """The first place at or after ``index`` where no word runs on across it (the text's end at most)."""
    if index >= len(norm):
        return len(norm)
    if word_run.match(norm, index - 1) is None:
        return index
    run = word_run.match(norm, index)
    return index if run is None else run.end()


@lru_cache(maxsize=4096)
def slugify(text: str, max_length: int = 40) -> str:
    """A readable ID fragment: lower case, words joined by ``-``; letters of any script are kept."""
    ascii_first = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in ascii_first if not unicodedata.combining(c)).casefold()
    slug = re.sub(r"[^\w]+", "-", kept).replace("_", "-").strip("-")
    slug = re.sub(r"-{2,}", "-", slug)
    return slug[:max_length].rstrip("-")
