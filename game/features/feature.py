"""What a feature is to the core: a name, the tables it owns, its state, its turn step, its extras.

Modelled on simonw/llm's hookspecs and Harlequin's adapters: every feature answers the same few questions,
and the optional ones (script checks, ``kith graph`` commands) are declared by the class attribute that
lists them, never probed for. The engine keeps each feature's state in memory beside the game
(``PlayState.features``), built from the save's rows at opening (``load``) and moved forward only by the
rows a committed turn wrote (``apply``): memory follows the store, and undo, which rewinds the rows,
rewinds the state when the game is read back.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.graph.retrieve import ScopedRetrieval
from game.mind.attitude_rules import Delta
from game.mind.memory import MemoryBook
from game.mind.sections import ContextProvider
from game.store.rows import RowWrite, Scalar
from game.world.ir import WorldIR

if TYPE_CHECKING:
    from game.config import Settings
    from game.features.retelling import Replaced, RetellHandler, RetellReach, ToldTurn
    from game.store.database import SaveDatabase

Rows = Mapping[str, Sequence[Mapping[str, Scalar]]]
"""A feature's tables as the save holds them: table name -> every row (column -> value)."""


@dataclass(frozen=True)
class TurnFacts:
    """What a feature's after-turn step may read: the turn as the core has it just before the commit."""

    turn: int
    graph: GraphIndex
    """The graph as the turn began (this turn's writes are in ``writes``)."""
    writes: GraphWrites
    world_ir: WorldIR | None
    """The turn's World IR (None when the narrator could not give one: nothing happened that is known)."""
    places: Mapping[str, str]
    """Where each person stands after the turn (node ID -> place): who can meet whom."""
    present: frozenset[str]
    """The node IDs of the people with the player this turn, the player included."""
    seed: int
    tuning: Any = None
    """This feature's tuning (``Feature.tuning``), None when the game was given no settings."""
    state: Any = None
    """This feature's own state before the turn (``Feature.load``/``apply``)."""
    dead: frozenset[str] = frozenset()
    """People who can tell nothing any more (a world marks them dead)."""
    said: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """What each NPC has said to the player as the turn began (node ID -> key -> turn: ``met``,
    ``revealed:NAME:KEY``...), as their memories keep it: a secret of one's own told is a confession."""


@dataclass(frozen=True)
class HeardDeed:
    """Word of a deed of the player's reaching someone this turn, as a feature states it (``StepResult``):
    the memories feature forms the memory (``game.features.memories.rules``), so its sequence numbers,
    bounds and consolidation stay the book's own."""

    npc: str
    """Who heard it (node ID)."""
    sentence: str
    """The deed as the deeds book says it: "Wren Tallis threatened Tibby Tarrant."."""
    teller: str
    """Who told them (node ID), or "" when nobody knows who."""
    valence: float
    about: str
    """Whom it was done to (node ID)."""
    tags: tuple[str, ...]
    rumour: bool = False


@dataclass(frozen=True)
class StepResult:
    """What a feature's step adds to the turn: rows of its tables, written in the turn's one transaction."""

    rows: tuple[RowWrite, ...] = ()
    attitudes: tuple[tuple[str, Delta], ...] = ()
    """Changes to people's attitudes toward the player (node ID, change): applied with the turn's others."""
    covered: tuple[tuple[str, str], ...] = ()
    """Relation news of this turn (``(edge ID, knower)``) whose change these attitudes already stand for: the
    fear a threat made reaching someone who knows of the threat does not move them a second time."""
    knowings: Mapping[tuple[str, str], Knowing] = field(default_factory=dict)
    """Knower rows of the graph the step adds (word of a relation reaching someone: gossip's), by
    ``(edge ID, knower)``. The core joins them to the turn's graph writes before the next feature's step,
    so they commit, journal and undo with the graph's own writes, and the attitudes and memories read them."""
    memories: tuple[HeardDeed, ...] = ()
    """Word of the player's deeds heard this turn, for the memory step to remember as heard."""


@dataclass(frozen=True)
class Remembering:
    """What a feature's last step of a told turn reads (``Feature.remember``): the turn once the attitudes
    moved, with what the features said was heard, and the memory book as the turn began."""

    turn: int
    graph: GraphIndex
    """The graph as the turn began."""
    writes: GraphWrites
    """The turn's graph writes, the features' knower rows and the attitudes' agreement included."""
    world_ir: WorldIR | None
    book: MemoryBook
    """What NPCs remember of the player as the turn began (``PlayState.memories``)."""
    narrator: object
    """The turn's narrator: one with a model may lend it to write consolidated memories."""
    heard: tuple[HeardDeed, ...] = ()
    """Word of the player's deeds heard this turn (``StepResult.memories`` of every feature)."""
    covered: tuple[tuple[str, str], ...] = ()
    """Relation news the features' attitude changes stand for (``StepResult.covered``)."""


ScriptCheck = Callable[[Mapping[str, Any], GraphIndex | None], tuple[bool, str]]
"""A parsed script check: given every feature's state and the graph, whether it holds and what it saw."""
CheckParser = Callable[[str], ScriptCheck]
"""Reads the rest of a check line (after its ``{tag}``); a ``ValueError`` says what is wrong with it."""
Handler = Callable[[argparse.Namespace, Any], int]


class CommandReach(Protocol):
    """All a feature's meta command may use of the game: the turn, its own state, one undoable change.

    Narrow on purpose (the session has dozens of members; a feature's command needs these three), so a
    feature never depends on the engine above it and the core may change behind this face.
    """

    @property
    def turn(self) -> int:
        """Committed player turns; 0 before the first."""
    @property
    def state(self) -> Any:
        """This feature's state now (``Feature.load``/``apply``), as the save holds it."""
    async def change(self, rows: Sequence[RowWrite], undo_kind: str, undo_data: Mapping[str, Scalar]) -> None:
        """Write ``rows`` now, in one transaction, as a change ``undo`` takes back on its own before the
        turn (``Feature.undo_change(undo_kind, undo_data)`` says how); journaled at the current turn, so
        undoing that turn takes it back too. The feature's state is read back afterwards."""


MetaHandler = Callable[[CommandReach, str], Awaitable[str]]
"""A feature's meta command: given the reach and what followed the command's word, the reply shown (Markdown).
A ``KithError`` it raises is shown as its message, the game unchanged."""
UndoChange = tuple[str, Sequence[RowWrite]]
"""What an undone change was (``the change to the Memory``) and the rows that put things back as before it."""


@dataclass(frozen=True)
class Instruction:
    """Standing words of the player's that a narrator is given every turn (the notes feature's Memory)."""

    place: Literal["memory", "authors_note"]
    """Where they go: ``memory`` in the system prompt, ``authors_note`` near the end of the prompt."""
    label: str
    """What ``/mind`` calls them ("Memory")."""
    text: str
    """The words; "" when the player has given none."""


class Feature(ABC):
    """One feature of the game. Subclasses set ``name`` and ``tables`` and implement the four methods."""

    name: ClassVar[str]
    """The feature's key in ``PlayState.features`` and in the registry."""
    tables: ClassVar[tuple[str, ...]] = ()
    """The save's tables this feature owns: read back whole at opening, written only by its rows."""
    script_checks: ClassVar[tuple[str, ...]] = ()
    """The ``{tag}``s of headless script checks it offers (``check_parser`` reads them)."""
    graph_commands: ClassVar[tuple[str, ...]] = ()
    """The ``kith graph`` subcommands it adds (``add_graph_commands`` adds them)."""
    meta_commands: ClassVar[Mapping[str, str]] = {}
    """The meta commands it handles in play, each word (typed after a ``/``: ``/note``) with its line of
    ``help``; ``meta_handler`` gives each one's handler."""
    undo_kinds: ClassVar[tuple[str, ...]] = ()
    """The kinds of undo step its commands leave (``CommandReach.change``); ``undo_change`` reads them."""
    bare_words: ClassVar[tuple[str, ...]] = ()
    """Those of ``meta_commands`` that are commands without a ``/`` too, when typed alone (``retry``):
    with an argument, slashed or not, the line is story ("continue north")."""
    input_modes: ClassVar[Mapping[str, str]] = {}
    """Input modes of the screen it serves (mode -> one of its ``meta_commands``): a line typed in the mode
    is that command with the line as its argument (Story mode: ``/story LINE``)."""
    help_section: ClassVar[str] = ""
    """A paragraph of ``help`` of its own, after the game's commands, for commands said best together
    (their ``meta_commands`` lines are then "")."""
    across_tellings: ClassVar[bool] = False
    """Whether its tables hold the player's own words, changed between turns by its commands: a retelling
    of the last turn keeps them as they are now (carried across, never replayed as the turn's writes)."""

    @abstractmethod
    def load(self, rows: Rows) -> Any:
        """The feature's state from its tables' rows (a new game: no rows)."""

    @abstractmethod
    def apply(self, state: Any, rows: Sequence[RowWrite]) -> Any:
        """The state after a committed turn wrote ``rows`` (any table's: a feature takes its own)."""

    @abstractmethod
    async def after_turn(self, facts: TurnFacts) -> StepResult:
        """The feature's step once the turn's graph writes (and the steps registered before it) are known."""

    def tuning(self, settings: Settings | None, *, imported: bool = False) -> Any:
        """What the feature's step is tuned by (``TurnFacts.tuning``), built once from the player's settings
        (None: a game given none, as tests make) when a game opens or its settings change. ``imported``: the
        turns of a story brought in as a save (``kith import-story``), in which nothing happens but what
        its text says. A feature that reads no settings keeps this default (None)."""
        return None

    provides_context: ClassVar[bool] = False
    """Whether ``context_provider`` gives the narrator a section of its own."""

    def context_provider(self, state: Any) -> ContextProvider:
        """The feature's section of the narrator's context (``provides_context``), over its state."""
        raise NotImplementedError(f"{self.name} gives the narrator no section")

    reads_retrieval: ClassVar[bool] = False
    """Whether ``retrieval_provider`` gives a section made from the turn's scoped retrieval."""

    def retrieval_provider(self, state: Any, scoped: ScopedRetrieval, knowers: Sequence[Node]) -> ContextProvider:
        """The feature's section read from the turn's scoped retrieval (``reads_retrieval``): ``knowers`` are
        the player, then each person on stage. Listed right after GRAPH, the retrieval's own section (the
        gossip feature's KNOWLEDGE: what each of them knows, and how sure)."""
        raise NotImplementedError(f"{self.name} reads no retrieval")

    explains: ClassVar[bool] = False
    """Whether ``explain`` adds lines to ``/why NAME``."""

    def explain(self, state: Any, node_id: str, graph: GraphIndex) -> list[str]:
        """Lines for ``/why NAME`` (``explains``): what the feature holds about the person ``node_id``."""
        raise NotImplementedError(f"{self.name} adds nothing to /why")

    gives_instructions: ClassVar[bool] = False
    """Whether ``instructions`` gives the narrator standing words of the player's every turn."""

    def instructions(self, state: Any) -> list[Instruction]:
        """The player's standing words for the narrator (``gives_instructions``), over the feature's state."""
        raise NotImplementedError(f"{self.name} gives the narrator no standing words")

    remembers: ClassVar[bool] = False
    """Whether ``remember`` forms rows after the attitudes moved: the told turn's last step, which reads
    what every feature's step and the attitudes left (the memories feature's)."""

    async def remember(self, facts: Remembering) -> Sequence[RowWrite]:
        """The rows the turn's last step adds (``remembers``): NPCs' memories of what the turn did."""
        raise NotImplementedError(f"{self.name} forms nothing after the attitudes")

    retells: ClassVar[bool] = False
    """Whether it tells turns again (``game.features.retelling``): its meta commands get a ``RetellReach``
    and stream (``retell_handler``), its undo steps are taken back through it (``undo_retelling``), and
    every committed turn leaves its rows (``turn_rows``). The tellings feature's."""

    def retell_handler(self, word: str) -> RetellHandler:
        """The handler of the meta command ``word`` of a feature that ``retells``."""
        raise NotImplementedError(f"{self.name} tells no turn again")

    def turn_rows(self, told: ToldTurn) -> Sequence[RowWrite]:
        """Rows written with every committed turn (``retells``): the turn as its first telling."""
        raise NotImplementedError(f"{self.name} keeps no telling")

    async def undo_retelling(self, reach: RetellReach, seq: int, kind: str,
                             data: Mapping[str, Any]) -> tuple[str, Replaced] | None:
        """Take back the undo step ``seq`` (``retells``): what it was and the telling now kept; None when
        there is nothing to restore (the feature dropped the step, and ``undo`` goes on to the next)."""
        raise NotImplementedError(f"{self.name} tells no turn again")

    async def kept_telling(self, reach: RetellReach) -> Replaced | None:
        """The last turn as the save keeps it (``retells``), None before any turn or when it keeps none."""
        raise NotImplementedError(f"{self.name} keeps no telling")

    async def turn_usage(self, db: SaveDatabase, turn: int) -> dict[str, int]:
        """The tokens the kept telling of ``turn`` cost, by step (``retells``)."""
        raise NotImplementedError(f"{self.name} keeps no telling")

    def meta_handler(self, word: str) -> MetaHandler:
        """The handler of the meta command ``word`` (one of ``meta_commands``)."""
        raise NotImplementedError(f"{self.name} handles no meta command {word!r}")

    def undo_change(self, kind: str, data: Mapping[str, Any]) -> UndoChange:
        """How to take back a change its command made (an undo step of ``kind``, one of ``undo_kinds``);
        a ``ValueError`` says the step cannot be read (a damaged save)."""
        raise NotImplementedError(f"{self.name} leaves no undo step {kind!r}")

    def check_parser(self, tag: str) -> CheckParser:
        """The parser of the script check ``{tag}`` (one of ``script_checks``)."""
        raise NotImplementedError(f"{self.name} offers no script check {{{tag}}}")

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        """Add the ``graph_commands`` to ``kith graph``; ``handler(module, name)`` runs the async command
        ``game.cli.MODULE.NAME`` (the command line opens the save and prints; the feature says what)."""
        raise NotImplementedError(f"{self.name} adds no kith graph command")
