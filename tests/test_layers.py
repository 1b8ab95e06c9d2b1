"""The engine runs headless: nothing below the UI may import textual (design section 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

GAME = Path(__file__).resolve().parent.parent / "game"
HEADLESS = ["game.engine.session", "game.graph.retrieve", "game.graph.upsert", "game.store.database",
            "game.narrator.base", "game.narrator.ir_extract", "game.config", "game.errors"]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_pull_in_textual(module: str) -> None:
    code = f"import sys, {module}; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False", f"importing {module} imported textual"


def test_only_the_ui_package_imports_textual() -> None:
    offenders = []
    for path in GAME.rglob("*.py"):
        if path.is_relative_to(GAME / "ui"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name == "textual" or name.startswith("textual.") for name in names):
                offenders.append(str(path.relative_to(GAME.parent)))
    assert offenders == []


def test_graph_package_depends_only_on_itself() -> None:
    """Arrows point one way: the graph knows nothing of the store, engine, narrators or UI (only the
    shared text helpers and errors at the top of the package)."""
    offenders = []
    for path in (GAME / "graph").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("game.")
                    and not node.module.startswith(("game.graph", "game.errors", "game.text"))):
                offenders.append(f"{path.name}: {node.module}")
    assert offenders == []


def test_building_the_command_line_imports_neither_openai_nor_textual() -> None:
    """Every kith command builds the whole parser; heavy libraries load only when a command needs them."""
    code = ("import sys, game.__main__ as m; m.build_parser(); "
            "print(sorted(n for n in ('openai', 'textual', 'networkx') if n in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
