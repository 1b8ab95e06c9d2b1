"""Settings, from one documented order: command-line flags, then environment, then ``kith.toml``, then
defaults. Every field has a docstring because ``docs/configuration.md`` is written from them.

Reading the sources (files, environment, folders) is ``game.settings_source``, which loads no pydantic;
this module validates what it read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from game.base_url import check_base_url, shown_url, without_userinfo
from game.errors import ConfigError
from game.settings_source import (
    SettingsSource,
    default_content_dir,
    default_saves_dir,
    default_worlds_dir,
    gather_settings,
)


class LLMSettings(BaseModel):
    """The ``[llm]`` table: an OpenAI-compatible endpoint. With no base URL and no model, Kith stays offline."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    """Endpoint root, e.g. ``http://localhost:11434/v1`` for Ollama; unset means OpenAI itself."""
    model: str | None = None
    """Model for every step unless a step names its own; unset asks the server for its only model."""
    narrator_model: str | None = None
    """Model for the narration step only."""
    extractor_model: str | None = None
    """Model for the World IR and extraction steps only."""
    api_key_env: str = Field(default="OPENAI_API_KEY", pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """Name of the environment variable holding the key; the key itself is never stored."""
    temperature: float = Field(default=0.8, ge=0.0, le=2.0)
    """Sampling temperature for the narration; the World IR and extraction steps always use 0."""
    context_size: int = Field(default=8192, ge=1024)
    """The model's context window in tokens; the history window is fitted to it."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds to wait for a response (or for the next piece of a streamed one) before giving up."""
    retries: int = Field(default=2, ge=0, le=10)
    """Retries on 429 and 5xx answers, with backoff. A read timeout is never retried (the server may still
    be generating, and a second wait doubles the turn); a failed or dropped connection is retried once."""
    backoff: float = Field(default=0.5, ge=0.0, le=10.0)
    """Seconds before the first retry; doubles each retry, at most 8 s (a server's Retry-After wins)."""
    max_tool_rounds: int = Field(default=4, ge=0, le=16)
    """Character lookups the narrator may make in one turn before it must tell the turn (0: none)."""
    tools: bool = True
    """``false`` sends no tools at all (for servers that refuse them, e.g. llama-server without
    ``--jinja``): the narrator tells turns without lookups and the graph update reads the World IR alone."""
    extractor_steps: int = Field(default=4, ge=1, le=16)
    """Replies the extractor may take to record the turn (a rejected call costs one)."""
    repair_attempts: int = Field(default=2, ge=0, le=8)
    """Extra tries for a World IR reply that is not valid JSON for the schema."""
    narration_tokens: int = Field(default=700, ge=64, le=32768)
    """The narration's ``max_tokens``, and the room kept free for it when the history window is fitted."""
    world_ir_tokens: int = Field(default=1024, ge=64, le=32768)
    """``max_tokens`` of a World IR reply (a reply cut at the limit is asked again once with twice the room)."""
    extract_tokens: int = Field(default=1024, ge=64, le=32768)
    """``max_tokens`` of each extractor reply (a reply cut at the limit is asked again once with twice the room)."""
    memory_deadline: float = Field(default=60.0, gt=0)
    """Seconds the graph update (World IR and extraction together) may take in one turn before it is
    stopped; the narration is kept, marked for re-extraction. With the narration's deadline it bounds a
    turn (``game.narrator.llm.budget``): 60 s keeps the worst case at three minutes."""
    record_full: bool = False
    """With ``--record FILE``, keep each request's whole body and each reply's assembled text (the key
    masked), so a failing session can be read; a plain recording keeps summaries and replays the same."""
    structured_output: Literal["auto", "json_schema", "json_object", "none"] = "auto"
    """How the World IR step asks for JSON; ``auto`` starts with ``json_schema`` and falls back."""
    extraction: Literal["tools", "world-ir"] = "tools"
    """``tools``: the extractor model records the turn through tool calls; ``world-ir``: the turn's
    World IR is recorded as it is, for servers that cannot call tools."""

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        return check_base_url(value.strip())

    @property
    def narration_model(self) -> str | None:
        return self.narrator_model or self.model

    @property
    def extraction_model(self) -> str | None:
        return self.extractor_model or self.model


class RetrievalConfig(BaseModel):
    """The ``[retrieval]`` table: the pre-turn walk's budget."""

    model_config = ConfigDict(extra="forbid")

    max_hops: int = Field(default=2, ge=1, le=4)
    hub_threshold: int = Field(default=30, ge=1)
    max_fanout: int = Field(default=20, ge=1)
    limit: int = Field(default=20, ge=1, le=100)
    metapaths: bool = True
    """Meta-path patterns (the defaults and the world's) raise a two-hop fact along a meaningful path;
    on because the probe worlds recall more with them (``make bench``, metapath_bench)."""
    discovered_patterns: bool = False
    """Also use the patterns ``kith graph patterns --discover`` kept in the save (only with ``metapaths``)."""


class GossipConfig(BaseModel):
    """The ``[gossip]`` table: how word travels between NPCs after each turn."""

    model_config = ConfigDict(extra="forbid")

    exchanges_per_turn: int = Field(default=3, ge=0, le=50)
    pair_cooldown: int = Field(default=3, ge=0, le=1000)
    decay: float = Field(default=0.7, gt=0.0, le=1.0)
    floor: float = Field(default=0.3, ge=0.0, le=1.0)


class ContextConfig(BaseModel):
    """The ``[context]`` table: what the narrator is told about the people of a turn, and within what.

    Sections are named by their tag (MEMORY, RELATIONSHIP, KNOWLEDGE, GRAPH, SCENE), in any case.
    """

    model_config = ConfigDict(extra="forbid")

    budget: int = Field(default=2000, ge=50, le=200_000)
    """Tokens every section together may take."""
    time_limit_ms: float = Field(default=250.0, gt=0, le=60_000)
    """How long one provider may take before its section is left out of the turn."""
    shares: dict[str, float] = Field(default_factory=dict)
    """Sections' shares of the budget (weights, normalised over the sections a turn has)."""
    time_limits_ms: dict[str, float] = Field(default_factory=dict)
    """Per-section time limits that differ from ``time_limit_ms``."""

    @field_validator("shares", "time_limits_ms")
    @classmethod
    def _by_section(cls, value: dict[str, float]) -> dict[str, float]:
        out: dict[str, float] = {}
        for name, number in value.items():
            if not name.strip() or not name.replace("_", "").isalnum():
                raise ValueError(f"{name!r} is not a section name (MEMORY, RELATIONSHIP, KNOWLEDGE, GRAPH, SCENE, IDENTITY)")
            if not 0 < number <= 60_000 or number != number:
                raise ValueError(f"{name}: must be above 0 (got {number})")
            out[name.strip().upper()] = float(number)
        return out
class MemoryConfig(BaseModel):
    """The ``[memory]`` table: what NPCs remember of the player."""

    model_config = ConfigDict(extra="forbid")

    capacity: int = Field(default=200, ge=1, le=10000)
    """Episodic memories kept per NPC; past it the least relevant (importance, strength, age) is forgotten."""


class Settings(BaseModel):
    """Everything Kith can be told."""

    model_config = ConfigDict(extra="forbid")

    world: str | None = None
    """World to start new games in (a folder name under ``content/``); the only world if unset."""
    narrator: Literal["auto", "offline", "openai"] = "auto"
    """``auto`` uses the model when an endpoint is configured, otherwise the offline narrator."""
    seed: int = 0
    """Seed for the offline narrator's choices, so a game replays the same."""
    saves_dir: Path = Field(default_factory=default_saves_dir)
    content_dir: Path = Field(default_factory=default_content_dir)
    """Folder of the shipped worlds (the checkout's ``content/``, or the installed copy)."""
    worlds_dir: Path = Field(default_factory=default_worlds_dir)
    """Folder of your own worlds (``~/.local/share/kith/worlds``); a world found only here is played from it."""
    llm: LLMSettings = Field(default_factory=LLMSettings)
    retrieval: RetrievalConfig = Field(default_factory=RetrievalConfig)
    gossip: GossipConfig = Field(default_factory=GossipConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)

    @property
    def uses_llm(self) -> bool:
        if self.narrator == "offline":
            return False
        if self.narrator == "openai":
            return True
        return bool(self.llm.base_url or self.llm.model)


def with_endpoint(settings: Settings, base_url: str | None, model: str | None) -> Settings:
    """``settings`` pointed at another endpoint (the settings screen's choice), checked as a flag would be:
    ``model_copy`` alone validates nothing, and an unchecked URL fails inside the HTTP client."""
    try:
        llm = LLMSettings.model_validate({**settings.llm.model_dump(), "base_url": base_url, "model": model})
    except ValidationError as error:
        raise ConfigError(_describe(error, lambda loc: "settings screen")) from error
    return settings.model_copy(update={"llm": llm})


def load_settings(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
    cwd: Path | None = None,
) -> Settings:
    """Build settings: flags > environment > file > defaults. ``flags`` is nested like the file.

    Only what is given is read: ``env`` (none means an empty environment) and ``cwd``, the folder whose
    ``kith.toml`` applies (none means no default settings file). The CLI passes ``os.environ`` and its
    working folder; everything else passes what it means.
    """
    return validate_settings(gather_settings(flags, env, config_file, cwd))


def validate_settings(source: SettingsSource) -> Settings:
    """The settings ``source`` read, validated; a bad value is a ``ConfigError`` naming where it was set."""
    try:
        return Settings.model_validate(source.data)
    except ValidationError as error:
        def where(loc: tuple[str | int, ...]) -> str:
            return _source(loc, source.flags, source.environment_sources, source.from_file, source.path)

        raise ConfigError(_describe(error, where)) from error


def _has(data: Mapping[str, Any], loc: tuple[str | int, ...]) -> bool:
    """Whether ``data`` (nested like the file) sets the setting at ``loc``."""
    value: Any = data
    for key in loc:
        if not isinstance(value, Mapping) or key not in value:
            return False
        value = value[key]
    return True


def _source(loc: tuple[str | int, ...], flags: Mapping[str, Any], environment: Mapping[tuple[str, ...], str],
            from_file: Mapping[str, Any], path: Path | None) -> str:
    """Where the value at ``loc`` came from, in the order that decides it: flag, variable, file."""
    if _has(flags, loc):
        return f"option --{str(loc[-1]).replace('_', '-')}"
    variable = environment.get(tuple(str(key) for key in loc))
    if variable is not None:
        return variable
    if path is not None and _has(from_file, loc[:1]):
        return str(path)
    return "settings"


def _describe(error: ValidationError, source: Callable[[tuple[str | int, ...]], str], limit: int = 6) -> str:
    """``SOURCE: field: problem (got VALUE)`` for each bad value, the value shown without credentials."""
    parts: list[str] = []
    for item in error.errors()[:limit]:
        loc = item["loc"]
        field = ".".join(str(key) for key in loc) or "settings"
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown field"
        got = item.get("input")
        shown = ""
        if loc[-1:] == ("base_url",) and isinstance(got, str):
            shown = f" (got '{shown_url(got.strip())}')"
        elif item["type"] not in {"missing", "extra_forbidden"} and not isinstance(got, dict | list):
            shown = f" (got {without_userinfo(got)!r})" if isinstance(got, str) else f" (got {got!r})"
        parts.append(f"{source(loc)}: {field}: {message}{shown}")
    more = len(error.errors()) - limit
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def world_folders(settings: Settings) -> list[tuple[str, Path]]:
    """The folders worlds are found in, first wins: the shipped ones, then the player's own."""
    return [("shipped", settings.content_dir), ("yours", settings.worlds_dir)]


def world_dir_of(settings: Settings, world_id: str) -> Path:
    """The folder that holds ``world_id``: the shipped worlds first, then the player's own (the shipped
    folder when neither has it, so the error names where worlds are looked for first)."""
    if not (settings.content_dir / world_id).is_dir() and (settings.worlds_dir / world_id).is_dir():
        return settings.worlds_dir
    return settings.content_dir


def with_world_folder(settings: Settings, world_id: str | None) -> Settings:
    """Settings whose ``content_dir`` holds ``world_id``: a world found only among the player's own worlds
    is played from there. A game opened by its save finds its world the same way (``world_dir_of``)."""
    folder = world_dir_of(settings, world_id) if world_id else settings.content_dir
    return settings if folder == settings.content_dir else settings.model_copy(update={"content_dir": folder})
