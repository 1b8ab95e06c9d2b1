"""A game as the session holds it between turns (``PlayState``): what the next turn starts from.

Kept apart from the pipeline (``game.engine.turn``) because everything that reads or builds a game's state
(opening a save, the steps of a turn, the commit, a telling) needs it, and none of them needs the pipeline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from game.engine.meta import parse_meta
from game.features.attitudes.feature import AttitudesFeature
from game.features.attitudes.model import AttitudeBook
from game.features.memories.book import MemoryBook
from game.features.memories.feature import MemoriesFeature
from game.graph.index import GraphIndex
from game.narrator.base import PastTurn
from game.world.scene import SceneState

ATTITUDES, MEMORIES = AttitudesFeature.name, MemoriesFeature.name
"""The two features whose states every narrator reads (how people regard the player, what they remember)."""
HISTORY_TURNS = 24
"""How many recent turns a narrator sees (and the session keeps at hand)."""


@dataclass
class PlayState:
    """A game as it stands in play after its last stored turn: what the next turn starts from."""

    graph: GraphIndex
    scene: SceneState
    turn: int = 0
    history: deque[PastTurn] = field(default_factory=lambda: deque(maxlen=HISTORY_TURNS))
    verbose: bool = False
    last_input: str | None = None
    features: dict[str, Any] = field(default_factory=dict)
    """Each registered feature's state (``game.registry``), by feature name: deeds and who knows them."""

    @property
    def attitudes(self) -> AttitudeBook:
        """Every recorded attitude toward the player: the attitudes feature's state (empty without it)."""
        book = self.features.get(ATTITUDES)
        return book if isinstance(book, AttitudeBook) else AttitudeBook()

    @property
    def memories(self) -> MemoryBook:
        """What NPCs remember of the player and what they have said: the memories feature's state."""
        book = self.features.get(MEMORIES)
        return book if isinstance(book, MemoryBook) else MemoryBook()

    @classmethod
    def at(cls, graph: GraphIndex, scene: SceneState, turn: int, history: Iterable[PastTurn],
           verbose: bool, attitudes: AttitudeBook | None = None, memories: MemoryBook | None = None) -> PlayState:
        """The state of a game read back from a save (or seeded fresh): ``again`` repeats its last input.
        ``attitudes`` and ``memories`` are those features' states (the others' are set by the caller)."""
        past = deque(history, maxlen=HISTORY_TURNS)
        last = next((p.player_input for p in reversed(past) if not is_command(p.player_input)), None)
        minds = {ATTITUDES: attitudes or AttitudeBook(), MEMORIES: memories or MemoryBook()}
        return cls(graph, scene.model_copy(update={"verbose": verbose}), turn, past, verbose, last,
                   features=minds)


def is_command(text: str) -> bool:
    """Whether a stored turn's input was a command kept as a turn (``/knowledge NAME add ...``,
    ``/relationship NAME set ...``), not story: ``again`` never repeats one and narrators never see one in
    their history."""
    return parse_meta(text) is not None
