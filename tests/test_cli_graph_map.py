"""``kith graph map`` and ``kith graph rebuild``, driven through the real CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.narrators import BrokenNarrator

from game.__main__ import main
from game.config import load_settings
from game.engine.session import GameSession
from game.graph.map import EMPTY_TEXT, LEGEND
from game.world import load_world

FIXTURES = Path(__file__).parent / "fixtures" / "worlds"


def upsert(tmp_path: Path, capsys: pytest.CaptureFixture[str], call: dict[str, object]) -> None:
    source = tmp_path / "call.json"
    source.write_text(json.dumps(call), encoding="utf-8")
    assert main(["--saves-dir", str(tmp_path), "graph", "upsert", "--save", "demo", str(source)]) == 0
    capsys.readouterr()


def test_the_map_draws_every_name_and_the_legend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upsert(tmp_path, capsys, {
        "nodes": [{"name": "Mira", "summary": "Keeps the ledger."}, {"name": "Tomas", "summary": "Hides it."},
                  {"name": "Harbour Watch", "type": "faction", "summary": "The paid guard."}],
        "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS", "strength": 0.7,
                   "fact": "Mira trusts Tomas since the harbour fire."},
                  {"sourceName": "Tomas", "targetName": "Harbour Watch", "relation": "FEARS", "strength": -0.6,
                   "fact": "Tomas fears the Watch will find the ledger."}],
    })
    assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "demo", "--width", "60",
                 "--height", "16", "--color", "never"]) == 0
    drawn = capsys.readouterr().out
    assert "(Mira)" in drawn and "(Tomas)" in drawn and "[Harbour Watch]" in drawn
    assert LEGEND.split(",")[0] in drawn and "\x1b[" not in drawn
    assert max(len(line) for line in drawn.splitlines()) <= 60
    assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "demo", "--width", "60",
                 "--height", "16", "--color", "always"]) == 0
    assert "\x1b[38;2;" in capsys.readouterr().out


def test_the_map_of_an_empty_graph_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upsert(tmp_path, capsys, {"nodes": [{"name": "Mira", "summary": "Keeps the ledger."}]})
    assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "demo", "--color", "never"]) == 0
    assert EMPTY_TEXT in " ".join(capsys.readouterr().out.split())


def test_the_map_refuses_a_missing_save_and_an_unknown_focus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "nobody"]) == 2
    assert "no save" in capsys.readouterr().err and list(tmp_path.iterdir()) == []
    upsert(tmp_path, capsys, {"nodes": [{"name": "Mira", "summary": "Keeps the ledger."}]})
    assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "demo", "--focus", "Zed"]) == 2
    assert "Zed" in capsys.readouterr().err


async def test_rebuild_extracts_turns_whose_memory_update_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = load_settings(flags={"saves_dir": tmp_path, "content_dir": FIXTURES}, env={})
    session = await GameSession.open(settings, save="game", new=True, world="tiny",
                                     narrator=BrokenNarrator(load_world(FIXTURES, "tiny"), "memory"))
    async for _event in session.play_turn("help Edda"):
        pass
    await session.close()
    args = ["--saves-dir", str(tmp_path), "--content-dir", str(FIXTURES), "graph", "rebuild", "--save", "game"]
    # The CLI runs its own event loop, so it goes in a worker thread here.
    import asyncio
    code = await asyncio.to_thread(main, [*args, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["pending"] == [1] and report["extracted"] == [1] and report["remaining"] == []
    assert await asyncio.to_thread(main, args) == 0
    assert "nothing to rebuild" in capsys.readouterr().out


def test_the_map_as_json_is_the_drawings_geometry(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    upsert(tmp_path, capsys, {
        "nodes": [{"name": "Mira", "summary": "Keeps the ledger."}, {"name": "Tomas", "summary": "Hides it."},
                  {"name": "Harbour Watch", "type": "faction", "summary": "The paid guard."}],
        "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS", "strength": 0.7,
                   "fact": "Mira trusts Tomas since the harbour fire."},
                  {"sourceName": "Tomas", "targetName": "Harbour Watch", "relation": "FEARS", "strength": -0.6,
                   "fact": "Tomas fears the Watch will find the ledger."}],
    })
    for view in ("scene", "person", "everyone"):
        assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "demo", "--width", "46",
                     "--height", "30", "--view", view, "--focus", "Tomas", "--json"]) == 0
        shape = json.loads(capsys.readouterr().out)
        assert {"width", "height", "view", "nodes", "edges", "listed"} <= set(shape)
        assert (shape["width"], shape["height"], shape["view"]) == (46, 30, view)
        assert {n["name"] for n in shape["nodes"]} == {"Mira", "Tomas", "Harbour Watch"}
        assert all({"name", "x", "y", "w", "shown"} <= set(n) for n in shape["nodes"])
        fears = next(e for e in shape["edges"] if e["relation"] == "FEARS")
        assert (fears["source"], fears["target"], fears["sign"]) == ("Tomas", "Harbour Watch", "-")
        assert fears["labelled"] and fears["cells"] and all(len(c) == 2 for c in fears["cells"])
        watch = next(n for n in shape["nodes"] if n["name"] == "Harbour Watch")
        assert watch["shown"] and watch["w"] == len("[Harbour Watch]")
    with pytest.raises(SystemExit) as refused:
        main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "demo", "--view", "nowhere"])
    assert refused.value.code == 2 and "invalid choice" in capsys.readouterr().err


@pytest.mark.parametrize("view", ["scene", "person"])
def test_a_40_person_save_reads_whole_at_the_panes_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         view: str) -> None:
    """Issue 24's bar on a generated 40-person save: in the scene and person views at the pane's sizes
    (46x30 at 120x40, 32x18 at 80x24) every name in view is drawn whole or listed, and every relation in
    view is labelled, on its line or in the list."""
    from helpers.maps import import_lines

    source = tmp_path / "cast.jsonl"
    source.write_text("\n".join(import_lines(40, seed=4)) + "\n", encoding="utf-8")
    assert main(["--saves-dir", str(tmp_path), "graph", "import", "--save", "forty", str(source)]) == 0
    capsys.readouterr()
    for width, height in ((46, 30), (32, 18)):
        for focus in ("Kest 0", "Ilse 2", "Rook 13"):
            assert main(["--saves-dir", str(tmp_path), "graph", "map", "--save", "forty", "--view", view,
                         "--focus", focus, "--width", str(width), "--height", str(height), "--json"]) == 0
            shape = json.loads(capsys.readouterr().out)
            unseen = [n["name"] for n in shape["nodes"] if not n["shown"] and n["name"] not in shape["listed"]]
            assert unseen == [], (width, height, focus, unseen)
            assert all(n["w"] == len(n["name"]) + 2 for n in shape["nodes"] if n["shown"]), "names are whole"
            unlabelled = [e for e in shape["edges"] if not e["labelled"]]
            assert unlabelled == [], (width, height, focus, unlabelled)


def test_a_save_with_no_stored_layout_is_laid_out_as_the_pane_does(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A save made without the map pane (``kith run`` here; ``kith graph import`` likewise) keeps no layout.
    ``kith graph map`` then lays the whole graph out as the pane does when it opens such a save (everyone,
    known or not, over the open relations), so the map drawn before the game is opened is the one the pane
    draws, and keeps, after."""
    import asyncio

    from helpers.ui import make_app, settle

    settings = load_settings(flags={"saves_dir": tmp_path / "saves", "world": "brinefall",
                                    "content_dir": Path(__file__).parent.parent / "content"}, env={})
    commands = tmp_path / "play.commands"
    commands.write_text("look\ntalk to Wren\n", encoding="utf-8")
    assert main(["--saves-dir", str(settings.saves_dir), "run", "--transcript", "--world", "brinefall",
                 "--save", "played", str(commands)]) == 0
    args = ["--saves-dir", str(settings.saves_dir), "graph", "map", "--save", "played", "--view", "everyone",
            "--width", "60", "--height", "24", "--json"]
    capsys.readouterr()
    assert main(args) == 0
    before = json.loads(capsys.readouterr().out)

    async def open_in_the_pane() -> tuple[int, int]:
        app = make_app(tmp_path, settings, save="played", new=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await settle(pilot)
            assert app.session is not None and app.map_pane.map.drawing.boxes, "the pane drew the save"
        session = await GameSession.open(settings, "played", new=False)
        try:
            return len(await session.map_layout()), len(await session.all_nodes())
        finally:
            await session.close()

    stored, nodes = asyncio.run(open_in_the_pane())
    assert stored == nodes, "the pane laid out and kept the whole graph"
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == before
