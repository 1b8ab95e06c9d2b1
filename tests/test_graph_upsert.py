"""Upsert by name: resolution, merging, IDs, versioning, closes and executions of several calls."""

from __future__ import annotations

import re

from test_graph_support import Harness, edge_call, index_of, make_edge, make_node, node_call, rows

from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary

EDGE_ID = re.compile(r"^edge-[a-z0-9-]+-[a-z0-9]{6}$")


# ------------------------------------------------------------------------------------------------ nodes


async def test_a_new_node_gets_a_readable_word_id_and_its_first_turn() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Lin Yao", summary="A tea merchant.")]}, turn=4)
    assert outcome["nodes"] == {
        "created": 1, "updated": 0, "results": [{"id": "npc-lin-yao", "name": "Lin Yao", "status": "created"}],
    }
    node = graph.node("Lin Yao")
    assert (node.type, node.first_seen_turn, node.last_seen_turn) == ("individual", 4, 4)


async def test_groups_and_factions_also_get_npc_ids() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Harbour Watch", type="faction"),
                                            node_call("The Lantern Guild", type="group")]})
    assert [r["id"] for r in outcome["nodes"]["results"]] == ["npc-harbour-watch", "npc-the-lantern-guild"]


async def test_a_node_is_found_by_name_in_any_case_and_by_alias() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira Vell", aliases=["the Fox"])]}, turn=1)
    by_case = await graph.upsert({"nodes": [node_call("MIRA VELL", summary=None)]}, turn=2)
    by_alias = await graph.upsert({"nodes": [node_call("The fox", summary=None)]}, turn=3)
    assert by_case["nodes"]["results"] == [{"id": "npc-mira-vell", "name": "Mira Vell", "status": "updated"}]
    assert by_alias["nodes"]["results"] == [{"id": "npc-mira-vell", "name": "Mira Vell", "status": "updated"}]
    assert len(graph.index.nodes) == 1


async def test_an_update_merges_and_keeps_what_the_contract_keeps() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira", type="individual", aliases=["Fox"], labels=["thief", "smuggler"],
                                            summary="A thief of the docks.", attributes={"age": 30, "home": "docks"})]},
                       turn=2)
    await graph.upsert({"nodes": [node_call("mira", type="faction", aliases=["Red Mira", "fox"],
                                            labels=["Thief", "informant"], summary="Now an informant.",
                                            attributes={"home": "harbour", "debt": 5})]}, turn=7)
    node = graph.node("Mira")
    assert node.id == "npc-mira"
    assert node.name == "Mira"  # the name never changes
    assert node.type == "individual"  # nor does the type
    assert node.aliases == ["Fox", "Red Mira"]  # union, case-insensitive
    assert node.labels == ["thief", "smuggler", "informant"]
    assert node.summary == "Now an informant."
    assert node.attributes == {"age": 30, "home": "harbour", "debt": 5}
    assert (node.first_seen_turn, node.last_seen_turn) == (2, 7)


async def test_an_update_at_an_earlier_turn_does_not_move_last_seen_back() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira")]}, turn=9)
    await graph.upsert({"nodes": [node_call("Mira", summary="Backfilled from an old chapter.")]}, turn=3)
    node = graph.node("Mira")
    assert (node.first_seen_turn, node.last_seen_turn, node.summary) == (9, 9, "Backfilled from an old chapter.")


async def test_an_update_without_summary_keeps_the_old_one() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira", summary="A thief of the docks.")]})
    await graph.upsert({"nodes": [node_call("Mira", summary=None, labels=["thief"])]}, turn=2)
    assert graph.node("Mira").summary == "A thief of the docks."


async def test_merged_labels_are_capped_at_five() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira", labels=["a", "b", "c", "d"])]})
    outcome = await graph.upsert({"nodes": [node_call("Mira", labels=["e", "f", "g"])]}, turn=2)
    assert "error" not in outcome
    assert graph.node("Mira").labels == ["a", "b", "c", "d", "e"]


async def test_similar_names_are_not_merged() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Arttu Antikainen")]})
    outcome = await graph.upsert({"nodes": [node_call("Anna Antikainen"), node_call("Arttu"),
                                            node_call("Arttu Antikainen Jr")]}, turn=2)
    assert outcome["nodes"]["created"] == 3
    assert len(graph.index.nodes) == 4


async def test_new_ids_never_collide_with_saved_or_buffered_ones() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Tom")]})
    outcome = await graph.upsert({"nodes": [node_call("Tom!"), node_call("TOM?"), node_call("tom.")]}, turn=2)
    ids = [r["id"] for r in outcome["nodes"]["results"]]
    assert ids == ["npc-tom-2", "npc-tom-3", "npc-tom-4"]
    assert len(graph.index.nodes) == 4


async def test_ids_for_unspelled_and_cjk_names_stay_readable() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("林瑶"), node_call("Zoë Ångström"), node_call("???")]})
    assert [r["id"] for r in outcome["nodes"]["results"]] == ["npc-林瑶", "npc-zoe-angstrom", "npc-node"]


async def test_a_name_in_one_call_twice_is_one_node() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Mira"), node_call("mira", summary="Second word.")]})
    assert [r["status"] for r in outcome["nodes"]["results"]] == ["created", "updated"]
    assert graph.node("Mira").summary == "Second word."


# ------------------------------------------------------------------------------------------------ edges


async def test_an_edge_resolves_names_to_ids_and_records_its_turn() -> None:
    graph = Harness()
    outcome = await graph.upsert({
        "nodes": [node_call("Mira"), node_call("Tomas", aliases=["Tom"])],
        "edges": [edge_call("mira", "Tom", "TRUSTS", 0.7, "Mira trusts Tomas since the flood.")],
    }, turn=3)
    result = outcome["edges"]["results"][0]
    assert EDGE_ID.match(result["id"]) and result["id"].startswith("edge-trusts-")
    assert {k: result[k] for k in ("source", "target", "relation", "fact")} == {
        "source": "npc-mira", "target": "npc-tomas", "relation": "TRUSTS",
        "fact": "Mira trusts Tomas since the flood.",
    }
    assert "skipped" not in result and "supersedes" not in result
    (edge,) = graph.versions_of("Mira", "Tomas", "TRUSTS")
    assert (edge.valid_at, edge.invalid_at, edge.evidence_turn_ids) == (3, None, ["turn-3"])


async def test_an_edge_to_a_missing_node_is_skipped() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Mira")],
                                  "edges": [edge_call("Mira", "The Docks", "VISITS"), edge_call("Mira", "Mira", "KNOWS")]})
    assert outcome["edges"]["created"] == 1
    assert outcome["edges"]["skipped"] == 1
    skipped = outcome["edges"]["results"][0]
    assert skipped == {"id": None, "source": "npc-mira", "target": None, "relation": "VISITS",
                       "fact": skipped["fact"], "skipped": "missing endpoint node"}


async def test_the_same_relation_again_is_unchanged() -> None:
    graph = Harness()
    first = await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                                "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5)]}, turn=1)
    again = await graph.upsert({"edges": [edge_call("Mira", "Tomas", "trusts", 0.5)]}, turn=2)
    result = again["edges"]["results"][0]
    assert result["skipped"] == "unchanged relation"
    assert result["id"] == first["edges"]["results"][0]["id"]
    assert again["edges"] == {"created": 0, "skipped": 1, "results": [result]}
    assert len(graph.versions_of("Mira", "Tomas", "TRUSTS")) == 1


async def test_a_changed_strength_closes_the_old_version_and_supersedes_it() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                        "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5, "Mira trusts Tomas a little.")]}, turn=1)
    outcome = await graph.upsert({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.2, "Mira trusts Tomas a little.")]},
                                 turn=5)
    old, new = graph.versions_of("Mira", "Tomas", "TRUSTS")
    assert outcome["edges"]["results"][0]["supersedes"] == old.id
    assert outcome["edges"]["results"][0]["id"] == new.id != old.id
    assert (old.valid_at, old.invalid_at, old.strength) == (1, 5, 0.5)
    assert (new.valid_at, new.invalid_at, new.strength, new.evidence_turn_ids) == (5, None, 0.2, ["turn-5"])


async def test_a_changed_fact_alone_also_makes_a_new_version() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                        "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5, "Mira trusts Tomas a little.")]}, turn=1)
    outcome = await graph.upsert({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5, "Mira trusts Tomas with the ledger.")]},
                                 turn=2)
    assert outcome["edges"]["created"] == 1
    versions = graph.versions_of("Mira", "Tomas", "TRUSTS")
    assert [(v.valid_at, v.invalid_at) for v in versions] == [(1, 2), (2, None)]
    assert versions[1].fact == "Mira trusts Tomas with the ledger."


async def test_versions_chain_across_many_turns_with_one_open() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")]}, turn=0)
    for turn, strength in enumerate([0.1, 0.2, 0.3, 0.4], start=1):
        await graph.upsert({"edges": [edge_call("Mira", "Tomas", "TRUSTS", strength)]}, turn=turn)
    versions = graph.versions_of("Mira", "Tomas", "TRUSTS")
    assert [(v.valid_at, v.invalid_at) for v in versions] == [(1, 2), (2, 3), (3, 4), (4, None)]
    assert len(graph.open_of("Mira", "Tomas", "TRUSTS")) == 1
    assert len(graph.index.open_edges) == 1


async def test_a_relation_is_per_direction_and_per_name() -> None:
    graph = Harness()
    outcome = await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                                  "edges": [edge_call("Mira", "Tomas", "TRUSTS"), edge_call("Tomas", "Mira", "TRUSTS"),
                                            edge_call("Mira", "Tomas", "FEARS")]})
    assert outcome["edges"]["created"] == 3
    assert len(graph.index.open_edges) == 3


async def test_several_open_versions_heal_to_the_newest() -> None:
    mira, tomas = make_node("Mira"), make_node("Tomas")
    oldest = make_edge(mira, tomas, "TRUSTS", 0.1, valid_at=1)
    middle = make_edge(mira, tomas, "TRUSTS", 0.2, valid_at=2)
    newest = make_edge(mira, tomas, "TRUSTS", 0.3, valid_at=3)
    index = index_of(rows([mira, tomas], [newest, oldest, middle]))
    execution = UpsertExecution(index, Vocabulary.default(), 6)
    outcome = (await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.3, newest.fact)]})).to_json_dict()
    assert outcome["edges"]["results"][0]["skipped"] == "unchanged relation"
    assert outcome["edges"]["results"][0]["id"] == newest.id
    assert sorted((c["id"], c["reason"]) for c in outcome["closed"]) == sorted(
        [(oldest.id, "duplicate open version"), (middle.id, "duplicate open version")]
    )
    assert {e.id: e.invalid_at for e in execution.writes.edges.values()} == {oldest.id: 6, middle.id: 6}


async def test_self_heal_then_change_leaves_exactly_one_open_version() -> None:
    mira, tomas = make_node("Mira"), make_node("Tomas")
    a, b = make_edge(mira, tomas, "TRUSTS", 0.1, valid_at=1), make_edge(mira, tomas, "TRUSTS", 0.2, valid_at=2)
    index = index_of(rows([mira, tomas], [a, b]))
    execution = UpsertExecution(index, Vocabulary.default(), 4)
    outcome = (await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.9)]})).to_json_dict()
    assert outcome["edges"]["results"][0]["supersedes"] == b.id
    index.apply(execution.writes)
    assert [(e.strength, e.valid_at) for e in index.open_edges.values()] == [(0.9, 4)]


async def test_self_heal_breaks_a_tie_like_retrieval_does() -> None:
    """Two versions opened at the same turn: upsert keeps the one retrieval treats as newest."""
    mira, tomas = make_node("Mira"), make_node("Tomas")
    low = make_edge(mira, tomas, "TRUSTS", 0.1, valid_at=2, edge_id="edge-trusts-aaaaaa")
    high = make_edge(mira, tomas, "TRUSTS", 0.2, valid_at=2, edge_id="edge-trusts-zzzzzz")
    for order in ([low, high], [high, low]):
        index = index_of(rows([mira, tomas], order))
        execution = UpsertExecution(index, Vocabulary.default(), 3)
        outcome = (await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.2, high.fact)]})).to_json_dict()
        assert outcome["edges"]["results"][0]["skipped"] == "unchanged relation"
        assert [c["id"] for c in outcome["closed"]] == [low.id]


# ------------------------------------------------------------------------------------------------ closes


async def test_close_edges_ends_a_relation_without_successor() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                        "edges": [edge_call("Mira", "Tomas", "TRUSTS")]}, turn=1)
    outcome = await graph.upsert({"closeEdges": [{"sourceName": "Mira", "targetName": "tomas", "relation": "trusts"}]},
                                 turn=4)
    (version,) = graph.versions_of("Mira", "Tomas", "TRUSTS")
    assert outcome["closed"] == [{"id": version.id, "source": "npc-mira", "target": "npc-tomas",
                                  "relation": "TRUSTS", "reason": "closed"}]
    assert version.invalid_at == 4
    assert graph.index.open_edges == {}


async def test_closing_what_is_not_open_reports_and_changes_nothing() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")]})
    outcome = await graph.upsert({"closeEdges": [
        {"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS"},
        {"sourceName": "Mira", "targetName": "Nobody", "relation": "TRUSTS"},
    ]}, turn=2)
    assert [c.get("skipped") for c in outcome["closed"]] == ["no open relation", "missing endpoint node"]
    assert graph.versions == {}


async def test_a_closed_relation_can_open_again_later() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")],
                        "edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5)]}, turn=1)
    await graph.upsert({"closeEdges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS"}]}, turn=2)
    outcome = await graph.upsert({"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5)]}, turn=3)
    assert outcome["edges"]["created"] == 1
    assert "supersedes" not in outcome["edges"]["results"][0]
    assert [(v.valid_at, v.invalid_at) for v in graph.versions_of("Mira", "Tomas", "TRUSTS")] == [(1, 2), (3, None)]


# ------------------------------------------------------------------------------------------------ executions


async def test_calls_of_one_execution_read_each_others_buffered_writes() -> None:
    graph = Harness()
    outcomes = await graph.execute([
        {"nodes": [node_call("Mira"), node_call("Tomas")]},
        {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5)]},
        {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.5)]},
        {"edges": [edge_call("Mira", "Tomas", "TRUSTS", 0.9)]},
        {"nodes": [node_call("Tomas", aliases=["Tom"], summary=None)], "edges": [edge_call("Tom", "Mira", "OWES")]},
    ], turn=3)
    assert outcomes[1]["edges"]["created"] == 1
    assert outcomes[2]["edges"]["results"][0]["skipped"] == "unchanged relation"
    assert outcomes[3]["edges"]["results"][0]["supersedes"] == outcomes[1]["edges"]["results"][0]["id"]
    assert outcomes[4]["edges"]["results"][0]["source"] == "npc-tomas"
    assert [(v.strength, v.valid_at, v.invalid_at) for v in graph.versions_of("Mira", "Tomas", "TRUSTS")] == [
        (0.5, 3, 3), (0.9, 3, None),
    ]


async def test_a_rejected_call_leaves_the_others_of_its_execution() -> None:
    graph = Harness()
    outcomes = await graph.execute([
        {"nodes": [node_call("Mira"), node_call("Tomas")]},
        # The first node is fine, the second breaks the call: neither may stay buffered.
        {"nodes": [node_call("Oren"), node_call("The Docks", type="place")]},
        # Valid by schema, but a new node without summary is refused after other items were applied.
        {"nodes": [node_call("Veyra"), node_call("Bram", summary=None)],
         "edges": [edge_call("Mira", "Tomas", "TRUSTS")]},
        {"edges": [edge_call("Mira", "Tomas", "FEARS")]},
    ], turn=1)
    assert [("error" in o) for o in outcomes] == [False, True, True, False]
    assert sorted(n.name for n in graph.index.nodes.values()) == ["Mira", "Tomas"]
    assert [e.relation for e in graph.index.open_edges.values()] == ["FEARS"]


async def test_an_execution_commits_nothing_until_the_caller_applies_it() -> None:
    graph = Harness()
    execution = UpsertExecution(graph.index, graph.vocabulary, 1)
    await execution.run({"nodes": [node_call("Mira"), node_call("Tomas")],
                         "edges": [edge_call("Mira", "Tomas", "TRUSTS")]})
    assert graph.index.nodes == {}
    assert sorted(execution.writes.created_nodes) == ["npc-mira", "npc-tomas"]
    assert len(execution.writes.created_edges) == 1


async def test_edge_ids_are_unique_per_version_even_with_a_fixed_random_source() -> None:
    import random

    graph = Harness()
    await graph.upsert({"nodes": [node_call("Mira"), node_call("Tomas")]})
    for turn in range(1, 40):
        execution = UpsertExecution(graph.index, graph.vocabulary, turn, rng=random.Random(0))
        await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS", turn / 100)]})
        graph.index.apply(execution.writes)
        graph.versions.update(execution.writes.edges)
    ids = [v.id for v in graph.versions_of("Mira", "Tomas", "TRUSTS")]
    assert len(ids) == len(set(ids)) == 39


# ------------------------------------------------------------------------------ one resolution rule


async def test_upsert_resolves_names_by_the_one_rule_exact_name_before_alias() -> None:
    graph = Harness()
    # Two nodes where "The Fox" is one's name and the other's alias (shapes upsert itself never makes).
    graph.index.apply(rows([make_node("Mira", aliases=["The Fox"], turn=0), make_node("The Fox", turn=3)]))
    outcome = await graph.upsert({"nodes": [node_call("the fox", summary=None, labels=["masked"])],
                                  "edges": [edge_call("Mira", "THE FOX", "FEARS")]}, turn=4)
    assert outcome["nodes"]["results"][0]["id"] == "npc-the-fox"
    assert outcome["edges"]["results"][0]["target"] == "npc-the-fox"


async def test_an_ambiguous_name_is_reported_never_guessed() -> None:
    graph = Harness()
    await graph.upsert({"nodes": [node_call("Tom Reed", aliases=["Tom"]), node_call("Tom Hale")]}, turn=1)
    await graph.upsert({"nodes": [node_call("Tom Hale", aliases=["Tom"], summary=None)]}, turn=2)
    # As an edge end the shared alias is skipped with both candidates named.
    edge = await graph.upsert({"edges": [edge_call("Tom", "Tom Reed", "KIN_OF")]}, turn=3)
    skipped = edge["edges"]["results"][0]["skipped"]
    assert "ambiguous endpoint name 'Tom'" in skipped and "npc-tom-reed" in skipped and "npc-tom-hale" in skipped
    # As a node the call is rejected whole, with a message naming both.
    node = await graph.upsert({"nodes": [node_call("tom", summary=None, labels=["sailor"])]}, turn=3)
    assert "could mean any of Tom Hale (npc-tom-hale), Tom Reed (npc-tom-reed)" in node["error"]
    assert all("sailor" not in n.labels for n in graph.index.nodes.values())
    # The full name still resolves.
    full = await graph.upsert({"nodes": [node_call("Tom Reed", summary=None, labels=["sailor"])]}, turn=3)
    assert full["nodes"]["results"][0]["id"] == "npc-tom-reed"


async def test_an_execution_whose_writes_are_put_back_by_its_owner_reads_them_as_they_now_are() -> None:
    # The session's rebuild keeps a copy of ``writes`` and puts it back when a turn's extraction fails.
    execution = UpsertExecution(index_of(rows([])), Vocabulary.default(), 1)
    assert (await execution.run({"nodes": [node_call("Mira")]})).error is None
    saved = execution.writes.copy()
    assert (await execution.run({"nodes": [node_call("Tomas")], "edges": [edge_call("Mira", "Tomas", "TRUSTS")]})).error is None
    execution.writes = saved
    assert await execution.find_node("Tomas") is None
    outcome = await execution.run({"edges": [edge_call("Mira", "Tomas", "TRUSTS")]})
    assert outcome.to_json_dict()["edges"]["results"][0]["skipped"] == "missing endpoint node"
    again = await execution.run({"nodes": [node_call("Tomas")], "edges": [edge_call("Mira", "Tomas", "TRUSTS")]})
    assert again.to_json_dict()["edges"]["results"][0].get("skipped") is None
