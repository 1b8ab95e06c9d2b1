"""Prose helpers for the story: tidy content text, fill it, split it, stream it, find evidence in it."""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence

from game.world import World

_BLANK_LINE = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?…])([\"”’)\]*_]*)(\s+)")
_WORD = re.compile(r"[\w']+")


def tidy(text: str) -> str:
    """Content text as prose: paragraphs kept, line breaks inside a paragraph joined with a space."""
    parts = [" ".join(part.split()) for part in _BLANK_LINE.split(text.strip())]
    return "\n\n".join(part for part in parts if part)


def choose(variants: Sequence[str], rng: random.Random) -> str:
    """One of a text's variants; a single variant costs no randomness, so adding one changes little."""
    if len(variants) == 1:
        return variants[0]
    return variants[rng.randrange(len(variants))]


def pick(world: World, variants: Sequence[str], rng: random.Random) -> str:
    """One of a content text's variants, as prose: ``{player}`` filled in, tidied."""
    return tidy(world.text(choose(variants, rng)))


def join_words(words: Sequence[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if not words:
        return ""
    if len(words) == 1:
        return words[0]
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def sentences(text: str) -> list[str]:
    """The sentences of a paragraph (closing quotes stay with their sentence)."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        end = match.start(2)
        pieces.append(text[start:end].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return [p for p in pieces if p]


def stream_chunks(text: str) -> list[str]:
    """The narration cut at sentence ends, with its whitespace kept, so the chunks join back exactly."""
    chunks: list[str] = []
    start = 0
    for match in re.finditer(r"(?<=[.!?…])[\"”’)\]*_]*\s+|\n\n+", text):
        end = match.end()
        if end > start:
            chunks.append(text[start:end])
            start = end
    if start < len(text):
        chunks.append(text[start:])
    return chunks


def evidence_sentence(text: str, first: Iterable[str], second: Iterable[str]) -> str:
    """The sentence of ``text`` that best shows a relation between two parties.

    ``first`` and ``second`` are the words each party goes by (names, aliases, "you" for the player).
    A sentence naming both wins, then one naming the second party (usually who is acted upon), then
    one naming the first, then the text's first sentence.
    """
    found = [s for paragraph in text.split("\n\n") for s in sentences(paragraph)]
    if not found:
        return ""

    def names(sentence: str, forms: Iterable[str]) -> bool:
        folded = f" {' '.join(_WORD.findall(sentence.casefold()))} "
        return any(f" {' '.join(_WORD.findall(form.casefold()))} " in folded for form in forms if form.strip())

    a, b = list(first), list(second)
    ranked = [
        [s for s in found if names(s, a) and names(s, b)],
        [s for s in found if names(s, b)],
        [s for s in found if names(s, a)],
        found,
    ]
    return next(group for group in ranked if group)[0][:600]


def fill(text: str, values: dict[str, str]) -> str:
    """``{name}`` and the like in a reply filled in; unknown placeholders stay as written."""
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def mid_sentence(name: str) -> str:
    """``The Salt Quay`` -> ``the Salt Quay``: a place name inside a sentence."""
    first, _, rest = name.partition(" ")
    return f"{first.lower()} {rest}" if first in {"The", "A", "An"} and rest else name


_PLURAL_WORDS = frozenset({"people", "men", "women", "children", "feet", "teeth", "geese", "mice", "folk", "clothes"})


def is_plural(noun: str) -> bool:
    """A guess good enough for agreement: "piles", "whelks", "people" are plural; "moss", "bus" are not."""
    words = noun.split()
    last = words[-1].casefold() if words else ""
    if last in _PLURAL_WORDS:
        return True
    return len(last) > 2 and last.endswith("s") and not last.endswith(("ss", "us", "is", "'s"))


def agreement(noun: str) -> dict[str, str]:
    """The placeholders that agree with ``noun``: ``{is}`` and ``{there_is}``."""
    plural = is_plural(noun)
    return {"is": "are" if plural else "is", "there_is": "There are" if plural else "There's"}
