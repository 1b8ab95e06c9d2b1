"""What else names the merged person after a merge: said keys, the gossip log, open questions of identity.

The merge re-points the graph (``game.store.merge_log``) and ``minds`` folds the merged NPC's own mind.
Three more tables name a person outside the graph, and each is decided on its own:

- ``npc_said``: a revelation told is kept as ``revealed:NAME:KEY``, NAME the person the secret is about.
  Anyone's key naming the merged person (by their name or an alias) now names the kept one, so "has Tobin
  told you the keeper's secret?" holds when asked of Maud, and her own confession stays confessed. For a
  key both forms of which someone holds, the earlier turn. (``met`` and ``recalled`` name no one.)
- ``gossip_log``: an exchange the merged person told or heard is the kept one's now: gossip's pair
  cooldown then counts it for the kept one's pairs, and ``/why`` names the kept one as the teller instead
  of "someone". An exchange between the two of them stays as it happened (re-pointed, it would be the kept
  one telling themselves); so does anything already stored under the kept one's key (the higher
  confidence is kept).
- ``pending_identities``: re-checked by ``questions.after_merge``: an open question whose candidate was the
  merged person asks about the kept one ("is the stranger Tobin?" is "is the stranger Maud?"); one whose
  new node was either of the two is closed (a yes would fold one known person into another); one asking
  whether the two are one person is answered by the merge. Answered questions are the record of who
  decided what, and stay as they were.
- ``scenes``: what the player knows of people (``SceneState.known``, by node ID) is the game as it stands:
  what they knew of either is known of the kept person (met if either was met, since the earlier turn,
  every revelation learned), under the kept one's name. The merge's own turn's scene carries it (a
  "yes" in play: ``game.features.identity.play``; ``graph merge`` and ``graph resolve``: the scene of the turn
  the merge is journaled at, rewritten here). Earlier turns' scenes are history.

Left as history on purpose: ``turn_context`` (what the narrator was told, as told), memories' text and
attitude history reasons (the words of what was remembered and why it changed), ``swipes`` and
``undo_steps`` (turns as they were told), the ``merges`` log itself, and past turns' scenes. Every row here
is a ``RowWrite`` journaled at the merge's turn, so undo puts each back exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from game.features.identity.questions import PENDING_TABLE, PendingIdentity, after_merge
from game.features.memories.book import SAID_TABLE
from game.graph.models import Node
from game.graph.names import normalize_name
from game.store.database import SaveDatabase
from game.store.mind_fold import rows_like, rows_where
from game.store.rows import RowWrite, Scalar
from game.world.scene import Awareness, SceneState

GOSSIP_TABLE = "gossip_log"
REVEALED = "revealed:"


def renamed_key(key: str, names: Iterable[str], kept_name: str) -> str:
    """``key`` with a ``revealed:NAME:KEY`` naming one of ``names`` naming ``kept_name`` instead."""
    if not key.startswith(REVEALED):
        return key
    subject, sep, rest = key[len(REVEALED):].rpartition(":")
    wanted = {normalize_name(n) for n in names}
    if not sep or normalize_name(subject) not in wanted:
        return key
    return f"{REVEALED}{kept_name}:{rest}"


async def said_of(db: SaveDatabase, kept: Node, merged: Node) -> dict[str, dict[str, int]]:
    """Both NPCs' said keys, and everyone's revelation keys (a few per person: read whole, by prefix)."""
    rows = [*await rows_where(db.conn, SAID_TABLE, "npc", [kept.id, merged.id]),
            *await rows_like(db.conn, SAID_TABLE, "key", REVEALED)]
    said: dict[str, dict[str, int]] = {}
    for row in rows:
        said.setdefault(str(row["npc"]), {})[str(row["key"])] = int(row["turn"] or 0)
    return said


def _gossip_key(row: Mapping[str, Scalar]) -> dict[str, Scalar]:
    return {"turn": row["turn"], "teller": row["teller"], "listener": row["listener"], "edge_id": row["edge_id"]}


async def repoint_gossip(db: SaveDatabase, kept_id: str, merged_id: str) -> list[RowWrite]:
    """The gossip log's exchanges of the merged person, re-pointed at the kept one (module notes)."""
    rows: list[RowWrite] = []
    theirs = {tuple(_gossip_key(r).values()): r
              for column in ("teller", "listener") for r in await rows_where(db.conn, GOSSIP_TABLE, column, [merged_id])}
    if not theirs:
        return rows
    held = {tuple(_gossip_key(r).values()): r
            for column in ("teller", "listener") for r in await rows_where(db.conn, GOSSIP_TABLE, column, [kept_id])}
    for _, row in sorted(theirs.items(), key=lambda item: repr(item[0])):
        if {row["teller"], row["listener"]} == {kept_id, merged_id}:
            continue  # between the two of them: it happened so, and re-pointed it would be one telling themselves
        moved = {column: (kept_id if value == merged_id and column in ("teller", "listener") else value)
                 for column, value in row.items()}
        new_key = tuple(_gossip_key(moved).values())
        rows.append(RowWrite(GOSSIP_TABLE, _gossip_key(row), None))
        there = held.get(new_key)
        if there is not None and float(there["confidence"] or 0) >= float(moved["confidence"] or 0):
            continue
        rows.append(RowWrite(GOSSIP_TABLE, _gossip_key(moved), moved))
        held[new_key] = moved
    return rows


async def repoint_questions(db: SaveDatabase, kept: Node, merged: Node, turn: int) -> list[RowWrite]:
    """Open questions of identity naming the merged person, re-checked (``questions.after_merge``, the rule
    ``merging.merge_in`` applies too: answered by the merge, re-pointed, or closed as no question any more)."""
    found = {str(r["id"]): PendingIdentity.from_row(r)
             for column in ("new_id", "candidate_id") for r in await rows_where(db.conn, PENDING_TABLE, column, [merged.id])}
    ordered = sorted(found.values(), key=lambda q: q.id)
    return [q.write() for q in after_merge(ordered, (kept.id, kept.name), (merged.id, merged.name), turn)]


def fold_known(known: Mapping[str, Awareness] | None, kept: Node, merged_id: str) -> dict[str, Awareness] | None:
    """What the player knows of people once ``merged_id`` is ``kept``; None when it names no one merged."""
    if known is None or merged_id not in known:
        return None
    after = {node_id: aware for node_id, aware in known.items() if node_id != merged_id}
    theirs, ours = known[merged_id], known.get(kept.id)
    if ours is None:
        after[kept.id] = theirs.model_copy(update={"name": kept.name})
    else:
        after[kept.id] = ours.model_copy(update={
            "how": "met" if "met" in (ours.how, theirs.how) else "heard",
            "since_turn": min(ours.since_turn, theirs.since_turn),
            "revealed": [*ours.revealed, *(key for key in theirs.revealed if key not in ours.revealed)]})
    return after


async def repoint_scene(db: SaveDatabase, kept: Node, merged_id: str, turn: int) -> list[RowWrite]:
    """The scene of ``turn`` (when it is stored: a merge by ``graph merge`` at the save's turn) with what
    the player knows of the merged person folded into the kept one."""
    rows = await rows_where(db.conn, "scenes", "turn", [turn])
    if not rows:
        return []  # a merge in play: its turn's scene is written after it, folded (game.features.identity.play)
    try:
        scene = SceneState.model_validate(json.loads(str(rows[0]["state"])))
    except ValueError:
        return []  # a damaged scene is left as it is (``kith graph check`` says so)
    known = fold_known(scene.known, kept, merged_id)
    if known is None:
        return []
    state = json.dumps(scene.model_copy(update={"known": known}).model_dump(mode="json"))
    return [RowWrite("scenes", {"turn": turn}, {"turn": turn, "state": state})]
