"""Build step: copy the top-level ``content/`` (the shipped worlds) into the wheel as ``game/_content``.

Everything else about the package is declared in pyproject.toml. ``content/`` stays at the top of the
repository, where authors edit it and the checkout plays it; only a built package needs its own copy.
An editable install skips the copy: it runs from the checkout, whose ``content/`` game.config finds.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

CONTENT = Path(__file__).resolve().parent / "content"


class BuildWithContent(build_py):
    """``build_py`` that also copies the worlds (TOML files only: no caches, no editor leftovers)."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        if not any(CONTENT.glob("*/*.toml")):
            raise SystemExit(f"no worlds in {CONTENT}: the package would ship without its game")
        target = Path(self.build_lib) / "game" / "_content"
        shutil.rmtree(target, ignore_errors=True)
        for source in sorted(CONTENT.glob("*/*.toml")):
            destination = target / source.relative_to(CONTENT)
            destination.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, destination)


setup(cmdclass={"build_py": BuildWithContent})
