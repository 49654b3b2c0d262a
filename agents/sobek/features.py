"""Sobek's derived features for learned agents (``agents.players.features`` names them per game).

``advice``
    after the observation vector, what the heuristic baseline makes of it
    (:func:`agents.sobek.heuristic.advise`): the action it would choose (one-hot), its
    estimate of every choice at the start of a turn, and its reading of the corruption
    race (rules §8): own corruption, each opponent's estimated corruption, the lead in
    corruption, the turns left, the expected round points and what the most-corrupt
    penalty would cost now. The network starts from the heuristic's judgement and
    learns where to depart from it. All of it is computed from the observation alone, in compiled code
    where the native baselines were built (agents/sobek/native/).

The derived entries are already on a small scale (tens of points, as tenths) and may
be negative, so :class:`agents.players.ppo.Log1pFeatures` squashes only the observation part.
"""

from __future__ import annotations

import numpy as np

from sobek_env.game import Table
from sobek_env.sobek.actions import NUM_ACTIONS
from sobek_env.sobek.catalogue import CURSE_WEIGHT
from sobek_env.sobek.scoring import penalised_position

from .heuristic import BEST, advise
from .native_agents import NATIVE, _baselines, native_table

DEFAULT_FEATURES = "advice"
POINTS = 10.0     # derived points and corruption are given in tens
OPTION_CLIP = 5.0  # turn estimates relative to the present one, in tens of points, within +-5


def race_size(num_players: int) -> int:
    """Entries of the corruption-race block: own, each opponent's, lead, turns, round points, penalty."""
    return 1 + (num_players - 1) + 4


def advice_size(num_players: int) -> int:
    """The entries the ``advice`` features add after the observation."""
    return 2 * NUM_ACTIONS + race_size(num_players)


class Advice:
    """Writes the ``advice`` features of an observation dict at ``table`` into ``out`` (zeroed): in compiled
    code where the native baselines were built (the same floats, ``tests/sobek/test_native_baselines.py``),
    else by :meth:`python_call`, the reference."""

    advice_slice = (0, NUM_ACTIONS)  # where the heuristic's choice (one-hot) lies in the derived entries

    def __init__(self, table: Table) -> None:
        self.table = table
        self._native = native_table(table) if NATIVE else None

    def __call__(self, observation: dict, out: np.ndarray) -> None:
        if self._native is not None:
            _baselines.advise(self._native, BEST, observation, out)
        else:
            self.python_call(observation, out)

    def python_call(self, observation: dict, out: np.ndarray) -> None:
        """:meth:`__call__` in Python."""
        action, options, m = advise(observation, self.table)
        out[action] = 1.0
        values = out[NUM_ACTIONS:2 * NUM_ACTIONS]
        for value, option in options:
            values[option] = np.clip((value - m.base) / POINTS, -OPTION_CLIP, OPTION_CLIP)
        v = m.v
        opponents = [v.pile_size[o] + CURSE_WEIGHT * v.curses[o] for o in range(1, v.n)]
        points = v.set_points[0]
        position = v.scores[0] + points
        race = [m.corruption, *opponents, m.corruption - max(opponents), m.turns, m.base,
                position - penalised_position(position, points)]
        out[2 * NUM_ACTIONS:] = np.asarray(race, dtype=np.float32) / POINTS


# name -> (entries added for a number of players, the writer built for a table)
FEATURE_SETS = {"advice": (advice_size, Advice)}
