"""Kith's features, each one package that plugs into the core through ``game.registry``.

A feature holds its rules, its tables' rows, its turn step, its commands and its script checks. It imports
the core's lower layers (graph, store, world, mind) and never another feature's internals; the engine runs
it only through the registry.
"""
