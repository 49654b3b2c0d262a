"""Strict readers for the ``kleopatra-state/1`` document: each returns a checked value or raises a
StateFormatError whose message starts with the offending field's path (``players[1].hand[0]: ...``).

Shared by ``jsonstate.py`` (the document) and ``phases.py`` (each phase reads its own ``pending`` form); the
generic readers (``fail``, ``integer``, ``boolean``, ``array``) are :mod:`sobek_env.document`'s.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from ..document import array, boolean, fail, integer  # the layer's readers, shared by every game
from .catalogue import KIND_INDEX, KINDS, NUM_KINDS, TILE_INDEX


def join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def obj(value: Any, path: str, allowed: Collection[str], required: Collection[str] = ()) -> dict[str, Any]:
    """A JSON object whose keys are all ``allowed`` and include every ``required`` one."""
    if not isinstance(value, dict):
        raise fail(path, f"must be an object, got {type(value).__name__}")
    for key in value:
        if key not in allowed:
            raise fail(path, f"unknown key {str(key)!r:.40}; expected one of {', '.join(sorted(allowed))}")
    for key in required:
        if key not in value:
            raise fail(join(path, key), "missing")
    return value


def kind(value: Any, path: str) -> int:
    if not isinstance(value, str) or value not in KIND_INDEX:
        raise fail(path, f"unknown card kind {value!r:.40}; the kinds are {', '.join(KINDS)}")
    return KIND_INDEX[value]


def cards(value: Any, path: str, most: int, allowed: Collection[int] | None = None) -> list[int]:
    """A list of card kind names read into counts per kind (17 ints)."""
    out = [0] * NUM_KINDS
    for i, v in enumerate(array(value, path, most)):
        k = kind(v, join(path, i))
        if allowed is not None and k not in allowed:
            raise fail(join(path, i), f"card kind {KINDS[k]!r} cannot be here")
        out[k] += 1
    return out


def seat(value: Any, path: str, num_players: int) -> int:
    return integer(value, path, 0, num_players - 1)


def seats(value: Any, path: str, num_players: int) -> list[int]:
    """Distinct seats."""
    out = []
    for i, v in enumerate(array(value, path, num_players)):
        p = seat(v, join(path, i), num_players)
        if p in out:
            raise fail(join(path, i), f"seat {p} is listed twice")
        out.append(p)
    return out


def tile(value: Any, path: str) -> int:
    if not isinstance(value, str) or value not in TILE_INDEX:
        raise fail(path, f"unknown tile {value!r:.40}; the tiles are {', '.join(TILE_INDEX)}")
    return TILE_INDEX[value]


def names(counts: list[int]) -> list[str]:
    """Counts per kind written as a list of kind names, in catalogue order."""
    return [KINDS[k] for k, c in enumerate(counts) for _ in range(c)]


__all__ = ["array", "boolean", "cards", "fail", "integer", "join", "kind", "names", "obj", "seat", "seats", "tile"]
