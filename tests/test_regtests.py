"""Every test of every ``tests/scripts/*.regtest`` as its own pytest test, played in-process.

The parametrize id is ``file::test name``, so a failure names the test; its message is the same report
``kith run`` prints. Helper tests (``_name``) run only through the tests that include them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from game.config import Settings
from game.errors import InputError
from game.script.parser import Script, TestCase, load_script, select_tests
from game.script.report import format_result
from game.script.runner import ScriptRunner

SCRIPTS = Path(__file__).parent / "scripts"


def collect() -> list[object]:
    cases: list[object] = []
    for path in sorted(SCRIPTS.glob("*.regtest")):
        try:
            script = load_script(path)
        except InputError as error:
            cases.append(pytest.param(None, error.message, id=f"{path.name}::(does not parse)"))
            continue
        cases.extend(pytest.param(script, test, id=f"{path.name}::{test.name}")
                     for test in select_tests(script, []))
    return cases


@pytest.mark.parametrize(("script", "test"), collect())
async def test_regtest(script: Script | None, test: TestCase | str, tmp_path: Path) -> None:
    if script is None:
        pytest.fail(str(test), pytrace=False)
    assert isinstance(test, TestCase)
    # Defaults only: a developer's kith.toml or environment must not change what the scripts see.
    runner = ScriptRunner(Settings(saves_dir=tmp_path / "saves"))
    result = await runner.run_test(script, test)
    if not result.passed:
        pytest.fail(f"{script.path.name}: * {test.name}\n{format_result(result)}", pytrace=False)


def test_the_scripts_folder_has_scripts() -> None:
    assert sorted(SCRIPTS.glob("engine-*.regtest")), "tests/scripts/engine-*.regtest are missing"
