"""Limits on the shape of the code that creep back unless a test holds them (docs/architecture.md).

No two modules import each other, directly or round a longer loop, counting the imports made only for type
checking: a loop of type-only imports still means neither module can be read, moved or tested without the
other. import-linter's ``acyclic`` contract checks siblings at every depth (packages, and the modules of one
package); this checks every module against every other, a package's ``__init__`` and its own modules too.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent


def import_loops(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every set of modules that import one another round a loop (Tarjan's strongly connected components)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a long chain of imports never meets Python's recursion limit.
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
                    break
                if target in on_stack:
                    low[module] = min(low[module], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    loop = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        loop.append(member)
                        if member == module:
                            break
                    if len(loop) > 1:
                        loops.append(sorted(loop))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return loops


def test_no_two_modules_import_each_other_even_for_types_only() -> None:
    graph = grimp.build_graph("game", include_external_packages=False, exclude_type_checking_imports=False)
    loops = import_loops(graph)
    assert loops == [], "modules that import one another:\n" + "\n".join(" <-> ".join(loop) for loop in loops)


def test_the_loop_finder_finds_a_loop_of_type_only_imports(tmp_path: Path) -> None:
    # The check above can fail: two modules that name each other's types only are found as one loop.
    package = tmp_path / "loopy"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from loopy.b import B\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from loopy.a import A\n")
    (package / "c.py").write_text("import loopy.a\n")
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        graph = grimp.build_graph("loopy", include_external_packages=False, exclude_type_checking_imports=False)
    finally:
        sys.path.remove(str(tmp_path))
    assert import_loops(graph) == [["loopy.a", "loopy.b"]]


MAX_MODULE_LINES = 600


def test_every_module_stays_within_six_hundred_lines() -> None:
    over = {}
    for path in sorted((ROOT / "game").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_MODULE_LINES:
            over[name] = lines
    assert over == {}, f"split these modules (at most {MAX_MODULE_LINES} lines each): {over}"


MAX_FACADE_LINES = 300


def class_lines(cls: type) -> int:
    """The lines of ``cls``'s own body as written (its bases' lines are theirs)."""
    return len(inspect.getsource(cls).splitlines())


def test_the_session_stays_a_facade_of_at_most_three_hundred_lines() -> None:
    # GameSession is the front ends' face of an open game: its work lives in the pipeline, the commit, the
    # commands' reach (GameCommands) and the readers it shares with them (GameReads), not in the session.
    from game.engine.session import GameSession

    assert class_lines(GameSession) <= MAX_FACADE_LINES, "move the work into the module that owns it"


def test_the_facade_measure_counts_a_class_of_its_own(tmp_path: Path) -> None:
    # The measure can fail: a class of 301 lines of its own is over, whatever its bases hold.
    (tmp_path / "wide_facade.py").write_text(
        "class Base:\n    pass\n\n\nclass Wide(Base):\n" + "".join(f"    a{i} = {i}\n" for i in range(300)))
    import importlib
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        wide = importlib.import_module("wide_facade")
    finally:
        sys.path.remove(str(tmp_path))
    assert class_lines(wide.Wide) == 301 > MAX_FACADE_LINES and class_lines(wide.Base) == 2


MAX_STORE_LINES = 300
MAX_STORE_MEMBERS = 30


def class_members(cls: type) -> list[str]:
    """The methods ``cls`` defines itself (plain, class, static, async, properties): its face's width.
    Plain data (a docstring, constants) and what its bases define are not counted."""
    kinds = (classmethod, staticmethod, property)
    return sorted(name for name, value in vars(cls).items() if inspect.isfunction(value) or isinstance(value, kinds))


def test_the_save_database_stays_a_narrow_core() -> None:
    # SaveDatabase is the connection, its transactions, meta, the graph's readers, a turn's writes and
    # undo; the turn log's reads, the enrichment queue, merges, the layout, snapshots and each feature's
    # reads take the open save instead (game/store/turn_log.py, enrichment.py, node_identity.py, layout.py,
    # snapshots.py, game/features/gossip/store.py).
    from game.store.database import SaveDatabase

    assert class_lines(SaveDatabase) <= MAX_STORE_LINES, "move a face into a module that takes the save"
    members = class_members(SaveDatabase)
    assert len(members) <= MAX_STORE_MEMBERS, f"{len(members)} members: move a face out ({members})"


def test_the_member_count_counts_every_kind_of_method_of_its_own(tmp_path: Path) -> None:
    # The measure can fail: 31 methods of the class's own, of every kind, are over; its base's are not.
    methods = "".join(f"    def m{i}(self) -> None:\n        pass\n" for i in range(27))
    (tmp_path / "wide_store.py").write_text(
        "class Base:\n    def inherited(self) -> None:\n        pass\n\n\n"
        "class Wide(Base):\n    '''A docstring is not a member.'''\n    LIMIT = 3\n" + methods
        + "    @classmethod\n    def made(cls) -> None:\n        pass\n"
        + "    @staticmethod\n    def plain() -> None:\n        pass\n"
        + "    @property\n    def size(self) -> int:\n        return 0\n"
        + "    async def later(self) -> None:\n        pass\n")
    import importlib
    import sys

    sys.path.insert(0, str(tmp_path))
    try:
        wide = importlib.import_module("wide_store")
    finally:
        sys.path.remove(str(tmp_path))
    assert len(class_members(wide.Wide)) == 31 > MAX_STORE_MEMBERS
    assert class_members(wide.Base) == ["inherited"]
