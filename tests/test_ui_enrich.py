"""The full-screen game drains the enrichment queue in the background while the player reads: a turn whose
memory the model could not record shows ``relations: fast path``, the model reads it again a couple of
seconds later, and the map is redrawn with the model's reading, without the player doing anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer, Delayed, Text
from helpers.ui import SIZE, make_app, model_settings, play, screen_text, settle
from llm_helpers import ir, relation

NARRATION = "Edda Marsh is afraid of Tobin Hale. She lets you hold the lamp oil, which she never does."
OIL = "She lets you hold the lamp oil, which she never does."

pytestmark = pytest.mark.slow


async def test_the_queue_drains_while_the_player_reads_and_the_map_follows(tmp_path: Path) -> None:
    trusts = relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed with the lamp oil.")
    trusts["evidence"] = OIL
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            # The World IR never validates: the fast path keeps the fear the narration plainly states.
            server.push(Text(NARRATION), *[Text("no facts here, only words") for _ in range(6)])
            await play(pilot, "help Edda")
            session = app.session
            assert session is not None and app.status.relations == "fast path"
            assert [t.extraction for t in await session.turns()] == ["fast"]
            # A couple of seconds later the model reads the turn again (its World IR from the narration).
            server.replies.clear()  # the World IR replies the turn did not need
            server.push(Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"], relations=[trusts]))))
            for _ in range(100):
                await pilot.pause(0.1)
                if not await session.pending_extraction():
                    break
            await settle(pilot)
            assert [t.extraction for t in await session.turns()] == ["enriched"]
            shown = screen_text(app)
            # The map (its labels carry a sign) shows the model's reading; the story log keeps what happened.
            assert "+TRUSTS" in shown and "-FEARS" not in shown, shown
            assert app.status.relations == "" and "relations: fast path" not in shown


async def test_the_status_line_says_what_is_being_read_and_the_story_log_gets_one_quiet_line(
        tmp_path: Path) -> None:
    trusts = relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed with the lamp oil.")
    trusts["evidence"] = OIL
    with ChatServer() as server:
        # A slow model (2.5 s a reading, within its time limit): the status line has time to be read.
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, timeout=6.0))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            for command in ("help Edda", "help Edda again"):  # two turns the fast path reads
                server.replies.clear()
                server.push(Text(NARRATION), *[Text("no facts here, only words") for _ in range(6)])
                await play(pilot, command)
            session = app.session
            assert session is not None and [t.extraction for t in await session.turns()] == ["fast", "fast"]
            server.replies.clear()
            # The model takes its time over each turn: the status line says what it is doing meanwhile.
            reading = Delayed(2.5, Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"],
                                                      relations=[trusts]))))
            server.push(reading, reading)
            seen = ""
            for _ in range(80):
                await pilot.pause(0.1)
                seen = screen_text(app)
                if "relations: reading" in seen:
                    break
            assert "relations: reading 2 earlier turns with the model" in seen, seen
            for _ in range(150):
                await pilot.pause(0.1)
                if not await session.pending_extraction() and app.status.enriching == 0:
                    break
            await settle(pilot)
            shown = screen_text(app)
            assert "relations: reading" not in shown and app.status.enriching == 0
            log = app.log_view.plain_text()
            # The fear the fast path read at turn 1 is not what the model read: replaced. Turn 2 said it again
            # (nothing new for the fast path to keep). One quiet line per turn.
            assert "Turn 1's relations were read again by the model: 0 relations confirmed, 1 replaced." in log, log
            assert "Turn 2's relations were read again by the model: 0 relations confirmed, 0 replaced." in log, log
