"""Uniting what two descriptions of one node say: the rules shared by upsert and explicit merges."""

from __future__ import annotations

from collections.abc import Iterable

from game.graph.models import MAX_LABELS, Node
from game.graph.names import normalize_name


def united_aliases(node: Node, names: Iterable[str]) -> list[str]:
    """The node's aliases plus every name it does not already answer to (compared normalized)."""
    aliases = list(node.aliases)
    known = {normalize_name(n) for n in node.names}
    for name in names:
        key = normalize_name(name)
        if key not in known:
            aliases.append(name)
            known.add(key)
    return aliases


def united_labels(labels: Iterable[str], more: Iterable[str]) -> list[str]:
    """Labels in order of arrival, case-insensitively unique, capped at five (the first five win)."""
    kept = list(labels)
    for label in more:
        if len(kept) >= MAX_LABELS:
            break
        if label.casefold() not in {x.casefold() for x in kept}:
            kept.append(label)
    return kept
