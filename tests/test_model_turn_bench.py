"""Issue 25's prefix-cache targets, held by the suite on the benchmark's own game (its first six Brinefall
turns): the narration and World IR prompts each extend the previous turn's by at least 85%, every step is
measured (calls, prompt and completion tokens), and no turn makes more than its three calls.

Prefix shares are a property of the requests the server receives, not a timing, so they are asserted here;
``make bench`` prints the same figures over 30 turns with the targets' verdict.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.model_turn_bench import (
    QUICK_TURNS,
    SHARE_TARGET,
    calls_per_turn,
    figures,
    missed_targets,
    model_game,
    offline_telling,
)


async def test_six_brinefall_turns_meet_the_prefix_cache_targets(tmp_path: Path) -> None:
    told = await offline_telling(tmp_path, QUICK_TURNS)
    assert len(told) == QUICK_TURNS
    sent = (await model_game(tmp_path, told)).sent
    by_step = figures(sent, len(told))
    turns = calls_per_turn(sent)
    assert missed_targets(by_step, turns) == []
    for step in ("narrate", "world-ir"):
        row = by_step[step]
        assert row.calls == 1 and row.prompt > 500 and row.completion > 0, step
        assert len(row.shares) == QUICK_TURNS - 1 and min(row.shares) > 0.5, (step, row.shares)
        assert sum(row.shares) / len(row.shares) >= SHARE_TARGET, (step, row.shares)
    assert 0 < by_step["extract"].calls <= 1
    assert sorted(turns) == list(range(1, QUICK_TURNS + 1))
    assert all(steps[:2] == ["narrate", "world-ir"] and len(steps) <= 3 for steps in turns.values()), turns


def test_a_fourth_call_is_a_missed_target_unless_it_is_a_memory() -> None:
    from benchmarks.model_turn_bench import Sent, StepFigures

    good = StepFigures(1, 100, 10, [0.9, 0.95])
    steps = {"narrate": good, "world-ir": good}
    sent = [Sent(1, step, "", 1, 1) for step in ("narrate", "world-ir", "extract", "memory")]
    assert missed_targets(steps, calls_per_turn(sent)) == []
    sent.append(Sent(1, "narrate", "", 1, 1))
    assert missed_targets(steps, calls_per_turn(sent)) == ["turn 1 made 5 calls (narrate, world-ir, extract, "
                                                           "memory, narrate)"]
    low = {**steps, "world-ir": StepFigures(1, 100, 10, [0.5, 0.6])}
    assert missed_targets(low, {}) == ["world-ir prefix share 55.0% < 85%"]
