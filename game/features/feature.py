"""What a feature is to the core: a name, the tables it owns, its state, its turn step, its extras.

Modelled on simonw/llm's hookspecs and Harlequin's adapters: every feature answers the same few questions,
and the optional ones (script checks, ``kith graph`` commands) are declared by the class attribute that
lists them, never probed for. The engine keeps each feature's state beside the game in play
(``PlayState.features``), built from the save's rows at opening (``load``) and moved forward only by the
rows a committed turn wrote (``apply``): the state follows the store, and undo, which rewinds the rows,
rewinds the state when the game is read back.
"""

from __future__ import annotations

import argparse
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, runtime_checkable

from game.graph.index import GraphIndex
from game.graph.knowledge import Knowing
from game.graph.models import Node
from game.graph.ports import GraphWrites
from game.graph.retrieve import ScopedRetrieval
from game.graph.upsert import UpsertExecution
from game.graph.vocabulary import Vocabulary
from game.mind.context import ComposedContext
from game.mind.sections import ContextProvider
from game.store.merge_log import MergeEntry, MergeReport
from game.store.rows import RowWrite, Scalar
from game.store.schema import Migration
from game.world.ir import WorldIR
from game.world.scene import SceneState
from game.world.tiers import TIERS, Tier

if TYPE_CHECKING:
    import aiosqlite

    from game.config import Settings
    from game.features.retelling import Replaced, RetellHandler, RetellReach, ToldTurn
    from game.store.database import SaveDatabase

Rows = Mapping[str, Sequence[Mapping[str, Scalar]]]
"""A feature's tables as the save holds them: table name -> every row (column -> value)."""


@dataclass(frozen=True)
class Delta:
    """A change to add to someone's attitude toward the player, and why (the reason its history shows).

    Here, not in the attitudes feature, because a step result carries it (``StepResult.attitudes``): any
    feature may move attitudes, and the attitudes package, which applies them, imports this module."""

    trust: float = 0.0
    respect: float = 0.0
    friendliness: float = 0.0
    reason: str = ""

    def scaled(self, factor: float) -> Delta:
        return Delta(self.trust * factor, self.respect * factor, self.friendliness * factor, self.reason)

    def plus(self, other: Delta) -> Delta:
        return Delta(self.trust + other.trust, self.respect + other.respect,
                     self.friendliness + other.friendliness, self.reason)

    def is_zero(self) -> bool:
        return round(self.trust, 1) == 0 and round(self.respect, 1) == 0 and round(self.friendliness, 1) == 0


@dataclass(frozen=True)
class TierChange:
    """Someone's tier toward the player moved this turn (``StepResult.tiers``): the core tells it, and the
    story may say a line of it."""

    npc_id: str
    name: str
    before: Tier
    after: Tier

    @property
    def fell(self) -> bool:
        return TIERS.index(self.after) < TIERS.index(self.before)


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
    attitudes: tuple[tuple[str, Delta], ...] = ()
    """The attitude changes the features whose steps ran before this one stated (``StepResult.attitudes``)."""
    covered: tuple[tuple[str, str], ...] = ()
    """The relation news those changes stand for (``StepResult.covered``)."""
    context: ComposedContext | None = None
    """What the narrator was told this turn (the sections the budget kept): a question it carried was asked."""
    execution: UpsertExecution | None = None
    """The turn's upserts as they ran (what each call decided, new names judged included); None when the
    turn's graph update is not the narrator's extraction (it failed, and the fast path kept what it could)."""


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
    agreement: Mapping[str, Any] = field(default_factory=dict)
    """An upsert call of the game's own rules (by name) the core runs through the turn's extraction once
    the step is done, its writes joining the turn's (the attitudes' tier kept in agreement with the graph);
    {} when none. Not a reading of the turn's text: the limits on endings read from text neither hold it."""
    tiers: tuple[TierChange, ...] = ()
    """Tiers toward the player the step moved: told to the player once committed, said by the story."""
    merges: tuple[MergeEntry, ...] = ()
    """Entries of the merge log the turn writes in its transaction (a name assumed to be someone's), or
    people it folds together (``Feature.merge_people`` writes them)."""


@dataclass(frozen=True)
class Remembering:
    """What a feature's last step of a told turn reads (``Feature.remember``): the turn once the attitudes
    moved, with what the features said was heard; the registry adds the feature's own state and tuning."""

    turn: int
    graph: GraphIndex
    """The graph as the turn began."""
    writes: GraphWrites
    """The turn's graph writes, the features' knower rows and the attitudes' agreement included."""
    world_ir: WorldIR | None
    narrator: object
    """The turn's narrator: one with a model may lend it to write consolidated memories."""
    heard: tuple[HeardDeed, ...] = ()
    """Word of the player's deeds heard this turn (``StepResult.memories`` of every feature)."""
    covered: tuple[tuple[str, str], ...] = ()
    """Relation news the features' attitude changes stand for (``StepResult.covered``)."""
    state: Any = None
    """This feature's own state as the turn began (the memories feature's: its book)."""
    tuning: Any = None
    """This feature's tuning (``Feature.tuning``), None when the game was given no settings."""


ScriptCheck = Callable[[Mapping[str, Any], GraphIndex | None], tuple[bool, str]]
"""A parsed script check: given every feature's state and the graph, whether it holds and what it saw."""
CheckParser = Callable[[str], ScriptCheck]
"""Reads the rest of a check line (after its ``{tag}``); a ``ValueError`` says what is wrong with it."""
Handler = Callable[[argparse.Namespace, Any], int]


class CommandReach(Protocol):
    """All a feature's meta command may use of the game: the turn, its own state, the people the player
    knows, one undoable change.

    Narrow on purpose (the session has dozens of members; a feature's command needs these four), so a
    feature never depends on the engine above it and the core may change behind this face.
    """

    @property
    def turn(self) -> int:
        """Committed player turns; 0 before the first."""
    @property
    def state(self) -> Any:
        """This feature's state now (``Feature.load``/``apply``), as the save holds it."""
    async def person(self, name: str) -> Node:
        """The one person the player knows by ``name`` (met or heard of; the unknown are never found);
        a ``KithError`` says who was meant, as every inspector command's refusal does."""
    async def change(self, rows: Sequence[RowWrite], undo_kind: str, undo_data: Mapping[str, Scalar]) -> None:
        """Write ``rows`` now, in one transaction, as a change ``undo`` takes back on its own before the
        turn (``Feature.undo_change(undo_kind, undo_data)`` says how); journaled at the current turn, so
        undoing that turn takes it back too. The feature's state is read back afterwards."""


@runtime_checkable
class GraphReach(CommandReach, Protocol):
    """The reach of a feature that declares ``changes_graph``: its commands also read the graph as the
    player knows it and may keep graph writes as a turn of their own (``/knowledge NAME add ...``).

    Still narrow: names are resolved by the inspector commands' one rule, and the change goes through the
    core's one commit, so the feature neither resolves names its own way nor commits its own way.
    """

    @property
    def graph(self) -> GraphIndex:
        """The graph now."""
    @property
    def vocabulary(self) -> Vocabulary:
        """The world's relations: what a command's predicate is checked against."""
    @property
    def seed(self) -> int:
        """The game's seed, for anything the change draws by chance (as a told turn's upsert does)."""
    @property
    def known(self) -> frozenset[str] | None:
        """The node IDs of the people the player has met or heard of; None when they may see everyone."""
    async def named(self, name: str) -> Node:
        """The one person or faction the player knows of that ``name`` means (``person`` finds individuals
        only); a ``KithError`` otherwise, in the words every inspector command refuses with, so no command
        tells who exists before the story."""
    def keep_as_turn(self, text: str, writes: GraphWrites, rows: Sequence[RowWrite] = (),
                     tiers: Sequence[TierChange] = ()) -> None:
        """Keep ``writes`` (and the feature's ``rows``) as a turn of its own once the command returns
        (``text``: what the player typed, as ``undo`` names it): committed through the core's one commit, the
        command's reply shown first, then what the commit changed, ``tiers`` told and said like a turn's.
        ``undo`` takes it back as it takes back any turn."""


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


class MergeSaid(Protocol):
    """What a turn's story adds once its commit folded people together (a tier line), asked inside the
    commit's transaction with what the merges did; the tier changes it found are told like a turn's."""

    changes: list[TierChange]
    """The tiers the merges moved, known once it was called."""
    said: dict[str, str]
    """The line said of each of ``changes``, by node ID."""

    def __call__(self, reports: Sequence[MergeReport]) -> str:
        """The lines that end the turn's narration ("" for nothing)."""


@dataclass(frozen=True)
class AnswerReach:
    """What a feature's answer to the player's line may read (``Feature.answer``): the game as it stands."""

    text: str
    graph: GraphIndex
    turn: int
    """Committed player turns; the answer is kept as turn ``turn + 1``."""
    scene: SceneState
    attitudes: Any
    """The attitudes feature's state (its ``AttitudeBook``): how each person regards the player now."""
    tier_lines: Callable[[str, Any], str | None] | None
    """The story's line for a person whose tier moved (``TierLines``), None when the world has none."""


@dataclass(frozen=True)
class Answered:
    """The player's line taken as an answer, kept as a turn of its own (``undo`` steps back over it)."""

    reply: str
    rows: tuple[RowWrite, ...]
    merges: tuple[MergeEntry, ...]
    """People the answer folds together, in the turn's commit (``Feature.merge_people``)."""
    scene: SceneState
    """The scene after it (who the player knows, once people are one)."""
    said: MergeSaid | None = None
    kind: str = "identity"
    """The reply's kind, as the front ends show it."""


class Feature(ABC):
    """One feature of the game. Subclasses set ``name`` and ``tables`` and implement the four methods."""

    name: ClassVar[str]
    """The feature's key in ``PlayState.features`` and in the registry."""
    tables: ClassVar[tuple[str, ...]] = ()
    """The save's tables this feature owns: read back whole at opening, written only by its rows."""
    migrations: ClassVar[tuple[Migration, ...]] = ()
    """The migrations that create its tables (and any later change to them), kept in its own package
    (``game/features/NAME/schema.py``) with ``owner`` its ``name``. Their numbers are the save's one
    sequence (``game.store.schema``): a new table takes the next free number, and ``Registry.schema``
    puts them with the core's and every other feature's."""
    script_checks: ClassVar[tuple[str, ...]] = ()
    """The ``{tag}``s of headless script checks it offers (``check_parser`` reads them)."""
    graph_commands: ClassVar[tuple[str, ...]] = ()
    """The ``kith graph`` subcommands it adds (``add_graph_commands`` adds them)."""
    meta_commands: ClassVar[Mapping[str, str]] = {}
    """The meta commands it handles in play, each word (typed after a ``/``: ``/note``) with its line of
    ``help``; ``meta_handler`` gives each one's handler."""
    changes_graph: ClassVar[bool] = False
    """Whether its meta commands read the graph and keep graph writes as turns: their reach is a ``GraphReach``."""
    undo_kinds: ClassVar[tuple[str, ...]] = ()
    """The kinds of undo step its commands leave (``CommandReach.change``); ``undo_change`` reads them."""
    steps_last: ClassVar[bool] = False
    """Whether its step runs after every other feature's (``Registry.in_step_order``): the attitudes, which
    apply the changes the others state (``StepResult.attitudes``), whenever those were registered."""
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
    """Whether its tables hold the player's own words, changed between turns by its commands: a new telling
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

    mind_section: ClassVar[bool] = False
    """Whether that section is of the people's minds (how they regard the player, what they remember):
    listed with them, right after what they know, before the questions of identity and the features' other
    sections (``Registry.context_providers(minds=True)``)."""

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

    asks_player: ClassVar[bool] = False
    """Whether ``question_provider`` may put a question to the player through the narrator."""

    def question_provider(self, state: Any, graph: GraphIndex) -> ContextProvider | None:
        """The section asking this turn's question (``asks_player``), None when none waits, so a turn
        without one is composed exactly as if the feature gave no section."""
        raise NotImplementedError(f"{self.name} asks the player nothing")

    answers_player: ClassVar[bool] = False
    """Whether ``answer`` may take the player's next line as an answer to what was asked, not as story."""

    def answer(self, state: Any, reach: AnswerReach) -> Answered | None:
        """The player's line as an answer (``answers_player``), or None when it is story to be told."""
        raise NotImplementedError(f"{self.name} takes no answers")

    def answered_in(self, rows: Sequence[RowWrite], turn: int) -> str | None:
        """Why turn ``turn``, which wrote ``rows``, cannot be told again (``answers_player``): it was an
        answer, and a telling would take it as story and lose what it did. None: it was no answer."""
        raise NotImplementedError(f"{self.name} takes no answers")

    merges_people: ClassVar[bool] = False
    """Whether ``merge_people`` folds the people a turn's ``merges`` name (one feature does: identity)."""

    async def merge_people(self, db: SaveDatabase, conn: aiosqlite.Connection, merges: Sequence[MergeEntry],
                           turn: int, settings: Any) -> list[MergeReport]:
        """Write a turn's ``merges`` inside its commit's transaction (``merges_people``; ``settings``: the
        memories feature's bounds, which the folded memories keep); the reports of the people folded (none: the game can follow the turn's rows as they are)."""
        raise NotImplementedError(f"{self.name} merges nobody")
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
