"""How names are compared, slugged and found in free text.

Identity is conservative, because a wrong merge mixes two people's histories and a missed one only
leaves a duplicate to merge by hand: two names are the same only when their normalized forms are equal.
Normalization folds case and Unicode width and collapses white space, nothing more, so "Anna Lee" and
"Anna Leigh" stay two people.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from functools import lru_cache

_SPACES = re.compile(r"\s+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


# Cached: upsert and mention matching normalize the same few thousand names over and over.
@lru_cache(maxsize=1 << 16)
def normalize_name(name: str) -> str:
    """The form names are compared in: NFKC, case-folded, curly quotes straightened, spaces collapsed."""
    folded = unicodedata.normalize("NFKC", name).translate(_QUOTES).casefold()
    return _SPACES.sub(" ", folded).strip()


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
    norm = normalize_name(text)
    starts = [i for i in range(len(norm)) if not norm[i].isspace() and _boundary(norm, i)]
    ends = {i for i in range(1, len(norm) + 1) if not norm[i - 1].isspace() and _boundary(norm, i)}
    for start in starts:
        limit = min(len(norm), start + max_chars)
        for end in range(start + 1, limit + 1):
            if end in ends:
                yield start, end, norm[start:end]


@lru_cache(maxsize=4096)
def slugify(text: str, max_length: int = 40) -> str:
    """A readable ID fragment: lower case, words joined by ``-``; letters of any script are kept."""
    ascii_first = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in ascii_first if not unicodedata.combining(c)).casefold()
    slug = re.sub(r"[^\w]+", "-", kept).replace("_", "-").strip("-")
    slug = re.sub(r"-{2,}", "-", slug)
    return slug[:max_length].rstrip("-")
