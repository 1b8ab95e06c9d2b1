"""A save's schema: the migrations of the core and of every feature, in one numbering.

Each feature keeps its own migrations in its package (``game/features/NAME/schema.py``), and the core its
own (``game.store.migrations``); the registry puts them together (``Registry.schema``) and the store is
given the result: it never imports a feature's tables.

Why one numbering and not one per feature: a save records a single ``PRAGMA user_version``, the number of
the last migration it holds, and every save written since the first Kith is numbered that way. Keeping
that number global keeps every old save opening and upgrading exactly as it did: a shipped migration keeps
its number and its SQL byte for byte, whoever owns it now. A feature that needs a new table (or a new
column) adds a ``Migration`` to its own package with the next free number (``Schema.current + 1`` of the
game it joins), and a save then upgrades to it step by step like any other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

_CREATES = re.compile(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)|ALTER TABLE (\w+) ADD COLUMN (\w+)", re.IGNORECASE)


class Migration(NamedTuple):
    """One step of the schema: it brings a save from ``version - 1`` to ``version``. Never edited once
    shipped: a change is a new migration.

    Immutable, as a frozen dataclass would be, but a NamedTuple: ``kith graph dump`` and ``retrieve`` read
    the schema and may not load the dataclasses module (issue 15, as ``SaveInfo``)."""

    version: int
    owner: str
    """Who reads and writes what it creates: ``core``, or a feature's name."""
    sql: str

    def creates(self) -> tuple[str, ...]:
        """The tables it creates, and the columns it adds as ``table.column``, by name."""
        return tuple(match.group(1) or f"{match.group(2)}.{match.group(3)}" for match in _CREATES.finditer(self.sql))


def since(migrations: Iterable[Migration], name: str) -> int:
    """The version of the first of ``migrations`` that creates ``name`` (a table, or ``table.column``)."""
    for migration in sorted(migrations, key=lambda m: m.version):
        if name in migration.creates():
            return migration.version
    raise ValueError(f"no migration creates {name!r}")


class Schema:
    """The migrations a save is built and upgraded by, in order: versions unique and contiguous from 1,
    each with an owner. A save above ``current`` was written by a newer Kith (or a game with more
    features) and is refused."""

    def __init__(self, migrations: Iterable[Migration]) -> None:
        ordered = tuple(sorted(migrations, key=lambda m: m.version))
        for number, migration in enumerate(ordered, start=1):
            if not migration.owner:
                raise ValueError(f"migration {migration.version} names no owner")
            if migration.version != number:
                taken = [m.owner for m in ordered if m.version == migration.version]
                if migration.version < number or len(taken) > 1:
                    raise ValueError(f"migration {migration.version} is declared twice (by {', '.join(taken)})")
                raise ValueError(f"migration {number} is missing (the numbers run from 1 without a gap; "
                                 f"the next after {number - 1} is {migration.version}, of {migration.owner})")
        self.migrations = ordered
        self._since: dict[str, int] = {}
        for migration in ordered:
            for name in migration.creates():
                self._since.setdefault(name, migration.version)

    @property
    def current(self) -> int:
        """The version a new save is built at and every older one upgraded to."""
        return len(self.migrations)

    def script(self, version: int) -> str:
        """The SQL of migration ``version``."""
        if not 1 <= version <= self.current:
            raise ValueError(f"there is no migration {version} (this schema runs from 1 to {self.current})")
        return self.migrations[version - 1].sql

    def scripts(self, up_to: int | None = None) -> tuple[str, ...]:
        """The SQL of migrations 1 to ``up_to`` (all of them when None), in order."""
        return tuple(m.sql for m in self.migrations[:self.current if up_to is None else max(up_to, 0)])

    def since(self, name: str) -> int:
        """The version from which a save holds ``name`` (a table, or ``table.column``)."""
        try:
            return self._since[name]
        except KeyError:
            raise ValueError(f"no migration creates {name!r}") from None

    def owner_of(self, name: str) -> str:
        """Who owns the migration that creates ``name``."""
        return self.migrations[self.since(name) - 1].owner
