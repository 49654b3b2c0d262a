"""Any registered game as a PettingZoo AEC environment.

| | |
|---|---|
| Import | ``sobek_env.env(game="sobek", num_players=4)``, or ``sobek_env.sobek_v1.env(num_players=4)`` |
| Agents | ``player_0`` ... ``player_{n-1}`` |
| Actions | ``Discrete(game.num_actions)``: the game's action table (``load_game(name).action_names``) |
| Observations | ``Dict(observation=Box(float32, (N,)), action_mask=Box(0, 1, (actions,), int8))`` |
| Observation modes | ``original`` (what the seat sees now) or ``memory`` (plus perfect recall) |
| Rewards | ``win``: +1 / -1 at the end; ``margin``: the game's margin / its score scale at the end; |
| | ``score``: each change of the seat's own score / the score scale |

The agent to act is ``agent_selection``; it is also the acting agent inside
sub-decisions, including an opponent's (a Sobek Scribe's discards, a Kleopatra
ceremony's bids), so one turn of the rules may span several steps and agents.
The observation is seen from the agent's own seat (opponents follow in seat
order); :meth:`Game.observation_layout` names its slices. ``state()`` is the
full-information vector. ``env.unwrapped.game`` is the game's state and
``env.unwrapped.table`` the :class:`~sobek_env.game.Table` (game object, players,
mode, rules options).

An illegal action raises IllegalActionError and changes nothing
(``illegal_action="raise"``, the default), or ends the game with -1 to the
offender and 0 to the others (``illegal_action="terminate"``, PettingZoo's
classic convention, for generic tools that ignore masks). The action space
samples legal actions only. ``step`` takes a Python or numpy integer, a 0-d or
one-element integer array, or a torch integer scalar, as policies return them.

``infos[agent]`` has the same keys at every step: ``score`` and ``winner`` (filled
at the game's end), ``illegal`` (True for the offender of ``terminate``).

``reset`` takes a seed that is None or a non-negative Python or numpy integer; a
refused seed changes nothing. An unknown agent given to ``observe``,
``action_space`` or ``observation_space`` raises UnknownAgentError (a KeyError
and a ValueError) naming the agents. Once the game is over each agent takes its
``step(None)`` (PettingZoo's dead steps); a step after all of them warns and does
nothing, as PettingZoo's order-enforcing wrapper does.
"""

from __future__ import annotations

import random
import weakref
from numbers import Integral
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import BaseWrapper
from pettingzoo.utils.env_logger import EnvLogger

from .errors import IllegalActionError, UnknownAgentError
from .game import Game, Table, legal_mask, observe
from .registry import load_game

REWARD_MODES = ("win", "margin", "score")
ILLEGAL_MODES = ("raise", "terminate")
RENDER_MODES = ("ansi", "human", "rgb_array")


def env(**kwargs: Any) -> AECEnv:
    """The environment in the order-enforcing wrapper (see :class:`raw_env`)."""
    return OrderEnforcing(raw_env(**kwargs))


def as_action(action: Any, num_actions: int) -> int:
    """An action id from what a policy returns: a Python or numpy integer, a one-element integer array
    (numpy, or torch), or a torch integer scalar. Anything else raises IllegalActionError."""
    if type(action) is int:
        return action
    if isinstance(action, Integral) and not isinstance(action, (bool, np.bool_)):
        return int(action)
    item = getattr(action, "item", None)
    size = getattr(action, "size", None)
    size = size() if callable(size) else size  # torch's size is a method, numpy's a number
    if item is not None and (size in (1, None) or getattr(action, "numel", lambda: 0)() == 1):
        try:
            value = item()
        except (ValueError, RuntimeError):
            value = None
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    raise IllegalActionError(f"an action must be an integer id from 0 to {num_actions - 1}, got {action!r}")


def as_seed(seed: Any) -> int | None:
    """A reset's seed: None, or a non-negative Python or numpy integer, as an int. Anything else (a bool, a
    float, a negative number) raises ValueError."""
    if seed is None or (type(seed) is int and seed >= 0):
        return seed
    if isinstance(seed, Integral) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise ValueError(f"seed must be None or a non-negative integer (Python or numpy), got {seed!r}")


def unknown_agent(agent: Any, agents: list[str]) -> UnknownAgentError:
    """The error for an agent name the environment does not have."""
    return UnknownAgentError(f"unknown agent {agent!r:.60}; the agents are {', '.join(agents)}")


def ask(agent: Any, observation: dict, state: Any) -> Any:
    """``agent``'s action on ``observation``; an agent with ``wants_state`` (a search, a human at the table)
    is also handed the game's ``state``."""
    if getattr(agent, "wants_state", False):
        return agent.act(observation, state=state)
    return agent.act(observation)


RANDOM = "random"  # the spec of the built-in opponent


class RandomOpponent:
    """The library's own opponent (spec ``"random"``): a legal action drawn uniformly, from its own generator,
    with the draws of ``agents.make("random")``; the environments need no agents package to use it."""

    name = RANDOM

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def seed(self, seed: int | None) -> None:
        """Restart the generator (the environments call this on a seeded reset)."""
        self.rng = random.Random(seed)

    def act(self, observation: dict) -> int:
        return self.rng.choice(np.flatnonzero(observation["action_mask"]).tolist())


def build_opponent(spec: Any, table: Table, make_agent: Any = None) -> Any:
    """An opponent from ``spec``: an agent object as it is, ``"random"`` the built-in :class:`RandomOpponent`,
    another string built by ``make_agent(spec, table=table)``; without a factory such a string needs the
    agents package, imported then (``agents.make``) and only then, so that the library alone never imports it."""
    if isinstance(spec, str):
        if spec.strip() == RANDOM:
            return RandomOpponent()
        if make_agent is None:
            from agents import make as make_agent  # an agent spec names the agents package's players
        spec = make_agent(spec, table=table)
    if not hasattr(spec, "act"):
        raise ValueError(f"opponent {spec!r:.80} is neither an agent spec nor an agent with act(observation)")
    return spec


class LegalDiscrete(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` without a mask draws a legal action of its agent when that
    agent must act (so generic tools that ignore masks send legal actions). The environment is held weakly;
    a subclass says where the mask comes from (:meth:`legal_mask`)."""

    def __init__(self, n: int, env: Any = None, agent: str | None = None) -> None:
        super().__init__(n)
        self._env = None if env is None else weakref.ref(env)
        self._agent = agent

    def legal_mask(self, env: Any) -> np.ndarray | None:
        """The mask an unmasked sample draws from (None: any action)."""
        mask = env.mask(self._agent)
        return mask if mask.any() else None  # not this agent's turn: any action (it will not be asked for one)

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        env = self._env() if self._env is not None else None
        if mask is None and probability is None and env is not None:
            mask = self.legal_mask(env)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_env"] = None  # a weak reference cannot be pickled: the copy's owner sets it again
        return state


class OrderEnforcing(BaseWrapper):
    """Refuses ``step``, ``observe``, ``last`` and ``render`` before ``reset`` with a clear message. Once
    reset, ``step``, ``last`` and ``observe`` are the environment's own methods, bound on the wrapper: a
    wrapper method in between cost a Python call per agent-step (and PettingZoo's own wrapper reaches each
    attribute through ``__getattr__``, which cost about as much per step as the engine)."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self.was_reset = False

    def _check(self, what: str) -> None:
        if not self.was_reset:
            raise RuntimeError(f"call reset() before {what}()")

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.env.reset(seed=seed, options=options)  # first: a refused reset leaves the wrapper as it was
        self.was_reset = True
        self.step, self.last, self.observe = self.env.step, self.env.last, self.env.observe

    def step(self, action: Any) -> None:
        self._check("step")
        self.env.step(action)

    def last(self, observe: bool = True) -> tuple:
        self._check("last")
        return self.env.last(observe)

    def observe(self, agent: str) -> Any:
        self._check("observe")
        return self.env.observe(agent)

    def render(self) -> Any:
        self._check("render")
        return self.env.render()

    def __str__(self) -> str:
        return str(self.env)


class raw_env(AECEnv):
    """A registered game as an AEC environment; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "sobek_env", "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        game: Game | str = "sobek",
        num_players: int | None = None,
        observation_mode: str = "original",
        reward_mode: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        **rules_options: Any,
    ) -> None:
        super().__init__()
        game = load_game(game)
        num_players = game.default_players if num_players is None else num_players
        game.check_table(num_players, observation_mode)
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, "
                             f"got {render_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_MODES}, got {illegal_action!r}")
        game.new(num_players, seed=0, **rules_options)  # validates the rules options now
        self.table = Table(game, num_players, observation_mode, dict(rules_options))
        self.metadata = {**self.metadata, "name": f"{game.name}_v{game.version}"}
        self.num_players = num_players
        self.observation_mode = observation_mode
        self.reward_mode = reward_mode
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.rules_options = dict(rules_options)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = game.observation_bounds(num_players, **rules_options)
        size, actions = game.observation_size(num_players), game.num_actions
        obs_space = spaces.Dict({
            "observation": spaces.Box(low, high, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (actions,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: LegalDiscrete(actions, self, a) for a in self.possible_agents}
        self._num_actions = actions  # read at every step: the game's property costs a lookup and a call
        # the full-information vector holds what the observations hold, of every seat: within their extremes
        self.state_space = spaces.Box(float(np.min(low)), float(np.max(high)), (game.state_size(num_players),),
                                      np.float32)
        self._observer = game.observer(num_players, observation_mode)
        self._seeder: random.Random | None = None
        self.game = None
        self.agents: list[str] = []  # until reset: no agent to step (step says to call reset())
        self.agent_selection = None
        self.terminations: dict[str, bool] = {}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        for agent, space in self.action_spaces.items():  # reconnect the spaces to this copy
            space._env, space._agent = weakref.ref(self), agent

    def observation_space(self, agent: str) -> spaces.Space:
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise unknown_agent(agent, self.possible_agents) from None

    def action_space(self, agent: str) -> spaces.Space:
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise unknown_agent(agent, self.possible_agents) from None

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: ``seed`` is the game's seed; later unseeded resets follow from it. A refused
        seed (module docstring) changes nothing."""
        seed = as_seed(seed)
        if seed is not None:
            seeder = random.Random(seed)
            game_seed = seed
        else:
            seeder = self._seeder if self._seeder is not None else random.Random()
            game_seed = seeder.randrange(2**63)
        self.game = self.table.game.new(self.num_players, seed=game_seed, **self.rules_options)
        self._seeder = seeder
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"score": 0, "winner": False, "illegal": False} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]

    def mask(self, agent: str) -> np.ndarray:
        """``agent``'s action mask: its legal actions if it must act now, else none."""
        seat = self._seat(agent)
        if self.game is None:
            return np.zeros(self._num_actions, dtype=np.int8)
        return legal_mask(self.game, seat, self._num_actions)

    def _seat(self, agent: str) -> int:
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise unknown_agent(agent, self.possible_agents) from None

    def observe(self, agent: str) -> dict:
        try:
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise unknown_agent(agent, self.possible_agents) from None
        if self.game is None:
            raise RuntimeError("call reset() before observe()")
        return observe(self._observer, self.game, seat, self._num_actions)

    def last(self, observe: bool = True) -> tuple:
        agent = self.agent_selection  # AECEnv.last, without a call in between: it runs at every agent-step
        try:
            return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                    self.terminations[agent], self.truncations[agent], self.infos[agent])
        except KeyError:  # no agent left: never reset, or every agent took its dead step
            raise RuntimeError("call reset() before last()" if self.game is None else
                               "every agent is done (the game is over); call reset()") from None

    def state(self) -> np.ndarray:
        return self.table.game.state_vector(self.game)

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # no agent left: never reset, or every agent took its dead step
            if self.game is None:
                raise RuntimeError("call reset() before step()") from None
            EnvLogger.warn_step_after_terminated_truncated()  # PettingZoo's convention: a warning, no step
            return
        if dead:
            self._was_dead_step(action)
            return
        game = self.game
        score = self.reward_mode == "score"
        before = game.scores if score else None  # only score rewards read it
        try:
            game.apply(action if type(action) is int else as_action(action, self._num_actions))
        except IllegalActionError as exc:
            if self.illegal_action == "raise":
                raise IllegalActionError(f"{agent}: {exc}") from None
            self._end_for_illegal(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        over = game.is_over
        # win and margin rewards are 0 until the game's end, so self.rewards still holds the zeros of the
        # reset and adding them would change nothing: only a score change or the end is counted
        if over or score:
            self.rewards = self._rewards(before)
            self._accumulate_rewards()
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
            winners, scores = set(game.winners), game.scores
            for a, info in self.infos.items():
                seat_of = self.agent_name_mapping[a]
                info["score"], info["winner"] = scores[seat_of], seat_of in winners
            self.agent_selection = self.possible_agents[(self.agent_name_mapping[agent] + 1) % self.num_players]
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _rewards(self, before: list[int] | None) -> dict[str, float]:
        """This step's rewards: score changes (``before``: the scores before it), or those of the game's end."""
        game, scale = self.game, self.table.game.score_scale
        if self.reward_mode == "score":
            after = game.scores
            return {a: (after[i] - before[i]) / scale for i, a in enumerate(self.possible_agents)}
        if self.reward_mode == "win":
            winners = set(game.winners)
            return {a: 1.0 if i in winners else -1.0 for i, a in enumerate(self.possible_agents)}
        margins = self.table.game.margins(game)
        return {a: margins[i] / scale for i, a in enumerate(self.possible_agents)}

    def _end_for_illegal(self, agent: str) -> None:
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: (-1.0 if a == agent else 0.0) for a in self.agents}
        self._accumulate_rewards()
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos[agent]["illegal"] = True

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            return None
        if self.render_mode == "rgb_array":
            return self.table.game.render_rgb(self.game, None, self.observation_mode)
        text = self.table.game.render_text(self.game, None, self.observation_mode)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
