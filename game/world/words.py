"""How a player's phrase is read before it is matched: the one normalisation the parser and content share.

World checks use it to refuse a custom command that would read as nothing ("ring the!" -> ""), and the
story engine's parser and name resolution use it on every line typed, so content and play can never
disagree about what a phrase says.
"""

from __future__ import annotations

import re
import unicodedata

from game.text import straighten_quotes

ARTICLES = frozenset({"the", "a", "an", "some", "my", "your", "his", "her", "their", "its", "this", "that"})
_PUNCTUATION = re.compile(r"[\"!?.,;:…()\[\]{}~*]+")
# Emoji and other pictographs, their skin-tone modifiers, variation selectors and joiners: "talk to
# hob 🙂" names Hob. Symbols like these carry mood, never a name or a verb.
_SYMBOL_CATEGORIES = frozenset({"So", "Sk", "Cs", "Co"})
_JOINERS = frozenset({"\u200d", "\ufe0e", "\ufe0f", "\u20e3"})


def _without_symbols(text: str) -> str:
    if text.isascii():
        return text
    return "".join(" " if unicodedata.category(ch) in _SYMBOL_CATEGORIES or ch in _JOINERS else ch for ch in text)


def clean(text: str) -> str:
    """Lower case, curly quotes straightened, emoji, trailing punctuation and polite filler removed."""
    text = _PUNCTUATION.sub(" ", _without_symbols(straighten_quotes(text)).casefold())
    words = text.split()
    while len(words) > 1 and words[0] in {"please", "now", "then"}:
        words = words[1:]
    while words and words[-1] in {"please", "now"}:
        words = words[:-1]
    return " ".join(words)


def strip_articles(phrase: str) -> str:
    """``the old key`` -> ``old key``; a phrase of articles only is kept as it is."""
    words = [w for w in phrase.split() if w not in ARTICLES]
    return " ".join(words) if words else phrase.strip()


def key_words(phrase: str) -> str:
    """A phrase as names are compared: cleaned, articles dropped."""
    return strip_articles(clean(phrase))
