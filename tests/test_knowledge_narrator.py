"""The narrator is told only what the people present know: the model's recorded prompt holds no secret
between two absent people, and holds it once gossip has carried it to someone on stage; ``/why`` shows
the same scoped view. Real parts: a save on disk, the ``kith graph`` CLI in-process, the openai client
against the local chat server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer, Received, Text, ToolCalls
from helpers.graph import edge_call, node_call
from helpers.play import collect
from llm_helpers import WORLDS, character, ir, llm_settings, tiny_world
from test_cli_graph import Kith

from game.config import Settings
from game.engine.events import TurnCommitted
from game.engine.session import GameSession
from game.narrator.llm.narrator import OpenAINarrator

SECRET = "Tobin Hale owes Wren Ashby the price of a stolen lamp."
NARRATION = "Edda shrugs at the name. \"Tobin trims wicks. That's all I know of him.\""


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as running:
        yield running


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def _settings(kith: Kith, server: ChatServer) -> Settings:
    return Settings(world="tiny", content_dir=WORLDS, saves_dir=kith.saves, llm=llm_settings(server.base_url))


def _turn(settings: Settings, server: ChatServer, text: str, *, new: bool = False) -> Received:
    """One model turn on the save ``game``; returns the narration request the server received."""
    async def run() -> None:
        teller = OpenAINarrator(settings.llm, tiny_world(), env={})
        session = await GameSession.open(settings, save="game", new=new, world="tiny", narrator=teller)
        try:
            if text:
                facts = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
                           nextCast=["Edda Marsh"])
                server.push(Text(NARRATION), Text(json.dumps(facts)), ToolCalls([("runtime_done", {})]))
                events = await collect(session, text)
                assert any(isinstance(e, TurnCommitted) for e in events), events
        finally:
            await session.close()

    before = len(server.chat_requests)
    asyncio.run(run())
    return server.chat_requests[before] if text else Received("", {}, {})


def _system(request: Received) -> str:
    """The whole narration prompt (the turn's context is in its last message)."""
    return request.text()


def _block(system: str, name: str) -> list[str]:
    """The lines of one ``[KNOWLEDGE] NAME`` block of a narration prompt."""
    start = system.index(f"[KNOWLEDGE] {name}\n") + len(f"[KNOWLEDGE] {name}\n")
    end = min(i for i in (system.find("\n\n", start), system.find("\n</knowledge>", start)) if i >= 0)
    return system[start:end].splitlines()


def _secret_between_absent_people(kith: Kith, settings: Settings, server: ChatServer) -> None:
    _turn(settings, server, "", new=True)
    kith.upsert("game", {"nodes": [node_call("Wren Ashby", summary="A lamp-seller from the mainland.")],
                         "edges": [{**edge_call("Tobin Hale", "Wren Ashby", "OWES", 0.4, SECRET),
                                    "knownBy": ["Tobin Hale", "Wren Ashby"]}]})


def test_a_secret_between_absent_people_is_not_in_the_prompt_until_word_reaches_someone_present(
        kith: Kith, server: ChatServer) -> None:
    settings = _settings(kith, server)
    _secret_between_absent_people(kith, settings, server)

    before = _system(_turn(settings, server, "ask Edda about Tobin"))
    assert SECRET not in before  # Tobin and Wren are elsewhere; nobody on stage knows
    edda = _block(before, "Edda Marsh")
    # A fact the relationship graph states is named by its people and relation in a knower's block.
    assert ("- [+] **Tobin Hale** → **Edda Marsh** (SERVES): Tobin Hale has trimmed Edda Marsh's wicks for three "
            "winters.") in before[before.index("<npc-context>"):before.index("</npc-context>")]
    assert "- Tobin Hale → Edda Marsh (SERVES): sure" in edda
    assert "[KNOWLEDGE] Sam Reed" in before and before.index("[KNOWLEDGE] Sam Reed") < before.index(
        "[KNOWLEDGE] Edda Marsh")  # the player character's block comes first

    told = kith.json("gossip", "--save", "game", "--json", "--rounds", "3")["told"]
    assert any(row["listener"] == "Edda Marsh" and row["teller"] == "Tobin Hale" for row in told), told

    after = _system(_turn(settings, server, "ask Edda about Tobin"))
    assert "- Tobin Hale → Wren Ashby (OWES): heard" in _block(after, "Edda Marsh")
    assert f"- [+] **Tobin Hale** → **Wren Ashby** (OWES): {SECRET}" in after  # stated once, in <npc-context>
    assert "Tobin Hale → Wren Ashby" not in "\n".join(_block(after, "Sam Reed"))  # the player was not told


def test_why_shows_what_the_narrator_is_told_never_a_secret_nobody_present_knows(
        kith: Kith, server: ChatServer) -> None:
    settings = _settings(kith, server)
    _secret_between_absent_people(kith, settings, server)
    _turn(settings, server, "ask Edda about Tobin")  # Edda names him: the player has heard of Tobin now

    async def why() -> str:
        session = await GameSession.open(settings, save="game", new=False, world="tiny",
                                         narrator=OpenAINarrator(settings.llm, tiny_world(), env={}))
        try:
            return "\n".join(str(getattr(e, "text", "")) for e in [e async for e in session.play_turn("/why Tobin")])
        finally:
            await session.close()

    shown = asyncio.run(why())
    assert "Tobin Hale" in shown and "SERVES" in shown
    assert SECRET not in shown


async def test_the_player_witnesses_only_relations_made_where_they_are(tmp_path: Path, server: ChatServer) -> None:
    settings = Settings(world="tiny", content_dir=WORLDS, saves_dir=tmp_path / "saves",
                        llm=llm_settings(server.base_url))
    here = edge_call("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
    away = edge_call("Tobin Hale", "Lighthouse Board", "DISTRUSTS", -0.5,
                     "Tobin Hale wrote to the Lighthouse Board behind Edda's back.")
    facts = ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
               relations=[], nextCast=["Edda Marsh"])
    server.push(Text(NARRATION), Text(json.dumps(facts)), ToolCalls([("upsert_npc_graph", {"edges": [here, away]})]))
    session = await GameSession.open(settings, save="game", new=True, world="tiny",
                                     narrator=OpenAINarrator(settings.llm, tiny_world(), env={}))
    try:
        assert any(isinstance(e, TurnCommitted) for e in await collect(session, "help Edda with the wick"))
        graph = session.graph
        ids = {node.name: node.id for node in graph.nodes.values()}
        made = {edge.relation: edge.id for edge in graph.open_edges.values() if edge.valid_at == 1}
        player, edda, tobin = ids["Sam Reed"], ids["Edda Marsh"], ids["Tobin Hale"]
        assert graph.knows(player, made["TRUSTS"]) and graph.knows(edda, made["TRUSTS"])
        # Tobin is up in the lamp room: what he did there is his to know, not the player's or Edda's.
        assert graph.knows(tobin, made["DISTRUSTS"])
        assert not graph.knows(player, made["DISTRUSTS"]) and not graph.knows(edda, made["DISTRUSTS"])
    finally:
        await session.close()
