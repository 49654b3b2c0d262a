"""Many games stepped in one call: a ``gymnasium.vector.VectorEnv`` with one learner seat per game.

| | |
|---|---|
| Import | ``sobek_env.vector_env(game="sobek", num_envs=64, num_players=2, opponents=("random",))`` |
| Observations | ``(num_envs, N)`` float32: each game's learner seat, exactly as the AEC environment shows it |
| Actions | ``(num_envs,)`` integer ids of the game's action table; ``action_masks()`` is ``(num_envs, A)`` bool |
| Rewards | the learner's reward of the AEC environment (``win``, ``margin`` or ``score``), summed over the |
| | other seats' actions until its next turn |
| Autoreset | in the same step (Gymnasium's ``SAME_STEP``): a finished game's last observation is in |
| | ``infos["final_obs"]``, its learner's seat, scores and winners in ``infos["final_info"]`` |

Each game deals with its own generator, drawn from the ``seed`` of :meth:`reset`: game ``i`` of a reset with
seed ``s`` follows from ``(s, i)`` alone, so a seeded reset replays every game, whatever ``num_envs`` is. The
learner's seat is drawn per game (or fixed with ``seat=``); the opponents play the other seats, each with the
same spec: ``"random"`` (a legal action drawn uniformly from the game's own generator for opponents), or any
agent spec (``"heuristic"``, ``"ppo:PATH"``; built with ``agents.make``) or agent object, played between the
learner's steps.

Where the game's native engine was built and every opponent is ``"random"``, the games are stepped natively in
one call for all of them (``NativeBatch``, the GIL released), drawing exactly as the Python path does: the same
seeds give the same games, observations and rewards on either path (``engine="python"`` forces the Python one).
``num_threads=2`` shares the games of that call out among two threads (each game touches only its own state and
rows, so the results are the same for any number of threads), started at the first call and kept waiting
between calls; the Python path ignores it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .env import RANDOM, REWARD_MODES, as_action, ask, build_opponent
from .errors import IllegalActionError
from .game import Game, Table, observe
from .registry import load_game

SEED_BOUND = 2**63


def vector_env(game: Game | str = "sobek", num_envs: int = 64, num_players: int | None = None,
               opponents: Sequence[Any] = (RANDOM,), observation_mode: str = "original", reward_mode: str = "win",
               seed: int | None = None, seat: int | None = None,
               make_agent: Callable[[str, Table], Any] | None = None, engine: str | None = None,
               num_threads: int = 1, **rules: Any) -> GameVectorEnv:
    """``num_envs`` games of ``game``, one learner seat each, against ``opponents`` (see the module docstring).

    ``opponents`` holds one spec or agent per other seat, or a single one for all of them. ``make_agent(spec,
    table=...)`` builds an agent from a spec other than ``"random"`` (default: ``agents.make``, imported only when
    such a spec is given: the library alone never imports the agents package). ``engine``:
    ``"native"``, ``"python"`` or None (the game's default engine). ``num_threads``: the threads that step
    the native path's games."""
    return GameVectorEnv(game, num_envs, num_players, opponents, observation_mode, reward_mode, seed, seat,
                         make_agent, engine, num_threads, **rules)


class GameVectorEnv(VectorEnv):
    """See :func:`vector_env`."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, game: Game | str, num_envs: int, num_players: int | None, opponents: Sequence[Any],
                 observation_mode: str, reward_mode: str, seed: int | None, seat: int | None,
                 make_agent: Callable[[str, Table], Any] | None, engine: str | None = None, num_threads: int = 1,
                 **rules: Any) -> None:
        game = load_game(game)
        num_players = game.default_players if num_players is None else num_players
        game.check_table(num_players, observation_mode)
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads!r}")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players):
            raise ValueError(f"seat must be None or an int from 0 to {num_players - 1}, got {seat!r}")
        game.new(num_players, seed=0, **rules)  # validates the rules options now
        self.table = Table(game, num_players, observation_mode, dict(rules))
        self.game = game
        self.num_envs = num_envs
        self.num_players = num_players
        self.reward_mode = reward_mode
        self.rules = dict(rules)
        self.fixed_seat = seat
        self.opponents = self._opponents(opponents, make_agent)
        size, actions = game.observation_size(num_players), game.num_actions
        low, high = game.observation_bounds(num_players, **rules)
        self.single_observation_space = spaces.Box(low, high, (size,), np.float32)
        self.single_action_space = spaces.Discrete(actions)
        self.observation_space = spaces.Box(np.broadcast_to(low, (num_envs, size)).astype(np.float32),
                                            np.broadcast_to(high, (num_envs, size)).astype(np.float32),
                                            (num_envs, size), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(num_envs, actions))
        self._observer = game.observer(num_players, observation_mode)
        self._obs = np.zeros((num_envs, size), np.float32)
        self._masks = np.zeros((num_envs, actions), bool)
        self._states: list[Any] = [None] * num_envs
        self.seats = np.zeros(num_envs, np.int64)
        self._seeders: list[random.Random] = []
        self._chance: list[random.Random | None] = [None] * num_envs  # per game, what random opponents draw from
        self._seed = seed
        self.engine = game.engine_of(engine)
        native = game.native_engine() if self.engine == "native" else None
        self._batch = None
        if native is not None and all(o is RANDOM for o in self.opponents):
            self._batch = native.NativeBatch(num_envs, num_players, observation_mode == "memory", reward_mode, seat,
                                             dict(rules), num_threads)

    def _opponents(self, opponents: Sequence[Any], make_agent: Callable[[str, Table], Any] | None) -> list[Any]:
        others = self.num_players - 1
        if isinstance(opponents, str) or hasattr(opponents, "act"):
            opponents = [opponents] * others
        if not isinstance(opponents, Sequence) or len(opponents) not in (1, others):
            raise ValueError(f"opponents must be one spec or agent, or {others} of them (one per other seat), "
                             f"got {opponents!r}")
        opponents = list(opponents) * (others if len(opponents) == 1 else 1)
        out = []
        for spec in opponents:
            if spec == RANDOM:
                out.append(RANDOM)
                continue
            out.append(build_opponent(spec, self.table, make_agent))
        return out

    # ------------------------------------------------------------------ the Gymnasium API

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal every game anew; ``seed`` (default: the constructor's) makes every game reproducible."""
        seed = self._seed if seed is None else seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
        root = random.Random(seed) if seed is not None else random.Random()
        base = root.randrange(SEED_BOUND)
        self._seeders = [random.Random(base + i) for i in range(self.num_envs)]
        if self._batch is not None:
            self._batch.reset(base)
            self._obs, self._masks = self._batch.obs, self._batch.masks
            self.seats = np.array([self._batch.seat(i) for i in range(self.num_envs)], np.int64)
            return self._obs.copy(), {"seat": self.seats.copy()}
        for i in range(self.num_envs):
            self._deal(i)
        return self._obs.copy(), {"seat": self.seats.copy()}

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play each game's learner action, then its opponents until the learner's next turn or the end; a
        finished game is dealt anew at once (its last observation in ``infos["final_obs"]``)."""
        if not self._seeders:
            raise RuntimeError("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game, got {actions.shape}")
        num = self.game.num_actions
        chosen = [as_action(a, num) for a in actions.tolist()]
        for i, a in enumerate(chosen):  # every action is checked before any game moves
            if not (0 <= a < num and self._masks[i, a]):
                legal = np.flatnonzero(self._masks[i]).tolist()
                raise IllegalActionError(f"game {i}: action {a} is not legal; legal: {legal}")
        if self._batch is not None:
            return self._step_native(chosen)
        rewards = np.zeros(self.num_envs, np.float32)
        terminated = np.zeros(self.num_envs, bool)
        final_obs = np.empty(self.num_envs, object)
        final_info = np.empty(self.num_envs, object)
        for i, a in enumerate(chosen):
            state, seat = self._states[i], int(self.seats[i])
            before = state.scores if self.reward_mode == "score" else None
            state.apply(a)
            rewards[i] = self._reward(state, seat, before) + self._play_opponents(i)
            if state.is_over:
                terminated[i] = True
                final_obs[i] = self._obs[i].copy()
                final_info[i] = {"seat": seat, "scores": state.scores, "winners": state.winners}
                self._deal(i)
        infos = {"seat": self.seats.copy(), "final_obs": final_obs, "_final_obs": terminated.copy(),
                 "final_info": final_info, "_final_info": terminated.copy()}
        return self._obs.copy(), rewards, terminated, np.zeros(self.num_envs, bool), infos

    def _step_native(self, chosen: list[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        batch, n = self._batch, self.num_players
        batch.step(np.asarray(chosen, np.int64))
        terminated = batch.terminated.copy()
        final_obs = np.empty(self.num_envs, object)
        final_info = np.empty(self.num_envs, object)
        for i in np.flatnonzero(terminated):
            final_obs[i] = batch.final_obs[i].copy()
            final_info[i] = {"seat": int(batch.final_seat[i]), "scores": batch.final_scores[i, :n].tolist(),
                             "winners": np.flatnonzero(batch.final_winners[i, :n]).tolist()}
            self.seats[i] = batch.seat(int(i))
        infos = {"seat": self.seats.copy(), "final_obs": final_obs, "_final_obs": terminated.copy(),
                 "final_info": final_info, "_final_info": terminated.copy()}
        return self._obs.copy(), batch.rewards.copy(), terminated, np.zeros(self.num_envs, bool), infos

    def action_masks(self) -> np.ndarray:
        """Each game's legal actions for its learner, ``(num_envs, num_actions)`` bool (for MaskablePPO)."""
        return self._masks.copy()

    def states(self) -> list[Any]:
        """The games' states (copies on the native path; read-only use: what a centralised critic or a test may
        look at)."""
        if self._batch is not None:
            return [self._batch.state(i) for i in range(self.num_envs)]
        return list(self._states)

    # ------------------------------------------------------------------ one game

    def _deal(self, i: int) -> None:
        seeder = self._seeders[i]
        game_seed = seeder.randrange(SEED_BOUND)
        seat = self.fixed_seat if self.fixed_seat is not None else seeder.randrange(self.num_players)
        self._chance[i] = random.Random(seeder.randrange(SEED_BOUND))
        self._states[i] = self.game.new(self.num_players, seed=game_seed, **self.rules)
        self.seats[i] = seat
        for k, opponent in enumerate(self.opponents):
            if opponent is not RANDOM and hasattr(opponent, "seed"):
                opponent.seed(game_seed + k + 1)
        self._play_opponents(i)

    def _play_opponents(self, i: int) -> float:
        """Play game ``i``'s other seats until its learner must act or the game ends; the learner's reward
        meanwhile. Leaves the learner's observation and mask in the buffers."""
        state, seat, n = self._states[i], int(self.seats[i]), self.num_players
        actions = self.game.num_actions
        reward = 0.0
        while not state.is_over and state.current_player != seat:
            actor = state.current_player
            opponent = self.opponents[(actor - seat) % n - 1]
            before = state.scores if self.reward_mode == "score" else None
            if opponent is RANDOM:
                state.apply(self._chance[i].choice(state.legal_actions()))
            else:
                seen = observe(self._observer, state, actor, actions)
                state.apply(as_action(ask(opponent, seen, state), actions))
            reward += self._reward(state, seat, before)
        self._obs[i] = self._observer.encode(state, seat)
        self._masks[i] = False
        if not state.is_over:
            self._masks[i, state.legal_actions()] = True
        return reward

    def _reward(self, state: Any, seat: int, before: list[int] | None) -> float:
        """The learner's reward for the action just played, as the AEC environment gives it."""
        scale = self.game.score_scale
        if self.reward_mode == "score":
            return (state.scores[seat] - before[seat]) / scale
        if not state.is_over:
            return 0.0
        if self.reward_mode == "win":
            return 1.0 if seat in state.winners else -1.0
        return self.game.margins(state)[seat] / scale
