"""Small text helpers every layer shares: quotes, untrusted text on a terminal, did-you-mean.

They live at the top of the package, beside ``errors``, because the graph, the world loader, the story
engine, the scripts and the CLI all need the same answer: two spellings of a quote rule would let one
path match what another refuses, and one output path that forgets to strip escapes is enough for a
model's narration to clear the player's screen or write to their clipboard.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_QUOTES = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "\u02bc": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"', "\u2039": "'", "\u203a": "'",
})

# ESC-introduced sequences (CSI, OSC, DCS, SOS/PM/APC strings and two-byte escapes), their 8-bit C1
# forms, then any control character left over. Newlines and tabs are text, not control.
_ESCAPE_SEQUENCES = re.compile(
    r"""
    (?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]                       # CSI ... final byte
    | (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|$)  # OSC/DCS/SOS/PM/APC ... ST or BEL
    | \x1b[ -/]*[0-~]?                                      # other escapes (and a lone ESC)
    """,
    re.VERBOSE | re.DOTALL,
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def straighten_quotes(text: str) -> str:
    """Every curly, angled or prime quote as its plain ASCII form, so typed and stored text compare."""
    return text.translate(_QUOTES)


def strip_control(text: str) -> str:
    """Untrusted text made safe to print on a terminal: escape sequences and control characters removed.

    Newlines and tabs stay. Bidirectional overrides go too: they can make a printed line read as
    something other than what it says.
    """
    if not text or (text.isprintable() and "\x1b" not in text):
        return text
    return _CONTROL.sub("", _ESCAPE_SEQUENCES.sub("", text))


def escape_control(text: str, keep: str = "\n") -> str:
    """Untrusted text shown for what it is: every escape sequence and control character (but those in
    ``keep``) written as its Python escape (``\x1b[2J``, ``\u202e``), for values a reader must see exactly,
    a model id or a line the player typed, where dropping characters would show something else."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() or char in keep else repr(char)[1:-1] for char in text)


def has_control(text: str) -> bool:
    """True when the text holds a character ``strip_control`` would remove (names refuse these)."""
    return strip_control(text) != text


def did_you_mean(word: str, choices: Iterable[str], cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the closest choice, or ``""``: the suffix every error message uses."""
    import difflib  # only a mistyped word needs it: not loaded by every command that imports this module

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""
