"""What a feature that tells turns again may ask of the engine, and what it hands back: a narrow reach.

The engine keeps the turn loop (the game as it stood before the last turn, the one pipeline, the one
commit); a feature that retells (``Feature.retells``: the tellings feature's retry, continue, edits,
``/swipe``, Story mode) keeps the rest: which telling, what is refused, its rows. It gets a ``RetellReach``
and streams what the player is shown: a ``str`` (its reply, shown as the command's output), a ``Replaced``
(the last turn told another way), or whatever the reach's ``retell``/``tell`` yielded, passed on as it is
(the engine's own events, which a feature neither reads nor imports).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from game.graph.ports import GraphWrites
from game.store.rows import RowWrite
from game.store.told_log import Told

if TYPE_CHECKING:
    from game.store.database import SaveDatabase, TurnRecord


@dataclass(frozen=True)
class Telling:
    """How the pipeline tells a turn other than afresh: with a later seed (retry), from a narration given
    as written (an edit, Story mode), or on from one (continue)."""

    seed_shift: int = 0
    given: str | None = None
    """The narration as the player wrote it: nothing is narrated, World IR and extraction read it."""
    story: bool = False
    """Story mode: ``given`` is the player's own text added to the story, not a narrator's."""
    continue_from: str = ""
    """The narration so far: the narrator writes on from it and the turn keeps both, read as one."""


@dataclass(frozen=True)
class ToldTurn:
    """A turn as the commit keeps it, for a feature that keeps every telling: enough to write it again."""

    record: TurnRecord
    writes: GraphWrites
    scene: dict[str, Any]
    """The scene after the turn, as JSON."""
    told: tuple[Told, ...] = ()
    rows: tuple[RowWrite, ...] = ()
    """Every feature's rows the turn wrote."""
    usage: Mapping[str, int] = field(default_factory=dict)
    """A model narrator's requests and tokens by step."""
    story: bool = False
    """The player's own writing (Story mode), told by no narrator."""


@dataclass(frozen=True)
class Replaced:
    """The last turn is now told as ``narration``: telling ``index`` of ``count`` (the engine's
    ``TurnReplaced``). ``narrated``: the front ends are given the narration too, first (a flip, an undone
    edit), where no pipeline streamed it."""

    turn: int
    narration: str
    index: int
    count: int
    player_input: str = ""
    narrated: bool = False


Keep = Callable[[ToldTurn], Awaitable[Replaced]]
"""Stores a turn told again in place of the last one (inside the commit) and says what the turn is now."""


class RetellReach(Protocol):
    """All a retelling feature's commands may use of the game: the save, the turn, and the pipeline."""

    @property
    def turn(self) -> int:
        """Committed player turns; 0 before the first."""
    @property
    def db(self) -> SaveDatabase:
        """The open save, for the feature's own tables."""
    @property
    def carried(self) -> tuple[str, ...]:
        """The tables of the player's own words (``Feature.across_tellings``): kept as they are now."""
    @property
    def last_narration(self) -> str:
        """What the last turn says now ("" before any turn)."""
    @property
    def ended(self) -> str:
        """The game's reply to a new turn once the story has reached its end; "" while it goes on."""
    def is_command(self, text: str) -> bool:
        """Whether a stored turn's input was a command kept as a turn (``/relationship NAME set ...``)."""
    def answered_in(self, rows: Sequence[RowWrite], turn: int) -> str | None:
        """Why turn ``turn``, which wrote ``rows``, was an answer to a feature's question that no telling may
        replay (identity's "yes" folded two people), or None: it was no answer."""
    async def reload(self) -> None:
        """Read the game back from the save (after the feature wrote its tables: a flip, an undone edit)."""
    def retell(self, said: str, how: Telling, keep: Keep) -> AsyncIterator[object]:
        """Tell the last turn again as ``said``, ``how``, from the game as it stood before it; ``keep`` stores
        it in place of the turn inside the one commit, and its ``Replaced`` follows the commit's events."""
    def tell(self, said: str, how: Telling) -> AsyncIterator[object]:
        """Tell a new turn ``said``, ``how`` (Story mode), committed as any turn."""


RetellHandler = Callable[[RetellReach, str], AsyncIterator[object]]
"""A retelling feature's meta command: given the reach and what followed the word, what it shows (see above)."""
