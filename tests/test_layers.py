"""The layers of docs/architecture.md hold: import-linter checks the contracts written in pyproject.toml.

The contracts themselves (layers, the graph alone at the bottom, textual only in game/ui, no cycles
between packages) live in ``[tool.importlinter]``; these tests run ``lint-imports`` on the code as it is,
and on copies of it with one forbidden import added, so a contract that stopped checking anything
would fail here too. The last test is about what loads at run time, which no static contract sees.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _lint_imports(package_parent: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter with the project's contracts over the ``game`` package found in ``package_parent``."""
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", "--no-logo", str(ROOT / "pyproject.toml")],
                          capture_output=True, text=True, cwd=package_parent, env=env, timeout=120)


def test_the_code_keeps_every_import_contract() -> None:
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


# One forbidden import per contract: (file to append it to, the import, the contract's name as printed).
BREAKS = [
    ("game/engine/events.py", "import textual", "Only game.ui imports textual"),
    ("game/graph/models.py", "import game.store.connection", "The graph imports nothing of ours"),
    ("game/world/loader.py", "import game.engine.events", "Arrows point one way"),
    ("game/store/connection.py", "import game.engine.events", "No import cycles between packages"),
    # Within one package: game.world.loader imports game.world.model, which must not import it back.
    ("game/world/model.py", "import game.world.loader", "nor between the modules of one package"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("path", "statement", "contract"), BREAKS, ids=[b[2] for b in BREAKS])
def test_a_forbidden_import_breaks_its_contract(tmp_path: Path, path: str, statement: str, contract: str) -> None:
    shutil.copytree(ROOT / "game", tmp_path / "game", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / path
    target.write_text(target.read_text(encoding="utf-8") + f"\n{statement}  # noqa\n", encoding="utf-8")
    result = _lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    broken = result.stdout.split("Broken contracts", 1)[-1]
    assert contract in broken, result.stdout


def test_building_the_command_line_imports_neither_openai_nor_textual() -> None:
    """Every kith command builds the whole parser; heavy libraries load only when a command needs them."""
    code = ("import sys, game.__main__ as m; m.build_parser(); "
            "print(sorted(n for n in ('openai', 'textual', 'networkx') if n in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


HEADLESS = ["game.engine.session", "game.graph.retrieve", "game.graph.upsert", "game.store.database",
            "game.narrator.base", "game.config", "game.errors"]


@pytest.mark.parametrize("module", HEADLESS)
def test_headless_module_does_not_pull_in_textual(module: str) -> None:
    """The contracts see import statements; this sees what importing a module really loads."""
    code = f"import sys, {module}; print('textual' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False", f"importing {module} imported textual"


def test_no_contract_lets_a_lower_layer_import_the_command_line() -> None:
    """The command line is the top layer: a front end that needs one of its checks (the settings screen's
    connection test) imports it from the layer below both, so no contract needs to ignore such an import."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ignored = [entry for contract in config["tool"]["importlinter"]["contracts"]
               for entry in contract.get("ignore_imports", [])]
    assert [entry for entry in ignored if "-> game.cli" in entry] == []
