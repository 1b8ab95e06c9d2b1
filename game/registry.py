"""The one place Kith's features are listed; the core reads their steps, tables and commands from here.

Like simonw/llm's ``hookspecs.py``, each extension point is one ``register_*`` function with a one-line
docstring, and the built-in features are registered through them like anyone's (``default_registry``).
The engine never names a feature: it runs ``features`` in order inside each turn (game/engine/
feature_steps.py), reads back ``tables`` at opening, and asks ``check_parser`` and ``add_graph_commands``
for what scripts and the command line offer. Adding a feature is one ``register_feature`` call here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from game.store.migrations import schema_of

if TYPE_CHECKING:
    import argparse

    import aiosqlite

    from game.config import Settings
    from game.features.feature import (
        Answered,
        AnswerReach,
        CheckParser,
        Feature,
        Handler,
        Instruction,
        Remembering,
    )
    from game.features.memories.book import MemorySettings
    from game.features.retelling import ToldTurn
    from game.graph.index import GraphIndex
    from game.graph.models import Node
    from game.graph.retrieve import ScopedRetrieval
    from game.mind.sections import ContextProvider
    from game.store.database import SaveDatabase
    from game.store.merge_log import MergeEntry, MergeReport
    from game.store.rows import RowWrite
    from game.store.schema import Schema


class Registry:
    """The features of a game, in the order their turn steps run."""

    def __init__(self) -> None:
        self._features: dict[str, Feature] = {}

    def register_feature(self, feature: Feature) -> None:
        """Add a feature: its step runs after those registered before it."""
        if feature.name in self._features:
            raise ValueError(f"a feature named {feature.name!r} is registered already")
        self._features[feature.name] = feature

    def __iter__(self) -> Iterator[Feature]:
        return iter(self._features.values())

    def in_step_order(self) -> tuple[Feature, ...]:
        """The features in the order their turn steps run: registration order, those that step last
        (``Feature.steps_last``) after all the others."""
        return (*(f for f in self if not f.steps_last), *(f for f in self if f.steps_last))

    def feature(self, name: str) -> Feature:
        """The feature called ``name`` (KeyError if there is none)."""
        return self._features[name]

    def tables(self) -> tuple[str, ...]:
        """Every table the features own, in registration order."""
        return tuple(table for feature in self for table in feature.tables)

    def schema(self) -> Schema:
        """The save's schema for a game of these features: the core's migrations and each feature's own
        (``Feature.migrations``), in one numbering. Raises ``ValueError`` if two declare one number, or a
        number is missing.

        A game that leaves a built-in feature out still holds its shipped tables (they stay empty): the
        save's one numbering has no gap, and a save keeps opening in every game, with or without it."""
        own = [migration for feature in self for migration in feature.migrations]
        declared = {migration.version for migration in own}
        kept = [migration for migration in builtin_schema().migrations
                if migration.owner != "core" and migration.version not in declared]
        return schema_of((*own, *kept))

    def check_tags(self) -> tuple[str, ...]:
        """Every ``{tag}`` a script check line may start with, from the features."""
        return tuple(tag for feature in self for tag in feature.script_checks)

    def check_parser(self, tag: str) -> CheckParser | None:
        """The parser of ``{tag}`` checks, or None when no feature offers one."""
        for feature in self:
            if tag in feature.script_checks:
                return feature.check_parser(tag)
        return None

    def meta_words(self) -> dict[str, str]:
        """Every meta command the features handle (word -> its line of help), in registration order."""
        return {word: line for feature in self for word, line in feature.meta_commands.items()}

    def command_owner(self, word: str) -> Feature | None:
        """The feature that handles the meta command ``word``, or None when none does."""
        return next((feature for feature in self if word in feature.meta_commands), None)

    def bare_words(self) -> frozenset[str]:
        """The features' meta commands that need no ``/`` when typed alone (``Feature.bare_words``)."""
        return frozenset(word for feature in self for word in feature.bare_words)

    def mode_command(self, mode: str) -> str | None:
        """The meta command a line typed in input ``mode`` is (``Feature.input_modes``), or None."""
        return next((feature.input_modes[mode] for feature in self if mode in feature.input_modes), None)

    def help_sections(self) -> list[str]:
        """The features' own paragraphs of ``help`` (``Feature.help_section``), in registration order."""
        return [feature.help_section for feature in self if feature.help_section]

    def retellers(self) -> tuple[Feature, ...]:
        """The features that tell turns again (``Feature.retells``)."""
        return tuple(feature for feature in self if feature.retells)

    def turn_rows(self, told: ToldTurn) -> list[RowWrite]:
        """The rows every committed turn leaves for the features that keep its tellings."""
        return [row for feature in self.retellers() for row in feature.turn_rows(told)]

    def undo_owner(self, kind: str) -> Feature | None:
        """The feature whose commands leave undo steps of ``kind``, or None."""
        return next((feature for feature in self if kind in feature.undo_kinds), None)

    def across_tellings(self) -> tuple[Feature, ...]:
        """The features holding the player's own words, which a retelling keeps as they are now."""
        return tuple(feature for feature in self if feature.across_tellings)

    def instructions(self, states: Mapping[str, Any]) -> list[Instruction]:
        """The player's standing words for the narrator, from every feature that gives them."""
        return [line for feature in self if feature.gives_instructions
                for line in feature.instructions(states.get(feature.name))]

    def standing_words(self, states: Mapping[str, Any], place: str) -> str:
        """What the narrator is given at ``place`` (``memory``, ``authors_note``): every feature's words there."""
        return "\n\n".join(line.text for line in self.instructions(states) if line.place == place and line.text)

    def tunings(self, settings: Settings | None, *, imported: bool = False) -> dict[str, Any]:
        """Every feature's tuning (``Feature.tuning``) by name, built from ``settings`` in one place."""
        return {feature.name: feature.tuning(settings, imported=imported) for feature in self}

    def retrieval_providers(self, states: Mapping[str, Any], scoped: ScopedRetrieval,
                            knowers: Sequence[Node]) -> list[ContextProvider]:
        """The sections the features read from the turn's scoped retrieval (KNOWLEDGE), in registration order."""
        return [feature.retrieval_provider(states.get(feature.name), scoped, knowers) for feature in self
                if feature.reads_retrieval]

    def context_providers(self, states: Mapping[str, Any], *, minds: bool = False) -> list[ContextProvider]:
        """The narrator's context sections the features give, in registration order: those of the people's
        minds (``Feature.mind_section``: RELATIONSHIP, MEMORY) with ``minds``, the others without."""
        return [feature.context_provider(states.get(feature.name)) for feature in self
                if feature.provides_context and feature.mind_section == minds]

    def question_providers(self, states: Mapping[str, Any], graph: GraphIndex) -> list[ContextProvider]:
        """The sections putting a question to the player this turn (IDENTITY), in registration order."""
        asking = (feature.question_provider(states.get(feature.name), graph) for feature in self if feature.asks_player)
        return [provider for provider in asking if provider is not None]

    def answer(self, states: Mapping[str, Any], reach: AnswerReach) -> Answered | None:
        """The player's line as the first feature that takes it reads it (an answer), or None: story."""
        for feature in self:
            if feature.answers_player and (answered := feature.answer(states.get(feature.name), reach)) is not None:
                return answered
        return None

    def answered_in(self, rows: Sequence[RowWrite], turn: int) -> str | None:
        """Why a turn that wrote ``rows`` was an answer no telling may replace (None: it was none)."""
        return next((why for feature in self if feature.answers_player
                     if (why := feature.answered_in(rows, turn)) is not None), None)

    async def merge_people(self, db: SaveDatabase, conn: aiosqlite.Connection, merges: Sequence[MergeEntry],
                           turn: int, settings: MemorySettings) -> list[MergeReport]:
        """A turn's merges written in its commit's transaction by the feature that merges people (none
        registered: nobody is merged), with the reports of the people folded."""
        owner = next((feature for feature in self if feature.merges_people), None)
        if owner is None or not merges:
            return []
        return await owner.merge_people(db, conn, merges, turn, settings)

    def explain(self, states: Mapping[str, Any], node_id: str, graph: GraphIndex) -> list[str]:
        """What every feature that ``explains`` adds to ``/why NAME``, in registration order, a blank line
        between one feature's section and the next."""
        lines: list[str] = []
        for feature in self:
            if feature.explains:
                section = feature.explain(states.get(feature.name), node_id, graph)
                lines += [*([""] if lines and section else []), *section]
        return lines

    async def remember(self, facts: Remembering, states: Mapping[str, Any],
                       tunings: Mapping[str, Any]) -> list[RowWrite]:
        """The rows of every feature that ``remembers`` (the told turn's last step), in registration order,
        each given its own state and tuning."""
        from dataclasses import replace

        return [row for feature in self if feature.remembers
                for row in await feature.remember(replace(facts, state=states.get(feature.name),
                                                          tuning=tunings.get(feature.name)))]

    def add_graph_commands(self, actions: argparse._SubParsersAction[argparse.ArgumentParser],
                           handler: Callable[[str, str], Handler]) -> None:
        """Let every feature that declares ``kith graph`` commands add them."""
        for feature in self:
            if feature.graph_commands:
                feature.add_graph_commands(actions, handler)


def register_builtin(registry: Registry) -> None:
    """Register Kith's own features (its default plugins), in the order their steps run: word of relations
    travels first, so deeds and the attitudes see what reached whom this turn; the attitudes move after every
    other feature's step (``Feature.steps_last``), and are listed before the memories so the narrator reads
    how someone regards the player before what they remember; memories form last (``Feature.remember``),
    from everything the turn did; the tellings keep every turn as it was told. Identity comes first: its
    step only turns the upserts' judgements of new names into questions, and its question is the first asked
    of the features' sections (IDENTITY before DEEDS, as the context always listed them)."""
    from game.features.attitudes import AttitudesFeature
    from game.features.deeds import DeedsFeature
    from game.features.gossip import GossipFeature
    from game.features.identity import IdentityFeature
    from game.features.memories import MemoriesFeature
    from game.features.notes import NotesFeature
    from game.features.tellings import TellingsFeature

    registry.register_feature(IdentityFeature())
    registry.register_feature(GossipFeature())
    registry.register_feature(DeedsFeature())
    registry.register_feature(NotesFeature())
    registry.register_feature(AttitudesFeature())
    registry.register_feature(MemoriesFeature())
    registry.register_feature(TellingsFeature())


@cache
def default_registry() -> Registry:
    """The registry every game uses: the built-in features (built once, on first use: no work at import)."""
    registry = Registry()
    register_builtin(registry)
    return registry


@cache
def builtin_schema() -> Schema:
    """``default_registry().schema()`` read from the built-in features' ``schema`` modules alone, without
    their rules: ``kith graph dump`` and ``retrieve`` compare a save's format and may not load them (issue
    15). A built-in feature with migrations is listed here as in ``register_builtin`` (a test holds the two
    equal)."""
    from game.features.attitudes import schema as attitudes
    from game.features.deeds import schema as deeds
    from game.features.gossip import schema as gossip
    from game.features.identity import schema as identity
    from game.features.memories import schema as memories
    from game.features.tellings import schema as tellings

    return schema_of((*identity.MIGRATIONS, *gossip.MIGRATIONS, *deeds.MIGRATIONS, *attitudes.MIGRATIONS,
                      *memories.MIGRATIONS, *tellings.MIGRATIONS))
