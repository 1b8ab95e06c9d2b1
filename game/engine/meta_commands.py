"""What each meta command does to a session. Every reply is a ``MetaOutput``; state changes add a
``SessionReset`` so a front end redraws."""

from __future__ import annotations

import difflib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING

from game.engine import mind_commands
from game.engine.events import ConfirmRequested, Event, MetaOutput, NarrationDone, QuitRequested, SessionReset
from game.engine.known_names import heard_of, not_named, without_strangers
from game.engine.meta import MetaCommand, command_words, help_text
from game.engine.player_view import known_ids, player_view
from game.engine.presence import scoped_context
from game.engine.retell import replaced, shown
from game.errors import KithError
from game.graph.fast_extract.marks import confirmed_at, enriched_from, fast_from
from game.graph.map.known import known_graph
from game.graph.models import Edge
from game.graph.render import render_npc_context, sign_mark
from game.graph.retrieve import retrieve
from game.store.connection import inspect_save
from game.store.saves import read_save_info, snapshot_name
from game.store.snapshots import check_restorable

if TYPE_CHECKING:
    from game.engine.command_context import Asking, CommandContext


def no_such_command(word: str, words: list[str]) -> str:
    """The reply to ``/word`` when the game has no such command, with the nearest it has (a typo's fix)."""
    near = difflib.get_close_matches(word, words, n=2, cutoff=0.7)
    hint = f" Did you mean {' or '.join(f'`/{other}`' for other in near)}?" if near else ""
    return f"There is no command /{word} in this game.{hint} Type `help` to list them."


async def run(session: CommandContext, command: MetaCommand) -> AsyncIterator[Event]:
    if command.word != "restore":
        session.asked = None  # a question is answered by the very next command, or not at all
    try:
        if command.word in _HANDLERS:
            async for event in _HANDLERS[command.word](session, command.argument):
                yield event
            return
        owner = session.registry.command_owner(command.word)
        if owner is None:  # a slashed word nobody handles (or read with another registry's commands)
            yield MetaOutput(no_such_command(command.word, command_words(session.registry)), "help")
            return
        if owner.retells:  # it tells the last turn again (or a turn another way): a stream, not a reply
            async for item in owner.retell_handler(command.word)(session.retell_reach(), command.argument):
                async for event in shown(item, command.word):
                    yield event
            return
        reach = session.feature_reach(owner.name)
        reply = await owner.meta_handler(command.word)(reach, command.argument)
        if reach.kept is None:
            yield MetaOutput(reply, command.word)
            return
        # Kept as a turn of its own: a front end sees the turn go up (and its undo takes the line back).
        kept = reach.kept
        for event in await session.commit_command(kept.text, reply, command.word, kept.writes, kept.rows, kept.tiers):
            yield event
    except KithError as error:
        yield MetaOutput(error.message, command.word)


async def _help(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    yield MetaOutput(help_text(session.registry), "help")


async def _save(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    name = argument or f"{session.save_name}-saved"
    path = session.snapshot_path(name)
    if path.resolve() == session.save_path.resolve():
        yield MetaOutput(f"{name} is the game you are playing; it is saved after every turn already.", "save")
        return
    refusal = _not_ours_to_replace(session, path)
    if refusal:
        yield MetaOutput(refusal, "save")
        return
    await session.snapshot(name)
    yield MetaOutput(f"Saved a snapshot of turn {session.turn} as **{name}**. "
                     f"Type `restore {name}` to come back to this moment.", "save")


def withdraw_question(game: Asking) -> None:
    """The player said no to a question a command asked (the TUI's modal): typing it again asks again."""
    game.asked = None


async def _restore(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    """``restore NAME`` replaces the game with a snapshot: it asks first, and keeps the game as it was
    (``NAME-before-restore``, as ``restart`` keeps it), so another game's snapshot never silently wipes it."""
    name = argument or await session.last_snapshot()
    if not name:
        yield MetaOutput("There is no snapshot to restore yet. Type `save NAME` to make one.", "restore")
        return
    path = session.snapshot_path(name)
    if not path.exists():
        yield MetaOutput(f"There is no snapshot named {name!r}.", "restore")
        return
    if path.resolve() == session.save_path.resolve():
        yield MetaOutput(f"{name} is the game you are playing.", "restore")
        return
    keep = snapshot_name(session.save_name, "before-restore")
    if session.snapshot_path(keep).resolve() == path.resolve():  # restoring the game a restore replaced
        keep = snapshot_name(session.save_name, "before-restore-2")
    # Refused now, not once confirmed; and asked again then, in case the folder changed in between.
    refusal = _not_ours_to_replace(session, session.snapshot_path(keep))
    if refusal:
        session.asked = None
        yield MetaOutput(f"{refusal} Nothing was restored.", "restore")
        return
    asked, session.asked = session.asked, None
    if asked != (name, session.turn):
        schema = session.registry.schema()
        await check_restorable(path, session.save_name, session.world.id, schema)
        what = _what_it_is(session, name, path)
        # Only an earlier copy of this game may be there (refused above otherwise): it is said to go.
        kept = session.snapshot_path(keep)
        replaced = (f", which replaces the copy kept there before (turn {read_save_info(kept, schema).turns})"
                    if kept.exists() else "")
        session.asked = (name, session.turn)  # typing it again (and nothing else first) confirms it
        yield MetaOutput(f"**{name}** is {what}. Restoring it replaces the game you are playing "
                         f"(**{session.save_name}**, turn {session.turn}); that game is kept first as **{keep}**"
                         f"{replaced}. Type `restore {name}` again to restore it, or anything else to go on "
                         "playing.", "restore")
        yield ConfirmRequested(f"restore {name}", f"Restore {name}? It is {what}. The game you are playing "
                               f"({session.save_name}, turn {session.turn}) is kept first as {keep}{replaced}.",
                               "Restore")
        return
    await session.restore(name, keep)
    yield MetaOutput(f"Restored **{name}**: you are back at turn {session.turn}. The game as it was is kept as "
                     f"**{keep}** (`restore {keep}`).", "restore")
    yield SessionReset("restore", session.turn)


def _what_it_is(session: CommandContext, name: str, path: Path) -> str:
    """What a snapshot holds, for the question: this game earlier, another game, or a save of its own."""
    schema = session.registry.schema()
    info = read_save_info(path, schema)
    _version, meta = inspect_save(path, schema)
    of = meta.get("snapshot_of")
    turn = f"turn {info.turns}"
    if of == session.save_name:
        return f"a snapshot of this game at {turn}"
    if of:
        return f"a snapshot of another game ({of}, {turn})"
    return f"another game ({turn})"


async def _undo(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    """``undo`` takes back the last turn, ``undo N`` the last N: all of them or, when fewer exist, none."""
    count = int(argument) if argument else 1  # parse_meta lets only digits through
    step = await session.retell_reach().undo_step() if not argument else None
    if step is not None:  # an edit, a continuation or a note change made since the turn: that goes first
        what, kept = step
        yield MetaOutput(f"Undone {what}. You are still at turn {session.turn}.", "undo")
        if kept is not None:
            yield NarrationDone(kept.narration)
            yield replaced(kept)
        return
    if session.turn == 0:
        yield MetaOutput("There is nothing to undo: this is where the story begins.", "undo")
        return
    if count < 1:
        yield MetaOutput("Type `undo` to take back the last turn, or `undo N` with a number of turns.", "undo")
        return
    if count > session.turn:
        turns = "1 turn" if session.turn == 1 else f"{session.turn} turns"
        yield MetaOutput(f"There are only {turns} to take back; nothing was undone. "
                         f"Type `undo {session.turn}` to go back to the beginning.", "undo")
        return
    taken_back = [await session.undo() for _ in range(count)]
    if count == 1:
        shown = f" “{taken_back[0]}”" if taken_back[0] else ""
        yield MetaOutput(f"Undone{shown}. You are back at turn {session.turn}.", "undo")
    else:
        shown = ", ".join(f"“{text}”" for text in reversed(taken_back) if text)
        yield MetaOutput(f"Undone {count} turns ({shown}). You are back at turn {session.turn}.", "undo")
    yield SessionReset("undo", session.turn)


async def _restart(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    if session.turn == 0:
        yield MetaOutput("You are already at the beginning.", "restart")
        return
    keep = snapshot_name(session.save_name, "before-restart")
    refusal = _not_ours_to_replace(session, session.snapshot_path(keep))
    if refusal:
        yield MetaOutput(f"{refusal} Nothing was restarted.", "restart")
        return
    await session.restart(keep)
    yield MetaOutput(f"The story begins again. Your game so far is kept as **{keep}** (`restore {keep}`).\n\n"
                     + session.narrator.opening(session.scene), "restart")
    yield SessionReset("restart", session.turn)


def _not_ours_to_replace(session: CommandContext, path: Path) -> str | None:
    """Why ``path`` may not be overwritten by a snapshot of this game, or None when it may.

    Only an earlier snapshot of this same game is replaced; another game, or a file that is not a Kith
    save at all, is never touched.
    """
    if not path.exists():
        return None
    try:
        _version, meta = inspect_save(path, session.registry.schema())
    except KithError:
        return f"{path.name} exists and is not a Kith save; choose another name."
    if meta.get("snapshot_of") != session.save_name:
        return f"A save named {path.stem!r} already exists and is not a snapshot of this game; choose another name."
    return None


async def _quit(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    yield MetaOutput(f"Your game is saved as **{session.save_name}** at turn {session.turn}.", "quit")
    yield QuitRequested()


async def _transcript(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    choice = argument.lower()
    if choice not in {"on", "off", ""}:
        yield MetaOutput("Type `transcript on` or `transcript off`.", "transcript")
        return
    if choice == "off" or (choice == "" and session.transcript_path is not None):
        session.stop_transcript()
        yield MetaOutput("Transcript stopped.", "transcript")
        return
    path = session.settings.saves_dir / f"{session.save_name}.transcript.txt"
    session.start_transcript(path)  # a path that cannot be written is refused with a message
    yield MetaOutput(f"Writing a transcript to {path}.", "transcript")


async def _verbose(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    await session.set_verbose(True)
    yield MetaOutput("Verbose: places are described in full every time you enter them.", "verbose")


async def _brief(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    await session.set_verbose(False)
    yield MetaOutput("Brief: places you have seen are named, not described, when you return.", "brief")


async def _graph(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    """What the player knows of the graph: the people they met or heard of, the relations they learned."""
    view = player_view(session.world, session.scene, session.graph)
    nodes_known, edges_known = known_graph(session.graph.nodes.values(), session.graph.open_edges.values(), view)
    nodes = {node.id: node for node in nodes_known}
    if argument:
        match = await heard_of(session, argument)
        if match.node is None:
            # Someone the player has not heard of reads exactly like no one at all.
            yield MetaOutput(not_named(session, argument, match), "graph")
            return
        found = match.node.name
        # The narrator's walk from NAME (two hops), keeping only what the player knows.
        result = await retrieve(session.graph, found, (), session.retrieval_settings)
        known_ids = {e.id for e in edges_known}
        shown = [e for e in result.edges if e.id in known_ids and e.source in nodes and e.target in nodes]
        context = render_npc_context(shown, nodes)
        yield MetaOutput(context or f"Nothing is remembered about {found} yet.", "graph")
        return
    edges = sorted(edges_known, key=lambda e: (-e.valid_at, -abs(e.strength), e.id))
    if not edges:
        yield MetaOutput("No character or faction relationships yet. They will appear as the story continues.",
                         "graph")
        return
    lines = [f"**{len(nodes)} people and factions, {len(edges)} current relations.**", ""]
    for edge in edges:
        source = nodes[edge.source].name if edge.source in nodes else edge.source
        target = nodes[edge.target].name if edge.target in nodes else edge.target
        lines.append(f"- {sign_mark(edge.strength)} {source} → {target} ({edge.relation}, since turn {edge.valid_at})")
    yield MetaOutput("\n".join(lines), "graph")


async def _why(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    if not argument:
        yield MetaOutput("Type `/why NAME` to see what the narrator is told about someone, and why.", "why")
        return
    match = await heard_of(session, argument)
    if match.node is None:
        yield MetaOutput(not_named(session, argument, match), "why")
        return
    found = match.node.name
    # The scoped view a turn about NAME would hand the narrator now: only what the player and the people
    # on stage know, so /why never spells out a secret nobody present could tell.
    result = (await scoped_context(session.graph, found, session.scene.cast, session.retrieval_settings)).retrieval
    edges = result.edges
    known = known_ids(session.scene, session.graph)
    if known is not None:  # nor anyone the player has not heard of: /why is the player's window too
        allowed = set(known) | set(session.graph.player_ids)
        edges = [e for e in edges if e.source in allowed and e.target in allowed]
    sections = without_strangers(session, "\n".join(await mind_commands.why_sections(session, match.node))).splitlines()
    featured = without_strangers(session, "\n".join(
        session.registry.explain(session.features, match.node.id, session.graph))).splitlines()
    if featured:
        sections = [*featured, *([""] if sections else []), *sections]
    if not edges and not featured:
        yield MetaOutput("\n\n".join([f"Nothing is remembered about {found} yet.", *(
            ["\n".join(sections)] if sections else [])]), "why")
        return
    lines: list[str] = []
    if edges:
        read = {e.id: read_from(e) for e in edges}
        inputs = await session.turn_inputs(sorted({read[e.id] for e in edges if read[e.id] > 0}))
        lines += [f"**What the narrator is told about {found}, and where it came from:**", ""]
        for edge in edges:
            source = result.nodes[edge.source].name
            target = result.nodes[edge.target].name
            turn = read[edge.id]
            origin = "the world's beginning" if turn == 0 else (
                f"turn {turn}" + (f" (“{inputs[turn]}”)" if turn in inputs else ""))
            lines.append(f"- {sign_mark(edge.strength)} **{source}** → **{target}** ({edge.relation}): {edge.fact} "
                         f"— from {origin}{how_read(edge)}")
    if sections:
        lines += ["", *sections] if lines else sections
    yield MetaOutput("\n".join(lines), "why")


async def _mind(session: CommandContext, argument: str) -> AsyncIterator[Event]:
    yield MetaOutput(await mind_commands.mind(session, argument), "mind")


def read_from(edge: Edge) -> int:
    """The turn a version was read from: its own, or the earlier turn a later reading was of."""
    later = fast_from(edge)
    if later is None:
        later = enriched_from(edge)
    return edge.valid_at if later is None else later


def how_read(edge: Edge) -> str:
    """Said after a version read without a model, or by one later: a fact's footing, told honestly."""
    if fast_from(edge) is not None:
        return ", read from the narration without a model (not yet confirmed)"
    confirmed = confirmed_at(edge)
    if confirmed is not None:
        return f", read from the narration without a model and confirmed by a model at turn {confirmed}"
    if enriched_from(edge) is not None:
        return f", read again by a model at turn {edge.valid_at}"
    return ""


_HANDLERS = {
    "help": _help, "save": _save, "restore": _restore, "undo": _undo, "restart": _restart, "quit": _quit,
    "transcript": _transcript, "verbose": _verbose, "brief": _brief, "graph": _graph, "why": _why,
    "mind": _mind,
}
