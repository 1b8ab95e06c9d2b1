"""A JSON object as what differs from another: how a kept telling stores its scene once (``store``).

The tellings of one turn start from the same game, so their scenes differ in a few fields (the clock, a
mood, who is here) and their composed contexts rarely at all. A telling other than the kept one stores
its scene as a ``delta`` against the kept telling's; the kept one stores none and reads the turn's own
scene row. ``delta`` is checked by applying it: when the result would not serialise to the same JSON
text (a key order a delta cannot keep, ``1`` for ``true``) it gives None and the caller stores the
object whole, so reading a telling back always gives exactly the object that was stored.
"""

from __future__ import annotations

from typing import Any

from game.store.packed import json_text

SET = "set"
"""Keys whose value is new or changed, with the value."""
DROP = "del"
"""Keys the base has and the object does not."""
INTO = "in"
"""Keys (or a list's indexes) whose value is an object, or a list of one length, in both: its own delta."""


def delta(base: Any, target: Any) -> dict[str, Any] | None:
    """What turns ``base`` into ``target`` (``{}`` when they are equal), or None when no delta applied to
    ``base`` gives back exactly ``target``'s JSON text (store ``target`` whole then). Objects and lists
    of one length are compared item by item (a context's sections differ only in their timings)."""
    if not _container(base, target):
        return None
    found = _delta(base, target)
    if json_text(apply(base, found)) != json_text(target):
        return None
    return found


def apply(base: Any, change: dict[str, Any]) -> Any:
    """``base`` changed by ``change`` (from ``delta``): an object's keys in ``base``'s order (dropped ones
    left out), then the keys it lacked in ``change``'s order. Not copied (a telling is read at every flip):
    the result shares unchanged values with ``base`` and changed ones with ``change``, so give it values
    nothing else holds (freshly read).

    A delta that does not fit its base (a damaged telling) raises ``ValueError``."""
    if not isinstance(change, dict) or not isinstance(base, dict | list):
        raise ValueError("a telling's delta does not fit what it changes")
    changed = change.get(SET, {})
    dropped = set(change.get(DROP, ()))
    inner = change.get(INTO, {})
    if not isinstance(changed, dict) or not isinstance(inner, dict):
        raise ValueError("a telling's delta is malformed")
    if isinstance(base, list):
        if any(not key.isdigit() or int(key) >= len(base) for key in (*changed, *inner)):
            raise ValueError("a telling's delta changes an item a list does not have")
        return [changed[str(i)] if str(i) in changed else apply(item, inner[str(i)]) if str(i) in inner else item
                for i, item in enumerate(base)]
    if any(key not in base for key in (*inner, *dropped)):
        raise ValueError("a telling's delta changes a field its base does not have")
    result: dict[str, Any] = {}
    for key, value in base.items():
        if key in dropped:
            continue
        if key in changed:
            result[key] = changed[key]
        elif key in inner:
            result[key] = apply(value, inner[key])
        else:
            result[key] = value
    for key, value in changed.items():
        if key not in base:
            result[key] = value
    return result


def _container(old: Any, new: Any) -> bool:
    """Two values a delta can change item by item: two objects, or two lists of one length."""
    return (isinstance(old, dict) and isinstance(new, dict)) or (
        isinstance(old, list) and isinstance(new, list) and len(old) == len(new))


def _delta(base: Any, target: Any) -> dict[str, Any]:
    pairs = list(target.items()) if isinstance(target, dict) else [(str(i), v) for i, v in enumerate(target)]
    olds = base if isinstance(base, dict) else {str(i): v for i, v in enumerate(base)}
    changed: dict[str, Any] = {}
    inner: dict[str, Any] = {}
    for key, value in pairs:
        if key not in olds:
            changed[key] = value
            continue
        old = olds[key]
        if old is value or (old == value and isinstance(old, dict | list)):
            continue  # equal at C speed; an equal ``1`` and ``true`` inside is caught by ``delta``'s check
        if _container(old, value):
            sub = _delta(old, value)
            if sub:
                inner[key] = sub
        elif type(old) is not type(value) or old != value:  # ``1 == True``, yet they are different JSON
            changed[key] = value
    keys = {key for key, _ in pairs}
    dropped = [key for key in olds if key not in keys]
    found: dict[str, Any] = {}
    if changed:
        found[SET] = changed
    if dropped:
        found[DROP] = dropped
    if inner:
        found[INTO] = inner
    return found
