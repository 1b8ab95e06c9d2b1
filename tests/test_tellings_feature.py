"""Tellings are a feature that plugs in: the engine names none of its commands, and they still play."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args, get_type_hints

from game.engine.meta import help_text, parse_meta, read_line
from game.features.tellings import TellingsFeature
from game.narrator.base import NarrationRequest
from game.registry import Registry, default_registry

ENGINE = Path(__file__).resolve().parent.parent / "game" / "engine"
MODES = set(get_args(get_type_hints(NarrationRequest)["mode"]))
"""The narrator's modes ("continue", "story"): words of the narrator interface the pipeline may say."""


def telling_names(source: str) -> list[str]:
    """What a module names of the tellings feature: an import of it, or one of its command words as a
    string (docstrings aside), the narrator's modes excepted."""
    words = {*TellingsFeature.meta_commands, *(f"/{w}" for w in TellingsFeature.meta_commands)} - MODES
    tree = ast.parse(source)
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr)}
    found = [node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)
             and isinstance(node.value, str) and id(node) not in docs and node.value in words]
    found += [alias for node in ast.walk(tree) if isinstance(node, ast.ImportFrom | ast.Import)
              for alias in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names])
              if alias.startswith("game.features.tellings")]
    return found


def test_the_check_finds_a_telling_command_named_in_the_engine() -> None:
    assert telling_names('HANDLERS = {"swipe": swipe}') == ["swipe"]
    assert telling_names("from game.features.tellings.store import keep") == ["game.features.tellings.store"]
    assert telling_names('def f():\n    """retry"""\n    return "continue"') == []


def test_the_engine_names_no_telling_command() -> None:
    named = {path.name: telling_names(path.read_text(encoding="utf-8")) for path in sorted(ENGINE.glob("*.py"))}
    assert {name: found for name, found in named.items() if found} == {}


def test_the_telling_words_are_read_from_the_registry() -> None:
    assert parse_meta("retry") is not None and parse_meta("continue") is not None
    assert parse_meta("continue north") is None  # a word of the story with an argument
    assert parse_meta("swipe") is None and parse_meta("/swipe <") is not None
    assert read_line("the gulls rise", "story").text == "/story the gulls rise"
    assert default_registry().undo_owner("alternative") is default_registry().feature("tellings")
    bare = Registry()  # a game without the feature has none of its commands
    assert parse_meta("retry", bare) is None and "**Telling.**" not in help_text(bare)
    assert help_text().index("**Game.**") < help_text().index("**Telling.**") < help_text().index("**People.**")
