"""The Sobek heuristic's compiled hand valuation (agents/sobek/_points.pyx) returns exactly the floats of
its Python reference, ``Model.python_hand_points``.

The extension is built by the package's install (``make test`` installs it), so its absence is a
failure here, not a skip. Exact: the compiled path must not change a single decision of the heuristic
or of a search whose rollouts it plays.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

from agents.sobek import heuristic as H
from sobek_env.sobek import GAME
from sobek_env.sobek.catalogue import AMULET, NUM_KINDS

RULES = [{}, {"scarabs": {"ivory": 0, "wheat": 9}, "families": {"courtesan": "ivory"}}]


def compiled_module():
    try:
        from agents.sobek import _points
    except ImportError as error:
        pytest.fail(f"the compiled hand valuation agents.sobek._points was not built ({error}); "
                    "reinstall with `pip install -e .` on a machine with Cython and a C compiler")
    return _points


def test_the_extension_is_built_and_used() -> None:
    compiled_module()
    if os.environ.get("SOBEK_PURE_PYTHON", "") in ("", "0"):
        assert H._points is not None, "agents.sobek._points imports but the heuristic does not use it"


def test_sobek_pure_python_forces_the_python_valuation() -> None:
    code = "import agents.sobek.heuristic as H; print(H._points)"
    out = subprocess.run([sys.executable, "-c", code], env={**os.environ, "SOBEK_PURE_PYTHON": "1"},
                         capture_output=True, text=True, check=True).stdout.split()
    assert out == ["None"]


def twins(model: H.Model, hand: list[int], tables: list[tuple[int, int, int]]) -> None:
    compiled = compiled_module().hand_points(model, hand, tables, H._effective_tables, H.HOLD)
    reference = model.python_hand_points(list(hand), tables)
    assert repr(compiled) == repr(reference), (hand, tables)  # the same floats, bit for bit, and types


@pytest.mark.parametrize("rules", RULES, ids=["default", "options"])
@pytest.mark.parametrize(("num_players", "mode"), [(2, "original"), (3, "memory"), (4, "original")])
def test_compiled_hand_points_equal_the_reference(num_players: int, mode: str, rules: dict) -> None:
    """At every decision of seeded heuristic games: the seat's own hand and sets, and bent ones (random
    hands and tables), valued by the Model the heuristic built for that decision."""
    table = GAME.table(num_players, mode, **rules)
    rng = random.Random(num_players)
    checked = 0
    for seed in range(3):
        s = GAME.new(num_players, seed=seed, **rules)
        observer = GAME.observer(num_players, mode)
        mask = np.zeros(GAME.num_actions, dtype=np.int8)
        while not s.is_over:
            legal = s.legal_actions()
            mask[:] = 0
            mask[legal] = 1
            observation = {"observation": observer.encode(s, s.current_player), "action_mask": mask}
            action, _, model = H.advise(observation, table, rng.choice([0.0, H.BEST, 1.0]))
            twins(model, model.v.hand, model.tables)
            if rng.random() < 0.3:
                hand = [rng.choice([0, 0, 0, 1, 2, 3]) for _ in range(NUM_KINDS)]
                hand[AMULET] = rng.randrange(6)
                tables = [(rng.randrange(7), rng.randrange(16), rng.randrange(3)) for _ in model.tables]
                twins(model, hand, tables)
                twins(model, hand, model.tables)
                checked += 3
            checked += 1
            s.apply(action)
    assert checked > 300
