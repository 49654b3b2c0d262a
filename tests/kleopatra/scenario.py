"""Hand-made Kleopatra states for the rule tests.

A scenario is a partial ``kleopatra-state/1`` document (INTERFACE.md): only the keys a test cares
about. :func:`complete` fills the rest: 3 players (or as many as listed), seed 0, seat 0 active and
to move, turn 1, Cleopatra on the number of complete categories, players at their start values (5
talents, 3 merchants, 2 statues), empty stalls and deck, nothing built, the tiles not placed, removed
or pending stacked
under the given top of ``mosaic_stack`` in catalogue order; every card of the catalogue the spec does not place goes to
the discard pile (or, with ``"rest": "deck"``, face down under the deck; with ``"rest": "hand:<seat>"``, into
that seat's hand).

The rule tests run on both engines: ``engine`` (set by the ``scenario_engine`` fixture of ``conftest.py``) says
whether :func:`build` hands out the Python state or the native one (``sobek_env/kleopatra/_native.pyx``);
:func:`python` gives the Python state of either, for the checks that read the engine's own fields.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sobek_env.compiled import extension
from sobek_env.kleopatra import ACTION_NAMES, GameState, action_id
from sobek_env.kleopatra.catalogue import KINDS, TILE_NAMES, make_rules
from sobek_env.kleopatra.invariants import check
from sobek_env.kleopatra.observation import Observer

SCENARIOS = Path(__file__).parent / "scenarios"
NATIVE = extension("._native", "sobek_env.kleopatra")
ENGINES = ("python",) if NATIVE is None else ("python", "native")
engine = "python"  # the engine build() deals to: set per test by the scenario_engine fixture


def _player(spec: dict[str, Any]) -> dict[str, Any]:
    return {"hand": list(spec.get("hand", [])), "talents": spec.get("talents", 5), "amulets": spec.get("amulets", 0),
            "merchants": spec.get("merchants", 3), "statues": spec.get("statues", 2),
            **{k: spec[k] for k in ("built", "ceremonies_won") if k in spec}}


def _pending_cards(pending: dict[str, Any] | None) -> list[str]:
    cards: list[str] = []
    while pending is not None:
        if pending.get("phase") == "quarry":
            cards += pending.get("paid", [])
        elif pending.get("phase") == "refill":
            cards += [c["kind"] for c in pending.get("drawn", [])]
        elif pending.get("phase") == "vizier":
            cards += pending.get("drawn", [])
        pending = pending.get("resume")
    return cards


def _pending_tile(pending: dict[str, Any] | None) -> list[str]:
    if pending is not None and pending.get("phase") in ("mosaic_orient", "mosaic_square"):
        return [pending["tile"]]
    return []


def complete(spec: dict[str, Any]) -> dict[str, Any]:
    """The full state document for a partial ``spec`` (see the module docstring)."""
    spec = dict(spec)
    rest = spec.pop("rest", "discard")
    players = spec.get("players", [])
    n = spec.get("num_players", max(3, len(players)))
    players = list(players) + [{}] * (n - len(players))
    palace = dict(spec.get("palace", {}))
    doc: dict[str, Any] = {
        "format": "kleopatra-state/1",
        "num_players": n,
        "rules": dict(spec.get("rules", {})),
        "seed": spec.get("seed", 0),
        "active_player": spec.get("active_player", 0),
        "current_player": spec.get("current_player", spec.get("active_player", 0)),
        "turn": spec.get("turn", 1),
        "altar": spec.get("altar", 0),
        "players": [_player(p) for p in players],
        "stalls": [list(st) for st in spec.get("stalls", [[], [], []])],
        "deck": list(spec.get("deck", [])),
        "discard": list(spec.get("discard", [])),
        "palace": palace,
        "removed_tiles": list(spec.get("removed_tiles", [])),
        "pending": spec.get("pending"),
    }
    for key in ("set_aside", "over", "eliminated", "memory", "shown", "last_ceremony", "rng"):
        if key in spec:
            doc[key] = spec[key]
    placed = [m["tile"] for m in palace.get("mosaics", [])]
    used = set(placed) | set(doc["removed_tiles"]) | set(_pending_tile(doc["pending"]))
    top = list(spec.get("mosaic_stack", []))
    doc["mosaic_stack"] = top + [t for t in TILE_NAMES if t not in used and t not in top]
    rules = make_rules(n, **doc["rules"])
    if "cleopatra" in spec:
        doc["cleopatra"] = spec["cleopatra"]
    else:
        complete_now = [len(palace.get("walls", [])) == 9, palace.get("sphinxes", 0) == 6,
                        palace.get("obelisks", 0) == 2, len(palace.get("gate", [])) == 2,
                        palace.get("throne", False), not doc["mosaic_stack"] and not _pending_tile(doc["pending"])]
        doc["cleopatra"] = min(5, sum(complete_now))

    left = dict(zip(KINDS, rules.card_counts))
    placed_cards = [*doc["deck"], *doc["discard"], *doc.get("set_aside", []), *_pending_cards(doc["pending"])]
    placed_cards = [c["kind"] if isinstance(c, dict) else c for c in placed_cards]
    placed_cards += [c["kind"] for st in doc["stalls"] for c in st]
    for p in doc["players"]:
        placed_cards += p["hand"]
    for card in placed_cards:
        left[card] -= 1
    short = {k: -c for k, c in left.items() if c < 0}
    if short:
        raise ValueError(f"scenario places more cards than exist: {short}")
    extra = [k for k, c in left.items() for _ in range(c)]
    if rest == "deck":
        doc["deck"] += [{"kind": k, "up": False} for k in extra]
    elif rest.startswith("hand:"):
        doc["players"][int(rest[5:])]["hand"] += extra
    else:
        doc["discard"] += extra
    return doc


def build(spec: dict[str, Any]) -> Any:
    """A state of the current ``engine`` from a partial state document (checked by the invariants)."""
    s = GameState.from_json(json.dumps(complete(spec)), engine="python")
    check(s)
    return s if engine == "python" else NATIVE.from_json(s.to_json())


def python(state: Any) -> GameState:
    """The Python state of ``state`` (itself, or the native state's equal)."""
    return state if isinstance(state, GameState) else state.to_python()


def observe(state: Any, seat: int, mode: str = "original") -> Any:
    """``seat``'s observation vector: the reference encoder's for a Python state, the native encoder's else."""
    if isinstance(state, GameState):
        return Observer(state.num_players, mode).encode_python(state, seat).copy()
    return state.observe(seat, mode == "memory")


def spec(name: str) -> dict[str, Any]:
    """The partial spec stored in ``tests/kleopatra/scenarios/<name>.json`` (its ``comment`` dropped)."""
    stored = json.loads((SCENARIOS / f"{name}.json").read_text())
    stored.pop("comment", None)
    return stored


def load(name: str, **overrides: Any) -> Any:
    """The state of ``scenarios/<name>.json`` with top-level keys replaced by ``overrides``."""
    return build({**spec(name), **overrides})


def act(state: Any, *names: str) -> Any:
    """Apply actions by name, checking the invariants after each; returns ``state``."""
    for name in names:
        state.apply(action_id(name))
        check(python(state))
    return state


def legal(state: Any) -> list[str]:
    """The legal action names, in id order."""
    return [ACTION_NAMES[a] for a in state.legal_actions()]


def doc(state: Any) -> dict[str, Any]:
    """The state's JSON document as a dict."""
    return json.loads(state.to_json())


def up(kind: str) -> dict[str, Any]:
    return {"kind": kind, "up": True}


def down(kind: str) -> dict[str, Any]:
    return {"kind": kind, "up": False}
