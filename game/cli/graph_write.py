"""The writing commands: ``upsert``, ``import``, ``merge`` and ``alias``.

Input is read and parsed completely before the save is opened, so unreadable input never creates or
touches a save. Each command commits once: a rejected call writes nothing, and the accepted calls of one
command are committed together in one transaction.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.cli.graph_common import find_node, open_save, print_json, print_text, save_path
from game.cli.import_progress import CHECK_EVERY_LINES, ImportProgress
from game.config import Settings
from game.errors import InputError
from game.features.identity.answers import decided
from game.features.identity.questions import questions
from game.graph.bulk import LineCounts
from game.graph.index import GraphIndex
from game.graph.models import MAX_NAME_CHARS, MAX_TURN, Node
from game.graph.names import normalize_name
from game.graph.ports import GraphReader
from game.graph.upsert import NodeSource, UpsertExecution, load_calls, load_json
from game.reading import TooLarge, read_file_at_most, read_text_at_most
from game.store import bulk_commit, node_identity, turn_log
from game.store.database import SaveDatabase, node_by_name
from game.store.mind_fold import MindSummary
from game.text import strip_control

if TYPE_CHECKING:
    from game.features.memories.book import MemorySettings

BULK_CACHE_KIB = 64 * 1024
INDEX_FROM_CALLS = 200
BOM = "\ufeff"


UPSERT_LIMIT = 16 << 20
"""The most ``graph upsert`` reads: thousands of calls of the largest size the contract allows."""
IMPORT_LIMIT = 128 << 20
"""The most ``graph import`` reads: half a million lines, four times the 100k-version benchmark's file."""
EXTRACT_LIMIT = 2_000_000
"""The most ``graph extract`` reads: as much as ``import-story`` takes (a novel's length)."""


def read_text(source: str, limit: int) -> tuple[str, str]:
    """The text of ``source`` (a file, or ``-`` for standard input) and a label for messages; refused
    past ``limit`` bytes, having read no more than that (``/dev/zero`` or an endless pipe stop there)."""
    if source == "-":
        try:
            return read_text_at_most(sys.stdin, limit).removeprefix(BOM), "standard input"
        except UnicodeDecodeError as error:
            raise InputError(f"standard input is not UTF-8 text ({error.reason}); nothing was written") from error
        except TooLarge as error:
            raise InputError(f"standard input is {error.words}; nothing was written") from None
    path = Path(source)
    try:
        # utf-8-sig: a byte-order mark (editors on Windows add one) is read past, not taken for JSON.
        return read_file_at_most(path, limit).decode("utf-8-sig"), source
    except TooLarge as error:
        raise InputError(f"{source} is {error.words}; nothing was written") from None
    except FileNotFoundError:
        raise InputError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{source} is a folder, not a file") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{source} is not UTF-8 text ({error.reason}); nothing was written") from error
    except OSError as error:
        raise InputError(f"{source} cannot be read: {error.strerror}") from error


async def upsert(args: argparse.Namespace, settings: Settings) -> int:
    save_path(args, settings)  # a malformed save name is refused before the input is even read
    text, label = read_text(args.file, UPSERT_LIMIT)
    try:
        calls = load_calls(text)
    except ValueError as error:
        raise InputError(f"{label} is not valid JSON ({error}); nothing was written") from error
    async with open_save(args, settings, create=True) as db:
        turn = args.turn if args.turn is not None else await turn_log.latest_turn(db)
        # Many calls read the save thousands of times: load it as a graph index once (as import does) instead
        # of a query per name. A few calls read through the indexes, which is cheaper on a long game.
        reader: GraphReader = await db.load_graph_index() if len(calls) > INDEX_FROM_CALLS else db.graph
        judged: NodeSource | None = None
        if args.identity:  # as a game's turns judge a new name (game/graph/identity_match.py)
            everyone = list(reader.nodes.values()) if isinstance(reader, GraphIndex) else await db.graph.all_nodes()
            judged = lambda: everyone  # noqa: E731
        execution = UpsertExecution(reader, await db.vocabulary(), turn, identity=judged)
        outcomes = [await execution.run(call) for call in calls]
        taken = {item.id for item in await questions(db)}
        rows, merges = decided(execution.identities, turn, taken)
        await db.commit_graph(execution.writes, rows=rows, merges=merges)
    print_json([outcome.to_json_dict() for outcome in outcomes])
    return 1 if any(outcome.error for outcome in outcomes) else 0


@dataclass
class ImportLine:
    number: int
    turn: int
    call: Any


@dataclass
class ImportSummary:
    """What an import did, counted over its accepted lines."""

    lines: int = 0
    accepted: int = 0
    nodes_created: int = 0
    nodes_updated: int = 0
    edges_created: int = 0
    edges_skipped: int = 0
    closed: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)

    def count(self, counts: LineCounts) -> None:
        self.accepted += 1
        self.nodes_created += counts.nodes_created
        self.nodes_updated += counts.nodes_updated
        self.edges_created += counts.edges_created
        self.edges_skipped += counts.edges_skipped
        self.closed += counts.closed

    def to_json_dict(self) -> dict[str, Any]:
        return {
            "lines": self.lines, "accepted": self.accepted, "rejected": len(self.errors),
            "nodes": {"created": self.nodes_created, "updated": self.nodes_updated},
            "edges": {"created": self.edges_created, "skipped": self.edges_skipped},
            "closed": self.closed, "errors": self.errors,
        }

    def text(self, label: str) -> str:
        lines = [
            f"Imported {self.accepted} of {self.lines} line(s) from {label}: "
            f"{self.nodes_created} node(s) created, {self.nodes_updated} updated; "
            f"{self.edges_created} edge version(s) created, {self.edges_skipped} skipped; {self.closed} closed.",
        ]
        lines.extend(f"  line {e['line']}: {e['error']}" for e in self.errors)
        return "\n".join(lines)


def parse_import(text: str, label: str, summary: ImportSummary,
                 progress: ImportProgress | None = None) -> list[ImportLine]:
    """Lines as calls with their turns. Unreadable JSON stops everything; a bad ``turn`` rejects its line."""
    parsed: list[ImportLine] = []
    # "\n" only: ``splitlines`` also breaks at U+2028, U+2029 and other characters JSON strings may hold
    # raw, which would cut one call in two. A "\r" before the "\n" is white space to JSON.
    for number, raw in enumerate(text.split("\n"), start=1):
        if progress is not None and not number % CHECK_EVERY_LINES and progress.due():
            progress.reading(number)
        if not raw.strip():
            continue
        summary.lines += 1
        try:
            data = load_json(raw)
        except ValueError as error:
            raise InputError(f"{label}, line {number}: not valid JSON ({error}); nothing was imported") from error
        if not isinstance(data, dict):
            summary.errors.append({"line": number, "error": "a line must be a JSON object: an upsert call with a \"turn\""})
            continue
        turn = data.pop("turn", None)
        if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0 or turn > MAX_TURN:
            if turn is None:
                problem = "missing (each line needs the turn its call happened at)"
            elif isinstance(turn, int) and not isinstance(turn, bool) and turn > MAX_TURN:
                problem = f"{turn} is past the largest turn ({MAX_TURN})"
            else:
                problem = f"{json.dumps(turn)} is not a turn number (a whole number, 0 or more)"
            summary.errors.append({"line": number, "error": f"turn: {problem}"})
            continue
        parsed.append(ImportLine(number, turn, data))
    return parsed


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector paused for one big load, and resumed after it.

    A load allocates hundreds of thousands of long-lived objects (parsed lines, rows) and none of them
    is garbage until it ends, yet each collection would walk them all again (a third of a 100k-version
    import once). Whatever the load discards is freed by reference counting anyway; the caller lets go
    of its rows before the collector resumes, so resuming finds nothing big to walk.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


async def import_command(args: argparse.Namespace, settings: Settings) -> int:
    save_path(args, settings)
    text, label = read_text(args.file, IMPORT_LIMIT)
    # On a terminal only, and never for --json: standard output is untouched either way.
    progress = ImportProgress.on_terminal(sys.stderr, label, text, wanted=not args.json)
    try:
        with collector_paused():
            summary = await import_lines(args, settings, text, label, progress)  # its rows are freed on return
    except asyncio.CancelledError:  # Ctrl-C: the import's one transaction was rolled back
        if progress is not None:
            progress.clear()
        print(f"kith: interrupted; nothing from {strip_control(label)} was imported, and the save is as it was",
              file=sys.stderr)
        raise
    finally:  # before the summary, or the error message of a refused import
        if progress is not None:
            progress.clear()
    summary.errors.sort(key=lambda e: int(e["line"]))
    if args.json:
        print_json(summary.to_json_dict())
    else:
        print_text(summary.text(label))
    return 1 if summary.errors else 0


async def import_lines(args: argparse.Namespace, settings: Settings, text: str, label: str,
                       progress: ImportProgress | None = None) -> ImportSummary:
    """Parse every line (bad JSON stops everything before the save is touched), apply them, commit once.

    A new save is filled under its temporary name and named only when whole (``SaveDatabase.open``'s
    seed): its one commit need not wait for the disk, since nothing can open it before it is complete.
    """
    summary = ImportSummary()
    lines = parse_import(text, label, summary, progress)
    filled = False

    async def fill(db: SaveDatabase) -> None:
        nonlocal filled
        filled = True
        await load_lines(db, lines, summary, unpublished=True, progress=progress)

    async with open_save(args, settings, create=True, seed=fill) as db:
        if not filled:  # the save was already there
            await load_lines(db, lines, summary, unpublished=False, progress=progress)
    return summary


async def load_lines(db: SaveDatabase, lines: list[ImportLine], summary: ImportSummary, *, unpublished: bool,
                     progress: ImportProgress | None = None) -> None:
    """Apply an import's lines to ``db`` and commit what they wrote, once; rejected lines are counted.

    ``progress``: told how far the lines have got (every ``CHECK_EVERY_LINES`` lines), and each phase after.
    """
    # SQLite gets a larger page cache for this connection, so index pages stay in memory while tens of
    # thousands of rows go in.
    await db.conn.execute(f"PRAGMA cache_size = -{BULK_CACHE_KIB}")
    # The save as it is, held by the loader: each line reads what earlier lines wrote without a query.
    loader = await bulk_commit.bulk_loader(db, await db.vocabulary(), random.Random(random.SystemRandom().getrandbits(64)))
    versions = sum(len(edges) for line in lines  # about how many versions the file writes (a bad line counts none)
                   if isinstance(line.call, dict) and isinstance(edges := line.call.get("edges"), list))
    phase = None
    if progress is not None:
        progress.expect(len(lines), versions)
        phase = progress.phase
    async with bulk_commit.load_stream(db, loader.load, versions=versions, unpublished=unpublished, phase=phase) as stream:
        # In runs of lines, so that progress costs nothing per line (a clock read per run, when shown).
        for start in range(0, len(lines), CHECK_EVERY_LINES):
            for line in lines[start:start + CHECK_EVERY_LINES]:
                done = await loader.load_line(line.call, line.turn)
                if isinstance(done, str):
                    summary.errors.append({"line": line.number, "error": done})
                else:
                    summary.count(done)
                if stream is not None and stream.due():
                    await stream.send()
            if progress is not None and progress.due():
                progress.importing(min(start + CHECK_EVERY_LINES, len(lines)), len(loader.load.edges))


async def merge_turn(db: SaveDatabase, *nodes: Node) -> int:
    """The turn a merge is logged at: the save's current turn, or the latest turn either node's data
    comes from when an author has written ahead of play (``upsert --turn``), so a relation the merge
    closes never ends before it began."""
    latest = await db.current_turn()
    for node in nodes:
        latest = max(latest, node.last_seen_turn)
        for edge in await db.graph.edges_touching(node.id):
            latest = max(latest, edge.valid_at, edge.invalid_at or 0)
    return latest


def merge_settings(settings: Settings) -> MemorySettings:
    """How a merge by the graph commands folds the merged NPC's mind into the kept one's (``mind.merging``)."""
    from game.engine.tuning import memory_settings

    return memory_settings(settings)


def mind_line(mind: MindSummary) -> str:
    """The text output's line for what a merge folded of the merged NPC's mind."""
    details = [f"{n} {what}" for n, what in ((mind.repeated, "already remembered"),
                                               (mind.forgotten, "forgotten past capacity")) if n]
    extra = f" ({', '.join(details)})" if details else ""
    return (f"Mind: {mind.memories} memory(ies) taken over{extra}; attitude {mind.attitude}; "
            f"{mind.said} thing(s) said taken over.")


def player_merge_refusal(save: str, keep: Node, player: Node) -> str:
    """Why the player is never the merged node: the kept one would take their place as the player."""
    import shlex

    return (f"{player.name} is the player character ({player.id}): merging them into {keep.name} would make "
            f"{keep.name} the player. Nothing was changed. To fold {keep.name} into the player instead, put "
            f"the player first: kith graph merge --save {shlex.quote(save)} {shlex.quote(player.name)} "
            f"{shlex.quote(keep.name)}")


async def merge(args: argparse.Namespace, settings: Settings) -> int:
    evidence = " ".join(args.evidence.split())
    if not evidence:
        raise InputError("--evidence must say why the two nodes are one; it goes into the merge log")
    async with open_save(args, settings) as db:
        keep = await find_node(db, args.keep)
        merged = await find_node(db, args.merged)
        if keep.id == merged.id:
            raise InputError(strip_control(
                f"{args.keep!r} and {args.merged!r} are already the same node, {keep.name} ({keep.id})"))
        if merged.attributes.get("player") is True:
            raise InputError(strip_control(player_merge_refusal(args.save, keep, merged)))
        turn = await merge_turn(db, keep, merged)
        from game.features.identity.merging import merge_people

        report = await merge_people(db, keep.id, merged.id, strategy="manual", evidence=evidence, turn=turn,
                                    settings=merge_settings(settings))
        record = (await node_identity.merges(db))[-1]
    mind = report.mind or MindSummary()
    if args.json:
        print_json({"kept": report.kept.to_json_dict(), "merged": report.merged.to_json_dict(),
                    "repointed": report.repointed, "closed": report.closed, "merge": record.to_json_dict(),
                    "mind": mind.to_json_dict()})
    else:
        closed = f", {len(report.closed)} closed as duplicates or self-relations" if report.closed else ""
        print_text(f"Merged {merged.name} ({merged.id}) into {keep.name} ({keep.id}): "
              f"{report.repointed} edge version(s) re-pointed{closed}.")
        print_text(f"Aliases of {keep.name} now: {', '.join(report.kept.aliases) or '-'}")
        print_text(mind_line(mind))
        print_text(f"Logged at turn {turn} as manual: {evidence}")
    return 0


async def alias(args: argparse.Namespace, settings: Settings) -> int:
    name = " ".join(args.alias.split())
    if not name:
        raise InputError("an alias cannot be blank")
    if len(name) > MAX_NAME_CHARS:
        raise InputError(f"an alias may be at most {MAX_NAME_CHARS} characters")
    async with open_save(args, settings) as db:
        node = await find_node(db, args.name)
        # An alias shared with another node would make that name ambiguous; identity changes go
        # through an explicit, logged merge instead.
        taken = [n for n in await node_by_name(db, name) if n.id != node.id]
        if taken:
            other = taken[0]
            raise InputError(strip_control(
                f"{name!r} is already a name of {other.name} ({other.id}); if they are the same, "
                f"merge them: kith graph merge --save {args.save} {node.id} {other.id}"
            ))
        added = normalize_name(name) not in {normalize_name(n) for n in node.names}
        updated = await node_identity.add_alias(db, node.id, name, await db.current_turn()) if added else node
    if args.json:
        print_json({"node": updated.to_json_dict(), "added": added})
    elif added:
        print_text(f"{updated.name} ({updated.id}) is also known as {name}. Aliases: {', '.join(updated.aliases)}")
    else:
        print_text(f"{name} is already a name of {updated.name} ({updated.id}); nothing changed.")
    return 0
