"""A process that writes a save in a loop until it is killed (driven by test_store_kill.py and
test_adversarial_saves.py).

``kill_writer.py PATH`` commits heavy turns to the save at PATH. ``kill_writer.py FOLDER MODE`` works on a
saves folder, one step after another, printing a line after each: ``new-game`` starts new games,
``snapshot`` plays a turn and saves a snapshot, ``restart`` plays turns and restarts, ``import`` runs
``kith graph import`` into new saves.
"""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

from helpers.saves import SCHEMA

from game.__main__ import main as kith
from game.config import load_settings
from game.engine.session import GameSession
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.store.database import SaveDatabase, TurnRecord

PEOPLE = 24
FIXTURES = Path(__file__).parent / "fixtures" / "worlds"
IMPORTED = 150  # nodes per import: a killed import leaves all of them or none


async def main(path: Path) -> None:
    db = await SaveDatabase.open(path, schema=SCHEMA, create=True, world_id="kill-test")
    vocabulary = Vocabulary.default()
    turn = await db.current_turn()
    if turn == 0 and not await db.graph.all_nodes():
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
                "strength": round(((turn * 7 + i) % 100) / 100, 2),  # TRUSTS takes a positive strength
                "fact": f"Person {i} trusts Person {i + 1} as of turn {turn}.",
            }]})
        record = TurnRecord(number=turn, input=f"turn {turn}", narration=f"Story of turn {turn}.", npc_context="")
        await db.commit_turn(record, execution.writes, {"location": f"room-{turn}"})
        print(f"committed {turn}", flush=True)


async def play_folder(folder: Path, mode: str) -> None:
    settings = load_settings(flags={"saves_dir": folder, "content_dir": FIXTURES}, env={})
    step = 0
    while True:
        step += 1
        if mode == "new-game":
            session = await GameSession.open(settings, save=f"new-{step}", new=True, world="tiny")
            await session.close()
        else:
            session = await GameSession.open(settings, save="game", world="tiny")
            try:
                for _ in range(2 if mode == "restart" else 1):
                    [event async for event in session.play_turn("help Edda" if step % 2 else "threaten Edda")]
                command = "save snap" if mode == "snapshot" else "restart"
                [event async for event in session.play_turn(command)]
            finally:
                await session.close()
        print(f"{mode} {step}", flush=True)


def import_loop(folder: Path) -> None:
    calls = folder.parent / "import.jsonl"
    calls.write_text("".join(
        f'{{"turn": 0, "nodes": [{{"name": "Imported {i}", "summary": "Someone loaded in bulk."}}]}}\n'
        for i in range(IMPORTED)), encoding="utf-8")
    step = 0
    while True:
        step += 1
        kith(["--saves-dir", str(folder), "graph", "import", "--save", f"imp-{step}", str(calls)])
        print(f"import {step}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 2:
        asyncio.run(main(Path(sys.argv[1])))
    elif sys.argv[2] == "import":
        import_loop(Path(sys.argv[1]))
    else:
        asyncio.run(play_folder(Path(sys.argv[1]), sys.argv[2]))
