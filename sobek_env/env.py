"""Sobek as a PettingZoo AEC environment.

| | |
|---|---|
| Import | ``import sobek_env; env = sobek_env.env(num_players=4)`` |
| Agents | ``player_0`` ... ``player_{n-1}`` (2 to 4) |
| Actions | Discrete(75): the action table of INTERFACE.md (``sobek_env.ACTION_NAMES``) |
| Observations | Dict(observation=Box(float32, (N,)), action_mask=Box(0, 1, (75,), int8)) |
| Observation modes | ``original`` (what the seat sees now) or ``memory`` (plus perfect recall, rules §10) |
| Rewards | ``win``: +1 / -1 at the end; ``margin``: (own - best other) / 100 at the end; |
| | ``score``: each score change / 100 |

Sobek is a card game for 2 to 4 players over three rounds: take cards from the
Nile (skipping cards costs corruption), play characters, lay sets that trigger
event tokens, and avoid being the most corrupt when a round is scored.

The agent to act is ``agent_selection``; it is also the acting agent inside
sub-decisions, including an opponent's Scribe discards, so one "turn" of the
rules may span several steps and several agents. The observation is seen from
the agent's own seat (opponents follow in seat order) and its named slices are
given by :func:`sobek_env.observation_layout`. ``state()`` is the full-information
vector. ``env.unwrapped.game`` is the :class:`GameState`.

An illegal action raises IllegalActionError and changes nothing
(``illegal_action="raise"``, the default), or ends the game with -1 to the
offender and 0 to the others (``illegal_action="terminate"``, PettingZoo's
classic convention).
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import NUM_ACTIONS
from .errors import IllegalActionError
from .observation import HIGH, MODES, Observer, encode_state, observation_size, state_size
from .render import render_text
from .state import GameState

REWARD_MODES = ("win", "margin", "score")
ILLEGAL_MODES = ("raise", "terminate")
SCORE_SCALE = 100.0


def env(**kwargs) -> AECEnv:
    """The environment in PettingZoo's order-enforcing wrapper (see :class:`raw_env`)."""
    return FastOrderEnforcingWrapper(raw_env(**kwargs))


class FastOrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order-enforcing wrapper, with ``last`` and ``step`` going straight to the
    environment once it has been reset: the base class reaches each attribute through
    ``__getattr__``, which cost about as much per step as the engine (benchmarks/bench_env.py).
    Before a reset, and for a step after the game, PettingZoo's own checks and messages apply."""

    def last(self, observe: bool = True) -> tuple:
        if not self._has_reset:
            return super().last(observe)
        return self.env.last(observe)

    def step(self, action) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)


class raw_env(AECEnv):
    """Sobek for 2 to 4 players; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "sobek_v0", "is_parallelizable": False}

    def __init__(
        self,
        num_players: int = 2,
        observation_mode: str = "original",
        reward_mode: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **rules_options,
    ) -> None:
        super().__init__()
        if observation_mode not in MODES:
            raise ValueError(f"observation_mode must be one of {MODES}, got {observation_mode!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_MODES}, got {illegal_action!r}")
        GameState.new(num_players, seed=0, **rules_options)  # validates the count and options now
        self.num_players = num_players
        self.observation_mode = observation_mode
        self.reward_mode = reward_mode
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.rules_options = rules_options
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, HIGH, (observation_size(num_players),), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, HIGH, (state_size(num_players),), np.float32)
        self._observer = Observer(num_players, observation_mode)
        self._seeder: random.Random | None = None
        self.game: GameState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: ``seed`` is the game's seed; later unseeded resets follow from it."""
        if seed is not None:
            self._seeder = random.Random(seed)
            game_seed = seed
        else:
            if self._seeder is None:
                self._seeder = random.Random()
            game_seed = self._seeder.randrange(2**63)
        self.game = GameState.new(self.num_players, seed=game_seed, **self.rules_options)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent: str) -> dict:
        seat = self.agent_name_mapping[agent]
        obs = self._observer.encode(self.game, seat).copy()
        mask = bytearray(NUM_ACTIONS)  # set item by item, then viewed as int8: half the cost of numpy indexing
        if not self.game.is_over and seat == self.game.current_player:
            for action in self.game.legal_actions():
                mask[action] = 1
        return {"observation": obs, "action_mask": np.frombuffer(mask, dtype=np.int8)}

    def state(self) -> np.ndarray:
        return encode_state(self.game)

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        before = self.game.scores
        try:
            self.game.apply(action)
        except IllegalActionError as exc:
            if self.illegal_action == "raise":
                raise IllegalActionError(f"{agent}: {exc}") from None
            self._end_for_illegal(agent, action)
            return
        self._cumulative_rewards[agent] = 0.0
        self.rewards = self._rewards(before)
        self._accumulate_rewards()
        if self.game.is_over:
            self.terminations = {a: True for a in self.agents}
            self.infos = {a: {"scores": self.game.scores, "winners": self.game.winners} for a in self.agents}
            self.agent_selection = self.possible_agents[(seat + 1) % self.num_players]
        else:
            self.agent_selection = self.possible_agents[self.game.current_player]
        if self.render_mode == "human":
            self.render()

    def _rewards(self, before: list[int]) -> dict[str, float]:
        game = self.game
        if self.reward_mode == "score":
            after = game.markers
            return {a: (after[i] - before[i]) / SCORE_SCALE for i, a in enumerate(self.possible_agents)}
        if not game.is_over:
            return {a: 0.0 for a in self.agents}
        scores = game.markers
        if self.reward_mode == "win":
            winners = set(game.winners)
            return {a: 1.0 if i in winners else -1.0 for i, a in enumerate(self.possible_agents)}
        return {
            a: (scores[i] - max(v for j, v in enumerate(scores) if j != i)) / SCORE_SCALE
            for i, a in enumerate(self.possible_agents)
        }

    def _end_for_illegal(self, agent: str, action) -> None:
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.agents}
        self._accumulate_rewards()
        self.terminations = {a: True for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.infos[agent]["illegal_action"] = action

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

