"""``kith import-story`` over prose nobody here wrote (issue 26), in-process over real save files.

"A Scandal in Bohemia" part I (public domain, ``tests/data/prose``) is imported as a new user would, with
no world: the save holds the player and the story's people, nobody of Brinefall; Holmes, Watson, Irene
Adler, the King (his other names his aliases or questions pointing at him) and Clotilde, with the
friendship and the engagement the dialogue states; and no country, adjective or form of address among
the people.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers.saves import SCHEMA

from game.__main__ import main
from game.config import load_settings
from game.features.identity.questions import questions
from game.graph.fast_extract.marks import fast_from
from game.store.database import SaveDatabase

SCANDAL = Path(__file__).parent / "data" / "prose" / "scandal-in-bohemia-1.md"


def kith(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["--saves-dir", str(tmp_path / "saves"), *args])
    out, err = capsys.readouterr()
    return code, out, err


async def _graph(tmp_path: Path, save: str) -> tuple[dict[str, list[str]], set[tuple[str, str, str]], list[dict[str, str]]]:
    """Each node's names, the open relations the fast path read (by names), and the open questions."""
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    async with await SaveDatabase.open(settings.saves_dir / f"{save}.sqlite", schema=SCHEMA) as db:
        index = await db.load_graph_index()
        names = {n.name: list(n.aliases) for n in index.nodes.values()}
        by_id = {n.id: n.name for n in index.nodes.values()}
        relations = {(by_id[e.source], e.relation, by_id[e.target]) for e in index.open_edges.values()
                     if fast_from(e) is not None}
        pending = [{"new": p.new_name, "candidate": p.candidate_name, "evidence": p.evidence}
                   for p in await questions(db) if p.is_open]
    return names, relations, pending


async def test_a_scandal_in_bohemia_imports_as_its_own_people_with_the_friendship_and_the_engagement(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "scandal", "--json",
                                             str(SCANDAL))
    assert code == 0, err
    report = json.loads(out)
    names, relations, pending = await _graph(tmp_path, "scandal")
    people = set(report["people"])
    assert {"Sherlock Holmes", "Dr. Watson", "Irene Adler", "the King", "Clotilde Lothman von Saxe-Meningen"} <= people
    assert "Holmes" in names["Sherlock Holmes"] and "Watson" in names["Dr. Watson"]
    # Nobody of Brinefall but its player, and no country, adjective or form of address taken for a person.
    everyone = {name for name, aliases in names.items() for name in (name, *aliases)}
    assert not everyone & {"Hob Tarrant", "Orla Vance", "Bohemia", "Bohemian", "Majesty", "Doctor", "Baker Street",
                           "German", "London", "Europe", "Warsaw"}
    assert len(names) == len(people) + 1
    # The King is one person: his other names are his aliases, or questions that point at him.
    asked = {p["new"]: p["candidate"] for p in pending}
    for name in ("Count Von Kramm", "Wilhelm Gottsreich Sigismond von Ormstein"):
        assert asked.get(name) == "the King" or name in names["the King"], (name, asked)
    assert "King of Bohemia" in names["Wilhelm Gottsreich Sigismond von Ormstein"]
    assert "the Count" in names["Count Von Kramm"]
    assert all("the story says so" in p["evidence"] for p in pending if p["candidate"] == "the King")
    assert sorted(report["questions"]) == sorted(f"{new} — is that {old}?" for new, old in asked.items())
    # The friendship ("This is my friend and colleague, Dr. Watson", said Holmes) and the engagement ("I am
    # about to be married." ... "To Clotilde Lothman von Saxe-Meningen"), from the dialogue.
    assert ("Dr. Watson", "ALLY_OF", "Sherlock Holmes") in relations
    assert ("the King", "ENGAGED_TO", "Clotilde Lothman von Saxe-Meningen") in relations
    assert ("Clotilde Lothman von Saxe-Meningen", "KIN_OF", "King of Scandinavia") in relations
    assert report["relations"] == len(relations)


async def test_without_a_world_the_cast_is_the_player_and_the_story_s_people(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "two.md"
    story.write_text("“Come in, Mira,” said Tomas Vell.\n\nMira Holt sat down.\n", encoding="utf-8")
    code, _out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "two", "--json",
                                             str(story))
    assert code == 0, err
    names, _relations, _pending = await _graph(tmp_path, "two")
    assert set(names) == {"Reader", "Tomas Vell", "Mira Holt"}, names
    # With the default world asked for by name, its cast is there as before.
    code, _out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "three", "--world",
                                             "brinefall", "--json", str(story))
    assert code == 0, err
    names, _relations, _pending = await _graph(tmp_path, "three")
    assert {"Hob Tarrant", "Orla Vance", "Wren Tallis"} <= set(names) and len(names) > 10


async def test_what_a_story_says_of_someone_s_sex_keeps_husband_wife_and_daughter_apart(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "lane.md"
    story.write_text(
        "Lucy Garland came down the lane in the rain. She carried a basket of eggs on her arm.\n\n"
        "Thomas Lynde was a meek little man. He worked in the fields from dawn to dusk.\n\n"
        "“Good morning,” said Mr. Garland, holding the gate.\n\n"
        "Mrs. Lynde watched them both from her window, and Miss Garland waved to her.\n", encoding="utf-8")
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "lane", "--json",
                                             str(story))
    assert code == 0, err
    names, _relations, pending = await _graph(tmp_path, "lane")
    assert {"Lucy Garland", "Thomas Lynde", "Mr. Garland", "Mrs. Lynde", "Miss Garland"} <= set(names)
    asked = {(p["new"], p["candidate"]) for p in pending}
    # The story calls Lucy "she" and Thomas "he": a Mr. is not asked about as her, nor a Mrs. as him...
    assert ("Mr. Garland", "Lucy Garland") not in asked and ("Mrs. Lynde", "Thomas Lynde") not in asked
    # ...while the Miss of her surname may well be Lucy, and is asked about.
    assert ("Miss Garland", "Lucy Garland") in asked
    assert sorted(json.loads(out)["questions"]) == ["Miss Garland — is that Lucy Garland?"]
    settings = load_settings(flags={"saves_dir": tmp_path / "saves"}, env={})
    async with await SaveDatabase.open(settings.saves_dir / "lane.sqlite", schema=SCHEMA) as db:
        index = await db.load_graph_index()
        sexes = {n.name: n.attributes.get("gender") for n in index.nodes.values()}
    assert sexes["Lucy Garland"] == "female" and sexes["Thomas Lynde"] == "male" and sexes["Mr. Garland"] == "male"


async def test_a_father_and_son_who_share_a_name_are_two_people_and_no_question(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    story = tmp_path / "heights.md"
    story.write_text(
        "Heathcliff's son Linton Heathcliff was a sickly boy. Heathcliff despised him.\n\n"
        "Linton Heathcliff feared Heathcliff, and Heathcliff laughed at him.\n", encoding="utf-8")
    code, out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "heights", "--json",
                                             str(story))
    assert code == 0, err
    names, relations, pending = await _graph(tmp_path, "heights")
    # "Heathcliff" was the son's short name, and then a question: is Heathcliff Linton Heathcliff?
    assert {"Heathcliff", "Linton Heathcliff"} <= set(names)
    assert pending == [] and json.loads(out)["questions"] == []
    assert ("Linton Heathcliff", "FEARS", "Heathcliff") in relations


async def test_an_imported_couple_named_by_their_titles_is_two_people_married(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the save's name lookup must read "Mr. and Mrs. Bonacieux" as the readers do, or Mr. Bonacieux is a node
    # no turn can mention
    story = tmp_path / "court.md"
    story.write_text("Mr. and Mrs. Bonacieux lived in the Rue des Fossoyeurs.\n\n"
                     "“Sire,” said the Cardinal to the King, “I am your most faithful servant.”\n", encoding="utf-8")
    code, _out, err = await asyncio.to_thread(kith, tmp_path, capsys, "import-story", "--save", "court", str(story))
    assert code == 0, err
    names, relations, _pending = await _graph(tmp_path, "court")
    assert {"Mr. Bonacieux", "Mrs. Bonacieux"} <= set(names)
    assert ("Mr. Bonacieux", "KIN_OF", "Mrs. Bonacieux") in relations
    assert ("the Cardinal", "SERVES", "the King") in relations
