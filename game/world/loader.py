"""Reading a world from ``content/<id>/``: every ``*.toml`` file, validated, merged and cross-checked.

A broken world fails with a ``ContentError`` whose lines each name the file and the field path
(``content/brinefall/characters.toml: characters[3].topics[0].reply: Field required``), never with a
traceback. Errors are collected across files so an author fixes several at once.
"""

from __future__ import annotations

import difflib
import os
import re
import stat
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from game.errors import ContentError
from game.graph.metapaths import make_pattern
from game.graph.vocabulary import Vocabulary
from game.world.checks import check_world
from game.world.model import World, WorldInfo
from game.world.schema import Replies, WorldDocument

WORLD_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
MAX_ERRORS = 12
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")


@dataclass
class Source:
    """One parsed file and the name errors give it."""

    label: str
    document: WorldDocument


def load_world(content_dir: Path, world_id: str) -> World:
    """Load, validate and index the world in ``content_dir / world_id``."""
    folder = _world_folder(content_dir, world_id)
    sources, errors = _read_sources(content_dir, folder, world_id)
    if errors:
        raise ContentError(_join(errors))
    world, errors = _assemble(folder_label(content_dir, world_id), world_id, sources)
    if errors or world is None:
        raise ContentError(_join(errors))
    return world


def list_worlds(content_dir: Path) -> list[WorldInfo]:
    """Every world folder under ``content_dir``, by id; a broken one is listed with its error."""
    if not content_dir.is_dir():
        return []
    infos: list[WorldInfo] = []
    for folder in sorted(p for p in content_dir.iterdir() if p.is_dir()):
        if not any(folder.glob("*.toml")):
            continue
        try:
            world = load_world(content_dir, folder.name)
        except ContentError as error:
            infos.append(WorldInfo(folder.name, _peek_title(folder) or folder.name, "", error.message))
            continue
        infos.append(WorldInfo(world.id, world.title, world.summary))
    return infos


def folder_label(content_dir: Path, world_id: str) -> str:
    """How errors name a world's folder: ``content/brinefall`` (short, and the same on every machine)."""
    return f"{content_dir.name}/{world_id}" if content_dir.name else world_id


def _world_folder(content_dir: Path, world_id: str) -> Path:
    if not WORLD_ID.fullmatch(world_id):
        raise ContentError(
            f"{world_id!r} is not a world id (lower-case letters, digits, '-' and '_', as a folder name)"
        )
    folder = content_dir / world_id
    if not folder.is_dir():
        known = sorted(p.name for p in content_dir.iterdir() if p.is_dir()) if content_dir.is_dir() else []
        hint = f" (worlds there: {', '.join(known)})" if known else ""
        raise ContentError(f"no world {world_id!r} in {content_dir}{hint}")
    return folder


def _read_sources(content_dir: Path, folder: Path, world_id: str) -> tuple[list[Source], list[str]]:
    files = sorted(folder.glob("*.toml"))
    if not files:
        return [], [f"{folder_label(content_dir, world_id)}: no .toml files in this world folder"]
    sources: list[Source] = []
    errors: list[str] = []
    for path in files:
        label = f"{folder_label(content_dir, world_id)}/{path.name}"
        try:
            data = _parse(path)
        except _Unreadable as problem:
            errors.append(f"{label}: {problem}")
            continue
        try:
            sources.append(Source(label, WorldDocument.model_validate(data)))
        except ValidationError as error:
            errors.extend(f"{label}: {line}" for line in describe_errors(error, WorldDocument))
        except RecursionError:
            errors.append(f"{label}: {NESTED_TOO_DEEPLY}")
    return sources, errors


NESTED_TOO_DEEPLY = "arrays or tables nested too deeply to be world content"


class _Unreadable(Exception):
    """Why a world file could not be parsed, in the words its error line uses."""


def _parse(path: Path) -> dict[str, Any]:
    """One file's TOML. Only a regular file is read: a FIFO would wait for a writer forever."""
    try:
        text = _read_regular_file(path).decode("utf-8")
        return tomllib.loads(text)
    except UnicodeDecodeError as error:
        raise _Unreadable(f"not UTF-8 text (byte {error.start})") from error
    except OSError as error:
        raise _Unreadable(f"cannot be read ({error.strerror or error})") from error
    except tomllib.TOMLDecodeError as error:
        raise _Unreadable(_toml_message(error)) from error
    except RecursionError as error:
        # tomllib parses nested arrays recursively: a few thousand ``[`` exhaust the stack.
        raise _Unreadable(NESTED_TOO_DEEPLY) from error


def _read_regular_file(path: Path) -> bytes:
    # O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer; the
    # fstat of what was opened (not a stat of the name before) then refuses anything but a file.
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise _Unreadable("not a regular file")
        return handle.read()


def _assemble(folder: str, world_id: str, sources: list[Source]) -> tuple[World | None, list[str]]:
    errors: list[str] = []
    world_tables = [(s.label, s.document.world) for s in sources if s.document.world is not None]
    player_tables = [(s.label, s.document.player) for s in sources if s.document.player is not None]
    for what, tables in (("world", world_tables), ("player", player_tables)):
        if not tables:
            errors.append(f"{folder}: no [{what}] table in any file (put it in world.toml)")
        elif len(tables) > 1:
            errors.append(f"{tables[1][0]}: {what}: a second [{what}] table (the first is in {tables[0][0]})")
    if errors:
        return None, errors
    vocabulary = Vocabulary.default().extended([spec for s in sources for spec in s.document.relations])
    replies = next((s.document.replies for s in sources if s.document.replies is not None), Replies())
    section, player = world_tables[0][1], player_tables[0][1]
    assert section is not None and player is not None
    world = World(
        id=world_id,
        section=section,
        player=player,
        vocabulary=vocabulary,
        characters=[c for s in sources for c in s.document.characters],
        places={p.id: p for s in sources for p in s.document.places},
        items={i.id: i for s in sources for i in s.document.items},
        relationships=[r for s in sources for r in s.document.relationships],
        beats=[b for s in sources for b in s.document.beats],
        commands=[c for s in sources for c in s.document.commands],
        endings={e.id: e for s in sources for e in s.document.endings},
        replies=replies,
        metapaths=tuple(make_pattern(p.relations, p.weight, "world", _canonical(vocabulary))
                        for s in sources for p in s.document.metapaths),
    )
    errors = check_world(world, [(s.label, s.document) for s in sources], world_tables[0][0])
    return (None if errors else world), errors


def _canonical(vocabulary: Vocabulary) -> Callable[[str], str]:
    return lambda relation: vocabulary.normalize(relation).name


def describe_errors(error: ValidationError, root: type[BaseModel]) -> list[str]:
    """Pydantic errors as ``path: message`` lines; an unknown field suggests the field it resembles."""
    lines: list[str] = []
    for item in error.errors():
        loc = [part for part in item["loc"] if part not in ("[key]",)]
        path = field_path(loc)
        message = item["msg"].removeprefix("Value error, ")
        if item["type"] == "extra_forbidden":
            message = "unknown field" + _suggestion(str(loc[-1]), _fields_at(root, loc[:-1]))
        elif item["type"] not in {"missing"} and not isinstance(item.get("input"), dict | list):
            message += f" (got {item.get('input')!r})"
        lines.append(f"{path or '(file)'}: {message}")
    return lines


def field_path(loc: list[Any] | tuple[Any, ...]) -> str:
    """``("characters", 3, "topics", 0, "reply")`` -> ``characters[3].topics[0].reply``."""
    path = ""
    for part in loc:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path


def _fields_at(root: type[BaseModel], loc: list[Any]) -> list[str]:
    """The field names (as written in TOML) the model at ``loc`` accepts, for a did-you-mean hint."""
    model: Any = root
    for part in loc:
        if isinstance(part, int) or model is None:
            continue
        info = model.model_fields.get(part) or next(
            (f for f in model.model_fields.values() if f.alias == part), None
        )
        if info is None:
            return []
        model = _inner_model(info.annotation)
    if model is None or not isinstance(model, type) or not issubclass(model, BaseModel):
        return []
    return [info.alias or name for name, info in model.model_fields.items()]


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def _suggestion(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _toml_message(error: tomllib.TOMLDecodeError) -> str:
    message = str(error)
    hint = ""
    if "Cannot mutate immutable namespace" in message:
        # The commonest way to get here: ``effects = { ... }`` followed by ``[[beats.effects.relations]]``.
        hint = (" (an inline table such as effects = { ... } cannot be extended by a later [[...]] header;"
                " write it as a [....effects] table instead)")
    match = _TOML_POSITION.search(message)
    if match is None:
        return f"TOML syntax error: {message}{hint}"
    return f"line {match[1]}, column {match[2]}: TOML syntax error: {message[: match.start()]}{hint}"


def _peek_title(folder: Path) -> str | None:
    """A broken world's title if its world.toml at least parses, so the list can still name it."""
    try:
        data = _parse(folder / "world.toml")
    except _Unreadable:
        return None
    title = data.get("world", {}).get("title") if isinstance(data.get("world"), dict) else None
    return title if isinstance(title, str) else None


def _join(errors: list[str]) -> str:
    shown = errors[:MAX_ERRORS]
    if len(errors) > MAX_ERRORS:
        shown.append(f"... and {len(errors) - MAX_ERRORS} more")
    return "\n".join(shown)
