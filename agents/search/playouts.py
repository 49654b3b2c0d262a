"""Whole playouts in one call on a native engine: every seat plays its policy (``random``, ``greedy`` or
``heuristic`` with its options) to the end of the game or for a number of actions, with no Python between the
actions, and every seat's ``Game.outlook`` margin comes back with the number of actions played.

Each game's baselines package builds them (``agents/<game>/``'s ``playouts``, over its compiled
``_playouts`` module), registered with :mod:`agents.games`, where :func:`native_playouts` finds it. A
playout draws exactly as :class:`agents.search.ismcts.ISMCTSAgent`'s Python rollout draws, so the search
decides the same on either path (``tests/test_ismcts_native.py``)::

    from agents.search.playouts import native_playouts
    from sobek_env.registry import load_game

    game = load_game("sobek")
    runs = native_playouts(game.table(2), "heuristic")
    state = game.new(2, seed=1, engine="native")
    margins, actions = runs.run(state, 7)          # to the end; 7 seeds the random seats' draws
    assert actions > 0 and len(margins) == 2
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.games import tables as game_tables
from sobek_env.game import Table

POLICIES = ("random", "greedy", "heuristic")


def seat_policies(table: Table, policies: str | Sequence[str]) -> list[tuple[str, float]]:
    """One ``(name, tolerance)`` pair per seat of ``table`` from agent specs (one for every seat, or one per
    seat): ``random``, ``greedy`` or ``heuristic`` with its options, checked as ``agents.make`` checks them."""
    from agents.players.registry import make, parse_spec

    specs = [policies] * table.num_players if isinstance(policies, str) else list(policies)
    if len(specs) != table.num_players:
        raise ValueError(f"{len(specs)} playout policies for a {table.num_players}-player table: give one spec "
                         "for every seat or one per seat")
    pairs = []
    for spec in specs:
        name, _ = parse_spec(spec)
        if name not in POLICIES:
            raise ValueError(f"no native playout policy {name!r} in spec {spec!r}; use one of {', '.join(POLICIES)}")
        agent = make(spec, table=table)  # the options' checks and messages are the agent's
        pairs.append((name, float(getattr(agent, "tolerance", 0.0))))
    return pairs


def native_playouts(table: Table, policies: str | Sequence[str]) -> Any | None:
    """The native playouts of ``table``'s game with these policies (see :func:`seat_policies`): an object
    with ``run(state, rng, steps=0) -> (margins, actions)``, ``choose(state, rng=None)`` and ``outlook(state)``;
    None where the game has no compiled playouts (not built, or ``SOBEK_PURE_PYTHON=1``)."""
    pairs = seat_policies(table, policies)
    build = game_tables(table.game).playouts
    return None if build is None else build(table, pairs)
