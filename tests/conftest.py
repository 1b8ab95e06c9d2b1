"""Suite-wide pytest configuration: no settings from the machine, and the ``slow`` marker for whole modules.

Shared helpers live in ``tests/helpers/`` (imported as ``helpers.*``): ``play`` (a game in memory, or
lines played in a session), ``narrators`` (the one failing-narrator double), ``graph``, ``maps`` and
``ui`` (builders for those tests). ``playthrough``, ``llm_helpers``, ``store_helpers`` and ``chat_server``
sit beside the tests.

Single slow tests carry ``@pytest.mark.slow`` where they are defined; the modules below are slow
throughout and are marked here, in one place. ``pytest -m "not slow"`` is the quick local loop; CI and
``make test`` run everything.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def no_settings_from_this_machine(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                                  ) -> Iterator[None]:
    """The kith commands a test runs (in process or as a child) read an empty settings file and none of
    the machine's KITH_ or OPENAI_ variables: a developer's own kith.toml, endpoint or key cannot change
    a result, or reach a test server. A test that means to set one sets it itself."""
    for name in list(os.environ):
        if name.startswith(("KITH_", "OPENAI_")):
            monkeypatch.delenv(name)
    empty = tmp_path_factory.getbasetemp() / "empty-kith.toml"
    if not empty.exists():
        empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("KITH_CONFIG", str(Path(empty)))
    yield

SLOW_MODULES = {
    "test_store_kill.py": "kills a writer process with SIGKILL mid-commit, over and over",
    "test_ui_snapshots.py": "renders whole screens through the real Textual app",
    "test_script_transcript.py": "runs `kith run --transcript` in fresh processes",
    "test_adversarial_endless.py": "feeds fresh kith processes /dev/zero and pipes that never end",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
