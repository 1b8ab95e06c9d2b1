"""Suite-wide pytest configuration: the ``slow`` marker for whole modules.

Single slow tests carry ``@pytest.mark.slow`` where they are defined; the modules below are slow
throughout and are marked here, in one place. ``pytest -m "not slow"`` is the quick local loop; CI and
``make test`` run everything.
"""

from __future__ import annotations

import pytest

SLOW_MODULES = {
    "test_store_kill.py": "kills a writer process with SIGKILL mid-commit, over and over",
    "test_ui_snapshots.py": "renders whole screens through the real Textual app",
    "test_script_transcript.py": "runs `kith run --transcript` in fresh processes",
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
