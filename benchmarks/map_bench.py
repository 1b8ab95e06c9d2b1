"""Map figures for ``make bench``: layout and draw time at 6, 25, 60 and 200 nodes (launch to the first
frame is ``launch_bench``).

Graphs are synthetic but story-shaped: each person relates to one or two earlier ones, a few groups and
factions among them. "Draw" is ``render_map`` with positions already laid out (what a redraw costs on a
resize or a selection), in the everyone view and then the scene and person views the pane opens in;
"layout" is the force-directed layout from nothing and the incremental layout
when one person joins.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from functools import partial

from game.graph.map import compute_layout, render_map
from game.graph.models import Edge, Node

SIZES = (6, 25, 60, 200)
PANE = (50, 30)
"""A narrow map pane, the one the map is designed for: about 25 names fit before only the selected
node's neighbourhood is shown."""
WIDE = (160, 50)
NAMES = ["Mira", "Tomas", "Oren", "Ash", "Bram", "Elin", "Veyra", "Kest", "Lin", "Yao", "Dov", "Sera"]
RELATIONS = ["TRUSTS", "FEARS", "KIN_OF", "MEMBER_OF", "OWES", "RIVAL_OF", "SERVES"]


def story_graph(size: int, seed: int = 1) -> tuple[list[Node], list[Edge]]:
    rng = random.Random(seed)
    kinds = ["individual"] * 6 + ["group", "faction"]
    nodes = [Node(id=f"npc-{i}", name=f"{rng.choice(NAMES)} {i}", type=rng.choice(kinds),  # type: ignore[arg-type]
                  summary="Someone in the story.", first_seen_turn=i // 3, last_seen_turn=i // 3)
             for i in range(size)]
    edges: list[Edge] = []
    for i in range(1, size):
        for _ in range(1 if rng.random() < 0.5 else 2):
            edges.append(Edge(id=f"edge-{len(edges)}", source=f"npc-{i}", target=f"npc-{rng.randrange(i)}",
                              relation=rng.choice(RELATIONS), strength=round(rng.uniform(-1, 1), 2),
                              fact="They share some history together.", valid_at=i // 3))
    return nodes, edges


def _median_ms(action: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def layout_and_draw(sizes: tuple[int, ...], layout_runs: int, draw_runs: int) -> list[str]:
    lines = []
    compute_layout(*story_graph(6))  # import NumPy once, outside the timings
    newcomer = Node(id="npc-new", name="Newcomer", type="individual", summary="Someone new.",
                    first_seen_turn=999, last_seen_turn=999)
    for size in sizes:
        nodes, edges = story_graph(size)
        runs = min(layout_runs, 3) if size >= 200 else layout_runs
        fresh = _median_ms(partial(compute_layout, nodes, edges), runs)
        positions = compute_layout(nodes, edges)
        joined = Edge(id="edge-new", source="npc-new", target="npc-0", relation="OWES", strength=0.4,
                      fact="The newcomer owes the first one a favour.", valid_at=999)
        grown = _median_ms(partial(compute_layout, [*nodes, newcomer], [*edges, joined], positions), runs)
        pane = render_map(nodes, edges, *PANE, positions=positions)
        pane_ms = _median_ms(partial(render_map, nodes, edges, *PANE, positions=positions), draw_runs)
        wide = render_map(nodes, edges, *WIDE, positions=positions)
        wide_ms = _median_ms(partial(render_map, nodes, edges, *WIDE, positions=positions), draw_runs)
        lines.append(
            f"map {size:>3} nodes: layout {fresh:6.1f} ms (one newcomer {grown:6.1f} ms; target 50 ms); "
            f"draw {PANE[0]}x{PANE[1]} {pane_ms:5.1f} ms ({len(pane.boxes)} shown), "
            f"{WIDE[0]}x{WIDE[1]} {wide_ms:5.1f} ms ({len(wide.boxes)} shown; draw target 16 ms)")
        views = []
        for view in ("scene", "person"):
            draw = partial(render_map, nodes, edges, *WIDE, positions=positions, view=view, focus="npc-0")
            drawn = draw()
            views.append(f"{view} {_median_ms(draw, draw_runs):5.1f} ms ({len(drawn.boxes)} drawn, "
                         f"{sum(1 for e in drawn.edges if e.labelled)}/{len(drawn.edges)} labelled)")
        lines.append(f"map {size:>3} nodes at {WIDE[0]}x{WIDE[1]}: " + "; ".join(views))
    return lines


def run(quick: bool = False) -> list[str]:
    """Quick: the two small maps, each timing taken once."""
    if quick:
        return layout_and_draw(SIZES[:2], layout_runs=1, draw_runs=1)
    return layout_and_draw(SIZES, layout_runs=7, draw_runs=9)


if __name__ == "__main__":
    print("\n".join(run()))
