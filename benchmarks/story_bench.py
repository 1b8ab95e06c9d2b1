"""``kith import-story`` on pathological text, for ``make bench``: seconds per story, and whether it grows
linearly.

Three shapes issue 21 found hanging: unclosed emphasis marks (``'*x ' * N``: 90 KB took 48 s), one
paragraph of a megabyte naming people thousands of times (197 s), and a story naming thousands of
different people. Each is imported through the real command into a new save (no world, the fast path
only), at two sizes: the second's time over the first's, against their size ratio, says whether the
import is linear (a quadratic step shows as the square of the size ratio). The target is a 2 MB story,
the import limit, in seconds.
"""

from __future__ import annotations

import contextlib
import io
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from game.__main__ import main as kith_main

FIRST = ["Orla", "Hob", "Ness", "Wren", "Bram", "Mira", "Tomas", "Oren", "Edda", "Skerry"]
LAST = ["Vance", "Tarrant", "Tallis", "Marsh", "Reed", "Holt", "Crane", "Vale", "Stone", "Finch"]


def emphasis(size: int) -> str:
    return "*x " * (size // 3)


def paragraph(size: int) -> str:
    sentences = []
    held = 0
    index = 0
    while held < size:
        sentence = f"{FIRST[index % 10]} {LAST[index // 10 % 10]} waved to the ferry as the tide turned."
        sentences.append(sentence)
        held += len(sentence) + 1
        index += 1
    return " ".join(sentences)[:size]  # the import limit is a hard one


def many_names(count: int) -> str:
    return "\n\n".join(f"Person{i} {LAST[i % 10]} met Person{i + 1} {LAST[(i + 1) % 10]} at the quay."
                       for i in range(count))


def import_seconds(folder: Path, story: str, name: str) -> float:
    source = folder / f"{name}.md"
    source.write_text(story, encoding="utf-8")
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = kith_main(["--saves-dir", str(folder), "import-story", "--save", name, str(source)])
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"import-story of the {name} story failed with exit code {code}")
    return elapsed


def run(quick: bool = False) -> list[str]:
    """Full: emphasis and one paragraph at 0.5 and 2 MB, 500 and 2,000 names. Quick: each shape once, small
    (every import pays about a second of opening a save, whatever its size)."""
    shapes: list[tuple[str, Callable[[int], str], tuple[int, int], str]] = [
        ("emphasis", emphasis, (6_000, 24_000) if quick else (500_000, 2_000_000), "bytes"),
        ("one paragraph", paragraph, (6_000, 24_000) if quick else (500_000, 2_000_000), "bytes"),
        ("many names", many_names, (20, 80) if quick else (500, 2_000), "people"),
    ]
    lines = []
    with tempfile.TemporaryDirectory(prefix="kith-story-bench-") as tmp:
        folder = Path(tmp)
        import_seconds(folder, "Hob Tarrant waved.", "warm-up")  # the command's modules, loaded once
        for label, make, (small, large), unit in shapes:
            slug = label.replace(" ", "-")
            few = import_seconds(folder, make(small), f"{slug}-{small}")
            if quick:
                lines.append(f"{label:<14} {small:>9,} {unit}: {few:6.2f} s")
                continue
            many = import_seconds(folder, make(large), f"{slug}-{large}")
            growth = many / few if few > 0 else float("inf")
            lines.append(f"{label:<14} {small:>9,} {unit}: {few:6.2f} s   {large:>9,} {unit}: {many:6.2f} s   "
                         f"x{growth:.1f} for x{large // small} (linear: about x{large // small})")
    return lines
