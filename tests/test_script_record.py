"""``--record``: a script test told by a model is stored and then replays as ``narrator: replay:FILE``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from chat_server import ChatServer, Text, ToolCalls
from llm_helpers import WORLDS, character, edge, ir, relation

from game.__main__ import main

TRUST = edge("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, "Edda Marsh trusts Sam Reed since Sam steadied her wick.")
REPLIES = [
    Text("You steady the wick while Edda ties it. She grunts, which is thanks."),
    Text(json.dumps(ir(charactersPresent=["Sam Reed", "Edda Marsh"], entities=[character("Edda Marsh")],
                       relations=[relation("Edda Marsh", "Sam Reed", "TRUSTS", 0.6, TRUST["fact"])],
                       nextCast=["Edda Marsh"]))),
    ToolCalls([("upsert_npc_graph", {"edges": [TRUST]})]),
]
CHECKS = """\
* befriend
{graph} !Edda -> Sam: TRUSTS
> help Edda with the wick
You steady the wick
{graph} Edda Marsh -> Sam Reed: TRUSTS sign=+
"""


def test_record_a_model_told_test_then_replay_it_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_API_BASE", "KITH_MODEL", "KITH_NARRATOR"):
        monkeypatch.delenv(name, raising=False)
    live = tmp_path / "live.regtest"
    live.write_text("** world: tiny\n** narrator: openai\n" + CHECKS, encoding="utf-8")
    recording = tmp_path / "befriend.jsonl"
    with ChatServer() as server:
        server.push(*REPLIES)
        code = main(["--content-dir", str(WORLDS), "run", str(live), "--record", str(recording),
                     "--base-url", server.base_url, "--model", "test-model"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1] == "1 passed, 0 failed"
    assert recording.is_file()

    replayed = tmp_path / "replayed.regtest"
    replayed.write_text("** world: tiny\n** narrator: replay:befriend.jsonl\n" + CHECKS, encoding="utf-8")
    code = main(["--content-dir", str(WORLDS), "run", str(replayed)])  # no server now
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[-1] == "1 passed, 0 failed"


def test_record_refuses_an_offline_test_and_several_tests(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "offline.regtest"
    script.write_text("** world: tiny\n" + CHECKS + "* another\n> look\n", encoding="utf-8")
    record = str(tmp_path / "x.jsonl")
    code = main(["--content-dir", str(WORLDS), "run", str(script), "--record", record])
    assert code == 2
    assert "--record stores one test's model session; 2 tests are chosen" in capsys.readouterr().err
    code = main(["--content-dir", str(WORLDS), "run", str(script), "befriend", "--record", record])
    out = capsys.readouterr().out
    assert code == 1
    assert "'befriend' is told by the offline narrator: give it '** narrator: openai'" in out
    assert not Path(record).exists()
