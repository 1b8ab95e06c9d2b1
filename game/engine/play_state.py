"""A game as memory holds it between turns (``PlayState``): what the next turn starts from.

Kept apart from the pipeline (``game.engine.turn``) because everything that reads or builds a game's state
(opening a save, the steps of a turn, the commit, a telling) needs it, and none of them needs the pipeline.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from game.engine.meta import parse_meta
from game.graph.index import GraphIndex
from game.mind.attitude import AttitudeBook
from game.mind.memory import MemoryBook
from game.narrator.base import PastTurn
from game.world.scene import SceneState

HISTORY_TURNS = 24
"""How many recent turns a narrator sees (and the session keeps in memory)."""


@dataclass
class PlayState:
    """A game as it stands in memory after its last stored turn: what the next turn starts from."""

    graph: GraphIndex
    scene: SceneState
    turn: int = 0
    history: deque[PastTurn] = field(default_factory=lambda: deque(maxlen=HISTORY_TURNS))
    verbose: bool = False
    last_input: str | None = None
    attitudes: AttitudeBook = field(default_factory=AttitudeBook)
    """Every recorded attitude toward the player (``game.mind.attitude``)."""
    memories: MemoryBook = field(default_factory=MemoryBook)
    """What NPCs remember of the player and what they have said (``game.mind.memory``)."""
    features: dict[str, Any] = field(default_factory=dict)
    """Each registered feature's state (``game.registry``), by feature name: deeds and who knows them."""

    @classmethod
    def at(cls, graph: GraphIndex, scene: SceneState, turn: int, history: Iterable[PastTurn],
           verbose: bool, attitudes: AttitudeBook | None = None, memories: MemoryBook | None = None) -> PlayState:
        """The state of a game read back from a save (or seeded fresh): ``again`` repeats its last input."""
        past = deque(history, maxlen=HISTORY_TURNS)
        last = next((p.player_input for p in reversed(past) if not is_command(p.player_input)), None)
        return cls(graph, scene.model_copy(update={"verbose": verbose}), turn, past, verbose, last,
                   attitudes or AttitudeBook(), memories or MemoryBook())


def is_command(text: str) -> bool:
    """Whether a stored turn's input was a command kept as a turn (``/knowledge NAME add ...``,
    ``/relationship NAME set ...``), not story: ``again`` never repeats one and narrators never see one in
    their history."""
    return parse_meta(text) is not None
