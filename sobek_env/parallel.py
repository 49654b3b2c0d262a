"""Any registered game as a PettingZoo ParallelEnv.

The games are turn-based: at each step one agent acts (the seat to move, possibly
inside a sub-decision) and the others wait. ``step(actions)`` takes a dict that
holds the acting agent's action (``actions[env.acting]``); the other agents'
entries are ignored. A waiting agent's mask allows only ``WAIT`` (action 0), a
pass that ``step`` ignores: clients that draw an action for every live agent
from its mask (TorchRL, RLlib's masked modules) need one legal action per agent,
and a single one gives a learner nothing to learn from a waiting step. After the
game's end every mask is empty.
Every agent gets its observation, reward, termination and info after every
step; rewards are each agent's reward accumulated over the step, as in the AEC
environment. Once the game ends every agent is terminated and ``agents`` empties.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from .env import raw_env

WAIT = 0  # the only action a waiting agent's mask allows; step ignores it


def parallel_env(**kwargs: Any) -> TurnParallelEnv:
    """The parallel environment of ``raw_env(**kwargs)``."""
    return TurnParallelEnv(raw_env(**kwargs))


class TurnParallelEnv(ParallelEnv):
    """The parallel API over a turn-based :class:`~sobek_env.env.raw_env` (module docstring)."""

    def __init__(self, aec: raw_env) -> None:
        self.aec = aec
        self.metadata = dict(aec.metadata, is_parallelizable=True)
        self.possible_agents = list(aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = aec.render_mode
        self.table = aec.table

    def observation_space(self, agent: str) -> spaces.Space:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space:
        return self.aec.action_space(agent)

    @property
    def acting(self) -> str:
        """The agent whose action the next ``step`` plays."""
        return self.aec.agent_selection

    @property
    def game(self) -> Any:
        """The game's state being played."""
        return self.aec.game

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return {a: self._observe(a) for a in self.agents}, {a: dict(self.aec.infos[a]) for a in self.agents}

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if not self.agents:
            raise RuntimeError("call reset() before step()" if self.aec.game is None else
                               "the game is over; call reset()")
        acting = self.aec.agent_selection
        if not isinstance(actions, Mapping):
            raise TypeError(f"step takes a dict of actions by agent ({acting} must act now), got {actions!r:.60}")
        if acting not in actions:
            raise KeyError(f"{acting} must act now; give its action in the dict (the others are ignored)")
        self.aec.step(actions[acting])
        agents = self.agents
        observations = {a: self._observe(a) for a in agents}
        rewards = {a: self.aec.rewards[a] for a in agents}
        terminations = {a: self.aec.terminations[a] for a in agents}
        truncations = {a: self.aec.truncations[a] for a in agents}
        infos = {a: dict(self.aec.infos[a]) for a in agents}
        if self.aec.game.is_over or any(terminations.values()):
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observe(self, agent: str) -> dict:
        """The agent's observation; while the game goes on, a waiting agent's mask allows only WAIT."""
        observation = self.aec.observe(agent)
        if agent != self.aec.agent_selection and not (self.aec.game.is_over or self.aec.terminations[agent]):
            mask = np.zeros_like(observation["action_mask"])
            mask[WAIT] = 1
            observation["action_mask"] = mask
        return observation

    def state(self) -> Any:
        return self.aec.state()

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def versioned(game: str) -> tuple:
    """``env``, ``raw_env`` and ``parallel_env`` with ``game`` fixed, for a versioned module (``sobek_v1``)."""
    aec = importlib.import_module("sobek_env.env")  # the module: the package's ``env`` is its function

    def env(**kwargs: Any) -> aec.OrderEnforcing:
        return aec.env(game=game, **kwargs)

    def raw_env(**kwargs: Any) -> aec.raw_env:
        return aec.raw_env(game=game, **kwargs)

    def parallel(**kwargs: Any) -> TurnParallelEnv:
        return parallel_env(game=game, **kwargs)

    for function, what in ((env, "the AEC environment in the order-enforcing wrapper"),
                           (raw_env, "the AEC environment without wrappers"), (parallel, "the parallel environment")):
        function.__doc__ = f"{game}: {what} (keyword arguments as for sobek_env.env.raw_env, without game)."
    return env, raw_env, parallel
