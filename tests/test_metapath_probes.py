"""The probe worlds (``tests/data/probes``) that decide whether meta-paths are on by default: they are what
their generator makes, every line imports cleanly, and retrieval with the default patterns recalls more of
what the probes need than without (``make bench`` prints the figures: metapath_bench)."""

from __future__ import annotations

import json
import sys

from benchmarks.metapath_bench import OFF, ON, PROBES, compare, load_graph, probe_worlds, recall
from game.config import Settings

sys.path.insert(0, str(PROBES))
import make_probes


def test_the_probe_files_are_what_the_generator_makes() -> None:
    for shape in make_probes.SHAPES:
        on_disk = json.loads((PROBES / f"{shape.name}.json").read_text(encoding="utf-8"))
        assert on_disk == json.loads(json.dumps(make_probes.build(shape)))


async def test_meta_paths_recall_more_of_what_the_probes_need_so_they_are_on_by_default() -> None:
    rows = await compare()
    assert {world for world, _, _ in rows} == {"harbour", "village"}
    for _world, off, on in rows:
        assert on.share >= off.share
    assert sum(on.kept for _, _, on in rows) > sum(off.kept for _, off, _ in rows)
    assert Settings().retrieval.metapaths is True


async def test_half_the_probes_need_no_pattern_and_lose_little() -> None:
    for world in probe_worlds():
        kinds = [probe["kind"] for probe in world["probes"]]
        shaped = sum(kind in ("kin-fear", "guild-leader", "creditor-servant") for kind in kinds)
        assert shaped == len(kinds) - shaped
        index = await load_graph(world["lines"])
        latest = [p for p in world["probes"] if p["kind"] == "latest"]
        off, on = await recall(index, latest, OFF), await recall(index, latest, ON)
        assert on.share >= off.share - 0.15  # the places raised facts take cost the newest facts this much at most
