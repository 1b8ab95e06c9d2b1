"""A process that commits heavy turns in a loop until it is killed (driven by test_store_kill.py)."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.store.database import SaveDatabase, TurnRecord

PEOPLE = 24


async def main(path: Path) -> None:
    db = await SaveDatabase.open(path, create=True, world_id="kill-test")
    vocabulary = Vocabulary.default()
    turn = await db.current_turn()
    if turn == 0 and not await db.all_nodes():
        execution = UpsertExecution(db.graph, vocabulary, 0, rng=random.Random(0))
        for start in range(0, PEOPLE, 8):
            await execution.run({"nodes": [{"name": f"Person {i}", "summary": f"Person number {i}."}
                                           for i in range(start, start + 8)]})
        await db.start_game({"location": "start"}, execution.writes, {})
    while True:
        turn += 1
        execution = UpsertExecution(db.graph, vocabulary, turn, rng=random.Random(turn))
        for i in range(PEOPLE - 1):
            # Every turn changes every relation, so each commit closes and opens many versions.
            await execution.run({"edges": [{
                "sourceName": f"Person {i}", "targetName": f"Person {i + 1}", "relation": "TRUSTS",
                "strength": round(((turn * 7 + i) % 200) / 100 - 1, 2),
                "fact": f"Person {i} trusts Person {i + 1} as of turn {turn}.",
            }]})
        record = TurnRecord(number=turn, input=f"turn {turn}", narration=f"Story of turn {turn}.", npc_context="")
        await db.commit_turn(record, execution.writes, {"location": f"room-{turn}"})
        print(f"committed {turn}", flush=True)


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
