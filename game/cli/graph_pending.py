"""``kith graph pending`` and ``kith graph resolve`` as run: the save opened, the answer written, printed.

A new name the game was unsure about (``game.graph.identity_match``: a confidence from 0.4 to 0.8) got a
node of its own and a question, which the story puts to the player. An author can list the open
questions and answer one: ``yes`` folds the new node into the candidate (logged in the merge log as
``author``, undone by ``undo`` like ``graph merge``), ``no`` keeps them apart. Either way the question is
closed and kept, with how it was answered. The parsers are the identity feature's
(``game.features.identity.commands``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from game.cli.graph_common import open_save, print_json, print_text
from game.errors import InputError
from game.features.identity.questions import questions

if TYPE_CHECKING:  # `kith graph dump` builds these parsers too, and must not pay for the store or pydantic
    from game.config import Settings
    from game.features.identity.questions import PendingIdentity


def _line(item: PendingIdentity) -> str:
    return (f"{item.id}  {item.new_name} ({item.new_id}) may be {item.candidate_name} ({item.candidate_id}): "
            f"confidence {item.confidence:.2f}, {item.evidence}; raised at turn {item.turn}"
            + (f", asked at turn {item.asked_turn}" if item.asked_turn is not None else ""))


async def pending_command(args: argparse.Namespace, settings: Settings) -> int:
    async with open_save(args, settings) as db:
        items = await questions(db, open_only=True)
    if args.json:
        print_json({"pending": [item.to_json_dict() for item in items]})
    elif not items:
        print_text("No open questions of identity.")
    else:
        for item in items:
            print_text(_line(item))
    return 0


async def resolve_command(args: argparse.Namespace, settings: Settings) -> int:
    from game.cli.graph_write import merge_settings, merge_turn
    from game.features.identity.merging import resolve
    from game.store import node_identity
    from game.store.merge_log import MergeEntry

    same: bool = args.answer
    async with open_save(args, settings) as db:
        items = {item.id: item for item in await questions(db)}
        item = items.get(args.id.strip())
        if item is None:
            open_ids = ", ".join(i.id for i in items.values() if i.is_open) or "none"
            raise InputError(f"there is no question {args.id!r} in {db.name} (open: {open_ids})")
        if not item.is_open:
            raise InputError(f"question {item.id} was already answered ({item.status}: {item.resolution})")
        folded = [m for m in await node_identity.merges(db) if m.merged_id and m.turn >= item.turn
                  and (m.kept_id == item.new_id or m.merged_id in (item.new_id, item.candidate_id))]
        if same and folded:
            # A save from before merges re-checked the questions they touch (``questions.after_merge``): its
            # new node is an established person now, and a yes would fold one known person into another.
            raise InputError(f"question {item.id} is stale: {folded[-1].merged_name} ({folded[-1].merged_id}) was "
                             f"merged into {folded[-1].kept_id} at turn {folded[-1].turn}, after it was asked; answer "
                             "no to close it (`kith graph merge` folds two nodes by hand)")
        nodes = await db.graph.get_nodes([item.new_id, item.candidate_id])
        missing = [node_id for node_id in (item.new_id, item.candidate_id) if node_id not in nodes]
        if same and missing:
            raise InputError(f"question {item.id} cannot be answered yes: {', '.join(missing)} is no longer in "
                             "the graph (merged or removed since); answer no to close it")
        turn = await merge_turn(db, *nodes.values())
        how = "an author said so (kith graph resolve)"
        merge = MergeEntry(item.candidate_id, item.new_id, item.new_name, "author", how) if same else None
        answered = item.resolved(same, turn, how)
        await resolve(db, answered, turn, merge, merge_settings(settings))
    if args.json:
        print_json({"resolved": answered.to_json_dict(), "merged": same})
    elif same:
        print_text(f"{item.new_name} ({item.new_id}) is {item.candidate_name} ({item.candidate_id}): merged, "
                   f"logged at turn {turn}.")
    else:
        print_text(f"{item.new_name} ({item.new_id}) and {item.candidate_name} ({item.candidate_id}) stay two "
                   "people.")
    return 0
