"""Reinforcement-learning environments for Bruno Cathala's games of trading and corruption.

A game-agnostic layer (the :class:`~sobek_env.game.Game` protocol and registry, PettingZoo
AEC and parallel environments, a Gymnasium single-agent environment, the stress runner)
and one package per game: :mod:`sobek_env.sobek` (Sobek) and :mod:`sobek_env.kleopatra`
(Kleopatra and the Society of Architects). ``load_game(name)`` gives a game object.

Sobek's names keep working at the top level (``sobek_env.GameState``,
``sobek_env.ACTION_NAMES``, ``sobek_env.observation_layout`` ...); they are imported
only when first used, so the layer and one game never import another game.
"""

from __future__ import annotations

from typing import Any

from .env import env, raw_env
from .errors import IllegalActionError, InvariantError, StateFormatError
from .game import Game, Table
from .parallel import parallel_env
from .registry import GAMES, load_game, version
from .single import SingleAgentEnv
from .vector import vector_env

__version__ = "1.0.0"

_SOBEK_NAMES = ("GameState", "ACTION_NAMES", "NUM_ACTIONS", "action_id", "observation_layout", "observation_shapes",
                "describe_layout")


def __getattr__(name: str) -> Any:
    if name in _SOBEK_NAMES:
        from . import sobek

        return getattr(sobek, name)
    raise AttributeError(f"module 'sobek_env' has no attribute {name!r}")


def register_envs() -> None:
    """Register every game with Gymnasium as ``sobek_env/<Game>-v<version>`` (a SingleAgentEnv); done on
    import, so ``import sobek_env`` (or the id ``"sobek_env:sobek_env/Sobek-v1"``) makes them available."""
    import gymnasium

    for name in GAMES:
        env_id = f"sobek_env/{name.capitalize()}-v{version(name)}"
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="sobek_env.single:SingleAgentEnv",
                               kwargs={"game": name, "opponents": "random"})


register_envs()

__all__ = [
    "GAMES", "Game", "IllegalActionError", "InvariantError", "SingleAgentEnv", "StateFormatError", "Table",
    "__version__", "env", "load_game", "parallel_env", "raw_env", "register_envs", "vector_env",
    *_SOBEK_NAMES,
]
