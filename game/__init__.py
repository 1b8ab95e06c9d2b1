"""Kith: a terminal text adventure whose characters remember who they are to each other."""
