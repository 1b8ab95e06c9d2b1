"""Make the probe worlds (``tests/data/probes/*.json``) that judge meta-paths (issue 13).

    .venv/bin/python tests/data/probes/make_probes.py

A probe world is a long game's graph as ``kith graph import`` lines (structure made early: families,
guilds and their leaders, debts and service; then a hundred turns of everyday relations piling up on
top), and probes: a player's message naming one person, and the relations a narrator needs to answer
it well. ``benchmarks/metapath_bench.py`` and ``tests/test_metapath_probes.py`` count how many of the
needed relations retrieval keeps within its 20 places, with meta-paths and without.

Half the probes need a two-hop fact along a default pattern's path (a relative's fear, one's guild
leader, the creditor's servant); the other half need what meta-paths could push out: the person's newest
relations, and a two-hop fact along a path no pattern names (a friend's trust). Two worlds: ``harbour``
is dense (the 20 places are contested), ``village`` sparse (they rarely are). Seeded, so running this
again writes the same files; edit the numbers here, never the JSON.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

_FIRST = ("Ada", "Bram", "Cora", "Dag", "Edda", "Finn", "Greta", "Hal", "Ines", "Jory", "Kesh", "Lida", "Mads",
          "Nell", "Oren", "Pia", "Quill", "Rhea", "Sten", "Tova", "Ulf", "Vera", "Wren", "Yara", "Zeb", "Alma",
          "Birk", "Cato", "Dina", "Eske", "Fray", "Gorm", "Hedda", "Ivo", "Jutta", "Kari", "Lorn", "Mira",
          "Njal", "Odda", "Per", "Runa", "Siv", "Tam", "Una", "Vali", "Wyn", "Ylva")
_LAST = ("Kettle", "Salt", "Marsh", "Reed", "Tallow", "Vane", "Rook", "Ash", "Brine", "Cole", "Dunn", "Flint",
         "Gale", "Hook", "Lark", "Moss", "Pike", "Rye", "Stone", "Thorn", "Wick", "Yew")
_GROUPS = ("Lantern Guild", "Harbour Watch", "Salt Compact", "Ropewalk Union", "Tide Chapel", "Night Market",
           "Gull Crew", "Stilt Council")
_NOISE = (("TRUSTS", 1), ("DISTRUSTS", -1), ("KNOWS", 0), ("RIVAL_OF", -1), ("LOVES", 1), ("HATES", -1),
          ("KNOWS_SECRET_OF", 0), ("ALLY_OF", 1))


@dataclass(frozen=True)
class Shape:
    """How a probe world is made."""

    name: str
    description: str
    seed: int
    people: int
    groups: int
    kin_pairs: int
    fears: int
    debts: int
    servants: int
    noise: int
    turns: int = 120


SHAPES = (
    Shape("harbour", "dense: about 14 relations a person, so the 20 places are contested", seed=31, people=40,
          groups=6, kin_pairs=16, fears=24, debts=16, servants=22, noise=190),
    Shape("village", "sparse: about 5 relations a person, so the 20 places rarely are", seed=47, people=30,
          groups=4, kin_pairs=10, fears=12, debts=8, servants=10, noise=20),
)


@dataclass
class Built:
    lines: list[dict[str, Any]] = field(default_factory=list)
    edges: dict[tuple[str, str, str], int] = field(default_factory=dict)
    """(source, target, relation) -> the turn it was made."""
    by_person: dict[str, list[tuple[str, str, str]]] = field(default_factory=lambda: defaultdict(list))


def _fact(source: str, target: str, relation: str) -> str:
    return f"{source} {relation.lower().replace('_', ' ')} {target}, as the town well knows."


def build(shape: Shape) -> dict[str, Any]:
    rng = random.Random(shape.seed)
    names: list[str] = []
    while len(names) < shape.people:
        name = f"{rng.choice(_FIRST)} {rng.choice(_LAST)}"
        if name not in names and name.split()[0] not in {n.split()[0] for n in names}:
            names.append(name)
    groups = list(_GROUPS[: shape.groups])
    built = Built()
    nodes = [{"name": n, "summary": f"{n}, who lives by the water."} for n in names]
    nodes += [{"name": g, "type": "group", "summary": f"The {g}, one of the town's powers."} for g in groups]
    for start in range(0, len(nodes), 8):
        built.lines.append({"turn": 0, "nodes": nodes[start:start + 8]})
    events: dict[int, list[dict[str, Any]]] = defaultdict(list)

    def add(source: str, target: str, relation: str, sign: int, early: bool) -> bool:
        key = (source, target, relation)
        if source == target or key in built.edges or (target, source, relation) in built.edges:
            return False
        turn = rng.randint(0, 15) if early else rng.randint(10, shape.turns)
        strength = round(rng.uniform(0.3, 0.95), 2) * (sign or rng.choice((1, -1)))
        events[turn].append({"sourceName": source, "targetName": target, "relation": relation,
                             "strength": strength, "fact": _fact(source, target, relation)})
        built.edges[key] = turn
        built.by_person[source].append(key)
        built.by_person[target].append(key)
        return True

    # Structure, made early: membership, a leader per group, families, fears, debts and who serves whom.
    for index, name in enumerate(names):
        add(name, groups[index % len(groups)], "MEMBER_OF", 1, True)
    for group in groups:
        members = [n for i, n in enumerate(names) if groups[i % len(groups)] == group]
        add(rng.choice(members), group, "LEADS", 1, True)
    for count, relation, sign in ((shape.kin_pairs, "KIN_OF", 1), (shape.fears, "FEARS", -1),
                                  (shape.debts, "OWES", 0), (shape.servants, "SERVES", 1)):
        made = 0
        while made < count:
            made += add(rng.choice(names), rng.choice(names), relation, sign, True)
    made = 0
    while made < shape.noise:  # everyday life, piling up turn after turn
        relation, sign = rng.choice(_NOISE)
        made += add(rng.choice(names), rng.choice(names), relation, sign, False)
    for turn in sorted(events):
        items = events[turn]
        for start in range(0, len(items), 12):
            built.lines.append({"turn": turn, "edges": items[start:start + 12]})
    return {"world": shape.name, "description": shape.description, "lines": built.lines,
            "probes": _probes(rng, names, built)}


def _need(key: tuple[str, str, str]) -> dict[str, str]:
    return {"source": key[0], "target": key[1], "relation": key[2]}


def _two_hop(built: Built, person: str, first: str, second: str) -> list[tuple[str, str, str]] | None:
    """A path person -first- middle -second- far (either direction at each step), or None."""
    for one in sorted(built.by_person[person]):
        if one[2] != first:
            continue
        middle = one[1] if one[0] == person else one[0]
        for two in sorted(built.by_person[middle]):
            if two[2] == second and two != one and person not in (two[0], two[1]):
                return [one, two]
    return None


def _probes(rng: random.Random, names: list[str], built: Built) -> list[dict[str, Any]]:
    asks = {
        ("KIN_OF", "FEARS"): ("kin-fear", "What is {} afraid for, with family like theirs?"),
        ("MEMBER_OF", "LEADS"): ("guild-leader", "Who does {} have to answer to?"),
        ("OWES", "SERVES"): ("creditor-servant", "Who will come knocking for what {} owes?"),
        ("ALLY_OF", "TRUSTS"): ("friend-trust", "Whom do {}'s friends rely on?"),
    }
    probes: list[dict[str, Any]] = []
    people = sorted(names)
    rng.shuffle(people)
    for (first, second), (kind, text) in asks.items():
        for person in people:
            path = _two_hop(built, person, first, second)
            if path is not None:
                probes.append({"kind": kind, "message": text.format(person), "needs": [_need(k) for k in path]})
            if sum(p["kind"] == kind for p in probes) == 6:
                break
    pattern_shaped = sum(p["kind"] != "friend-trust" for p in probes)
    latest = [p for p in people if len(built.by_person[p]) >= 3]
    for person in latest[: pattern_shaped - sum(p["kind"] == "friend-trust" for p in probes)]:
        newest = sorted(built.by_person[person], key=lambda k: (-built.edges[k], k))[:3]
        probes.append({"kind": "latest", "message": f"What has {person} been up to lately?",
                       "needs": [_need(k) for k in newest]})
    return probes


def main() -> None:
    for shape in SHAPES:
        path = HERE / f"{shape.name}.json"
        path.write_text(json.dumps(build(shape), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
