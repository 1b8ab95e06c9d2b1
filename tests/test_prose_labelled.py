"""The labelled prose set (issue 26): public-domain passages by several authors, split into a development
part and a held-out part of other authors, scored for people and relations as ``kith import-story`` reads
them. The targets are behaviour: a change that makes the reader take a word for a person, or state a
relation the passage does not, fails here. ``benchmarks/prose_bench.py`` prints the same figures."""

from __future__ import annotations

from collections import Counter

from benchmarks.prose_bench import (
    FALSE_PERSON_TARGET,
    PRECISION_TARGET,
    RECALL_TARGET,
    SPLITS,
    load,
    run,
    score,
)
from game.graph.vocabulary import DEFAULT_RELATIONS


def test_the_set_is_large_varied_and_split_by_author() -> None:
    passages = load()["passages"]
    assert len(passages) >= 150
    assert len({p["id"] for p in passages}) == len(passages)
    authors = {split: {p["author"] for p in passages if p["split"] == split} for split in SPLITS}
    assert len(authors["dev"]) >= 3 and len(authors["held-out"]) >= 3
    assert not authors["dev"] & authors["held-out"], "the held-out part is other authors"
    counts = Counter(p["split"] for p in passages)
    assert counts["held-out"] >= 50
    dialogue = [p for p in passages if any(q in p["text"] for q in "“\"")]
    assert len(dialogue) >= 50 and len(passages) - len(dialogue) >= 50, "dialogue and narration"
    known = {spec.name for spec in DEFAULT_RELATIONS} | {"ENGAGED_TO"}
    for passage in passages:
        names = {n for person in passage["people"] for n in person}
        for relation in passage["relations"]:
            assert {relation["source"], relation["target"]} <= names, passage["id"]
            assert relation["relation"] in known, passage["id"]
    # The third held-out part (Alcott, Chesterton, the Grimms) states few relations outright: its figure
    # for relations is a rough one, and the development part carries the relation targets.
    assert sum(len(p["relations"]) for p in passages if p["split"] == "held-out") >= 9
    assert sum(len(p["relations"]) for p in passages if p["split"] == "dev") >= 40


def test_the_reader_meets_its_targets_on_the_development_part() -> None:
    found = score("dev")
    assert found.precision >= PRECISION_TARGET, f"wrong relations: {found.wrong}"
    assert found.recall >= RECALL_TARGET, f"missed relations: {found.missed}"
    assert found.false_person_rate <= FALSE_PERSON_TARGET, f"not people: {found.false_people}"
    # 0.72 since the Brontë and Barrie passages joined: each passage is read alone, and a name it writes
    # once with nothing done by it ("the chidings of Bessie") is not taken for a person.
    assert found.people_recall >= 0.7


def test_on_the_held_out_part_no_relation_is_wrong_and_few_words_are_taken_for_people() -> None:
    found = score("held-out")
    assert found.precision >= PRECISION_TARGET, f"wrong relations: {found.wrong}"
    assert found.false_person_rate <= FALSE_PERSON_TARGET, f"not people: {found.false_people}"
    # Scored once (Alcott, Chesterton, the Grimms): people recall 0.49 and relation recall 0.00 (0 of 9),
    # reported by the benchmark and docs/graph-cli.md, not tuned to here.
    assert found.people_recall >= 0.4


def test_the_benchmark_prints_both_parts_and_the_speed() -> None:
    lines = run(True)
    assert lines[0].startswith("prose dev:") and lines[1].startswith("prose held-out:")
    assert "ms per 1,000 words" in lines[-1]
