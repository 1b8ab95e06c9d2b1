"""Pre-turn retrieval, rule by rule, over both readers: the in-memory index and the save's SQL tables.

Every test builds its graph as rows and asks the ``reader`` fixture for a reader over them, so the same
assertions hold for ``GraphIndex`` (a session) and ``SqlGraph`` (one-shot ``kith graph retrieve``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from pathlib import Path

import pytest
from helpers.graph import index_of, make_edge, make_node, rows
from helpers.saves import SCHEMA

from game.graph.knowing_terms import PUBLIC, How
from game.graph.knowledge import Knowing
from game.graph.models import Edge, Node
from game.graph.ports import GraphReader, GraphWrites
from game.graph.render import NPC_CONTEXT_HEADING
from game.graph.retrieve import RetrievalSettings, retrieve, retrieve_scoped

Build = Callable[[GraphWrites], Awaitable[GraphReader]]


@pytest.fixture(params=["memory", "sql"])
async def reader(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Build]:
    """Builds a reader over rows: a ``GraphIndex``, or a real save file read through ``db.graph``."""
    opened = []

    async def build(writes: GraphWrites) -> GraphReader:
        if request.param == "memory":
            return index_of(writes)
        from game.store.database import SaveDatabase

        db = await SaveDatabase.open(tmp_path / f"graph-{len(opened)}.sqlite", schema=SCHEMA, create=True)
        opened.append(db)
        await db.commit_graph(writes)
        return db.graph

    yield build
    for db in opened:
        await db.close()


def graph(nodes: Iterable[Node], edges: Iterable[Edge] = ()) -> GraphWrites:
    return rows(nodes, edges)


def people(*names: str) -> list[Node]:
    return [make_node(name) for name in names]


def facts(context: str) -> list[str]:
    return [line for line in context.splitlines() if line.startswith("- ")]


async def test_the_empty_graph_renders_nothing(reader: Build) -> None:
    found = await retrieve(await reader(graph([])), "Tell me about Alice", ["Alice"])
    assert (found.npc_context, found.seed_nodes, found.matched_nodes, found.edge_count) == ("", [], [], 0)


async def test_a_message_naming_nobody_and_no_cast_finds_nothing(reader: Build) -> None:
    alice, bob = people("Alice", "Bob")
    found = await retrieve(await reader(graph([alice, bob], [make_edge(alice, bob, "TRUSTS")])), "I look around.")
    assert (found.npc_context, found.seed_nodes, found.matched_nodes) == ("", [], [])


async def test_the_rendering_is_the_contract_markdown(reader: Build) -> None:
    alice, bob, charlie = people("Alice", "Bob", "Charlie")
    edges = [
        make_edge(alice, bob, "TRUSTS", 0.8, valid_at=2,
                  fact="Alice has trusted Bob since they survived a sandstorm together."),
        make_edge(bob, charlie, "FEARS", -0.6, valid_at=1,
                  fact="Bob fears Charlie ever since the night raid in the lower district."),
    ]
    found = await retrieve(await reader(graph([alice, bob, charlie], edges)), "What does Alice think?")
    assert found.npc_context == (
        "## Known NPC relationships (from graph retrieval)\n"
        "\n"
        "- [+] **Alice** → **Bob** (TRUSTS): Alice has trusted Bob since they survived a sandstorm together.\n"
        "- [-] **Bob** → **Charlie** (FEARS): Bob fears Charlie ever since the night raid in the lower district."
    )
    assert found.edge_count == 2
    assert [n.name for n in found.seed_nodes] == ["Alice"]
    assert [n.name for n in found.matched_nodes] == ["Alice", "Bob", "Charlie"]


@pytest.mark.parametrize(("strength", "mark"), [
    (1.0, "[+]"), (0.34, "[+]"), (0.33, "[·]"), (0.0, "[·]"), (-0.33, "[·]"), (-0.34, "[-]"), (-1.0, "[-]"),
])
async def test_sign_marks_split_at_a_third(reader: Build, strength: float, mark: str) -> None:
    alice, bob = people("Alice", "Bob")
    found = await retrieve(await reader(graph([alice, bob], [make_edge(alice, bob, "KNOWS", strength)])), "Alice")
    assert facts(found.npc_context)[0].startswith(f"- {mark} **Alice**")


async def test_two_hops_reach_what_one_cannot(reader: Build) -> None:
    anna, herdr, gateway, vault = people("Anna", "Herdr", "Gateway", "Vault")
    edges = [make_edge(anna, herdr, "SERVES"), make_edge(herdr, gateway, "OWES"), make_edge(gateway, vault, "FEARS")]
    built = await reader(graph([anna, herdr, gateway, vault], edges))
    one = await retrieve(built, "Anna", settings=RetrievalSettings(max_hops=1))
    two = await retrieve(built, "Anna")
    assert "Gateway" not in one.npc_context and "Herdr" in one.npc_context
    assert "**Herdr** → **Gateway**" in two.npc_context
    assert "Vault" not in two.npc_context  # three hops is never the default
    assert [n.name for n in two.matched_nodes] == ["Anna", "Herdr", "Gateway"]


async def test_edges_are_walked_in_both_directions(reader: Build) -> None:
    alice, bob, charlie = people("Alice", "Bob", "Charlie")
    edges = [make_edge(bob, alice, "FEARS", -0.5), make_edge(charlie, bob, "LEADS", 0.5)]
    found = await retrieve(await reader(graph([alice, bob, charlie], edges)), "Alice")
    assert len(facts(found.npc_context)) == 2


async def test_closed_versions_are_neither_shown_nor_walked(reader: Build) -> None:
    alice, bob, charlie = people("Alice", "Bob", "Charlie")
    edges = [
        make_edge(alice, bob, "TRUSTS", 0.9, valid_at=1, invalid_at=3, fact="Alice trusted Bob before the fire."),
        make_edge(bob, charlie, "KNOWS", 0.5, valid_at=1),
    ]
    found = await retrieve(await reader(graph([alice, bob, charlie], edges)), "Alice")
    assert found.npc_context == ""
    assert [n.name for n in found.matched_nodes] == ["Alice"]


async def test_only_the_newest_open_version_of_a_relation_is_used(reader: Build) -> None:
    alice, bob = people("Alice", "Bob")
    edges = [
        make_edge(alice, bob, "TRUSTS", 0.9, valid_at=1, fact="Alice trusts Bob completely."),
        make_edge(alice, bob, "TRUSTS", 0.1, valid_at=4, fact="Alice barely trusts Bob now."),
        make_edge(alice, bob, "TRUSTS", 0.7, valid_at=0, invalid_at=1, fact="Alice trusted Bob at the start."),
    ]
    found = await retrieve(await reader(graph([alice, bob], edges)), "alice")
    assert facts(found.npc_context) == ["- [·] **Alice** → **Bob** (TRUSTS): Alice barely trusts Bob now."]


async def test_ranking_is_newest_first_then_strongest_and_keeps_twenty(reader: Build) -> None:
    hub = make_node("Mira")
    others = [make_node(f"Person {i:02d}") for i in range(12)]
    edges = []
    for i, other in enumerate(others):
        edges.append(make_edge(hub, other, "KNOWS", round(0.05 + i * 0.07, 2), valid_at=i % 3))
        edges.append(make_edge(other, hub, "TRUSTS", -round(0.05 + i * 0.07, 2), valid_at=i % 3))
    found = await retrieve(await reader(graph([hub, *others], edges)),
                           "Mira", settings=RetrievalSettings(max_fanout=50))
    assert found.edge_count == 20
    ranked = sorted(edges, key=lambda e: (-e.valid_at, -abs(e.strength), e.id))
    assert [e.id for e in found.edges] == [e.id for e in ranked[:20]]
    assert len(facts(found.npc_context)) == 20


async def test_the_cast_seeds_when_the_message_names_nobody(reader: Build) -> None:
    mira, tomas = people("Mira", "Tomas")
    watch = make_node("Harbour Watch", node_type="faction")
    edges = [make_edge(mira, tomas, "TRUSTS"), make_edge(watch, tomas, "LEADS")]
    built = await reader(graph([mira, tomas, watch], edges))
    found = await retrieve(built, "I wait by the door.", ["mira"])
    assert [n.name for n in found.seed_nodes] == ["Mira"]
    assert "**Mira** → **Tomas**" in found.npc_context
    # A group or faction on the cast list is not a starting point.
    assert (await retrieve(built, "I wait.", ["Harbour Watch"])).npc_context == ""
    # The message's mentions win over the cast.
    named = await retrieve(built, "Ask the Harbour Watch.", ["Mira"])
    assert [n.name for n in named.seed_nodes] == ["Harbour Watch"]


async def test_a_cast_name_must_match_exactly_one_individual(reader: Build) -> None:
    tom_a = make_node("Tom Reed", aliases=["Tom"])
    tom_b = make_node("Tom Hale", aliases=["Tom"])
    mira = make_node("Mira", aliases=["the Fox"])
    edges = [make_edge(tom_a, mira, "KNOWS"), make_edge(tom_b, mira, "FEARS", -0.5)]
    built = await reader(graph([tom_a, tom_b, mira], edges))
    assert (await retrieve(built, "Hello.", ["Tom"])).seed_nodes == []
    assert (await retrieve(built, "Hello.", ["Tom Ree"])).seed_nodes == []
    by_alias = await retrieve(built, "Hello.", ["The Fox", "Tom"])
    assert [n.name for n in by_alias.seed_nodes] == ["Mira"]


async def test_a_hub_reached_indirectly_is_not_expanded(reader: Build) -> None:
    anna, hub = make_node("Anna"), make_node("Capital")
    spokes = [make_node(f"Citizen {i}") for i in range(31)]
    edges = [make_edge(anna, hub, "SERVES", 0.2), *(make_edge(s, hub, "MEMBER_OF", 0.9) for s in spokes)]
    built = await reader(graph([anna, hub, *spokes], edges))
    found = await retrieve(built, "Anna")
    assert [n.name for n in found.matched_nodes] == ["Anna", "Capital"]
    assert found.edge_count == 1
    # The threshold is configurable, and a hub named directly is expanded, capped at the fan-out.
    relaxed = await retrieve(built, "Anna", settings=RetrievalSettings(hub_threshold=40))
    assert relaxed.edge_count == 20
    direct = await retrieve(built, "Capital")
    assert direct.edge_count == 20
    assert all(e.relation == "MEMBER_OF" for e in direct.edges)  # the 20 strongest


async def test_a_hub_of_exactly_thirty_relations_is_still_expanded(reader: Build) -> None:
    anna, hub = make_node("Anna"), make_node("Capital")
    spokes = [make_node(f"Citizen {i}") for i in range(29)]
    edges = [make_edge(anna, hub, "SERVES", 0.2), *(make_edge(s, hub, "MEMBER_OF", 0.9) for s in spokes)]
    found = await retrieve(await reader(graph([anna, hub, *spokes], edges)), "Anna")
    assert found.edge_count == 20
    assert len(found.matched_nodes) == 2 + 20


async def test_fan_out_keeps_the_strongest_relations_of_each_node(reader: Build) -> None:
    mira = make_node("Mira")
    others = [make_node(f"Contact {i:02d}") for i in range(25)]
    edges = [make_edge(mira, o, "KNOWS", (-1) ** i * i / 25, valid_at=1) for i, o in enumerate(others)]
    built = await reader(graph([mira, *others], edges))
    found = await retrieve(built, "Mira", settings=RetrievalSettings(limit=100))
    assert sorted(o.name for o in found.matched_nodes[1:]) == [f"Contact {i:02d}" for i in range(5, 25)]
    small = await retrieve(built, "Mira", settings=RetrievalSettings(max_fanout=3, limit=100))
    assert sorted(o.name for o in small.matched_nodes[1:]) == ["Contact 22", "Contact 23", "Contact 24"]


async def test_a_hub_does_not_flood_the_result(reader: Build) -> None:
    anna, bob, python = make_node("Anna"), make_node("Bob"), make_node("Python")
    spokes = [make_node(f"User {i}") for i in range(600)]
    edges = [make_edge(anna, bob, "KNOWS", 0.5, valid_at=0), make_edge(bob, python, "SERVES", 0.5, valid_at=0),
             make_edge(anna, python, "SERVES", 0.1, valid_at=0)]
    edges += [make_edge(s, python, "SERVES", 0.9, valid_at=5) for s in spokes]
    found = await retrieve(await reader(graph([anna, bob, python, *spokes], edges)), "Anna")
    assert found.edge_count == 3
    assert {n.name for n in found.matched_nodes} == {"Anna", "Bob", "Python"}


async def test_a_dangling_edge_does_not_crash_traversal() -> None:
    # Only the in-memory index can hold one: the save's foreign keys refuse an edge to a missing node.
    alice, bob = people("Alice", "Bob")
    edges = [make_edge(alice, bob, "TRUSTS", 0.5), make_edge(alice, "npc-missing", "OWES", 0.9),
             make_edge(bob, "npc-gone", "FEARS", -0.9)]
    found = await retrieve(index_of(graph([alice, bob], edges)), "Alice")
    assert facts(found.npc_context) == [f"- [+] **Alice** → **Bob** (TRUSTS): {edges[0].fact}"]
    assert [n.name for n in found.matched_nodes] == ["Alice", "Bob"]


async def test_mentions_in_cjk_seed_the_walk(reader: Build) -> None:
    lin, wang = make_node("林瑶", node_id="npc-lin-yao"), make_node("王小明", node_id="npc-wang")
    wang_short = make_node("王", node_id="npc-wang-short")
    edges = [make_edge(lin, wang, "TRUSTS", 0.8, fact="林瑶一直信任王小明。"),
             make_edge(wang_short, lin, "FEARS", -0.8, fact="王害怕林瑶的秘密被揭开。")]
    built = await reader(graph([lin, wang, wang_short], edges))
    found = await retrieve(built, "王小明今天去了茶馆", settings=RetrievalSettings(max_hops=1))
    assert [n.name for n in found.seed_nodes] == ["王小明"]
    assert facts(found.npc_context) == ["- [+] **林瑶** → **王小明** (TRUSTS): 林瑶一直信任王小明。"]


async def test_several_seeds_share_one_walk(reader: Build) -> None:
    alice, bob, carol, dan = people("Alice", "Bob", "Carol", "Dan")
    edges = [make_edge(alice, bob, "KNOWS"), make_edge(carol, dan, "KNOWS"), make_edge(bob, carol, "FEARS", -0.5)]
    found = await retrieve(await reader(graph([alice, bob, carol, dan], edges)), "Alice and Dan talk",
                           settings=RetrievalSettings(max_hops=1))
    assert [n.name for n in found.seed_nodes] == ["Alice", "Dan"]
    assert found.edge_count == 2
    assert sorted(n.name for n in found.matched_nodes) == ["Alice", "Bob", "Carol", "Dan"]


class CountingReader:
    """Passes reads through and remembers which nodes the walk asked about."""

    def __init__(self, inner: GraphReader) -> None:
        self.inner = inner
        self.expanded: set[str] = set()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def open_edges_of(self, node_id: str) -> list[Edge]:
        self.expanded.add(node_id)
        return await self.inner.open_edges_of(node_id)


async def test_the_walk_reads_only_the_neighbourhood(reader: Build) -> None:
    near = people("Alice", "Bob", "Carol")
    far = [make_node(f"Stranger {i}") for i in range(200)]
    edges = [make_edge(near[0], near[1], "KNOWS"), make_edge(near[1], near[2], "KNOWS")]
    edges += [make_edge(far[i], far[i + 1], "KNOWS") for i in range(199)]
    counting = CountingReader(await reader(graph([*near, *far], edges)))
    found = await retrieve(counting, "Alice")  # type: ignore[arg-type]
    assert found.edge_count == 2
    assert counting.expanded == {"npc-alice", "npc-bob"}


def test_the_heading_is_the_contract_heading() -> None:
    assert NPC_CONTEXT_HEADING == "## Known NPC relationships (from graph retrieval)"


async def test_a_scoped_retrieval_tells_each_person_present_only_what_they_know(reader: Build) -> None:
    mira, tomas, oren, lise = people("Mira", "Tomas", "Oren", "Lise")
    trusts = make_edge(mira, tomas, "TRUSTS", 0.6, fact="Mira trusts Tomas with her boat.")
    fears = make_edge(tomas, oren, "FEARS", -0.5, fact="Tomas fears Oren since the nets were cut.")
    owes = make_edge(oren, lise, "OWES", 0.4, fact="Oren owes Lise for a winter's fish.")
    kin = make_edge(lise, mira, "KIN_OF", 0.7, fact="Lise and Mira are cousins.")
    writes = graph([mira, tomas, oren, lise], [trusts, fears, owes, kin])

    def knows(edge: Edge, knower: str, how: How = "authored", confidence: float = 1.0,
              source: str | None = None) -> None:
        writes.knowings[(edge.id, knower)] = Knowing(edge_id=edge.id, knower=knower, how=how, source=source,
                                                     confidence=confidence, since_turn=0)

    knows(trusts, mira.id)
    knows(trusts, tomas.id)
    knows(fears, tomas.id)
    knows(fears, oren.id, "witnessed")
    knows(fears, mira.id, "rumour", 0.49, source=oren.id)
    knows(fears, lise.id, "told", 0.2, source=oren.id)  # below the floor: she does not know it
    knows(owes, oren.id)  # a secret between two people who are not here
    knows(kin, PUBLIC)
    found = await retrieve_scoped(await reader(writes), "I ask Mira.", (), [mira, tomas])

    assert "OWES" not in found.retrieval.npc_context
    assert found.retrieval.npc_context.startswith(NPC_CONTEXT_HEADING)
    assert {e.id for e in found.retrieval.edges} == {trusts.id, fears.id, kin.id}
    assert sorted(found.knowledge["Mira"]) == sorted([
        "- [+] **Mira** → **Tomas** (TRUSTS): Mira trusts Tomas with her boat. (sure)",
        "- [-] **Tomas** → **Oren** (FEARS): Tomas fears Oren since the nets were cut. (rumour)",
        "- [+] **Lise** → **Mira** (KIN_OF): Lise and Mira are cousins. (sure)",
    ])
    assert "- [-] **Tomas** → **Oren** (FEARS): Tomas fears Oren since the nets were cut. (sure)" in (
        found.knowledge["Tomas"])
    alone = await retrieve_scoped(await reader(writes), "I ask Mira.", (), [lise])
    assert [line.rsplit(" (", 1)[1] for line in alone.knowledge["Lise"]] == ["sure)"]  # only the public tie
