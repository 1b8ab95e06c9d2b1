"""What each check line accepts and rejects, judged against real output, a real graph and a real scene."""

from __future__ import annotations

import random
import re

import pytest

from game.graph.index import GraphIndex
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.script.checks import CheckContext, CheckSyntaxError, parse_check
from game.world.refs import RefSyntaxError, parse_relation_ref
from game.world.scene import SceneState, StoryState

OUTPUT = """The harbour smells of tar. A gull cries; another gull answers.
Bram looks up from the nets.\n"He’s my sister's son," he says."""


def verdict(line: str, context: CheckContext) -> bool:
    return parse_check(line).evaluate(context).passed


@pytest.mark.parametrize(
    ("line", "passes"),
    [
        ("smells of tar", True),
        ("smells of salt", False),
        ("!smells of salt", True),
        ("{invert} smells of tar", False),
        ("nets. \"He's my", True),  # line breaks and curly quotes compare loosely
        ("/^Bram looks", True),
        ("/^A gull", False),
        ("!/B.am", False),
        ("{count=2} gull", True),
        ("{count=3} gull", False),
        ("!{count=3} gull", True),
    ],
)
def test_text_checks(line: str, passes: bool) -> None:
    assert verdict(line, CheckContext(output=OUTPUT)) is passes


def test_a_failed_count_says_how_many_were_found() -> None:
    result = parse_check("{count=3} gull").evaluate(CheckContext(output=OUTPUT))
    assert not result.passed
    assert result.detail == "found 2 times, wanted at least 3"


def test_vital_is_a_modifier_that_combines_with_negation() -> None:
    check = parse_check("{vital} ! smells of salt")
    assert check.vital and check.inverse
    assert check.evaluate(CheckContext(output=OUTPUT)).passed


async def built_graph(vocabulary: Vocabulary) -> GraphIndex:
    graph = GraphIndex()
    execution = UpsertExecution(graph, vocabulary, 1, rng=random.Random(1))
    outcome = await execution.run({
        "nodes": [
            {"name": "Bram", "type": "individual", "aliases": ["the netmaker"], "summary": "An old netmaker."},
            {"name": "Elin", "type": "individual", "summary": "Bram's niece, a pilot."},
            {"name": "Veyra", "type": "individual", "summary": "A smuggler captain."},
            {"name": "Harbour Watch", "type": "faction", "summary": "The port's guards."},
        ],
        "edges": [
            {"sourceName": "Bram", "targetName": "Elin", "relation": "KIN_OF", "strength": 0.8,
             "fact": "Bram is Elin's uncle."},
            {"sourceName": "Veyra", "targetName": "Bram", "relation": "distrusts", "strength": -0.6,
             "fact": "Veyra expects Bram to talk to the Watch."},
            {"sourceName": "Harbour Watch", "targetName": "Elin", "relation": "EMPLOYS", "strength": 0.2,
             "fact": "The Watch pays Elin to pilot its cutter."},
        ],
    })
    assert outcome.error is None
    graph.apply(execution.writes)
    return graph


@pytest.mark.parametrize(
    ("line", "passes"),
    [
        ("{graph} Bram -> Elin: KIN_OF sign=+", True),
        ("{graph} Elin -> Bram: KIN_OF", True),  # symmetric: either direction
        ("{graph} elin -> THE NETMAKER: family of", True),  # aliases, case and synonyms
        ("{graph} Bram -> Elin: KIN_OF sign=-", False),
        ("{graph} Bram -> Elin: KIN_OF strength>=0.8", True),
        ("{graph} Bram -> Elin: KIN_OF strength>0.8", False),
        ("{graph} Veyra -> Bram: DISTRUSTS sign=- strength<-0.5", True),
        ("{graph} Bram -> Veyra: DISTRUSTS", False),  # not symmetric
        ("{graph} !Veyra -> Bram: TRUSTS", True),
        ("{graph} !Veyra -> Bram: DISTRUSTS", False),
        ("!{graph} Veyra -> Bram: TRUSTS", True),
        ("{graph} Elin -> Harbour Watch: SERVES", True),  # stored canonically from EMPLOYS
        ("{graph} Harbour Watch -> Elin: EMPLOYS sign=0", True),  # an inverse names the stored relation
        ("{graph} Veyra -> Bram", True),  # any relation
        ("{graph} Veyra → Bram: DISTRUSTS", True),  # the arrow /graph prints
        ("{graph} Bram <- Veyra: DISTRUSTS sign=-", True),  # read right to left
        ("{graph} Veyra <- Bram: DISTRUSTS", False),
        ("{graph} Veyra -> Elin", False),
        ("{graph} Veyra", True),
        ("{graph} !Stranger", True),
        ("{graph} Stranger -> Bram: KNOWS", False),
    ],
)
async def test_graph_checks(line: str, passes: bool) -> None:
    vocabulary = Vocabulary.default()
    context = CheckContext(output="", graph=await built_graph(vocabulary), vocabulary=vocabulary)
    assert verdict(line, context) is passes


async def test_a_failed_graph_check_shows_what_is_open_instead() -> None:
    vocabulary = Vocabulary.default()
    context = CheckContext(output="", graph=await built_graph(vocabulary), vocabulary=vocabulary)
    missing = parse_check("{graph} Bram -> Elin: TRUSTS").evaluate(context)
    assert missing.detail == ("no open TRUSTS from Bram to Elin; open between them: "
                              "Bram -> Elin: KIN_OF sign=+ strength=0.8")
    wrong_sign = parse_check("{graph} Bram -> Elin: KIN_OF sign=-").evaluate(context)
    assert wrong_sign.detail.startswith("open KIN_OF does not meet sign=-: Bram -> Elin: KIN_OF")
    unknown = parse_check("{graph} Bram -> Nobody: KIN_OF").evaluate(context)
    assert unknown.detail == "no node named 'Nobody'"


async def test_a_closed_relation_no_longer_passes() -> None:
    vocabulary = Vocabulary.default()
    graph = await built_graph(vocabulary)
    execution = UpsertExecution(graph, vocabulary, 2, rng=random.Random(2))
    outcome = await execution.run({"closeEdges": [
        {"sourceName": "Veyra", "targetName": "Bram", "relation": "DISTRUSTS"}]})
    assert outcome.error is None
    graph.apply(execution.writes)
    context = CheckContext(output="", graph=graph, vocabulary=vocabulary)
    assert verdict("{graph} !Veyra -> Bram: DISTRUSTS", context)


async def test_graph_checks_resolve_names_by_the_one_rule_and_fail_on_ambiguity() -> None:
    vocabulary = Vocabulary.default()
    graph = await built_graph(vocabulary)
    execution = UpsertExecution(graph, vocabulary, 2, rng=random.Random(2))
    # "Elin" becomes Veyra's alias too: as an exact name it still means Elin; "the pilot" means both.
    outcome = await execution.run({"nodes": [
        {"name": "Veyra", "aliases": ["Elin", "the pilot"]}, {"name": "Elin", "aliases": ["the pilot"]}]})
    assert outcome.error is None
    graph.apply(execution.writes)
    context = CheckContext(output="", graph=graph, vocabulary=vocabulary)
    assert verdict("{graph} Bram -> elin: KIN_OF", context)
    for line in ("{graph} the pilot", "{graph} !the pilot", "{graph} Bram -> the pilot: KIN_OF",
                 "{graph} !Bram -> the pilot: KIN_OF"):
        result = parse_check(line).evaluate(context)
        assert not result.passed, line
        assert result.detail == "'the pilot' could mean Elin (npc-elin), Veyra (npc-veyra); use the full name"


SCENE = SceneState(
    location="docks", inventory=["lamp", "Rope"], flags={"bribed": True, "coins": 3},
    met=["Bram"], ending=None,
    story=StoryState(item_places={"net": "docks"}, held={"ledger": "Bram"}, positions={"Bram": "docks"}),
)


@pytest.mark.parametrize(
    ("line", "passes"),
    [
        ("{state} location = docks", True),
        ("{state} location = DOCKS", True),
        ("{state} location != docks", False),
        ("{state} location = market", False),
        ("{state} inventory has lamp", True),
        ("{state} inventory has rope", True),
        ("{state} !inventory has knife", True),
        ("{state} inventory = rope, lamp", True),
        ("{state} flags.bribed", True),
        ("{state} flags.bribed = true", True),
        ("{state} !flags.warned", True),
        ("{state} flags.warned = none", True),
        ("{state} flags.coins >= 3", True),
        ("{state} flags.coins > 3", False),
        ("{state} flags has bribed", True),
        ("{state} ending = none", True),
        ("{state} ending", False),
        ("{state} met has bram", True),
        ("{state} turn = 4", True),
        ("{state} turn < 4", False),
        ("{state} inventory > 2", False),
        ("{state} story.item_places has net", True),
        ("{state} !story.item_places has ledger", True),
        ("{state} story.held has ledger", True),
        ("{state} story.held.ledger = bram", True),
        ("{state} story.positions.Bram = market", False),
        ("{state} story.nothing", False),
    ],
)
def test_state_checks(line: str, passes: bool) -> None:
    assert verdict(line, CheckContext(output="", scene=SCENE, turn=4)) is passes


def test_a_failed_state_check_says_what_the_value_was() -> None:
    result = parse_check("{state} location = market").evaluate(CheckContext(output="", scene=SCENE))
    assert result.detail == "location is 'docks'"


# ------------------------------------------------------------------------------------ one notation


@pytest.mark.parametrize("text", [
    "Bram -> Elin: KIN_OF min=0.5", "Elin <- Bram: KIN_OF strength>=0.5", "Bram → Elin: family of sign=+ max=0.9",
])
async def test_script_checks_and_content_read_one_relation_notation(text: str) -> None:
    ref = parse_relation_ref(text)  # as content reads it
    assert (ref.source, ref.target) == ("Bram", "Elin")
    vocabulary = Vocabulary.default()
    context = CheckContext(output="", graph=await built_graph(vocabulary), vocabulary=vocabulary)
    assert verdict("{graph} " + text, context)  # and as a script check reads it, against a real graph
    assert ref.holds(0.8) and not ref.holds(0.2)


@pytest.mark.parametrize(("text", "message"), [
    ("Bram -> Elin: KIN_OF sign=sideways", "sign=sideways: the sign is +, - or 0"),
    ("Bram -> Elin: KIN_OF min=2", "the strength is a number between -1 and 1"),
    ("Bram -> Elin: KIN_OF strength>=x", "'x' is not a number"),
    ("Bram -> Elin: KIN_OF sign+", "not a relation name"),
])
def test_one_parser_gives_content_and_scripts_the_same_refusals(text: str, message: str) -> None:
    with pytest.raises(RefSyntaxError, match=re.escape(message)):
        parse_relation_ref(text)
    with pytest.raises(CheckSyntaxError, match=re.escape(message)):
        parse_check("{graph} " + text)


def test_only_scripts_may_leave_the_relation_open() -> None:
    assert parse_relation_ref("Bram -> Elin", any_relation=True).any_relation
    for text in ("Bram -> Elin", "Bram -> Elin: *"):
        with pytest.raises(RefSyntaxError):
            parse_relation_ref(text)


@pytest.mark.parametrize(("line", "message"), [
    ("{knows} Mira", "a knows check reads 'NAME: A -> B: RELATION'"),
    ("{knows} : Mira -> Tomas: TRUSTS", "a knows check reads"),
    ("{knows} Oren: !Mira -> Tomas: TRUSTS", "the '!' goes before the knower"),
])
def test_a_knows_check_that_cannot_be_read_says_how_it_reads(line: str, message: str) -> None:
    with pytest.raises(CheckSyntaxError, match=re.escape(message)):
        parse_check(line)


async def test_knows_checks_a_knower_and_fails_both_ways_when_the_relation_is_missing() -> None:
    vocabulary = Vocabulary.default()
    graph = GraphIndex()
    execution = UpsertExecution(graph, vocabulary, 1, rng=random.Random(1), witnesses=())
    outcome = await execution.run({
        "nodes": [{"name": n, "summary": f"{n} of the quay."} for n in ("Mira", "Tomas", "Oren")],
        "edges": [{"sourceName": "Mira", "targetName": "Tomas", "relation": "TRUSTS", "strength": 0.6,
                   "fact": "Mira trusts Tomas with her boat."}],
    })
    assert outcome.error is None
    graph.apply(execution.writes)
    context = CheckContext(output="", graph=graph, vocabulary=vocabulary)
    assert verdict("{knows} Tomas: Mira -> Tomas: TRUSTS sign=+", context)
    assert verdict("{knows} !Oren: Mira -> Tomas: TRUSTS", context)
    assert not verdict("{knows} Oren: Mira -> Tomas: TRUSTS", context)
    failed = parse_check("{knows} Oren: Mira -> Tomas: TRUSTS").evaluate(context)
    assert failed.detail == "Oren does not know it; known by: Mira; Tomas"
    # A secret is checked as a secret: a relation that is not there passes neither way.
    assert not verdict("{knows} Oren: Oren -> Tomas: TRUSTS", context)
    assert not verdict("{knows} !Oren: Oren -> Tomas: TRUSTS", context)


async def test_knows_names_the_player_as_an_end_as_well_as_a_knower() -> None:
    vocabulary = Vocabulary.default()
    graph = GraphIndex()
    execution = UpsertExecution(graph, vocabulary, 1, rng=random.Random(1), witnesses=())
    outcome = await execution.run({
        "nodes": [{"name": "Wren", "summary": "The player character.", "attributes": {"player": True}},
                  *({"name": n, "summary": f"{n} of the quay."} for n in ("Tibby", "Hob"))],
        "edges": [{"sourceName": "Tibby", "targetName": "Wren", "relation": "FEARS", "strength": -0.6,
                   "fact": "Tibby fears Wren since the threat on the quay."}],
    })
    assert outcome.error is None
    graph.apply(execution.writes)
    context = CheckContext(output="", graph=graph, vocabulary=vocabulary)
    assert verdict("{knows} Tibby: Tibby -> player: FEARS", context)
    assert verdict("{knows} player: Tibby -> player: FEARS", context)
    assert verdict("{knows} !Hob: Tibby -> player: FEARS", context)
    assert not verdict("{knows} Hob: Tibby -> player: FEARS", context)
    assert not verdict("{knows} Tibby: player -> Tibby: FEARS", context)  # the relation's way round counts
