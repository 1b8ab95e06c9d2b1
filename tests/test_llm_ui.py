"""The model path as the player sees it on screen (issue 12): the status line says "updating relations" from
the end of the narration until the turn commits, not "telling the turn" through the World IR step."""

from __future__ import annotations

import json
from pathlib import Path

from chat_server import ChatServer, Delayed, Text
from helpers.ui import SIZE, make_app, model_settings, settle
from llm_helpers import ir
from textual.widgets import Input

from game.ui.story_log import StoryLog

STORY = "Edda lifts the lamp and turns toward the stair."


async def test_the_status_line_shows_the_memory_step_until_the_turn_commits(tmp_path: Path) -> None:
    with ChatServer() as server:
        app = make_app(tmp_path, model_settings(tmp_path, server.base_url, timeout=10.0))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            server.push(Text(STORY), Delayed(1.5, Text(json.dumps(ir()))))
            app.query_one("#command", Input).value = "look around"
            await pilot.press("enter")
            seen: list[str] = []
            for _ in range(100):
                await pilot.pause(0.02)
                if app.status.activity and app.status.activity not in seen:
                    seen.append(app.status.activity)
                if app.status.activity == "updating relations":
                    break
            assert seen[-1:] == ["updating relations"], seen
            # The story is already on screen while the graph update runs.
            assert STORY in app.query_one(StoryLog).plain_text()
            assert app.session is not None and app.session.turn == 0
            for _ in range(200):
                await pilot.pause(0.02)
                if not app.turn_running:
                    break
            await settle(pilot)
            assert app.status.activity == "" and app.session.turn == 1
