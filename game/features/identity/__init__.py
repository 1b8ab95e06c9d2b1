"""Conservative identity: who a new name is, asked of the player when the game is unsure (issue 22's
identity feature package).

``IdentityFeature`` is what the registry lists: its table is ``pending_identities`` (``questions``), its
state the open questions, its step raises questions from the turn's upserts and marks the one the narrator
asked (``provider``: the IDENTITY section), the player's answer is a turn of its own (``answers``), a "yes"
folds the two people, minds, memories and traces included (``merging``, ``minds``, ``traces``, ``play``),
and it adds ``kith graph pending`` and ``kith graph resolve`` (``commands``).

What stays beneath it, because the bottom layers need it themselves: the graph judges a new name while an
upsert runs (``game.graph.identity_match``, ``game.graph.identity``: the upsert must decide at once
whether a name is someone known) and plans a merge of two nodes on plain models (``game.graph.merge_plan``);
the store writes that plan and keeps the merge log (``game.store.merge_log``), journaled so undo parts them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.features.lazy import lazy_exports

if TYPE_CHECKING:
    from game.features.identity.feature import IdentityFeature

# Imported on first use (game/features/lazy.py): the schema is read without the feature's rules.
_HOME = {
    "IdentityFeature": "game.features.identity.feature",
}

__all__ = ["IdentityFeature"]


__getattr__ = lazy_exports(__name__, _HOME, globals())
