"""Kith: a terminal text adventure whose characters remember who they are to each other."""

__version__ = "0.1.0"
"""The one place the version is written: the wheel's metadata reads it (pyproject.toml), and ``kith
--version`` prints it without importlib.metadata, whose import is longer than the rest of the command."""
