"""A killed process never leaves a half-written turn: kill a writer mid-commit many times and reopen."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from helpers.saves import SCHEMA

from game.store import turn_log
from game.store.database import SaveDatabase

WRITER = Path(__file__).with_name("kill_writer.py")
ROOT = Path(__file__).resolve().parent.parent


async def check_consistent(path: Path) -> int:
    db = await SaveDatabase.open(path, schema=SCHEMA)
    try:
        assert (await db.conn.execute_fetchall("PRAGMA integrity_check"))[0][0] == "ok"
        turn = await db.current_turn()
        numbers = [t.number for t in await turn_log.turns(db)]
        assert numbers == list(range(1, turn + 1)), "turns are contiguous: none missing, none half-written"
        for number in range(turn + 1):
            scene = await turn_log.scene_at(db, number)
            assert scene is not None, f"turn {number} has its scene"
        edges = await db.graph.all_edges()
        assert max((e.valid_at for e in edges), default=0) <= turn, "no graph write outlives its turn"
        open_trust = [e for e in edges if e.is_open]
        if turn:
            # Every relation was rewritten by the last committed turn, and only one version is open.
            assert {e.valid_at for e in open_trust} == {turn}
            assert len(open_trust) == 23
        journal_turns = {row[0] for row in await db.conn.execute_fetchall("SELECT DISTINCT turn FROM journal")}
        assert journal_turns <= set(range(1, turn + 1))
        return turn
    finally:
        await db.close()


async def test_killing_the_writer_mid_commit_never_leaves_half_a_turn(tmp_path: Path) -> None:
    path = tmp_path / "victim.sqlite"
    rng = random.Random(1234)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    progress = []
    for _round in range(12):
        process = subprocess.Popen([sys.executable, str(WRITER), str(path)], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, env=env, text=True)
        assert process.stdout is not None
        process.stdout.readline()  # at least one commit in this round, so kills land among commits
        time.sleep(rng.uniform(0.0, 0.25))
        process.send_signal(signal.SIGKILL)
        process.wait()
        process.stdout.close()
        progress.append(await check_consistent(path))
    assert progress == sorted(progress) and progress[-1] > 12
