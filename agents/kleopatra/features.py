"""Kleopatra's derived features for learned agents (``agents.players.features`` names them per game).

``advice``
    after the observation vector, what the heuristic baseline makes of it
    (:class:`agents.kleopatra.heuristic.HeuristicAgent` at its default tolerance): the action it
    would choose (one-hot) and its reading of the crocodile's race (rules §11.4): the amulets it
    expects to end with, what it expects of each opponent, its standing against the most corrupt
    of them, and Cleopatra's step; and its own running offer in a ceremony, in tens of talents and
    as a share of its talents (rules §10: the observation gives the offer in hundreds, so that a
    step of 1 talent barely moved it, and a learner could not see its offer grow: one learned to
    offer 1 talent after 1 talent until it had none). The network starts from the heuristic's
    judgement and learns where to depart from it. All of it is computed from the observation alone: the
    whole of it in compiled code where the native baselines were built (agents/kleopatra/native/, the same
    floats as the Python reference).

The derived entries are on a small scale (amulets as tenths) and the standing may be negative,
so :class:`agents.players.ppo.Log1pFeatures` squashes only the observation part.
"""

from __future__ import annotations

import numpy as np

from sobek_env.game import Table
from sobek_env.kleopatra.actions import NUM_ACTIONS

from .common import position, table_rules
from .heuristic import BEST, HeuristicAgent
from .native_agents import NATIVE, _baselines, native_table

DEFAULT_FEATURES = "advice"
AMULETS = 10.0  # amulets are given in tens
STEPS = 10.0    # Cleopatra's steps, as tenths
TALENTS = 10.0  # a ceremony offer, in tens of talents


def race_size(num_players: int) -> int:
    """Entries of the crocodile's race: own final amulets, each opponent's, the standing, Cleopatra's step,
    the ceremony offer and its share of the talents."""
    return 1 + (num_players - 1) + 4


def advice_size(num_players: int) -> int:
    """The entries the ``advice`` features add after the observation."""
    return NUM_ACTIONS + race_size(num_players)


class Advice:
    """Writes the ``advice`` features of an observation dict at ``table`` into ``out`` (zeroed): in compiled
    code where the native baselines were built (the same floats, ``tests/kleopatra/test_native_baselines.py``),
    else by :meth:`python_call`, the reference."""

    advice_slice = (0, NUM_ACTIONS)  # where the heuristic's choice (one-hot) lies in the derived entries

    def __init__(self, table: Table) -> None:
        self.table = table
        self.rules = table_rules(table)
        self.heuristic = HeuristicAgent(table)
        self._native = native_table(table) if NATIVE else None

    def __call__(self, observation: dict, out: np.ndarray) -> None:
        if self._native is not None:
            vector = np.ascontiguousarray(observation["observation"], dtype=np.float32)
            _baselines.advise(self._native, BEST, {"observation": vector, "action_mask": observation["action_mask"]},
                              out)
        else:
            self.python_call(observation, out)

    def python_call(self, observation: dict, out: np.ndarray) -> None:
        """:meth:`__call__` in Python."""
        h = self.heuristic
        p = position(observation, self.table, self.rules)
        out[h.decide(p)] = 1.0
        own = h.own_final(p)
        opponents = [h.opponent_final(p, i) for i in range(1, p.view.num_players)]
        v = p.view
        race = [own / AMULETS, *(o / AMULETS for o in opponents), (own - max(opponents)) / AMULETS,
                v.cleopatra / STEPS, v.ceremony_offer / TALENTS, v.ceremony_offer / max(1, v.talents[0])]
        out[NUM_ACTIONS:] = np.asarray(race, dtype=np.float32)


# name -> (entries added for a number of players, the writer built for a table)
FEATURE_SETS = {"advice": (advice_size, Advice)}
