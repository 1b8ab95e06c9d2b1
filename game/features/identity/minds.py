"""Two people found to be one: the merged NPC's mind folded into the kept one's.

After "the stranger in the hood IS Maud", Maud remembers what the stranger saw, feels what the stranger
felt, and does not greet the player as a stranger again. The rules (pure, over rows read from the save):

- Memories: every memory of the merged NPC becomes the kept one's, numbered after the kept one's last,
  with its turn, importance, valence, strength, uses, tags, kind and whether it was heard unchanged. An
  episodic memory the kept one already holds (same text, same turn) is kept once: the stronger now. Past
  the capacity the kept one forgets as forming a memory does (``MemoryBook.over_capacity``). Anyone's
  memory of a deed done to the merged NPC is now of a deed done to the kept one.
- Attitude: both recorded: each of trust, respect and friendliness becomes the mean of the two weighted
  by how many changes each one's history holds (the one who has dealt with the player longer counts
  for more, and neither is thrown away); the histories are interleaved in turn order, and an entry
  "merged with NAME (turn N)" records the union. One recorded: the kept NPC has it (a merged one's with
  that entry). Neither: nothing is written (the attitude still follows the relations, now united). The
  graph is then kept in agreement with the tier as an attitude turn keeps it (``game.features.attitudes.step``).
- Said: the union; for a key both said, the earlier turn (a first meeting stays the first). Anyone's
  revelation key naming the merged person names the kept one (``traces``).
- What else names the merged person (the gossip log, open questions of identity): ``traces``.
- The merged NPC's rows are removed.

``fold_minds`` decides the fold; ``game.features.identity.merging`` merges people with it, in one transaction.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from game.features.attitudes.model import TABLE as ATTITUDES
from game.features.attitudes.model import Attitude, AttitudeBook, Change, baseline
from game.features.attitudes.step import agreement_call
from game.features.feature import TierChange
from game.features.identity.traces import (
    renamed_key,
    repoint_gossip,
    repoint_questions,
    repoint_scene,
    said_of,
)
from game.features.memories.book import (
    MEMORY_TABLE,
    SAID_TABLE,
    Memory,
    MemoryBook,
    MemorySettings,
    memory_from_row,
    said_row,
)
from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.graph.rule_calls import apply_rule_call
from game.graph.upsert import UpsertExecution
from game.store.database import SaveDatabase
from game.store.mind_fold import AttitudeFold, FoldedMind, MindSummary, rows_where
from game.store.rows import RowWrite
from game.world.tiers import Tier


@dataclass
class _Rows:
    """A fold's rows by table and key: a later write to one key replaces an earlier one."""

    by_key: dict[tuple[str, tuple[object, ...]], RowWrite] = field(default_factory=dict)

    def put(self, write: RowWrite) -> None:
        self.by_key[(write.table, tuple(write.key.values()))] = write

    def drop(self, write: RowWrite) -> None:
        self.by_key.pop((write.table, tuple(write.key.values())), None)

    def all(self) -> list[RowWrite]:
        return list(self.by_key.values())


@dataclass(frozen=True)
class MemoryFold:
    rows: list[RowWrite]
    moved: int
    repeated: int
    forgotten: int


def fold_memories(book: MemoryBook, kept_id: str, merged_id: str, turn: int,
                  others_about_merged: Sequence[Memory] = ()) -> MemoryFold:
    """The memory rows that give ``kept_id`` every memory of ``merged_id`` (``book`` holds both NPCs'),
    and re-point ``others_about_merged`` (other NPCs' memories of deeds done to the merged one)."""
    rows = _Rows()
    scratch = MemoryBook(book.settings, {kept_id: dict(book.memories.get(kept_id, {}))})
    existing = set(scratch.memories[kept_id])
    repeated = 0
    settings = book.settings
    for memory in scratch.of(kept_id):  # the kept one's own memory of what was done to the stranger
        if memory.about == merged_id:
            rows.put(_put(scratch, replace(memory, about="")))
    merged = book.of(merged_id)
    for memory in merged:
        rows.put(memory.deleted())
        about = "" if memory.about in (kept_id, merged_id) else memory.about
        twin = None
        if memory.kind == "episodic":
            twin = next((m for m in scratch.of(kept_id)
                         if m.kind == "episodic" and m.text == memory.text and m.turn == memory.turn), None)
        if twin is not None:
            repeated += 1
            if memory.strength_at(turn, settings) > twin.strength_at(turn, settings):
                rows.put(_put(scratch, replace(memory, npc=kept_id, seq=twin.seq, about=twin.about)))
            continue
        rows.put(_put(scratch, replace(memory, npc=kept_id, seq=scratch.next_seq(kept_id), about=about)))
    forgotten = scratch.over_capacity(kept_id, turn)
    for memory in forgotten:
        if memory.seq in existing:
            rows.put(memory.deleted())
        else:  # one just taken over and forgotten at once: never written
            rows.drop(memory.row())
    for memory in others_about_merged:
        if memory.npc not in (kept_id, merged_id):
            rows.put(replace(memory, about=kept_id).row())
    return MemoryFold(rows.all(), len(merged), repeated, len(forgotten))


def _put(book: MemoryBook, memory: Memory) -> RowWrite:
    row = memory.row()
    book.apply([row])
    return row


def fold_said(said: Mapping[str, Mapping[str, int]], kept: Node, merged: Node) -> list[RowWrite]:
    """The said rows that give ``kept`` the union of both NPCs' words (the earlier turn for a key both
    said), remove ``merged``'s, and make every key naming ``merged`` name ``kept``. ``said``: NPC ID -> key
    -> turn, for both NPCs and everyone holding a key naming the merged one."""
    after: dict[str, dict[str, int]] = {npc: dict(keys) for npc, keys in said.items() if npc != merged.id}
    into = after.setdefault(kept.id, {})
    for key, turn in said.get(merged.id, {}).items():
        if key not in into or turn < into[key]:
            into[key] = turn
    for held in after.values():
        for key in sorted(held):
            new = renamed_key(key, merged.names, kept.name)
            if new != key:
                turn = held.pop(key)
                if new not in held or turn < held[new]:
                    held[new] = turn
    rows: list[RowWrite] = []
    for npc, keys in sorted(said.items()):
        for key in sorted(keys):
            if key not in after.get(npc, {}):
                rows.append(RowWrite(SAID_TABLE, {"npc": npc, "key": key}, None))
    for npc, now in sorted(after.items()):
        for key, turn in sorted(now.items()):
            if said.get(npc, {}).get(key) != turn:
                rows.append(said_row(npc, key, turn))
    return rows


def fold_attitude(kept: Node, merged: Node, held: Attitude | None, taken: Attitude | None,
                  turn: int) -> tuple[Attitude | None, AttitudeFold]:
    """The kept NPC's attitude after the merge (None: nothing to write) and how it came about. ``held``
    and ``taken``: the kept and the merged NPC's recorded attitudes, if any."""
    reason = f"merged with {merged.name} (turn {turn})"
    if taken is None:
        return None, "kept" if held is not None else "none"
    if held is None:
        moved = replace(taken, npc_id=kept.id, name=kept.name)
        return moved.set_to(moved.trust, moved.respect, moved.friendliness, turn, reason), "merged"
    weight_k, weight_m = max(1, len(held.history)), max(1, len(taken.history))

    def mean(dimension: str) -> float:
        return (held.value(dimension) * weight_k + taken.value(dimension) * weight_m) / (weight_k + weight_m)

    # Sorted by turn only: within one turn the kept one's changes come first, each side in its own order.
    history: tuple[Change, ...] = tuple(sorted((*held.history, *taken.history), key=lambda c: c.turn))
    united = Attitude(kept.id, kept.name, held.trust, held.respect, held.friendliness, history)
    return united.set_to(mean("trust"), mean("respect"), mean("friendliness"), turn, reason), "united"


async def fold_minds(db: SaveDatabase, kept: Node, merged: Node, turn: int, settings: MemorySettings) -> FoldedMind:
    """Read both NPCs' minds from ``db`` (inside the merge's transaction) and fold them (module notes)."""
    ids = [kept.id, merged.id]
    book = MemoryBook(settings)
    for row in await rows_where(db.conn, MEMORY_TABLE, "npc", ids):
        memory = memory_from_row(row)
        book.memories.setdefault(memory.npc, {})[memory.seq] = memory
    others = [memory_from_row(r) for r in await rows_where(db.conn, MEMORY_TABLE, "about", [merged.id])]
    memories = fold_memories(book, kept.id, merged.id, turn, others)
    said = await said_of(db, kept, merged)
    said_rows = fold_said(said, kept, merged)
    stored = AttitudeBook.from_rows(await rows_where(db.conn, ATTITUDES, "npc_id", ids)).stored
    held = stored.get(kept.id)
    attitude, how = fold_attitude(kept, merged, held, stored.get(merged.id), turn)
    rows = [*memories.rows, *said_rows, *await repoint_gossip(db, kept.id, merged.id),
            *await repoint_questions(db, kept, merged, turn), *await repoint_scene(db, kept, merged.id, turn)]
    if merged.id in stored:
        rows.append(RowWrite(ATTITUDES, {"npc_id": merged.id}, None))
    if attitude is not None:
        rows.append(attitude.row())
    now = attitude if attitude is not None else held
    writes, tier = await _agreement(db, kept, now, held, turn)
    summary = MindSummary(memories.moved, how, len(said.get(merged.id, {})), memories.repeated, memories.forgotten,
                          tier)
    return FoldedMind(rows, writes, summary)


async def _agreement(db: SaveDatabase, kept: Node, after: Attitude | None, held: Attitude | None,
                     turn: int) -> tuple[GraphWrites, Tier | None]:
    """The graph writes keeping the kept NPC's relations toward the player (now the merged one's too) in
    agreement with their attitude's tier, as an attitude turn makes them (``game.features.attitudes.step``), and that tier
    (``after``'s, or with nothing recorded what the united relations imply; None: no player, no person).

    Judged on a small index of the kept NPC, the player and the kept NPC's open relations; only when the
    tier asks for a change is the whole graph read (the upsert that makes it checks against all of it).
    """
    players = await db.graph.player_nodes()
    if not players or kept.type != "individual" or kept.id in {p.id for p in players}:
        return GraphWrites(), None  # no player, or no one whose attitude toward the player the graph states
    small = GraphIndex([kept, *players], await db.graph.open_edges_of(kept.id))
    if after is None:  # nothing recorded: the attitude follows the relations, now united
        return GraphWrites(), baseline(small, kept).tier
    before = held if held is not None else baseline(small, kept)
    tiers = [TierChange(kept.id, kept.name, before.tier, after.tier)] if after.tier != before.tier else []
    if not agreement_call(small, GraphWrites(), [after], tiers):
        return GraphWrites(), after.tier
    graph = await db.load_graph_index(lazy=False)  # inside the transaction: sees the merge
    call = agreement_call(graph, GraphWrites(), [after], tiers)
    execution = UpsertExecution(graph, await db.vocabulary(), turn, rng=random.Random(f"merge:{kept.id}:{turn}"),
                                witnesses=sorted(graph.player_ids))
    return await apply_rule_call(execution, GraphWrites(), call), after.tier
