"""Sobek, Bruno Cathala's card game of trading and corruption on the Nile, as a game engine
and a PettingZoo environment."""

from .actions import ACTION_NAMES, NUM_ACTIONS, action_id
from .env import env, raw_env
from .errors import IllegalActionError, StateFormatError
from .observation import describe_layout, observation_layout, observation_shapes
from .single import SingleAgentEnv
from .state import GameState

__all__ = [
    "ACTION_NAMES", "NUM_ACTIONS", "action_id", "GameState", "IllegalActionError", "StateFormatError",
    "env", "raw_env", "observation_layout", "observation_shapes", "describe_layout", "SingleAgentEnv",
]
