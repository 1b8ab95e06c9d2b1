"""``kith graph extract``: the model-free fast path over a text, against a save's names.

It reads; with ``--apply`` it also writes what it read as one upsert execution, exactly the path
``kith graph upsert`` and a model's extractor take, so vocabulary, versioning and limits are theirs.
The input is read before the save is opened, and a missing save is refused like every read command.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from game.cli.graph_common import add_save_option, handler, non_negative, open_save, print_json, save_path
from game.text import strip_control

if TYPE_CHECKING:
    from game.config import Settings
    from game.graph.fast_extract.results import Extraction
    from game.graph.upsert import CallOutcome


async def extract_command(args: argparse.Namespace, settings: Settings) -> int:
    # Imported here: the extractor compiles its patterns on import (a quarter of a second), and every
    # ``kith graph`` command loads this module for its parser.
    from game.cli.graph_write import EXTRACT_LIMIT, read_text
    from game.graph.endings import ReadEndings
    from game.graph.fast_extract.extractor import FastExtractor
    from game.graph.fast_extract.gazetteer import Gazetteer
    from game.graph.upsert import UpsertExecution
    from game.store import turn_log

    save_path(args, settings)  # a malformed save name is refused before the input is even read
    text, _label = read_text(args.file, EXTRACT_LIMIT)
    applied: dict[str, Any] | None = None
    outcomes: list[CallOutcome] = []
    async with open_save(args, settings) as db:
        vocabulary = await db.vocabulary()
        extraction = FastExtractor(vocabulary).extract(text, await Gazetteer(db.graph).index_for(text))
        if args.apply:
            turn = args.turn if args.turn is not None else await turn_log.latest_turn(db)
            # A text read is held to the one rule for endings (``game.graph.endings``): no player acted.
            endings = ReadEndings()
            execution = UpsertExecution(db.graph, vocabulary, turn, endings=endings)
            outcomes = [await execution.run(call) for call in extraction.upsert_calls()]
            await db.commit_graph(execution.writes)
            applied = {"turn": turn, "results": [outcome.to_json_dict() for outcome in outcomes]}
            if endings.notice():
                applied["kept"] = endings.notice()
    if args.json:
        print_json({**extraction.to_json_dict(), **({"applied": applied} if applied is not None else {})})
    else:
        print(extraction_text(extraction))
        if applied is not None:
            print(applied_text(applied["turn"], outcomes))
            if applied.get("kept"):
                print(strip_control(applied["kept"]))
    return 1 if any(outcome.error for outcome in outcomes) else 0


def extraction_text(extraction: Extraction) -> str:
    """The readable form: one line a relation with its sentence, then co-occurrences and unknown names."""
    clean = strip_control  # the text is anyone's: no escape sequence of it reaches the terminal
    lines = [f"Relations ({len(extraction.triples)}):" if extraction.triples else "Relations: none found."]
    for t in extraction.triples:
        lines.append(f"  {clean(t.source)} -{t.relation}-> {clean(t.target)}  "
                     f"(strength {t.strength:+.1f}, confidence {t.confidence:.2f})")
        lines.append(f"      {clean(t.sentence)}")
    if extraction.closes:
        lines.append(f"Ended ({len(extraction.closes)}):")
        for c in extraction.closes:
            lines.append(f"  {clean(c.source)} -{c.relation}-> {clean(c.target)}  (confidence {c.confidence:.2f})")
            lines.append(f"      {clean(c.sentence)}")
    if extraction.cooccurrences:
        pairs = ", ".join(f"{clean(c.a)} + {clean(c.b)} ({c.count})" for c in extraction.cooccurrences)
        lines.append(f"Named together: {pairs}")
    if extraction.unknown_names:
        lines.append(f"Unknown names: {', '.join(clean(n) for n in extraction.unknown_names)}")
    return "\n".join(lines)


def applied_text(turn: int, outcomes: list[CallOutcome]) -> str:
    created = skipped = closed = 0
    errors: list[str] = []
    for outcome in outcomes:
        if outcome.result is None:
            errors.append(outcome.error or "rejected")
            continue
        created += outcome.result.edges.created
        skipped += outcome.result.edges.skipped
        closed += sum(1 for c in outcome.result.closed if c.id and not c.skipped)
    lines = [f"Applied at turn {turn}: {created} edge version(s) created, {skipped} skipped, {closed} closed."]
    lines.extend(f"  rejected: {error}" for error in errors)
    return "\n".join(lines)


def add_extract_parser(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    extract = actions.add_parser(
        "extract", help="read relations from a narration text without a model (the fast path)",
        description="Run the model-free extractor over FILE (or - for standard input) against the save's "
                    "names and aliases. Prints the relations it plainly states, the names met together and "
                    "capitalised names the save does not know. --apply writes the relations as one upsert "
                    "at turn N (default: the save's latest turn). Exit 0, or 1 when --apply had a call "
                    "rejected; 2 for unreadable input or a missing save (nothing written).",
    )
    add_save_option(extract)
    extract.add_argument("--json", action="store_true", help="print JSON for scripts instead of text")
    extract.add_argument("--turn", type=non_negative, help="the turn --apply records (default: the save's latest turn)")
    extract.add_argument("--apply", action="store_true", help="write the relations found as an upsert")
    extract.add_argument("file", metavar="FILE|-", help="a text or Markdown file, or - for standard input")
    extract.set_defaults(handler=handler("graph_extract", "extract_command"))
