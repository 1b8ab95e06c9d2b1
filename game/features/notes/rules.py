"""What the notes are and how their words are kept: Memory and the Author's note, each bounded.

Memory is what the player wants the narrator never to forget (who their character is, what matters); it
goes into the system prompt every turn. The Author's note is a short style direction ("grim, terse,
rain") placed near the end of the prompt, where a model heeds it most.
"""

from __future__ import annotations

from game.errors import KithError
from game.text import straighten_quotes, strip_control

MEMORY = "memory"
NOTE = "note"
LABELS = {MEMORY: "Memory", NOTE: "Author's note"}
LIMITS = {MEMORY: 2000, NOTE: 300}
"""Characters each may hold: Memory is in every prompt, so it is bounded like any part of it; the
Author's note is meant to be a line or two."""
CLEAR_WORDS = frozenset({"clear", "none", "off"})
"""What empties a note when typed as its whole text (``/note clear``)."""


def cleaned(name: str, text: str) -> str:
    """``text`` as it is kept: terminal-safe, straight quotes, trimmed; refused when too long."""
    kept = strip_control(straighten_quotes(text)).strip()
    if len(kept) > LIMITS[name]:
        raise KithError(f"the {LABELS[name]} holds at most {LIMITS[name]} characters (this is {len(kept)}); "
                        "nothing was changed", title=LABELS[name])
    return kept
