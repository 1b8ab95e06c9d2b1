"""``kith graph extract`` in-process over real save files: the JSON contract, the text form, ``--apply``
through the upsert path at the right turn, and refusals that leave saves untouched and create nothing."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from game.__main__ import main

CAST = [{"nodes": [
    {"name": "Mira", "summary": "A thief of the lower docks.", "attributes": {"pronouns": "she/her"}},
    {"name": "Tomas", "summary": "A priest who keeps the ledger."},
    {"name": "Oren", "summary": "A boatman who owes everyone."},
    {"name": "Harbour Watch", "type": "faction", "aliases": ["the Watch"], "summary": "The town's paid guard."},
]}, {"edges": [
    {"sourceName": "Oren", "targetName": "Mira", "relation": "FEARS", "strength": -0.6,
     "fact": "Oren fears Mira since she cut his nets."},
]}]

STORY = ("Mira trusts Tomas. Oren, captain of the Watch, no longer fears Mira. "
         "Does Tomas trust Oren? Mira and Oren shared a boat. Sera Vell watched from the pier.")


class Kith:
    def __init__(self, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
        self.root, self.saves, self.capsys, self.monkeypatch = tmp_path, tmp_path / "saves", capsys, monkeypatch

    def __call__(self, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            self.monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main(["--saves-dir", str(self.saves), "graph", *args])
        out, err = self.capsys.readouterr()
        return code, out, err

    def file(self, name: str, content: str | bytes) -> str:
        path = self.root / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return str(path)

    def json(self, *args: str, expect: int = 0) -> Any:
        code, out, err = self(*args)
        assert code == expect, err
        return json.loads(out)

    def harbour(self, turn: int = 1) -> None:
        self.json("upsert", "--save", "demo", "--turn", str(turn), self.file("cast.json", json.dumps(CAST)))


@pytest.fixture
def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kith:
    return Kith(tmp_path, capsys, monkeypatch)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_json_has_the_contracts_shape(kith: Kith) -> None:
    kith.harbour()
    data = kith.json("extract", "--save", "demo", "--json", kith.file("story.txt", STORY))
    assert {"triples", "cooccurrences", "unknownNames"} <= set(data)
    assert data["triples"] == [
        {"source": "Mira", "target": "Tomas", "relation": "TRUSTS", "strength": 0.5, "confidence": 0.65,
         "sentence": "Mira trusts Tomas."},
        {"source": "Oren", "target": "Harbour Watch", "relation": "LEADS", "strength": 0.5, "confidence": 0.65,
         "sentence": "Oren, captain of the Watch, no longer fears Mira."},
    ]
    assert data["cooccurrences"][0] == {"a": "Mira", "b": "Oren", "count": 2}
    assert all(set(c) == {"a", "b", "count"} for c in data["cooccurrences"])
    assert data["unknownNames"] == ["Sera Vell"]
    assert [(c["source"], c["relation"], c["target"]) for c in data["closes"]] == [("Oren", "FEARS", "Mira")]
    assert "applied" not in data


def test_without_apply_nothing_is_written(kith: Kith) -> None:
    kith.harbour()
    before = digest(kith.saves / "demo.sqlite")
    code, _, _ = kith("extract", "--save", "demo", kith.file("story.txt", STORY))
    assert code == 0
    assert digest(kith.saves / "demo.sqlite") == before


def test_the_text_form_is_readable_and_terminal_safe(kith: Kith) -> None:
    kith.harbour()
    code, out, _ = kith("extract", "--save", "demo", "-", stdin=STORY + " Mira fears Oren.\x1b]52;c;aGk=\x07")
    assert code == 0
    assert "Mira -TRUSTS-> Tomas  (strength +0.5, confidence 0.65)" in out
    assert "Ended (1):\n  Oren -FEARS-> Mira" in out
    assert "Named together: Mira + Oren (3)" in out
    assert "Unknown names: Sera Vell" in out
    assert "\x1b" not in out and "\x07" not in out


def test_apply_writes_the_triples_and_closes_at_the_given_turn(kith: Kith) -> None:
    kith.harbour()
    data = kith.json("extract", "--save", "demo", "--json", "--apply", "--turn", "3", kith.file("s.txt", STORY))
    assert data["applied"]["turn"] == 3
    dump = kith.json("dump", "--save", "demo")
    names = {n["id"]: n["name"] for n in dump["nodes"]}
    edges = {(names[e["source"]], e["relation"], names[e["target"]]): e for e in dump["edges"]}
    trusts = edges[("Mira", "TRUSTS", "Tomas")]
    assert (trusts["validAt"], trusts["strength"], trusts["fact"]) == (3, 0.5, "Mira trusts Tomas.")
    assert trusts["evidenceTurnIds"] == ["turn-3"]
    assert edges[("Oren", "FEARS", "Mira")]["invalidAt"] == 3  # "no longer fears" closed it
    assert len(dump["nodes"]) == 4  # the fast path never creates people: unknown names stay unknown


def test_apply_defaults_to_the_latest_turn_and_is_idempotent(kith: Kith) -> None:
    kith.harbour(turn=5)
    story = kith.file("s.txt", "Mira trusts Tomas.")
    first = kith.json("extract", "--save", "demo", "--json", "--apply", story)
    assert first["applied"]["turn"] == 5
    second = kith.json("extract", "--save", "demo", "--json", "--apply", story)
    (result,) = second["applied"]["results"]
    assert result["edges"]["results"][0]["skipped"] == "unchanged relation"


def test_text_form_of_apply_says_what_was_written(kith: Kith) -> None:
    kith.harbour()
    code, out, _ = kith("extract", "--save", "demo", "--apply", kith.file("s.txt", STORY))
    assert code == 0
    assert out.rstrip().endswith("Applied at turn 1: 2 edge version(s) created, 0 skipped, 1 closed.")


def test_a_missing_save_is_refused_and_not_created(kith: Kith) -> None:
    code, _, err = kith("extract", "--save", "nosuch", "--apply", kith.file("s.txt", STORY))
    assert code == 2 and "no save" in err
    assert not (kith.saves / "nosuch.sqlite").exists()


def test_unreadable_input_is_refused_and_the_save_untouched(kith: Kith) -> None:
    kith.harbour()
    before = digest(kith.saves / "demo.sqlite")
    for source in (str(kith.root / "absent.txt"), kith.file("bad.txt", b"\xff\xfe Mira \x80")):
        code, out, err = kith("extract", "--save", "demo", "--apply", source)
        assert code == 2 and out == "" and err.startswith("kith: ")
    assert digest(kith.saves / "demo.sqlite") == before


def test_empty_text_finds_nothing(kith: Kith) -> None:
    kith.harbour()
    kith.monkeypatch.setattr("sys.stdin", io.StringIO(""))
    data = kith.json("extract", "--save", "demo", "--json", "-")
    assert data == {"triples": [], "cooccurrences": [], "unknownNames": [], "closes": []}
