"""The committed model recordings (``tests/scripts/*.jsonl``) and the scripts that make them
(``tests/fixtures/llm/make_*.py``), for the tests that hold each recording to what its generator makes today.

The generators are scripts, not a package, so they are loaded from their files.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
GENERATORS = TESTS / "fixtures" / "llm"


def load_generator(filename: str) -> ModuleType:
    """A generator script (``make_kettle_recording.py``) as a module."""
    spec = importlib.util.spec_from_file_location(Path(filename).stem, GENERATORS / filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def recorded_requests(path: Path) -> list[Any]:
    """The requests a recording holds, in order (its first line is the header)."""
    return [json.loads(line)["request"] for line in path.read_text(encoding="utf-8").splitlines()[1:]]


def assert_generator_remakes(filename: str, recording: str, tmp_path: Path) -> None:
    """The generator's session still passes its script's checks and asks the model exactly what the
    committed recording holds: a changed prompt or world that was not recorded again fails here."""
    fresh = tmp_path / "fresh.jsonl"
    assert load_generator(filename).record(fresh).splitlines()[-1] == "1 passed, 0 failed"
    assert recorded_requests(fresh) == recorded_requests(TESTS / "scripts" / recording)
