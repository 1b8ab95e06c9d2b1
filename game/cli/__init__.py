"""The ``kith`` command line: one module per command group, each adding its own subparser.

A module exposes ``add_parser(subparsers)``; the parser it adds sets ``handler`` to a function
``(args, settings) -> int`` (the exit code). ``game.__main__`` builds settings once and dispatches.
"""
