"""What a learned agent reads: the observation vector, optionally followed by a game's derived features.

A feature set is named in the model's metadata, so a model always reads what it was
trained on. ``raw`` (the observation as the environment gives it) exists for every
game; a game's agents package may register its own (:mod:`agents.games`; Sobek's and Kleopatra's ``advice``).
Every set is computed from the observation dict alone (what the seat may see), never
from the game's state. :class:`FeatureObservation` applies a set to a Gymnasium
environment, so a shipped model can be used from plain stable-baselines3.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from agents.games import tables
from sobek_env.game import Game, Table
from sobek_env.registry import load_game

RAW = "raw"


def feature_sets(game: Game | str = "sobek") -> tuple[str, ...]:
    """The feature sets a model of ``game`` may read."""
    return (RAW, *tables(game).feature_sets)


def default_features(game: Game | str = "sobek") -> str:
    """What ``train.py`` uses unless told otherwise: the game's own default, else ``raw``."""
    return tables(game).default_features or RAW


def check_features(features: str, game: Game | str = "sobek") -> None:
    """ValueError unless ``features`` names a feature set of ``game``."""
    known = feature_sets(game)
    if features not in known:
        raise ValueError(f"unknown feature set {features!r} for {load_game(game).name}; use one of {', '.join(known)}")


def feature_size(features: str, table: Table) -> int:
    """Length of the vector a model with ``features`` reads at ``table``."""
    check_features(features, table.game)
    base = table.game.observation_size(table.num_players)
    if features == RAW:
        return base
    size, _ = tables(table.game).feature_sets[features]
    return base + size(table.num_players)


class Featurizer:
    """Turns an observation dict into the vector a model reads (see the module docstring)."""

    def __init__(self, features: str, table: Table) -> None:
        check_features(features, table.game)
        self.features = features
        self.base = table.game.observation_size(table.num_players)
        self.size = feature_size(features, table)
        self._derive = None if features == RAW else tables(table.game).feature_sets[features][1](table)

    @property
    def advice_slice(self) -> tuple[int, int] | None:
        """Where a one-hot of advised actions lies in the vector, if the set has one (for AdvisedPolicy)."""
        where = getattr(self._derive, "advice_slice", None)
        return None if where is None else (self.base + where[0], self.base + where[1])

    def __call__(self, observation: dict) -> np.ndarray:
        vector = np.asarray(observation["observation"], dtype=np.float32)
        if self._derive is None:
            return vector
        out = np.zeros(self.size, dtype=np.float32)
        out[:self.base] = vector
        if np.any(observation["action_mask"]):  # a finished game has no decision to advise on
            self._derive(observation, out[self.base:])
        return out


class FeatureObservation(gym.ObservationWrapper):
    """A :class:`sobek_env.SingleAgentEnv` whose observations carry a feature set, as a model reads them.

    ``FeatureObservation(SingleAgentEnv(...), "advice")`` gives a plain stable-baselines3 policy the
    vectors a shipped model was trained on; ``action_masks()`` passes through for MaskablePPO.
    """

    def __init__(self, env: gym.Env, features: str) -> None:
        super().__init__(env)
        table = env.unwrapped.table
        self.featurize = Featurizer(features, table)
        low = -np.inf if features != RAW else 0.0
        self.observation_space = gym.spaces.Box(low, np.inf, (self.featurize.size,), np.float32)

    def observation(self, observation: np.ndarray) -> np.ndarray:
        return self.featurize({"observation": observation, "action_mask": self.env.unwrapped.action_masks()})

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


__all__ = ["RAW", "FeatureObservation", "Featurizer", "check_features", "default_features", "feature_sets",
           "feature_size"]
