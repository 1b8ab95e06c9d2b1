"""``python -m benchmarks [--quick] [NAME ...]``: run the benchmarks and print their figures.

``make bench`` runs every benchmark at full size. ``--quick`` runs every one at a tiny size: ``make test``
does so, so a benchmark that no longer matches the code fails the build instead of rotting until the next
time someone measures. Quick figures are printed but mean little and nothing asserts on timings.

Each benchmark is a module with ``run(quick: bool) -> list[str]`` (its printed lines), registered below by
a plain import: a misspelt or broken module fails loudly instead of being skipped.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from benchmarks import (
    cli_bench,
    context_bench,
    deeds_bench,
    engine_bench,
    enrich_bench,
    explore_bench,
    extract_bench,
    gossip_bench,
    graph_bench,
    identity_bench,
    import_bench,
    launch_bench,
    llm_bench,
    map_bench,
    memory_bench,
    metapath_bench,
    model_turn_bench,
    open_bench,
    prose_bench,
    story_bench,
    swipes_bench,
    undo_bench,
)

BENCHMARKS: dict[str, Callable[[bool], list[str]]] = {
    "graph_bench": graph_bench.run,
    "engine_bench": engine_bench.run,
    "llm_bench": llm_bench.run,
    "model_turn_bench": model_turn_bench.run,
    "map_bench": map_bench.run,
    "extract_bench": extract_bench.run,
    "prose_bench": prose_bench.run,
    "cli_bench": cli_bench.run,
    "gossip_bench": gossip_bench.run,
    "deeds_bench": deeds_bench.run,
    "context_bench": context_bench.run,
    "launch_bench": launch_bench.run,
    "memory_bench": memory_bench.run,
    "enrich_bench": enrich_bench.run,
    "metapath_bench": metapath_bench.run,
    "swipes_bench": swipes_bench.run,
    "identity_bench": identity_bench.run,
    "import_bench": import_bench.run,
    "open_bench": open_bench.run,
    "undo_bench": undo_bench.run,
    "story_bench": story_bench.run,
    "explore_bench": explore_bench.run,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every benchmark at a tiny size (seconds, not minutes)")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"benchmarks to run (default: all): {', '.join(BENCHMARKS)}")
    args = parser.parse_args(argv)
    unknown = [name for name in args.names if name not in BENCHMARKS]
    if unknown:
        parser.error(f"no benchmark named {', '.join(unknown)} (there are: {', '.join(BENCHMARKS)})")
    total = time.perf_counter()
    for name in args.names or BENCHMARKS:
        started = time.perf_counter()
        print(f"== {name}{' (quick)' if args.quick else ''}", flush=True)
        for line in BENCHMARKS[name](args.quick):
            print(f"   {line}", flush=True)
        print(f"   ({time.perf_counter() - started:.1f} s)", flush=True)
    print(f"all benchmarks: {time.perf_counter() - total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
