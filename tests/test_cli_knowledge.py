"""``kith graph knows``, ``retrieve --as`` and ``upsert`` with knownBy/public, over real saves in-process."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.graph import edge_call
from test_cli_graph import HARBOUR, Kith, digest, harbour

from game.__main__ import main
from game.world import load_world

KEYS = ["edgeId", "source", "target", "relation", "fact", "how", "from", "confidence", "sinceTurn"]


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def facts(kith: Kith, name: str, save: str = "demo") -> list[tuple[str, str, str, str, str | None]]:
    rows = kith.json("knows", "--save", save, "--json", name)
    assert all(list(row) == KEYS for row in rows)
    return [(row["source"], row["relation"], row["target"], row["how"], row["from"]) for row in rows]


def test_knows_lists_what_one_person_knows_with_how_and_from_whom(kith: Kith) -> None:
    harbour(kith)
    assert facts(kith, "Mira") == [("Mira", "TRUSTS", "Tomas", "authored", None),
                                   ("Oren", "FEARS", "Mira", "authored", None)]
    assert facts(kith, "the Fox") == facts(kith, "npc-mira")  # aliases and IDs name her too
    code, out, _ = kith("knows", "--save", "demo", "Oren")
    assert code == 0
    assert out.splitlines() == [
        "Oren knows 1 relation:",
        "  Oren -[FEARS]-> Mira: Oren fears Mira since she cut his nets.",
        "      knows it first-hand, confidence 1.00, since turn 1",
    ]


def test_upsert_known_by_keeps_a_secret_and_public_tells_everyone(kith: Kith) -> None:
    harbour(kith)
    kith.upsert("demo", {"edges": [
        {**edge_call("Tomas", "Oren", "OWES", 0.4, "Tomas owes Oren for a winter's fish."), "knownBy": ["Oren"]},
        {**edge_call("Mira", "Oren", "KNOWS", 0.3, "Mira and Oren grew up on the same quay."), "public": True},
    ]}, "--turn", "2")
    assert ("Tomas", "OWES", "Oren", "authored", None) in facts(kith, "Oren")
    assert [f for f in facts(kith, "Tomas") if f[1] == "OWES"] == []  # not even Tomas knows it
    assert ("Mira", "KNOWS", "Oren", "authored", None) in facts(kith, "Tomas")  # public: everyone does


def test_upsert_known_by_a_stranger_is_rejected_and_changes_nothing(kith: Kith) -> None:
    harbour(kith)
    before = digest(kith.save_file())
    results = kith.upsert("demo", {"edges": [
        {**edge_call("Tomas", "Oren", "OWES", 0.4, "Tomas owes Oren for a winter's fish."), "knownBy": ["Nobody"]},
    ]}, expect=1)
    assert results == [{"error": "knownBy: there is no one called 'Nobody' in the graph"}]
    assert digest(kith.save_file()) == before


def test_retrieve_as_keeps_only_what_that_person_knows(kith: Kith) -> None:
    harbour(kith)
    plain = kith.json("retrieve", "--save", "demo", "Mira")
    assert plain["edgeCount"] == 3
    as_oren = kith.json("retrieve", "--save", "demo", "--as", "Oren", "Mira")
    assert as_oren["edgeCount"] == 1 and "FEARS" in as_oren["npcContext"] and "TRUSTS" not in as_oren["npcContext"]
    # The cast seeds the walk as it does without --as.
    cast = kith.json("retrieve", "--save", "demo", "--as", "Tomas", "--cast", "Tomas", "hello")
    assert "Mira" in cast["npcContext"] and "FEARS" not in cast["npcContext"]
    assert set(plain) == set(as_oren)


@pytest.mark.parametrize(("args", "message"), [
    (["knows", "--save", "demo", "Nobody"], "there is no node named 'Nobody'"),
    (["knows", "--save", "demo", "Harbour Watch"], "only individuals know things"),
    (["knows", "--save", "demo", "player"], "has no player character"),
    (["retrieve", "--save", "demo", "--as", "Nobody", "Mira"], "there is no node named 'Nobody'"),
])
def test_unknown_knowers_are_one_clear_message(kith: Kith, args: list[str], message: str) -> None:
    kith.upsert("demo", HARBOUR)
    code, out, err = kith(*args)
    assert code != 0 and out == "" and message in err and "Traceback" not in err


def test_knows_player_in_a_played_game(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("ask hob about ness\nquit\n"))
    saves = str(tmp_path / "saves")
    assert main(["--saves-dir", saves, "play", "--plain", "--new", "--save", "game"]) == 0
    capsys.readouterr()
    kith = Kith(tmp_path, capsys, monkeypatch)
    known = facts(kith, "player", save="game")
    assert ("Ness Tallis", "MEMBER_OF", "Eel Run", "told", "Hob Tarrant") in known
    # Besides their own and what they were told, the player knows what the whole town knows (public).
    world = load_world(Path(__file__).parent.parent / "content", "brinefall")
    public = {(world.canonical(r.source), r.relation, world.canonical(r.target))
              for r in world.relationships if r.public}
    assert public, "Brinefall says what the town knows"
    assert all("Wren Tallis" in (f[0], f[2]) or f[3] == "told" or f[:3] in public for f in known)
