"""A turn's context for the narrator: which providers it is composed from, and what each narrator is handed.

``default_providers`` is the ONE place a section joins the turn: adding a provider is adding one line
there. ``compose_turn`` runs the orchestrator (``game.mind.context``) over them for the people present,
and ``narrator_inputs`` turns the composed context back into the two blocks narrators always had
(``npcContext`` and each person's knowledge), now cut to the budget; the other sections reach a model
through the prompt's mind block and the offline engine through ``NarrationRequest.context``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from game.graph.index import GraphIndex
from game.graph.models import Node
from game.graph.retrieve import ScopedRetrieval
from game.mind.context import CONTEXT_TABLE, ComposedContext, ContextSettings, compose
from game.mind.context_budget import TokenCount, estimate_tokens
from game.mind.context_graph import GraphProvider, knowledge_by_name, npc_context
from game.mind.scene_provider import SceneProvider
from game.mind.sections import ContextProvider, ContextQuery
from game.registry import default_registry
from game.store.packed import json_text
from game.store.rows import RowWrite
from game.world.scene import SceneState


class ContextState(Protocol):
    """What the providers read of the game as the turn starts (``PlayState`` is one): the context is
    composed from these alone, so it depends on no turn machinery."""

    @property
    def graph(self) -> GraphIndex: ...
    @property
    def scene(self) -> SceneState: ...
    @property
    @property
    def features(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class ContextInputs:
    """What a turn's providers are made from: the game as the turn starts and what retrieval found."""

    state: ContextState
    scoped: ScopedRetrieval
    knowers: Sequence[Node]
    """The player, then each person on stage: whose knowledge the narrator is told."""


def default_providers(inputs: ContextInputs) -> list[ContextProvider]:
    """Every provider of a turn's context, in the order its sections are listed. One line per section."""
    return [
        SceneProvider(),
        GraphProvider(inputs.scoped.retrieval),
        *default_registry().retrieval_providers(inputs.state.features, inputs.scoped, inputs.knowers),  # KNOWLEDGE
        *default_registry().context_providers(inputs.state.features, minds=True),  # RELATIONSHIP, MEMORY
        *default_registry().question_providers(inputs.state.features, inputs.state.graph),  # a question to ask
        *default_registry().context_providers(inputs.state.features),  # the features' own (DEEDS)
    ]


ProviderFactory = Callable[[ContextInputs], Sequence[ContextProvider]]


def focus(inputs: ContextInputs) -> tuple[str, ...]:
    """The people on stage (never the player), those the input names first: whom the sections are about."""
    state = inputs.state
    present = [node.id for node in inputs.knowers if node.id not in state.graph.player_ids]
    named = [node.id for node in inputs.scoped.retrieval.seed_nodes if node.id in present]
    return tuple(dict.fromkeys([*named, *present]))


async def compose_turn(turn: int, text: str, inputs: ContextInputs, settings: ContextSettings,
                       providers: ProviderFactory = default_providers,
                       count: TokenCount | None = None) -> ComposedContext:
    """The context of turn ``turn`` for ``text``: every provider's section within the budget."""
    state = inputs.state
    query = ContextQuery(turn=turn, player_input=text, focus=focus(inputs), graph=state.graph, scene=state.scene)
    return await compose(query, providers(inputs), settings, count or estimate_tokens)


def narrator_inputs(context: ComposedContext, scoped: ScopedRetrieval) -> tuple[str, dict[str, list[str]]]:
    """``npcContext`` and each knower's lines as narrators read them, cut to what the budget kept.

    A graph that cannot say who knows what (no player node) has no knowledge lines at all, as before.
    """
    knowledge = knowledge_by_name(context, list(scoped.knowledge)) if scoped.knowledge else {}
    return npc_context(context), knowledge


def context_row(context: ComposedContext) -> RowWrite:
    """The turn's context as a row of its own table: stored in the turn's transaction, undone with it."""
    return RowWrite(CONTEXT_TABLE, {"turn": context.turn},
                    {"turn": context.turn, "context": json_text(context.to_json())})
