"""``kith graph enrich`` (a model reads the queued turns, one commit each) and ``kith graph rebuild``
(the queued turns read together, by a model or the fast path, with the diff against the graph before).

Both open the save as a game (its world, the configured narrator) because reading a turn again is the
turn's own graph update: the World IR and the extractor, exactly as in play. Turns wait in the queue when
the model could not record them in play (they hold the fast path's reading, marked ``fast``) or when a
story was imported (``kith import-story``).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, TextIO

from game.cli.graph_common import add_json_option, add_save_option, handler, print_json, print_text, save_path
from game.errors import ConfigError, SaveNotFound

if TYPE_CHECKING:  # `kith graph dump` builds this parser too, and must not pay for pydantic or the store
    from game.config import Settings

BAR_WIDTH = 24
NEEDS_MODEL = ("enrichment needs a model: give --base-url and --model (or set [llm] in kith.toml). "
               "{count} turn(s) wait in the queue of {save}")


async def _queued(settings: Settings, args: argparse.Namespace) -> list[int]:
    """The queued turns, read before the game is opened (so a save with nothing queued needs no model)."""
    from game.registry import default_registry
    from game.store import enrichment
    from game.store.database import SaveDatabase

    path = save_path(args, settings)
    if not path.exists():
        raise SaveNotFound(f"there is no save {path.stem!r} (looked for {path})")
    async with await SaveDatabase.open(path, schema=default_registry().schema()) as db:
        return [t.number for t in await enrichment.pending_extraction(db)]


async def enrich_command(args: argparse.Namespace, settings: Settings) -> int:
    import asyncio

    from game.engine.session import GameSession

    queued = await _queued(settings, args)
    if not queued:
        if args.json:
            print_json({"queued": [], "enriched": [], "remaining": [], "report": []})
        else:
            print_text("Nothing waits for enrichment: every turn's relations are already a full reading.")
        return 0
    if not settings.uses_llm:
        raise ConfigError(NEEDS_MODEL.format(count=len(queued), save=save_path(args, settings).stem))
    progress = Progress(len(queued), sys.stderr if sys.stderr.isatty() and not args.json else None)
    lines: list[str] = []
    enriched: list[int] = []
    session = await GameSession.open(settings, save=save_path(args, settings))
    try:
        failed: tuple[int, str] | None = None  # the last turn that failed, and why
        async for reading in session.enrich():
            lines.append(reading.line)
            if reading.ok:
                enriched.append(reading.number)
            progress.step(reading.line, args.json)
            why = reading.line.partition(": ")[2]
            if not reading.ok and failed is not None and failed[1] == why:
                # A server that is down or refuses fails every turn alike: asking it for each of hundreds of
                # turns (each maybe waiting out the timeout) helps nobody. The rest stay queued.
                stop = (f"Stopped: turns {failed[0]} and {reading.number} failed alike; the rest stay queued. "
                        "Fix the model server and run it again.")
                lines.append(stop)
                progress.step(stop, args.json)
                break  # between two commits: the walk holds nothing open
            failed = None if reading.ok else (reading.number, why)
        remaining = [t.number for t in await session.pending_extraction()]
    except asyncio.CancelledError:
        # Ctrl+C: every turn read so far is committed on its own; the rest stay queued for the next run.
        progress.done()
        print(f"Stopped: {len(enriched)} turn(s) enriched, the rest still queued; run it again to resume.",
              file=sys.stderr)
        raise
    finally:
        await session.close()
    progress.done()
    if args.json:
        print_json({"queued": queued, "enriched": enriched, "remaining": remaining, "report": lines})
    else:
        print_text(f"Enriched {len(enriched)} of {len(queued)} queued turn(s); {len(remaining)} still queued.")
    return 1 if remaining else 0


class Progress:
    """A bar on a terminal (``stream``), else one plain line a turn on standard output."""

    def __init__(self, total: int, stream: TextIO | None) -> None:
        self.total, self.stream, self.count = total, stream, 0

    def step(self, line: str, quiet: bool) -> None:
        self.count += 1
        if self.stream is None:
            if not quiet:
                print_text(line)
                sys.stdout.flush()  # a reader at the other end of a pipe sees each turn as it commits
            return
        filled = BAR_WIDTH * self.count // max(self.total, 1)
        bar = "#" * filled + "." * (BAR_WIDTH - filled)
        self.stream.write(f"\r[{bar}] {self.count}/{self.total} {line[:60]:<60}")
        self.stream.flush()

    def done(self) -> None:
        if self.stream is not None and self.count:
            self.stream.write("\n")
            self.stream.flush()


async def rebuild_command(args: argparse.Namespace, settings: Settings) -> int:
    from game.engine.session import GameSession

    path = save_path(args, settings)
    if not path.exists():
        raise SaveNotFound(f"there is no save {path.stem!r} (looked for {path})")
    session = await GameSession.open(settings, save=path)
    try:
        pending = [t.number for t in await session.pending_extraction()]
        rebuilt = await session.rebuild(args.extractor)
        remaining = [t.number for t in await session.pending_extraction()]
    finally:
        await session.close()
    if args.json:
        print_json({"pending": pending, "extracted": rebuilt.done if args.extractor == "model" else [],
                    "read": rebuilt.done, "remaining": remaining, "report": rebuilt.lines,
                    "extractor": args.extractor, "diff": rebuilt.diff_json()})
    elif not rebuilt.lines:
        print_text("Every turn's graph update is already recorded; nothing to rebuild." if not pending else
                   f"Nothing for the {args.extractor} extractor to read: {len(pending)} turn(s) wait for a model.")
    else:
        print_text("\n".join([*rebuilt.lines, rebuilt.diff_text()]))
    if args.extractor == "fast":  # the turns it read stay queued for a model: only a turn it failed counts
        return 1 if len(rebuilt.done) < len(rebuilt.lines) else 0
    return 1 if remaining else 0


def add_enrich_parsers(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from game.cli.doctor import llm_flag_arguments, llm_settings_flags

    enrich = actions.add_parser(
        "enrich", help="a model reads the turns the fast path read (or nobody did), one commit each",
        description="Turns whose relations the model could not record in play (kept by the fast path, marked "
                    "fast), turns nothing read, and imported stories wait in a queue. Each is read again by "
                    "the configured model and committed on its own: the model's reading replaces the fast "
                    "path's relations of that turn. A bar on a terminal, plain lines otherwise. Ctrl+C "
                    "stops between commits; run it again to resume. Exit 0 when the queue is empty after, "
                    "1 when turns remain, 2 when no model is configured.",
    )
    add_save_option(enrich)
    add_json_option(enrich)
    llm_flag_arguments(enrich, record=False)
    enrich.set_defaults(handler=handler("graph_enrich", "enrich_command"), settings_flags=llm_settings_flags)

    rebuild = actions.add_parser(
        "rebuild", help="re-read the queued turns together and print the diff against the graph",
        description="Turns whose narration committed but whose graph update failed (a model that never "
                    "called its tool) are read again, all committed together, and the changes are printed "
                    "as a diff (added, changed, closed relations). --extractor model (the default) uses the "
                    "configured narrator and replaces the fast path's relations; --extractor fast reads the "
                    "turns nothing read yet without a model (they stay queued for one). Exit 1 if any turn "
                    "could not be read.",
    )
    add_save_option(rebuild)
    add_json_option(rebuild)
    rebuild.add_argument("--extractor", choices=["model", "fast"], default="model",
                         help="who reads the turns: the configured narrator (model) or the fast path (fast)")
    llm_flag_arguments(rebuild, record=False)
    rebuild.set_defaults(handler=handler("graph_enrich", "rebuild_command"), settings_flags=llm_settings_flags)
