"""A Gymnasium environment in which one learner plays Sobek against fixed opponents.

Made for sb3-contrib's MaskablePPO: the observation is the learner's flat
vector, ``action_masks()`` gives its legal actions, and the opponents' turns
(including their sub-decisions) are played inside ``step``. The reward is the
learner's reward of the AEC environment accumulated since its previous action.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import gymnasium as gym
import numpy as np

from .actions import NUM_ACTIONS
from .env import raw_env
from .errors import IllegalActionError


class LegalDiscrete(gym.spaces.Discrete):
    """Discrete(75) whose ``sample()`` without a mask draws a legal action of the env's
    current state (so generic tools such as ``check_env`` send legal actions)."""

    def __init__(self, n: int, env: SingleAgentEnv) -> None:
        super().__init__(n)
        self._env = weakref.ref(env)

    def sample(self, mask=None, probability=None):
        env = self._env() if self._env is not None else None
        if mask is None and probability is None and env is not None and env._last is not None:
            mask = env._last["action_mask"]
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_env"] = None  # a weak reference cannot be pickled; a copy samples unmasked
        return state


class SingleAgentEnv(gym.Env):
    """One learner against ``opponents`` at a random (``seat=None``) or fixed seat.

    ``opponents`` is one agent (it fills every other seat), a sequence of
    ``num_players - 1`` agents, or a pool: an object with
    ``sample(rng: numpy.random.Generator, count: int) -> list`` called at every
    reset. Agents that have a ``seed(int)`` method are reseeded on each reset,
    so a seeded reset replays the same episode. ``env_kwargs`` go to
    :class:`sobek_env.raw_env` (observation_mode, reward_mode, rules options).
    """

    metadata = {"render_modes": ["ansi", "human"]}

    def __init__(self, opponents: Any, num_players: int = 2, seat: int | None = None, **env_kwargs) -> None:
        super().__init__()
        if env_kwargs.get("illegal_action", "raise") != "raise":
            raise ValueError("SingleAgentEnv always raises on an illegal action; drop illegal_action")
        self.aec = raw_env(num_players=num_players, **env_kwargs)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players):
            raise ValueError(f"seat must be None or an int from 0 to {num_players - 1}, got {seat!r}")
        self.num_players = num_players
        self.fixed_seat = seat
        self.render_mode = self.aec.render_mode
        self._pool = opponents if hasattr(opponents, "sample") else None
        self.opponents = [] if self._pool is not None else self._check_opponents(opponents)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = LegalDiscrete(NUM_ACTIONS, self)
        self.seat = 0 if seat is None else seat
        self._last: dict | None = None

    def _check_opponents(self, opponents: Any) -> list:
        if hasattr(opponents, "act"):
            return [opponents] * (self.num_players - 1)
        if not isinstance(opponents, Sequence) or len(opponents) != self.num_players - 1:
            raise ValueError(
                f"opponents must be one agent, a pool with sample(), or a list of {self.num_players - 1} agents"
            )
        for agent in opponents:
            if not hasattr(agent, "act"):
                raise ValueError(f"opponent {agent!r} has no act(observation) method")
        return list(opponents)

    @property
    def game(self):
        """The GameState being played."""
        return self.aec.game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(2**63))
        if self._pool is not None:
            self.opponents = self._check_opponents(self._pool.sample(self.np_random, self.num_players - 1))
        for i, agent in enumerate(self.opponents):
            if hasattr(agent, "seed"):
                agent.seed(game_seed + i + 1)
        self.seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(self.num_players))
        self.aec.reset(seed=game_seed)
        self._play_opponents()
        return self._last["observation"], self._info()

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        if self.game.is_over:
            raise RuntimeError("the episode is over; call reset()")
        action = _as_action(action)
        me = self.aec.possible_agents[self.seat]
        self.aec.step(action)
        reward = self.aec._cumulative_rewards[me]
        self.aec._cumulative_rewards[me] = 0.0
        reward += self._play_opponents()
        terminated = self.game.is_over
        return self._last["observation"], float(reward), terminated, False, self._info()

    def _play_opponents(self) -> float:
        """Play the other seats until the learner must act or the game ends; its reward meanwhile."""
        aec, me = self.aec, self.aec.possible_agents[self.seat]
        reward = 0.0
        while not self.game.is_over and aec.agent_selection != me:
            agent = aec.agent_selection
            seat = aec.agent_name_mapping[agent]
            opponent = self.opponents[(seat - self.seat) % self.num_players - 1]
            aec.step(opponent.act(aec.observe(agent)))
            reward += aec._cumulative_rewards[me]
            aec._cumulative_rewards[me] = 0.0
        self._last = aec.observe(me)
        return reward

    def _info(self) -> dict:
        info = {"seat": self.seat}
        if self.game.is_over:
            info["scores"] = self.game.scores
            info["winners"] = self.game.winners
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a boolean mask (for MaskablePPO)."""
        return self._last["action_mask"].astype(bool)

    def render(self) -> str | None:
        return self.aec.render()


def _as_action(action: Any) -> int:
    """Accept a Python or numpy integer, or a one-element integer array (as policies return)."""
    if isinstance(action, np.ndarray) and action.size == 1 and np.issubdtype(action.dtype, np.integer):
        return int(action.reshape(()))
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise IllegalActionError(f"an action must be an integer id from 0 to {NUM_ACTIONS - 1}, got {action!r}")
    return int(action)
