"""The inspector commands never name someone the player has not heard of (game.engine.known_names).

At the start of Brinefall the player knows Hob, Ness and themself. Isolde Kett ("Kestrel") is in the
graph from the world's beginning, but until the player hears of her every inspector command answers
about her exactly as ``/graph kestrel`` does: nobody by that name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.play import collect, text_of

from game.config import load_settings
from game.engine.session import GameSession
from game.narrator.offline import OfflineNarrator
from game.world import load_world

CONTENT = Path(__file__).resolve().parents[1] / "content"
REFUSED = "Nobody called 'kestrel' is remembered yet."
HEAR_OF_KESTREL = ["w", "take note", "e", "show note to hob"]  # "That's Kestrel's hand," Hob says


async def open_game(tmp_path: Path) -> GameSession:
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT,
                                    "world": "brinefall"}, env={})
    return await GameSession.open(settings, save="game", new=True,
                                  narrator=OfflineNarrator(load_world(CONTENT, "brinefall")))


async def reply(session: GameSession, text: str) -> str:
    return text_of(await collect(session, text))


@pytest.mark.parametrize("command", ["/why", "/mind", "/npc", "/knowledge", "/relationship", "/graph"])
async def test_someone_not_yet_heard_of_is_refused_in_the_words_of_graph(tmp_path: Path, command: str) -> None:
    async with await open_game(tmp_path) as session:
        graph_says = await reply(session, "/graph kestrel")
        assert graph_says == REFUSED
        shown = await reply(session, f"{command} kestrel")
        assert shown == graph_says
        assert "Isolde" not in shown and "Eel Run" not in shown
        assert session.turn == 0  # asking is not a turn


@pytest.mark.parametrize(("command", "answer"), [
    ("/why", "What the narrator is told about Isolde Kett, and where it came from:"),
    ("/mind", "The narrator was told nothing about Isolde Kett at turn 4."),
    ("/npc", "Isolde Kett remembers nothing of you yet."),
    ("/knowledge", "What Isolde Kett knows (1 fact), how and how sure:"),
    ("/relationship", "**Isolde Kett** toward you: **NEUTRAL**"),
    ("/graph", "- [+] **Isolde Kett** → **Eel Run** (LEADS)"),
])
async def test_once_heard_of_she_is_answered_for_as_before(tmp_path: Path, command: str, answer: str) -> None:
    async with await open_game(tmp_path) as session:
        for line in HEAR_OF_KESTREL:
            await collect(session, line)
        assert answer in await reply(session, f"{command} kestrel")


async def test_a_fact_taught_about_someone_not_heard_of_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        shown = await reply(session, '/knowledge Hob add Kestrel LEADS "Eel Run"')
        assert shown == REFUSED.replace("'kestrel'", "'Kestrel'")
        assert session.turn == 0


async def test_did_you_mean_offers_only_people_the_player_has_heard_of(tmp_path: Path) -> None:
    async with await open_game(tmp_path) as session:
        for command in ("/why", "/mind", "/npc", "/knowledge", "/graph", "/relationship"):
            assert await reply(session, f"{command} kestrl") == "Nobody called 'kestrl' is remembered yet."
        for line in HEAR_OF_KESTREL:
            await collect(session, line)
        for command in ("/why", "/mind", "/npc", "/knowledge", "/graph", "/relationship"):
            assert await reply(session, f"{command} kestrl") == (
                "Nobody called 'kestrl' is remembered yet (did you mean 'Kestrel'?).")


@pytest.mark.parametrize("typed", ["miller", "the miller", "Ada"])
async def test_a_name_is_found_with_or_without_its_article(tmp_path: Path, typed: str) -> None:
    """Thornwick calls Ada Reeve "the miller"; `talk to miller` finds her, so `/knowledge miller` must too."""
    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "content_dir": CONTENT,
                                    "world": "thornwick"}, env={})
    async with await GameSession.open(settings, save="game", new=True,
                                      narrator=OfflineNarrator(load_world(CONTENT, "thornwick"))) as session:
        await collect(session, "w")
        shown = await reply(session, f"/relationship {typed}")
        assert "toward you" in shown and "Nobody called" not in shown
