"""Reading state documents strictly: the helpers every game's reader shares.

Each helper checks one value and raises :class:`StateFormatError` with a message
that starts with the value's path (``players[1].hand[3]: unknown card kind ...``).
:func:`parse` refuses what ``json.loads`` would let through: duplicate keys,
NaN and infinities, nesting too deep to walk, and texts too long to be a state.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from .errors import StateFormatError

MAX_TEXT = 4_000_000  # characters: far above any state document, far below what would hurt to parse
MAX_DEPTH = 12        # nesting levels: state documents use a handful


def fail(path: str, problem: str) -> StateFormatError:
    """The error for the field at ``path`` (the whole document where the path is empty)."""
    return StateFormatError(f"{path or 'document'}: {problem}")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise StateFormatError(f"document: the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> float:
    raise StateFormatError(f"document: {name} is not a number JSON allows")


def _depth(value: Any) -> int:
    """The nesting depth of a parsed document, walked without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return depth
            deepest = max(deepest, depth)
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse(text: str | bytes, most: int = MAX_TEXT) -> Any:
    """The JSON value of ``text``, refusing duplicate keys, NaN, texts over ``most`` characters and deep
    nesting. Every game's state reader starts here."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateFormatError(f"document: expected JSON text, got {type(text).__name__}")
    if len(text) > most:
        raise StateFormatError(f"document: {len(text):,} characters, more than any state document ({most:,})")
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant)
    except RecursionError:
        raise StateFormatError(f"document: nested more than {MAX_DEPTH} levels deep") from None
    except StateFormatError:
        raise
    except ValueError as exc:  # JSONDecodeError and bad encodings are ValueErrors
        raise StateFormatError(f"document: not valid JSON ({exc})") from None
    if _depth(value) > MAX_DEPTH:
        raise StateFormatError(f"document: nested more than {MAX_DEPTH} levels deep")
    return value


def get(doc: Mapping[str, Any], key: str, path: str) -> Any:
    """``doc[key]``, or a 'missing' error naming ``path + key``."""
    if key not in doc:
        raise fail(f"{path}{key}", "missing")
    return doc[key]


def integer(value: Any, path: str, low: int, high: int | None = None) -> int:
    """An integer from ``low`` to ``high`` (no upper limit if ``high`` is None)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(path, f"must be an integer, got {value!r}"[:200])
    if value < low or (high is not None and value > high):
        allowed = f"{low} or more" if high is None else f"from {low} to {high}"
        raise fail(path, f"must be {allowed}, got {value}")
    return value


def number(value: Any, path: str) -> float:
    """A finite number (int or float, not bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise fail(path, f"must be a finite number, got {value!r}"[:200])
    return value


def boolean(value: Any, path: str) -> bool:
    if not isinstance(value, bool):
        raise fail(path, f"must be true or false, got {value!r}"[:200])
    return value


def array(value: Any, path: str, most: int, length: int | None = None) -> list:
    """A list of at most ``most`` entries (exactly ``length`` when given)."""
    if not isinstance(value, list):
        raise fail(path, f"must be a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        raise fail(path, f"must have {length} entries, got {len(value)}")
    if len(value) > most:
        raise fail(path, f"has {len(value)} entries; at most {most} are possible")
    return value


def obj(value: Any, path: str, keys: Iterable[str]) -> dict:
    """An object whose keys are all among ``keys`` (an unknown or misspelled key is refused)."""
    if not isinstance(value, dict):
        raise fail(path, f"must be an object, got {type(value).__name__}")
    allowed = set(keys)
    for key in value:
        if key not in allowed:
            raise fail(path, f"unknown key {key!r}"[:120] + f"; expected one of {', '.join(sorted(allowed))}")
    return value


def name(value: Any, path: str, names: Mapping[str, int] | tuple[str, ...], what: str) -> int:
    """The index of a name among ``names`` (a tuple or a name -> index mapping)."""
    index = names if isinstance(names, Mapping) else {n: i for i, n in enumerate(names)}
    if not isinstance(value, str) or value not in index:
        raise fail(path, f"unknown {what} {value!r}"[:200])
    return index[value]
