"""Property-based attacks on graph input (issue 8): random upsert calls, valid and malformed, through the
upsert execution and through the real ``kith graph upsert`` command against a real save.

Two properties: no exception escapes but ``KithError`` (the CLI turns that into one ``kith:`` line), and a
refused input changes nothing: a rejected call leaves the execution's buffer exactly as it was, and a
command whose every call is refused leaves the save file byte-identical.

Example counts are modest for the suite's time: 150 executions of up to 8 calls, 25 CLI runs.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.__main__ import main
from game.graph.index import GraphIndex
from game.graph.ports import GraphWrites
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary

EXECUTIONS = 150
CLI_RUNS = 25

NAMES = st.one_of(
    st.sampled_from(["Mira", "mira", "MIRA ", "the Fox", "Tomas", "Tom", "O\u2019Reilly", "O'Reilly", "Oren",
                     "Harbour Watch", "", " ", "\x00", "Mi\x1b[2Jra", "\u202eariM", "Mira\u2028Vell", "x" * 101]),
    st.text(max_size=12),
)
JSON_LEAF = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
                      st.text(max_size=20))
JSON_VALUE = st.recursive(JSON_LEAF, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                          max_leaves=12)
STRENGTH = st.one_of(st.floats(-2, 2), st.just(float("nan")), st.just(float("inf")), st.booleans(),
                     st.sampled_from(["0.5", None, 10**30, -1, 1, 0]))
RELATION = st.one_of(st.sampled_from(["TRUSTS", "trusts", "LED_BY", "KIN_OF", "ally of", "FEARED_BY", "9X", ""]),
                     st.text(max_size=10))


def maybe(key: str, strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.one_of(st.just({}), strategy.map(lambda value: {key: value}))


NODE = st.builds(
    lambda name, *parts: {k: v for part in parts for k, v in part.items()} | name,
    st.one_of(NAMES.map(lambda n: {"name": n}), st.just({})),
    maybe("type", st.sampled_from(["individual", "Faction", "group", "place", 3, None])),
    maybe("aliases", st.lists(NAMES, max_size=4)),
    maybe("labels", st.lists(st.sampled_from(["thief", "Thief", "guard", "a", "b", "c", "d", "\x07"]), max_size=7)),
    maybe("summary", st.one_of(st.sampled_from(["A thief of the docks.", "Too", "   pad   ", None]), st.text())),
    maybe("attributes", st.one_of(st.dictionaries(st.text(max_size=8), JSON_VALUE, max_size=40), JSON_VALUE)),
    maybe("bogus", JSON_VALUE),
)
EDGE = st.builds(
    lambda *parts: {k: v for part in parts for k, v in part.items()},
    maybe("sourceName", NAMES), maybe("targetName", NAMES), maybe("relation", RELATION),
    maybe("strength", STRENGTH),
    maybe("fact", st.one_of(st.sampled_from(["Mira trusts Tomas since the fire.", "short"]), st.text())),
    maybe("source_name", NAMES),
)
CLOSE = st.builds(
    lambda *parts: {k: v for part in parts for k, v in part.items()},
    maybe("sourceName", NAMES), maybe("targetName", NAMES), maybe("relation", RELATION),
)
GOOD_NAMES = st.sampled_from(["Mira", "mira", "the Fox", "Tomas", "Tom", "O\u2019Reilly", "Oren", "Harbour Watch",
                              "Lin Yao", "林"])
GOOD_NODE = st.fixed_dictionaries(
    {"name": GOOD_NAMES, "summary": st.sampled_from(["A thief of the docks.", "Keeps the lamp lit."])},
    optional={"aliases": st.lists(GOOD_NAMES, max_size=2), "type": st.sampled_from(["individual", "group", "faction"]),
              "labels": st.lists(st.sampled_from(["thief", "guard", "priest"]), max_size=3),
              "attributes": st.dictionaries(st.sampled_from(["title", "player", "age"]), JSON_LEAF, max_size=2)},
)
GOOD_EDGE = st.fixed_dictionaries({
    "sourceName": GOOD_NAMES, "targetName": GOOD_NAMES,
    "relation": st.sampled_from(["TRUSTS", "LED_BY", "KIN_OF", "ally of", "FEARED_BY", "OWES"]),
    "strength": st.floats(-1, 1), "fact": st.sampled_from(["Mira trusts Tomas since the fire.", "They met at the mill."]),
})
GOOD_CLOSE = st.fixed_dictionaries({"sourceName": GOOD_NAMES, "targetName": GOOD_NAMES,
                                    "relation": st.sampled_from(["TRUSTS", "KIN_OF", "LED_BY"])})
GOOD_CALL = st.fixed_dictionaries({}, optional={
    "nodes": st.lists(GOOD_NODE, min_size=1, max_size=3), "edges": st.lists(GOOD_EDGE, min_size=1, max_size=3),
    "closeEdges": st.lists(GOOD_CLOSE, min_size=1, max_size=2),
}).filter(bool)
FUZZY_CALL = st.builds(
    lambda *parts: {k: v for part in parts for k, v in part.items()},
    maybe("nodes", st.lists(NODE, max_size=9)),
    maybe("edges", st.lists(EDGE, max_size=5)),
    maybe("closeEdges", st.lists(CLOSE, max_size=3)),
)
# A good call with one item swapped for a fuzzy one: the rejection must take the good items with it.
MIXED_CALL = st.builds(lambda call, node, edge: {**call, "nodes": [*call.get("nodes", []), node],
                                                 "edges": [edge, *call.get("edges", [])]},
                       GOOD_CALL, NODE, EDGE)
CALL = st.one_of(GOOD_CALL, GOOD_CALL, MIXED_CALL, FUZZY_CALL, JSON_VALUE)
SEED_CALL = {
    "nodes": [{"name": "Mira", "aliases": ["the Fox", "Tom"], "summary": "A thief of the docks."},
              {"name": "Tomas", "aliases": ["Tom"], "summary": "A priest with a ledger."},
              {"name": "Harbour Watch", "type": "faction", "summary": "The town's paid guard."}],
    "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS", "strength": 0.7,
               "fact": "Mira trusts Tomas since the fire."}],
}


def snapshot(writes: GraphWrites) -> Any:
    return ({k: v.model_dump() for k, v in writes.nodes.items()}, {k: v.model_dump() for k, v in writes.edges.items()},
            sorted(writes.created_nodes), sorted(writes.created_edges))


@settings(max_examples=EXECUTIONS, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(calls=st.lists(CALL, min_size=1, max_size=8), turn=st.integers(0, 5))
def test_random_calls_never_raise_and_a_rejected_call_leaves_the_buffer_as_it_was(calls: list[Any], turn: int) -> None:
    async def go() -> None:
        index = GraphIndex()
        seed = UpsertExecution(index, Vocabulary.default(), 0, rng=random.Random(1))
        assert (await seed.run(SEED_CALL)).error is None
        index.apply(seed.writes)
        execution = UpsertExecution(index, Vocabulary.default(), turn, rng=random.Random(2))
        for call in calls:
            before = snapshot(execution.writes)
            outcome = await execution.run(call)
            json.dumps(outcome.to_json_dict())  # every outcome is reportable as JSON
            if outcome.error is not None:
                assert snapshot(execution.writes) == before
        # Whatever was accepted, every buffered node is found again by its own name (or reported as tied).
        for node in execution.writes.nodes.values():
            match = await execution.match_name(node.name)
            assert match.node == node or (match.ambiguous and node in match.tied)
        index.apply(execution.writes)

    asyncio.run(go())


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.slow
@settings(max_examples=CLI_RUNS, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                     HealthCheck.function_scoped_fixture])
@given(calls=st.one_of(st.lists(CALL, min_size=1, max_size=4), JSON_VALUE), raw=st.booleans())
def test_the_real_upsert_command_refuses_cleanly_and_keeps_the_save(
    tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str], calls: Any, raw: bool,
) -> None:
    root = tmp_path_factory.mktemp("adversarial")
    saves = root / "saves"
    seed = root / "seed.json"
    seed.write_text(json.dumps(SEED_CALL), encoding="utf-8")
    assert main(["--saves-dir", str(saves), "graph", "upsert", "--save", "demo", str(seed)]) == 0
    save = saves / "demo.sqlite"
    before = _digest(save)
    source = root / "calls.json"
    text = json.dumps(calls, allow_nan=True)
    source.write_text(text[: len(text) // 2] if raw else text, encoding="utf-8")  # raw: cut mid-JSON
    capsys.readouterr()
    code = main(["--saves-dir", str(saves), "graph", "upsert", "--save", "demo", "--turn", "3", str(source)])
    out, err = capsys.readouterr()
    assert code in (0, 1, 2)
    assert "Traceback" not in err
    if code == 2:
        assert err.startswith("kith: ") and out == ""
    results = json.loads(out) if out else []
    if code == 2 or all("error" in result for result in results):
        assert _digest(save) == before
    # Whatever was accepted can be read back by every reader: dump and node print it all.
    assert main(["--saves-dir", str(saves), "graph", "dump", "--save", "demo"]) == 0
    dumped = json.loads(capsys.readouterr().out)
    for node in dumped["nodes"]:
        assert main(["--saves-dir", str(saves), "graph", "node", "--save", "demo", node["id"]]) == 0
    capsys.readouterr()
