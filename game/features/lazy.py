"""A feature package's names imported on first use (PEP 562).

The registry reads each built-in package's ``schema`` (its migrations) for ``kith graph dump`` and
``retrieve``, which must not load the features' rules (issue 15); so a package's ``__init__`` names its
feature class without importing it, and the class's module loads when the name is first read.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package``: each name of ``homes`` (name -> the module holding it) imported
    when first asked for, then kept in the package's ``namespace`` so it is looked up once."""
    def __getattr__(name: str) -> object:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(homes[name]), name)
        namespace[name] = value
        return value

    return __getattr__
