"""``GameCommands``: what a meta command handler holds (``command_context.CommandContext``), never the session.

It reads the game as the session does (``GameReads``) and owns the game's own operations a command may ask
for: snapshots, restore, restart and undo (each stopping the background reading first, so nothing lands
in a game being replaced), Verbose/Brief, the transcript, a feature's undoable change and a command kept
as a turn through the pipeline's one commit. The session hands it to ``meta_commands.run`` and delegates
the few of these its front ends use (undo, snapshot, reload) to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from game.engine.events import Event
from game.engine.feature_commands import FeatureReach, GraphFeatureReach
from game.engine.game_parts import GameParts, GameReads
from game.engine.known_names import heard_of, not_named
from game.engine.opening import read_play_state
from game.engine.play_state import PlayState
from game.engine.retell import GameRetelling
from game.errors import KithError
from game.features.feature import TierChange
from game.graph.index import GraphSource
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.store import snapshots
from game.store.rows import RowWrite
from game.store.saves import resolve_save, validate_save_name


class GameCommands(GameReads):
    """The reach of one open game's meta commands (implements ``CommandContext``)."""

    def __init__(self, parts: GameParts) -> None:
        super().__init__(parts)
        self.asked: tuple[str, int] | None = None
        """The restore the player was asked to confirm, and at which turn (``meta_commands``)."""

    def retell_reach(self) -> GameRetelling:
        """What a retelling feature's meta commands may use of this game (``RetellReach``): the last turn
        told again through the pipeline, and undo within a turn."""
        return GameRetelling(self._db, self._pipeline, self.reload, self.read_state)

    def feature_reach(self, name: str) -> FeatureReach:
        """What the feature ``name``'s meta commands may use of this game (``CommandReach``)."""
        if self.registry.feature(name).changes_graph:
            return GraphFeatureReach(self._db, self, self.features.get(name), self.reload, self._known_person)
        return FeatureReach(self._db, self.turn, self.features.get(name), self.reload, self._known_person)

    async def _known_person(self, name: str) -> Node:
        """The individual the player knows by ``name``; the inspector commands' refusal when none is."""
        match = await heard_of(self, name)
        if match.node is None or match.node.type != "individual":
            raise KithError(not_named(self, name, match))
        return match.node

    async def commit_command(self, text: str, reply: str, kind: str, writes: GraphWrites | None = None,
                             rows: Sequence[RowWrite] = (), tiers: Sequence[TierChange] = ()) -> list[Event]:
        """Keep a command that changed the game as a turn of its own (``undo`` steps back over it)."""
        return await self._pipeline.commit_command(text, reply, kind, writes, rows, tiers)

    def snapshot_path(self, name: str) -> Path:
        return resolve_save(validate_save_name(name), self.settings.saves_dir)

    async def last_snapshot(self) -> str | None:
        """The snapshot last saved or restored in this game, which a bare `restore` returns to."""
        return (await self._db.meta()).get("last_snapshot")

    async def snapshot(self, name: str) -> Path:
        """Copy the game as it is now to the save ``name``, which a bare `restore` then returns to."""
        path = self.snapshot_path(name)
        await snapshots.snapshot_to(self._db, path)
        await self._db.set_meta({"last_snapshot": name})
        return path

    async def restore(self, name: str, keep: str) -> None:
        """Replace the game with the snapshot ``name`` (whose path the caller checked); the game as it was
        is kept first as the snapshot ``keep``, as ``restart`` keeps it."""
        await self._keep_before_replacing(keep)
        await snapshots.restore_from(self._db, self.snapshot_path(name))
        await self._db.set_meta({"last_snapshot": name})
        await self.reload()

    async def undo(self) -> str:
        """Take back the last turn exactly (graph and scene included); returns what the player had typed."""
        await self._parts.enrichment.pause()
        taken_back = self.history[-1].player_input if self.history else ""
        await self._db.undo_last_turn()
        await self.reload()
        return taken_back

    async def restart(self, keep: str) -> None:
        """Back to turn 0; the game so far is kept first as the snapshot ``keep``."""
        await self._keep_before_replacing(keep)
        await self._db.rewind_to_start()  # one transaction: a kill mid-way leaves the game as it was
        await self.reload()

    async def _keep_before_replacing(self, keep: str) -> None:
        """The one way a command that replaces the game (restart, restore) keeps it: the background reading
        stops first, so the copy is the game as the player left it and nothing lands in it afterwards."""
        await self._parts.enrichment.pause()
        await snapshots.snapshot_to(self._db, self.snapshot_path(keep))

    async def set_verbose(self, verbose: bool) -> None:
        """Describe revisited places in full (or not); kept in the save."""
        self._pipeline.state.verbose = verbose
        await self._db.set_meta({"verbose": "1" if verbose else "0"})

    async def reload(self) -> None:
        """Re-read graph, scene and history from disk (after undo, restore or restart)."""
        self._pipeline.state = await self.read_state()

    async def read_state(self, *, lazy: bool = True, source: GraphSource | None = None) -> PlayState:
        """The whole game as the save holds it (``read_play_state``).

        Read inside a transaction (as retry reads the game before a turn it has undone but not committed),
        a lazy graph needs a ``source`` that sees what the transaction does (``graph_before_turn``), or
        ``lazy=False``: it reads through a second connection, which sees only what is committed.
        """
        return await read_play_state(self._db, self.world, self.settings, self.verbose, lazy=lazy, source=source,
                                     registry=self.registry)

    def start_transcript(self, path: Path) -> None:
        """Log every command and its output as plain text to ``path`` (appending)."""
        self._parts.transcript.start(path)

    def stop_transcript(self) -> None:
        self._parts.transcript.stop()
