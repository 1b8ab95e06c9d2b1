"""Judging a new name (``game.graph.identity_match.judge``) at 1k and 10k people, for ``make bench``
(10k people is a save of about 100k relation versions, the size the other benchmarks use).

A game's turn judges every name that matches no node against every person of the same type, so its cost
grows with the save. The words-in-common filter skips almost everyone before any rule runs; the figure
to read is the time per new name at each size (a turn makes a few new names at most).
"""

from __future__ import annotations

import random
import time

from game.graph.identity_match import judge
from game.graph.models import Node

FIRST = ("Bram", "Maud", "Jory", "Anna", "Tibby", "Hob", "Ness", "Pell", "Orla", "Fenn", "Dace", "Lise")
SYLLABLES = ("ket", "tle", "mar", "sh", "pi", "ke", "vor", "an", "dal", "wick", "ro", "ssen", "bel", "tor")


def people(size: int, rng: random.Random) -> list[Node]:
    nodes = []
    for index in range(size):
        surname = "".join(rng.choice(SYLLABLES) for _ in range(3)).title()
        name = f"{rng.choice(FIRST)} {surname}"
        nodes.append(Node(id=f"npc-{index}", name=name, type="individual", summary=f"{name}, one of the town.",
                          labels=["sailor"] if index % 50 == 0 else [], first_seen_turn=0, last_seen_turn=0))
    return nodes


def run(quick: bool) -> list[str]:
    sizes, names = ((300,), 20) if quick else ((1_000, 10_000), 200)
    lines = []
    for size in sizes:
        rng = random.Random(size)
        nodes = people(size, rng)
        asked = [f"Captain {node.name.split()[1]}" for node in rng.sample(nodes, names // 2)]
        asked += [f"Jem {''.join(rng.choice(SYLLABLES) for _ in range(3)).title()}" for _ in range(names // 2)]
        decisions: dict[str, int] = {}
        judge("Nobody Yet", "individual", [], nodes)  # the first judgement reads every node's words once
        started = time.perf_counter()
        for name in asked:
            verdict = judge(name, "individual", [], nodes)
            decisions[verdict.decision] = decisions.get(verdict.decision, 0) + 1
        per_name = (time.perf_counter() - started) * 1000 / len(asked)
        tally = ", ".join(f"{kind} {count}" for kind, count in sorted(decisions.items()))
        lines.append(f"{size:>7} people: {per_name:7.2f} ms per new name ({tally})")
    return lines
