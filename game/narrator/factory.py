"""Which narrator tells a game: offline unless an endpoint is configured, or a recording says otherwise.

The offline narrator is imported only when it is chosen, and the LLM narrator only when a model is, so
neither pays for the other at start-up.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from game.config import Settings
from game.errors import ConfigError
from game.narrator.base import Narrator
from game.world import World


def make_narrator(settings: Settings, world: World, *, record: Path | None = None,
                  replay: Path | None = None, env: Mapping[str, str] | None = None) -> Narrator:
    """The narrator the settings ask for. A replay needs no endpoint; a recording needs one.

    ``env`` is where a model narrator reads its API key (the process environment when not given): the UI
    passes its own copy holding a key the player typed, so that key never enters ``os.environ`` where
    every child process and library would inherit it."""
    if replay is not None:
        from game.narrator.llm.narrator import OpenAINarrator

        return OpenAINarrator(settings.llm, world, replay=replay, record=record, env=env)
    if not settings.uses_llm:
        if record is not None:
            raise ConfigError("--record stores a model session, and no model is configured: give --base-url "
                              "and --model (or set [llm] in kith.toml).")
        from game.narrator.offline import OfflineNarrator

        return OfflineNarrator(world, seed=settings.seed)
    if settings.narrator == "openai" and not (settings.llm.base_url or settings.llm.model):
        raise ConfigError("narrator = \"openai\" needs an endpoint: give --base-url and --model, set "
                          "OPENAI_BASE_URL and KITH_MODEL, or fill [llm] in kith.toml.")
    from game.narrator.llm.narrator import OpenAINarrator

    return OpenAINarrator(settings.llm, world, record=record, env=env)

