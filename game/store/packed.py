"""Texts kept compressed: a column declared ``BLOB`` in a feature's table holds its text zlib-compressed.

Each turn stores two large JSON texts (the composed context, ~8 KB, and its first telling, ~13 KB) that
are read rarely (``/mind``, ``/why``, retry, tellings) and never searched by SQL, so a save grew ~21 KB a
turn. ``write_rows`` packs every text written to a ``BLOB`` column (the schema says which: see migration
14); readers call ``unpack``, which gives text back from either form, so rows written before the
migration (plain text, kept as they were) read the same as rows written after it.
"""

from __future__ import annotations

import json
import zlib

import orjson

LEVEL = 6
"""zlib's default: within 1% of level 9's size on these texts, at half its time on the larger one."""


def pack(text: str) -> bytes:
    """``text`` as stored in a ``BLOB`` column."""
    return zlib.compress(text.encode("utf-8"), LEVEL)


Value = str | int | float | None
"""What a row's column holds once read (``game.store.rows.Scalar``)."""


def unpack(value: Value | bytes) -> Value:
    """A stored value as its text when it was packed (bytes); any other value (text from before the
    migration, a number, NULL) as it is. A packed value that does not decompress is a ``ValueError``, as
    any undecodable row is (``game.store.damage``)."""
    if not isinstance(value, bytes):
        return value
    try:
        return zlib.decompress(value).decode("utf-8")
    except (zlib.error, UnicodeDecodeError) as error:
        raise ValueError(f"a compressed text does not decompress ({error})") from error


def unpack_text(value: Value | bytes) -> str:
    """A stored text column's value as text (packed or not)."""
    text = unpack(value)
    if not isinstance(text, str):
        raise ValueError(f"a text column holds {type(text).__name__}, not text")
    return text


def json_text(value: object) -> str:
    """``value`` as compact JSON text, for a packed column: orjson (a turn encodes ~21 KB of it, five
    times faster than ``json.dumps``), or ``json.dumps`` for what orjson refuses (an integer beyond 64
    bits, a key that is not text, a NaN)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode("utf-8")
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(value, ensure_ascii=False)
