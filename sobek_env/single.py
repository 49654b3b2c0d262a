"""A Gymnasium environment in which one learner plays a registered game against fixed opponents.

Made for sb3-contrib's MaskablePPO: the observation is the learner's flat
vector, ``action_masks()`` gives its legal actions, and the opponents' turns
(including their sub-decisions) are played inside ``step``. The reward is the
learner's reward of the AEC environment accumulated since its previous action.
Registered with Gymnasium as ``sobek_env/<Game>-v<version>``: ``gymnasium.make("sobek_env/Sobek-v1")``
plays the built-in random opponent; ``opponents=[...]`` takes agent objects, or specs built by the
``make_agent(spec, table=...)`` factory given (``agents.make`` if none is: the agents package is then
imported, and only then).
"""

from __future__ import annotations

import copy
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from .env import LegalDiscrete, as_action, as_seed, ask, build_opponent, raw_env
from .game import Game, Table
from .registry import load_game


class LearnerDiscrete(LegalDiscrete):
    """The learner's :class:`~sobek_env.env.LegalDiscrete`: an unmasked sample draws a legal action of the
    env's current position.

    Seeding the space with ``s`` makes its next unmasked sample legal in the game that ``reset(seed=s)``
    deals: Gymnasium's determinism check seeds the space, samples, then resets with the same seed and
    steps, so the action must be legal after that reset, not in the position the check left behind.
    """

    _deal: int | None = None  # the seed of the game the next sample is for

    def seed(self, seed: int | None = None) -> list[int]:
        self._deal = seed
        return super().seed(seed)

    def legal_mask(self, env: SingleAgentEnv) -> np.ndarray | None:
        if self._deal is not None:
            fresh = copy.deepcopy(env)
            fresh.reset(seed=self._deal)
            return fresh._last["action_mask"]
        return env._last["action_mask"] if env._last is not None else None

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        try:
            return super().sample(mask=mask, probability=probability)
        finally:
            self._deal = None


class SingleAgentEnv(gym.Env):
    """One learner against ``opponents`` at a random (``seat=None``) or fixed seat of ``game``.

    ``opponents`` is one agent (it fills every other seat), a sequence of ``num_players - 1``
    agents or agent specs, or a pool: an object with ``sample(rng: numpy.random.Generator, count: int) -> list``
    called at every reset. The spec ``"random"`` is the library's own :class:`~sobek_env.env.RandomOpponent`;
    other specs (``"heuristic"``) are built for this table by ``make_agent(spec, table=...)``, by default
    ``agents.make`` (imported only when such a spec is given). Agents that have a ``seed(int)`` method are
    reseeded on each reset, so a seeded reset replays the same episode; an agent with ``wants_state`` is also
    handed the game's state.
    ``env_kwargs`` go to :class:`sobek_env.env.raw_env` (observation_mode, reward_mode, rules options).
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 1}

    def __init__(self, opponents: Any, num_players: int | None = None, seat: int | None = None,
                 game: Game | str = "sobek", make_agent: Callable[..., Any] | None = None,
                 **env_kwargs: Any) -> None:
        super().__init__()
        if env_kwargs.get("illegal_action", "raise") != "raise":
            raise ValueError("SingleAgentEnv always raises on an illegal action; drop illegal_action")
        game = load_game(game)
        num_players = game.default_players if num_players is None else num_players
        self.aec = raw_env(game=game, num_players=num_players, **env_kwargs)
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players):
            raise ValueError(f"seat must be None or an int from 0 to {num_players - 1}, got {seat!r}")
        self.table: Table = self.aec.table
        self.num_players = num_players
        self.fixed_seat = seat
        self.render_mode = self.aec.render_mode
        self._make_agent = make_agent
        self._pool = opponents if hasattr(opponents, "sample") else None
        self.opponents = [] if self._pool is not None else self._check_opponents(opponents)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = LearnerDiscrete(game.num_actions, self)
        self.seat = 0 if seat is None else seat
        self._last: dict | None = None

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.action_space._env = weakref.ref(self)

    def _check_opponents(self, opponents: Any) -> list:
        if hasattr(opponents, "act") or isinstance(opponents, str):
            opponents = [opponents] * (self.num_players - 1)
        if not isinstance(opponents, Sequence) or len(opponents) != self.num_players - 1:
            raise ValueError(
                f"opponents must be one agent, a pool with sample(), or a list of {self.num_players - 1} agents"
            )
        return [build_opponent(agent, self.table, self._make_agent) for agent in opponents]

    @property
    def game(self) -> Any:
        """The game's state being played."""
        return self.aec.game

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new game; ``seed`` is None or a non-negative Python or numpy integer (a refused one changes nothing)."""
        super().reset(seed=as_seed(seed))
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

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._last is None:
            raise RuntimeError("call reset() before step()")
        if self.game.is_over:
            raise RuntimeError("the episode is over; call reset()")
        me = self.aec.possible_agents[self.seat]
        self.aec.step(as_action(action, self.table.game.num_actions))
        reward = self.aec.rewards[me] + self._play_opponents()
        return self._last["observation"], float(reward), self.game.is_over, False, self._info()

    def _play_opponents(self) -> float:
        """Play the other seats until the learner must act or the game ends; its reward meanwhile."""
        aec, me = self.aec, self.aec.possible_agents[self.seat]
        reward = 0.0
        while not self.game.is_over and aec.agent_selection != me:
            agent = aec.agent_selection
            seat = aec.agent_name_mapping[agent]
            opponent = self.opponents[(seat - self.seat) % self.num_players - 1]
            aec.step(ask(opponent, aec.observe(agent), self.game))
            reward += aec.rewards[me]
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

    def render(self) -> str | np.ndarray | None:
        """The table as the player to move sees it (the learner, between his steps): text, or a picture."""
        return self.aec.render()

