"""What a learned agent reads: the observation vector, optionally followed by derived features.

A feature set is named in the model's metadata, so a model always reads what it
was trained on. Both sets are computed from the observation dict alone (what the
seat may see), never from the game's state:

``raw``
    the observation vector as the environment gives it.
``advice``
    the observation vector, then what the heuristic baseline makes of it
    (:func:`agents.heuristic.advise`): the action it would choose (one-hot), its
    estimate of every choice at the start of a turn, and its reading of the
    corruption race (rules §8): own corruption, each opponent's estimated
    corruption, the lead in corruption, the turns left, the expected round
    points and what the most-corrupt penalty would cost now. The network starts
    from the heuristic's judgement and learns where to depart from it.

The derived entries are already on a small scale (tens of points, as tenths) and
may be negative, so :class:`agents.ppo.Log1pFeatures` squashes only the
observation part.
"""

from __future__ import annotations

import numpy as np

from sobek_env.actions import NUM_ACTIONS
from sobek_env.catalogue import CURSE_WEIGHT
from sobek_env.observation import observation_size
from sobek_env.scoring import penalised_position

from .heuristic import advise

FEATURE_SETS = ("raw", "advice")
DEFAULT_FEATURES = "advice"
POINTS = 10.0     # derived points and corruption are given in tens
OPTION_CLIP = 5.0  # turn estimates relative to the present one, in tens of points, within +-5


def race_size(num_players: int) -> int:
    """Entries of the corruption-race block: own, each opponent's, lead, turns, round points, penalty."""
    return 1 + (num_players - 1) + 4


def feature_size(features: str, num_players: int) -> int:
    """Length of the vector a model with ``features`` reads at a table of ``num_players``."""
    check_features(features)
    extra = 0 if features == "raw" else 2 * NUM_ACTIONS + race_size(num_players)
    return observation_size(num_players) + extra


def check_features(features: str) -> None:
    """ValueError unless ``features`` names a feature set."""
    if features not in FEATURE_SETS:
        raise ValueError(f"unknown feature set {features!r}; use one of {', '.join(FEATURE_SETS)}")


class Featurizer:
    """Turns an observation dict into the vector a model reads (see the module docstring)."""

    def __init__(self, features: str, num_players: int) -> None:
        check_features(features)
        self.features = features
        self.base = observation_size(num_players)
        self.size = feature_size(features, num_players)

    def __call__(self, observation: dict) -> np.ndarray:
        vector = np.asarray(observation["observation"], dtype=np.float32)
        if self.features == "raw":
            return vector
        out = np.zeros(self.size, dtype=np.float32)
        out[:self.base] = vector
        if np.any(observation["action_mask"]):  # a finished game has no decision to advise on
            self._advice(observation, out[self.base:])
        return out

    def _advice(self, observation: dict, out: np.ndarray) -> None:
        action, options, m = advise(observation)
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


__all__ = ["DEFAULT_FEATURES", "FEATURE_SETS", "Featurizer", "check_features", "feature_size"]
