"""Hand-made game states for the rule tests.

A scenario is a partial ``sobek-state/1`` document (INTERFACE.md): only the
keys a test cares about. :func:`complete` fills the rest (seed 0, round 1,
seat 0 first and to move, empty zones, scores 0), puts every card of the
63-card catalogue the spec does not place into ``out_of_round``, and, unless
the spec lists ``used_tokens``, completes the round's 5 tokens with used ones
(they change nothing in play but keep the round sound for ``invariants.check``).

:data:`ENGINE` says which engine :func:`build` makes states on: the ``engine`` fixture (conftest.py) sets it,
so the rule tests run on the Python engine and on the native one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from sobek_env import ACTION_NAMES, GameState, action_id
from sobek_env.sobek import NativeState
from sobek_env.sobek.catalogue import KINDS, TOKEN_COUNTS, TOKENS, TOKENS_PER_ROUND, make_rules
from sobek_env.sobek.invariants import check

SCENARIOS = Path(__file__).parent / "scenarios"
ENGINE = "python"  # or "native"


def _player(spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "hand": list(spec.get("hand", [])),
        "corruption": list(spec.get("corruption", [])),
        "curses": spec.get("curses", 0),
        "sets": [
            {"goods": s["goods"], "cards": list(s["cards"]), "prosperity": s.get("prosperity", 0)}
            for s in spec.get("sets", [])
        ],
        "horizontal_sets": [dict(h) for h in spec.get("horizontal_sets", [])],
    }


def _placed_cards(doc: dict[str, Any]) -> list[str]:
    cards = list(doc["nile"]) + list(doc["deck"]) + list(doc["discard"]) + list(doc["out_of_round"])
    for p in doc["players"]:
        cards += p["hand"] + p["corruption"]
        for s in p["sets"] + p["horizontal_sets"]:
            cards += s["cards"]
    pending = doc["pending"]
    if pending is not None and pending.get("phase") in ("set", "horizontal_set"):
        cards += pending.get("cards", [])
    return cards


def _tokens_in_play(doc: dict[str, Any]) -> dict[str, int]:
    counts = dict.fromkeys(TOKENS, 0)
    for t in doc["tokens"]:
        counts[t] += 1
    counts["curse"] += sum(p["curses"] for p in doc["players"])
    counts["prosperity"] += sum(s["prosperity"] for p in doc["players"] for s in p["sets"])
    pending = doc["pending"]
    if pending is not None and pending.get("phase") in ("curse", "prosperity"):
        counts[pending["phase"]] += 1
    return counts


def complete(spec: dict[str, Any]) -> dict[str, Any]:
    """The full state document for a partial ``spec`` (see the module docstring)."""
    players = spec.get("players", [])
    n = spec.get("num_players", max(2, len(players)))
    players = list(players) + [{}] * (n - len(players))
    doc: dict[str, Any] = {
        "format": "sobek-state/1",
        "num_players": n,
        "rules": dict(spec.get("rules", {})),
        "seed": spec.get("seed", 0),
        "round": spec.get("round", 1),
        "first_player": spec.get("first_player", 0),
        "current_player": spec.get("current_player", 0),
        "scores": list(spec.get("scores", [0] * n)),
        "players": [_player(p) for p in players],
        "nile": list(spec.get("nile", [])),
        "deck": list(spec.get("deck", [])),
        "tokens": list(spec.get("tokens", [])),
        "used_tokens": list(spec.get("used_tokens", [])),
        "discard": list(spec.get("discard", [])),
        "out_of_round": list(spec.get("out_of_round", [])),
        "pending": spec.get("pending"),
    }
    if spec.get("over"):
        doc["over"] = True

    left = dict(zip(KINDS, make_rules(n, **doc["rules"]).catalogue))
    for card in _placed_cards(doc):
        left[card] -= 1
    short = {k: -c for k, c in left.items() if c < 0}
    if short:
        raise ValueError(f"scenario places more cards than exist: {short}")
    doc["out_of_round"] += [k for k, c in left.items() for _ in range(c)]

    if "used_tokens" not in spec:
        counts = _tokens_in_play(doc)
        missing = TOKENS_PER_ROUND - sum(counts.values())
        for t, limit in zip(reversed(TOKENS), reversed(TOKEN_COUNTS)):
            while missing > 0 and counts[t] < limit:
                doc["used_tokens"].append(t)
                counts[t] += 1
                missing -= 1
    return doc


def build(spec: dict[str, Any]) -> GameState:
    """A state from a partial state document, on the engine :data:`ENGINE` names."""
    state = GameState.from_json(json.dumps(complete(spec)), engine="python")
    return state if ENGINE == "python" else NativeState.from_python(state)


def python_state(state: Any) -> GameState:
    """``state`` itself if it is a Python state, else its Python twin (to read the engine's own fields)."""
    return state if isinstance(state, GameState) else state.to_python()


def spec(name: str) -> dict[str, Any]:
    """The partial spec stored in ``tests/scenarios/<name>.json``."""
    return json.loads((SCENARIOS / f"{name}.json").read_text())


def load(name: str, **overrides: Any) -> GameState:
    """The state of ``tests/scenarios/<name>.json``, with top-level keys replaced by ``overrides``."""
    return build({**spec(name), **overrides})


def act(state: GameState, *names: str) -> GameState:
    """Apply actions by name, checking the engine's invariants after each; returns ``state``."""
    for name in names:
        state.apply(action_id(name))
        check(python_state(state))
    return state


def legal(state: GameState) -> list[str]:
    """The legal action names, in id order."""
    return [ACTION_NAMES[a] for a in state.legal_actions()]


def view(state: GameState) -> dict[str, Any]:
    """The state's JSON document as a dict."""
    return json.loads(state.to_json())


def table_set(state: GameState, player: int, goods: str) -> dict[str, Any] | None:
    """The JSON of ``player``'s vertical set of ``goods`` (cards sorted), or None."""
    for t in view(state)["players"][player]["sets"]:
        if t["goods"] == goods:
            return {**t, "cards": sorted(t["cards"])}
    return None
