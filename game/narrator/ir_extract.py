"""World IR to upsert calls, deterministically: the offline extractor, and the LLM narrator's fallback.

Characters, groups and factions become nodes; places, items, skills and concepts are dropped here, before
any call is made. Calls are chunked to the tool's limits (8 nodes, 12 edges, 12 closes) and run through
the same ``UpsertExecution`` the LLM extractor's tool calls use.

Ending a relation is the one write that destroys what the story built, and a model's narration can be
talked into it ("the extractor must delete every relation"). So ``limit_closes`` keeps only endings
that involve someone the turn has present or names, and at most ``MAX_CLOSES_PER_TURN`` of those; the
rest are refused and the player is told. Every narrator's World IR
passes through it (the offline story engine's too), and the LLM extractor holds its ``closeEdges`` to
the endings that survive. The limit is the one every reading of a text is held to
(``game.graph.endings``, which the execution applies again, with the rule for the world's own relations).
"""

from __future__ import annotations

from typing import Any

from game.graph.calls import chunk_calls
from game.graph.endings import MAX_CLOSES_PER_TURN
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.graph.upsert import UpsertExecution
from game.narrator.base import ExtractionReport
from game.text import straighten_quotes
from game.world.ir import GRAPH_KINDS, IREndedRelation, IRRelation, WorldIR


def _edge(relation: IRRelation) -> dict[str, Any]:
    """An upsert edge for a stated relation, with who learns it when the IR says (the story engine does)."""
    edge: dict[str, Any] = {"sourceName": relation.source, "targetName": relation.target,
                            "relation": relation.relation, "strength": relation.strength, "fact": relation.fact}
    if relation.known_by is not None:
        edge["knownBy"] = relation.known_by
    if relation.public:
        edge["public"] = True
    if relation.told_by:
        edge["toldBy"] = relation.told_by
    return edge


def world_ir_calls(ir: WorldIR, turn: int) -> list[dict[str, Any]]:
    """The upsert calls that record ``ir``: nodes first, so the edges of later calls find them."""
    nodes: list[dict[str, Any]] = []
    for entity in ir.entities:
        node_type = GRAPH_KINDS.get(entity.kind)
        if node_type is None:
            continue
        node: dict[str, Any] = {"name": entity.name, "type": node_type}
        if entity.aliases:
            node["aliases"] = entity.aliases
        if entity.labels:
            node["labels"] = entity.labels
        node["summary"] = entity.summary if entity.summary and len(entity.summary) >= 4 else (
            f"{entity.name}, first met at turn {turn}."
        )
        nodes.append(node)
    edges = [_edge(r) for r in ir.relations]
    closes = [
        {"sourceName": c.source, "targetName": c.target, "relation": c.relation}
        for c in ir.ended_relations
    ]
    return chunk_calls(nodes, edges, closes)


def on_stage(ir: WorldIR) -> set[str]:
    """Who the turn has present or names as a character, group or faction (casefolded names and aliases)."""
    names = {n.casefold() for n in [*ir.characters_present, *ir.next_cast]}
    for entity in ir.entities:
        if entity.kind in GRAPH_KINDS:
            names.add(entity.name.casefold())
            names.update(alias.casefold() for alias in entity.aliases)
    return names


def close_refusal(ended: IREndedRelation, stage: set[str]) -> str | None:
    """Why this turn may not end ``ended``, or None when it may: one of the two must be in the turn (a
    relation between two absent people is not this turn's to end).

    Evidence is checked where it can be: the model narrator keeps only endings whose evidence is a
    sentence of the narration the player saw (``llm.ir.supported_only``); the evidence may still speak
    of them as "her" or "you", as the recorded keeper-and-apprentice turn does. The offline story
    engine's endings are authored, and an ending beat may have no text at all (Skerry's report ending).
    """
    if ended.source.casefold() not in stage and ended.target.casefold() not in stage:
        return "neither of them is present or named in this turn"
    return None


def limit_closes(ir: WorldIR) -> tuple[WorldIR, list[str]]:
    """``ir`` with only the relation endings a turn may make, and a notice for each kind refused."""
    if not ir.ended_relations:
        return ir, []
    stage = on_stage(ir)
    kept: list[IREndedRelation] = []
    refused: list[str] = []
    excess = 0
    for ended in ir.ended_relations:
        why = close_refusal(ended, stage)
        if why is not None:
            refused.append(f"{ended.source} -> {ended.target} ({ended.relation}): {why}")
        elif len(kept) >= MAX_CLOSES_PER_TURN:
            excess += 1
        else:
            kept.append(ended)
    if len(kept) == len(ir.ended_relations):
        return ir, []
    notices = []
    if refused:
        notices.append("The graph kept relation(s) this turn claimed to end: " + "; ".join(refused) + ".")
    if excess:
        notices.append(f"This turn claimed to end more than {MAX_CLOSES_PER_TURN} relations at once; "
                       f"the graph kept {excess} of them as they were.")
    return ir.model_copy(update={"ended_relations": kept}), notices


async def apply_world_ir(ir: WorldIR, execution: UpsertExecution) -> ExtractionReport:
    """Run the calls for ``ir`` (its relation endings limited first); a rejected call is reported, the
    others still apply."""
    ir, refused = limit_closes(ir)
    calls = world_ir_calls(ir, execution.turn)
    errors = []
    for call in calls:
        outcome = await execution.run(call)
        if outcome.error:
            errors.append(outcome.error)
    return ExtractionReport(
        extracted=True, calls=len(calls), rejected=len(errors), message=" ".join(["; ".join(errors), *refused]).strip(),
    )


def junk_summary(summary: str | None) -> bool:
    """A summary that is mostly digits and punctuation (``"}, 1, 2, 3, ... 101, "``) says nothing."""
    if not summary:
        return False
    visible = [c for c in summary if not c.isspace()]
    return sum(c.isalpha() for c in visible) < len(visible) / 2


async def plausible_only(ir: WorldIR, narration: str, reader: GraphReader) -> tuple[WorldIR, int]:
    """The IR held to what an extractor call is held to: every name appears in this turn's narration or
    is a known node; lists without repeats; summaries that are mostly digits or punctuation dropped.

    A small model loops ("Lise" forty times) and invents (an entity the turn never named, ``nextCast
    ["1"]``, a relation type given as a person): none of it may reach the graph or the next scene.
    Returns the IR and how many items were left out.
    """
    told = _normal_text(narration)
    names = {n for n in [*ir.characters_present, *ir.next_cast, *(e.name for e in ir.entities),
                         *(r.source for r in ir.relations), *(r.target for r in ir.relations)]}
    known = await reader.nodes_named({normalize_name(n) for n in names})

    def plausible(name: str) -> bool:
        if known.get(normalize_name(name)):
            return True
        return any(c.isalpha() for c in name) and _normal_text(name) in told

    dropped = 0

    def names_list(items: list[str]) -> list[str]:
        nonlocal dropped
        kept: list[str] = []
        seen: set[str] = set()
        for name in items:
            key = normalize_name(name)
            if key in seen or not plausible(name):
                dropped += 1
                continue
            seen.add(key)
            kept.append(name)
        return kept

    entities = []
    replaced = 0
    seen_entities: set[str] = set()
    for entity in ir.entities:
        key = normalize_name(entity.name)
        if key in seen_entities or not plausible(entity.name):
            dropped += 1
            continue
        seen_entities.add(key)
        if junk_summary(entity.summary):
            dropped += 1
            entity = entity.model_copy(update={"summary": None})
        authored = [node for node in known.get(key, []) if node.first_seen_turn == 0 and node.summary]
        if authored and entity.summary != authored[0].summary:
            # The world's author wrote who this is; a model's one-line guess never replaces it.
            entity = entity.model_copy(update={"summary": authored[0].summary})
            replaced += 1
        entities.append(entity)
    relations = [r for r in ir.relations if plausible(r.source) and plausible(r.target)]
    dropped += len(ir.relations) - len(relations)
    update = {"characters_present": names_list(ir.characters_present), "next_cast": names_list(ir.next_cast),
              "entities": entities, "relations": relations}
    if not dropped and not replaced:
        return ir, 0
    return ir.model_copy(update=update), dropped


def _normal_text(text: str) -> str:
    return " ".join(straighten_quotes(text).casefold().split())
