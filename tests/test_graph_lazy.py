"""A save opened lazily answers every question exactly as the same save loaded whole.

A session's ``GraphIndex`` reads a node's relations, a version's knowers and a knower's versions from the
save only when first asked (``load_graph_index()``); a bulk import loads everything at once
(``lazy=False``). Whatever order the questions come in, and whether writes were applied after their
commit (a session) or before it (a bulk load), both must give the same answers: retrieval plain and
scoped, open relations, degrees, knowers both ways, edge IDs, and the whole graph.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers.saves import SCHEMA
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.graph_bench import messages, synthesize
from game.__main__ import main
from game.errors import SaveError
from game.graph.index import GraphIndex
from game.graph.knowledge import PUBLIC, Knowing
from game.graph.ports import GraphWrites
from game.graph.retrieve import retrieve, retrieve_scoped
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.store.database import SaveDatabase, TurnRecord

VOCABULARY = Vocabulary.default()
DATA = synthesize(500, seed=5)

# Each question an index answers, as (kind, which): ``which`` picks a node, version or message.
QUESTION = st.tuples(
    st.sampled_from(["edges_of", "degree", "between", "knowers", "known_by", "knows", "edge", "has_id",
                     "retrieve", "scoped", "adjacent"]),
    st.integers(0, 10_000),
)


def build_save(folder: Path) -> Path:
    source = folder / "graph.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in DATA.lines), encoding="utf-8")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["--saves-dir", str(folder), "graph", "import", "--save", "lazy", str(source)]) == 0
    return folder / "lazy.sqlite"


async def answer(index: GraphIndex, every_edge: list[str], kind: str, which: int) -> Any:
    """One question's answer, in a form two indexes can be compared by."""
    node_ids = sorted(index.nodes)
    node = node_ids[which % len(node_ids)]
    edge_id = every_edge[which % len(every_edge)]
    if kind == "edges_of":
        return sorted(e.id for e in await index.open_edges_of(node))
    if kind == "degree":
        return await index.open_degree(node_ids[which % 7::97])
    if kind == "between":
        edge = index.open_edges.get(edge_id)
        return None if edge is None else [e.id for e in index.open_between(edge.source, edge.target, edge.relation)]
    if kind == "knowers":
        return index.knowers_of(edge_id), await index.knowings_of([edge_id, every_edge[(which * 7) % len(every_edge)]])
    if kind == "known_by":
        return sorted(index.known_by(node)), sorted(index.known_by(PUBLIC))
    if kind == "knows":
        return index.knows(node, edge_id), index.knows(node, edge_id, floor=0.0)
    if kind == "edge":
        edge = index.open_edges.get(edge_id)
        return None if edge is None else edge.model_dump(), edge_id in index.open_edges
    if kind == "has_id":
        return index.has_edge_id(edge_id), index.has_edge_id(f"{edge_id}x"), await index.node_id_taken(node)
    if kind == "adjacent":
        return sorted(index.adjacent(node))
    message = messages(DATA, 40, seed=which)[which % 40]
    if kind == "retrieve":
        found = await retrieve(index, message, as_knower=node if which % 2 else None)
        return found.npc_context, [e.id for e in found.edges]
    knowers = [index.nodes[n] for n in node_ids[which % 5::151]]
    scoped = await retrieve_scoped(index, message, [], knowers)
    return scoped.retrieval.npc_context, scoped.knowledge


def whole(index: GraphIndex) -> Any:
    """Everything: nodes, open versions in order, knower rows."""
    return ([n.model_dump() for n in index.nodes.values()], [e.model_dump() for e in index.open_edges.values()],
            sorted((k.edge_id, k.knower, k.how, k.source, k.confidence, k.since_turn) for k in index.all_knowings()))


async def a_turn(db: SaveDatabase, index: GraphIndex, turn: int, seed: int) -> Any:
    """Change a few relations and make one public, as a turn of play would."""
    rng = random.Random(seed)
    names = {n.id: n.name for n in index.nodes.values()}
    picked = rng.sample(sorted(index.open_edges.values(), key=lambda e: e.id), 6)
    execution = UpsertExecution(index, VOCABULARY, turn, rng=random.Random(seed), witnesses=sorted(names)[:2])
    for edge in picked:
        await execution.run({"edges": [{
            "sourceName": names[edge.source], "targetName": names[edge.target], "relation": edge.relation,
            "strength": edge.strength, "fact": f"Changed at turn {turn}, for the {seed}th time.",
            "public": rng.random() < 0.5}]})
    close = picked[0]
    await execution.run({"closeEdges": [{"sourceName": names[close.source], "targetName": names[close.target],
                                         "relation": close.relation}]})
    return execution.writes


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(questions=st.lists(QUESTION, min_size=5, max_size=40), apply_first=st.booleans())
def test_a_lazily_opened_save_answers_like_one_loaded_whole(tmp_path_factory: Any, questions: list[tuple[str, int]],
                                                           apply_first: bool) -> None:
    folder = tmp_path_factory.mktemp("lazy")
    path = build_save(folder)

    async def go() -> None:
        async with await SaveDatabase.open(path, schema=SCHEMA) as db:
            every_edge = [e.id for e in await db.graph.all_edges()]
            lazy = await db.load_graph_index()
            assert lazy.lazy
            half = len(questions) // 2
            for kind, which in questions[:half]:
                eager = await db.load_graph_index(lazy=False)
                assert await answer(lazy, every_edge, kind, which) == await answer(eager, every_edge, kind, which)
            # A turn's writes: applied after their commit (a session), or before it (a bulk load).
            writes = await a_turn(db, lazy, 500, seed=len(questions))
            if apply_first:
                lazy.apply(writes)
                await db.commit_graph(writes)
            else:
                await db.commit_graph(writes)
                lazy.apply(writes)
            eager = await db.load_graph_index(lazy=False)
            every_edge = [e.id for e in await db.graph.all_edges()]
            for kind, which in questions[half:]:
                assert await answer(lazy, every_edge, kind, which) == await answer(eager, every_edge, kind, which)
            assert whole(lazy) == whole(eager)

    asyncio.run(go())


def test_opening_reads_nodes_only_and_the_rest_as_it_is_reached(tmp_path: Path) -> None:
    """What makes opening a long game cheap: no relation or knower is read before it is asked for."""
    asyncio.run(opening_reads_nodes_only(build_save(tmp_path)))


async def opening_reads_nodes_only(path: Path) -> None:
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        index = await db.load_graph_index()
        assert index.nodes and not index._open and not index._knowers and not index._known
        some = sorted(index.nodes)[3]
        await index.open_edges_of(some)
        assert index._loaded == {some} and len(index._open) < len(await db.graph.all_edges(open_only=True))
        assert len(index.open_edges) == len(await db.graph.all_edges(open_only=True))  # the map asks for all


def test_a_lazy_index_reads_what_was_committed_after_it_opened(tmp_path: Path) -> None:
    """Rows committed (and applied) later are found whether or not that part had been loaded before."""
    asyncio.run(reads_what_was_committed(build_save(tmp_path)))


async def reads_what_was_committed(path: Path) -> None:
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        lazy = await db.load_graph_index()
        writes = await a_turn(db, lazy, 600, seed=3)
        await db.commit_graph(writes)
        lazy.apply(writes)
        eager = await db.load_graph_index(lazy=False)
        for edge_id in writes.edges:
            assert lazy.knowers_of(edge_id) == eager.knowers_of(edge_id)
            assert lazy.has_edge_id(edge_id)
        assert whole(lazy) == whole(eager)

        # Word reaching someone about a version nothing had asked about yet (as gossip writes it), into a
        # freshly opened index: the version's other knowers and the listener's other facts stay known.
        fresh = await db.load_graph_index()
        edge = next(e for e in reversed(await db.graph.all_edges()) if e.invalid_at is None)
        listener = next(n for n in sorted(fresh.nodes) if n not in (edge.source, edge.target))
        heard = GraphWrites(knowings={(edge.id, listener): Knowing(
            edge_id=edge.id, knower=listener, how="told", source=edge.source, confidence=0.6, since_turn=601)})
        fresh.apply(heard)
        await db.commit_graph(heard)
        eager = await db.load_graph_index(lazy=False)
        assert fresh.knowers_of(edge.id) == eager.knowers_of(edge.id) and len(eager.knowers_of(edge.id)) > 1
        assert fresh.known_by(listener) == eager.known_by(listener) and len(eager.known_by(listener)) > 1


def test_damage_met_while_reading_lazily_is_one_clear_message(tmp_path: Path) -> None:
    """A row that no longer decodes, read only when first asked for, still says which save and what to do."""
    path = build_save(tmp_path)
    asyncio.run(damage_is_reported(path))


async def damage_is_reported(path: Path) -> None:
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        index = await db.load_graph_index()
        edge = (await db.graph.all_edges(open_only=True))[0]
        writer = sqlite3.connect(path)
        writer.execute("UPDATE edges SET evidence = '[not json' WHERE id = ?", (edge.id,))
        writer.commit()
        writer.close()
        with pytest.raises(SaveError, match=r"lazy is damaged .*kith saves check lazy"):
            await index.open_edges_of(edge.source)
        assert index.knowers_of(edge.id)  # what does decode is still read


def test_a_lazy_index_from_before_a_turn_answers_as_the_save_with_that_turn_undone(tmp_path: Path) -> None:
    """Retry reads the graph lazily while the save still holds the turn it tells again: read through
    ``graph_before_turn``, every answer (and every read of the source itself) is the undone save's."""
    asyncio.run(before_a_turn(build_save(tmp_path), tmp_path / "undone.sqlite"))


async def before_a_turn(path: Path, undone: Path) -> None:
    async with await SaveDatabase.open(path, schema=SCHEMA) as db:
        for number, seed in ((1, 3), (2, 4)):
            index = await db.load_graph_index()
            writes = await a_turn(db, index, 600 + number, seed)
            # Someone's knowing changes too (a row with a before-image), and a listener hears a version.
            edge = next(e for e in sorted(index.open_edges.values(), key=lambda e: e.id) if index.knowers_of(e.id))
            knower, row = sorted(index.knowers_of(edge.id).items())[0]
            writes.knowings[(edge.id, knower)] = row.model_copy(update={"confidence": 0.25 * number})
            listener = sorted(index.nodes)[number]
            writes.knowings[(edge.id, listener)] = Knowing(edge_id=edge.id, knower=listener, how="told",
                                                          source=knower, confidence=0.5, since_turn=600 + number)
            await db.commit_turn(TurnRecord(number, "wait", "Time passes.", ""), writes, {})
        source = await db.graph_before_turn(2)
        before = await db.load_graph_index(source=source)
        with sqlite3.connect(path) as live, sqlite3.connect(undone) as copy:
            live.backup(copy)
        touched = sorted({k for _, k in source._before.knowings} | {PUBLIC})
        async with await SaveDatabase.open(undone, schema=SCHEMA) as other:
            await other.undo_last_turn()
            plain = other._graph_source()
            assert source.all_open_edges() == plain.all_open_edges()
            assert source.all_knowings() == plain.all_knowings()
            for knower in touched:
                assert source.known_rows(knower) == plain.known_rows(knower)
            eager = await other.load_graph_index(lazy=False)
            every_edge = sorted(e.id for e in await other.graph.all_edges())
            for kind in ("edges_of", "degree", "between", "knowers", "known_by", "knows", "edge", "has_id",
                         "adjacent", "scoped"):
                for which in range(0, 10_000, 613):
                    assert await answer(before, every_edge, kind, which) == await answer(eager, every_edge, kind, which)
            for knower in touched:
                assert before.known_by(knower) == eager.known_by(knower)
            assert whole(before) == whole(eager)
            other.close_graph_source()
