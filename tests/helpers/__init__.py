"""Builders and doubles shared by the test modules (``from helpers.graph import ...``).

A package, not ``test_*_support.py`` modules, so pytest never collects them as tests by their name.
``tests/`` is on ``sys.path`` (pytest's rootdir import mode: the suite has no ``__init__.py``).
"""
