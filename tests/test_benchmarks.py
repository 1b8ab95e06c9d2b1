"""The benchmark runner: every benchmark module is registered, and a name that is not one is refused.

Running them is ``make test``'s job (``python -m benchmarks --quick``, after the suite): here only what
would let a benchmark silently stop running.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.__main__ import BENCHMARKS, main

ROOT = Path(__file__).resolve().parent.parent


def test_every_benchmark_module_is_registered() -> None:
    modules = {path.stem for path in (ROOT / "benchmarks").glob("*_bench.py")}
    assert modules == set(BENCHMARKS)


def test_an_unknown_benchmark_name_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as leaving:
        main(["--quick", "graph_bnech"])
    assert leaving.value.code == 2
    assert "no benchmark named graph_bnech" in capsys.readouterr().err
