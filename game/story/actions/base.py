"""The shape every action has, after Inform's standard rules: check, carry out, report.

``check`` reads the intent against the scene and either refuses (a ``Refusal``: said, and no time
passes, so no beat fires) or returns a plan: what exactly will happen. ``carry_out`` changes the state
(and applies content effects, which record relations), ``report`` says what happened. Keeping the three
apart means a rule can be added between them without an action knowing, and a check can never have
changed anything when it refuses.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, Generic, TypeVar

from game.story.context import Refusal, Turn
from game.story.parser import Intent

Plan = TypeVar("Plan")


class Action(ABC, Generic[Plan]):
    """One action family member (going, taking, asking ...); the runner checks it, then ``finish``es it."""

    @abstractmethod
    async def check(self, turn: Turn, intent: Intent) -> Plan | Refusal:
        """What will happen, or why it cannot. Changes nothing."""

    async def carry_out(self, turn: Turn, plan: Plan) -> None:
        """Change the state. Most looking and talking changes nothing, hence the empty default."""

    async def report(self, turn: Turn, plan: Plan) -> None:
        """Tell the player what happened."""

    def takes_time(self, plan: Plan) -> bool:
        """Whether the story's clock moves (and beats run). Looking, listing and thinking change
        nothing, so they cost nothing: a player who reads the room is not punished for it."""
        return True


async def finish(action: Action[Any], turn: Turn, plan: Any) -> None:
    """Run ``action`` once its check has answered ``plan``: a refusal is said and stops it before anything
    changes. The runner checks first itself, so a refused line can be tried again with its typos read."""
    if isinstance(plan, Refusal):
        turn.fail(turn.unnamed(plan).message)
        return
    await action.carry_out(turn, plan)
    await action.report(turn, plan)
    if not action.takes_time(plan):
        turn.log.time_passes = False
