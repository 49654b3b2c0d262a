"""train.py's games stepped natively: an sb3 ``VecEnv`` of many games in one process, the pool's opponents
deciding in C++ (``agents/training/native/batch.hpp``), snapshots of the learner deciding in one forward pass.

:class:`NativeTrainingEnv` gives MaskablePPO what a ``VecEnv`` of :class:`agents.training.sb3.TrainingEnv` gives
it, game by game: the learner's row (the observation, then the run's features: Sobek's and Kleopatra's advice
written in C++, the same floats as :class:`agents.players.features.Featurizer`), its mask, its reward (the
environment's ``win``, ``margin`` or ``score``, or the lead rewards paid as the margin moves) and, at a game's
end, its last row in ``terminal_observation`` with the ``episode`` record that sb3's ``Monitor`` writes. Each
seat of each game gets its opponent at the deal, drawn with :meth:`OpponentPool.probabilities`' distribution:

- ``random``, ``greedy`` and ``heuristic`` (any tolerance) play in C++, deciding from the seat's observation as
  the agents ``agents.make`` builds do (the same action: ``tests/test_batched.py``);
- a snapshot of the learner plays from Python, every game that waits for it at once, sampling its policy;
- any other spec (a model file, a search) plays from Python, one decision at a time.

The paired-margin reward plays copies of the game on with the advice, which only the Python environment does:
:func:`native_possible` says when this environment can serve a run. With ``--critic state`` each row goes on with
the game's ``env.state()`` vector and the learner's seat one-hot, as :class:`agents.training.sb3.TrainingEnv`
writes them; with ``--imitation``, with the heuristic's choice one-hot (the batch writes the advice features,
:class:`agents.training.kickstart.Teacher` keeps the choice).
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices

from agents.games import baseline
from agents.games import tables as game_tables
from agents.players.base import Agent
from agents.players.features import Featurizer, default_features
from agents.players.native import NativeBaseline
from agents.players.ppo import critic_state_size, load_ppo, state_features
from agents.players.registry import make
from agents.training.evaluations import play_evaluation_games
from agents.training.kickstart import Teacher, imitating
from agents.training.rewards import LEAD_REWARDS, OUTLOOK_REWARDS, PAIRED_MARGIN, SQUASHED_ALONG, paid_lead
from agents.training.vecenv import SharedGamesVecEnv
from sobek_env.compiled import extension
from sobek_env.env import ask
from sobek_env.errors import IllegalActionError
from sobek_env.game import Table
from sobek_env.registry import load_game

_batch = extension("._batch", __package__)
SEED_BOUND = 2**63
EXTERNAL = "external"


def _native_parts(game: str) -> tuple[Any, Any] | None:
    """The game's compiled baselines' table maker (registered with :mod:`agents.games`) and the batch's module,
    if both were built (and Python is not asked for)."""
    if _batch is None or game not in _batch.GAMES:
        return None
    native_table = game_tables(game).native_table
    if native_table is None or "native" not in load_game(game).engines:
        return None
    return native_table, _batch


def native_possible(config: dict) -> bool:
    """Whether :class:`NativeTrainingEnv` can serve the run of ``config``: its game's engine, baselines and batch
    were built, and its reward is not the paired margin (copies of the game played on, in Python)."""
    return config["reward"] != PAIRED_MARGIN and _native_parts(config["game"]) is not None


def native_reward(reward: str) -> str:
    """The batch's reward code for a run's ``--reward``: the environment's own, or for the lead rewards the
    margin, whose lead the batch reports (from Game.outlook for outlook-margin and capped-outlook)."""
    if reward in OUTLOOK_REWARDS:
        return "outlook"
    return "margin" if reward in LEAD_REWARDS else reward


def native_opponent(agent: Agent) -> tuple[str, float] | None:
    """The batch's kind and tolerance for an agent it can play in C++ (random, the native greedy and heuristic),
    else None."""
    from agents.players.random_agent import RandomAgent

    if type(agent) is RandomAgent:
        return "random", 0.0
    if isinstance(agent, NativeBaseline):
        return agent.agent, float(getattr(agent, "tolerance", 0.0))
    return None


class Snapshot:
    """A frozen learner deciding for every game that waits for it in one forward pass, sampling its masked policy
    as :class:`agents.players.base.PolicyAgent` does (one draw from its own generator per decision)."""

    def __init__(self, path: str, table: Table, seed: int) -> None:
        agent = load_ppo(path, deterministic=False, table=table)
        self.policy = agent.policy
        self.rng = np.random.default_rng(seed)

    def logits(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's logits for each row (the run's features), -inf where its mask forbids."""
        policy = self.policy
        with torch.no_grad():
            features = policy.pi_features_extractor(torch.as_tensor(rows))
            logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy().astype(np.float64)
        return np.where(masks, logits, -np.inf)

    def decide(self, rows: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """An action for each row, drawn from the masked policy."""
        logits = self.logits(rows, masks)
        weights = np.exp(logits - logits.max(axis=1, keepdims=True))
        cumulative = np.cumsum(weights, axis=1)
        draws = self.rng.random(len(rows)) * cumulative[:, -1]
        return (cumulative > draws[:, None]).argmax(axis=1)


class NativeTrainingEnv(SharedGamesVecEnv):
    """``num_envs`` games of the run ``config`` against an opponent pool (the ``--pool`` entries and the
    ``snapshots``, see the module docstring); ``seed`` seeds the next reset and the snapshots' draws."""

    what = "the batched training environment"

    def __init__(self, config: dict, num_envs: int, snapshots: Sequence[str] = (), seed: int | None = None) -> None:
        parts = _native_parts(config["game"])
        if parts is None:
            raise ValueError(f"no native training batch for {config['game']}: its engine or baselines were not built "
                             "(or SOBEK_PURE_PYTHON asks for Python)")
        if config["reward"] == PAIRED_MARGIN:
            raise ValueError(f"the {PAIRED_MARGIN} reward plays copies of the game in Python: use the Python "
                             "environment (agents.training.sb3.TrainingEnv)")
        native_table, batch_module = parts
        game = load_game(config["game"])
        self.table = game.table(config["players"], config["mode"])
        self.config = config
        self.game = game
        self.reward = config["reward"]
        self.by_lead = self.reward in LEAD_REWARDS
        featurize = Featurizer(config["features"] or default_features(game), self.table)
        self.size = featurize.base
        self.width = featurize.size  # what the learner's network (and a snapshot of it) reads of a row
        # with --imitation: the batch writes the advice features, whose heuristic's choice follows the observation
        self.teacher = Teacher(self.table) if imitating(config) else None
        written = self.teacher.featurize if self.teacher else featurize
        tolerance = baseline(game, "heuristic")(self.table).tolerance  # the heuristic's default, as the pool's
        self._native_table = native_table(self.table)
        self.batch = batch_module.TrainingBatch(
            game.name, num_envs, config["players"], self.size, written.size - self.size, game.num_actions,
            config["mode"] == "memory", native_reward(self.reward), None, float(game.score_scale),
            float(tolerance), dict(self.table.rules), self._native_table)
        # with --critic state: what the critic reads after the features (zeros in a finished game's row)
        self.extra = critic_state_size(self.table) if config.get("critic") == "state" else 0
        low = -np.inf if featurize.size != self.size or self.extra else 0.0
        width = self.teacher.size if self.teacher else featurize.size + self.extra
        super().__init__(num_envs, spaces.Box(low, np.inf, (width,), np.float32), spaces.Discrete(game.num_actions))
        # the pool's options, append-only (a game keeps the opponents it was dealt): the --pool entries, then
        # every snapshot as it comes; only the latest --snapshots of them are drawn
        self._kinds: list[str] = []
        self._tolerances: list[float] = []
        self._weights: list[float] = []
        self._externals: dict[int, Any] = {}
        self._snapshots: list[int] = []
        for spec, weight in config["pool"]:
            agents = [make(spec, table=self.table) for _ in range(config["players"] - 1)]
            kind = native_opponent(agents[0])
            self._add_option(*(kind or (EXTERNAL, 0.0)), float(weight), None if kind else agents)
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        for path in snapshots:
            self.add_snapshot(path)
        self._lead = np.zeros(num_envs)
        self._returns = np.zeros(num_envs)
        self._lengths = np.zeros(num_envs, np.int64)
        self._start = time.time()
        self._actions: np.ndarray | None = None
        self._ready = False

    # ------------------------------------------------------------------ the pool

    def _add_option(self, kind: str, tolerance: float, weight: float, external: Any = None) -> int:
        self._kinds.append(kind)
        self._tolerances.append(tolerance)
        self._weights.append(weight)
        if external is not None:
            self._externals[len(self._kinds) - 1] = external
        return len(self._kinds) - 1

    def _publish(self) -> None:
        """Hand the options' weights to the batch (the snapshots share the self-play weight)."""
        weights = list(self._weights)
        share = self.config["self_play_weight"] / len(self._snapshots) if self._snapshots else 0.0
        for option in self._snapshots:
            weights[option] = share
        if not any(w > 0 for w in weights):
            raise RuntimeError("the pool has only self-play and no snapshot yet; add_snapshot() before a reset")
        self.batch.set_options(self._kinds, self._tolerances, weights)

    def add_snapshot(self, path: str | Path) -> None:
        """Let the snapshot at ``path`` play (dropping the oldest beyond ``--snapshots``), from the next deals."""
        option = self._add_option(EXTERNAL, 0.0, 0.0,
                                  Snapshot(str(path), self.table, int(self._rng.integers(SEED_BOUND))))
        self._snapshots = [*self._snapshots, option][-self.config["snapshots"]:]
        if self.config["self_play_weight"] > 0 or any(w > 0 for w in self._weights):
            self._publish()
        self._forget()

    def _forget(self) -> None:
        """Drop the snapshots no longer drawn that no game holds any more."""
        held = set(np.unique(self.batch.options).tolist())
        for option in list(self._externals):
            if isinstance(self._externals[option], Snapshot) and option not in self._snapshots and option not in held:
                del self._externals[option]

    def _decide_pending(self) -> None:
        """Let the external opponents play until every game waits for its learner."""
        b = self.batch
        while b.pending.any():
            games = np.flatnonzero(b.pending)
            actions = np.zeros(self.num_envs, np.int64)
            options = b.pending_option[games]
            for option in np.unique(options).tolist():
                rows = games[options == option]
                external = self._externals[option]
                if isinstance(external, Snapshot):
                    actions[rows] = external.decide(b.pending_obs[rows, :self.width], b.pending_masks[rows])
                else:
                    actions[rows] = [self._ask(external, int(i)) for i in rows]
            bad = ~b.pending_masks[games, actions[games]]
            if bad.any():
                i = int(games[np.flatnonzero(bad)[0]])
                raise IllegalActionError(f"opponent {self._option_name(int(b.pending_option[i]))} played "
                                         f"{int(actions[i])}, not legal in game {i}")
            b.resume(actions)

    def _ask(self, agents: list, i: int) -> int:
        """A Python agent's decision for game ``i`` (its own object per relative seat, as OpponentPool gives)."""
        b = self.batch
        seat, learner = int(b.pending_seat[i]), int(b.seats[i])
        agent = agents[(seat - learner) % self.config["players"] - 1]
        observation = {"observation": b.pending_obs[i, :self.size].copy(),
                       "action_mask": b.pending_masks[i].astype(np.int8)}
        return int(ask(agent, observation, b.state(i) if getattr(agent, "wants_state", False) else None))

    def _option_name(self, option: int) -> str:
        fixed = len(self.config["pool"])
        return self.config["pool"][option][0] if option < fixed else f"snapshot {option - fixed + 1}"

    # ------------------------------------------------------------------ the VecEnv API

    def reset(self) -> np.ndarray:
        if not self._ready:
            self._publish()
            self._ready = True
        root = random.Random(self._seed) if self._seed is not None else random.Random()
        self._seed = None
        self.batch.reset(root.randrange(SEED_BOUND))
        self._decide_pending()
        self._lead[:] = self._paid(self.batch.lead, np.zeros(self.num_envs, bool))
        self._returns[:] = 0.0
        self._lengths[:] = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._rows()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        b, actions = self.batch, self._actions
        legal = (actions >= 0) & (actions < self.game.num_actions)
        legal[legal] = b.masks[np.flatnonzero(legal), actions[legal]]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(f"game {i}: action {int(actions[i])} is not legal; "
                                     f"legal: {np.flatnonzero(b.masks[i]).tolist()}")
        b.step(np.ascontiguousarray(actions))
        self._decide_pending()
        dones = b.terminated.copy()
        if self.by_lead:
            lead = self._paid(np.where(dones, b.final_lead, b.lead), dones)
            rewards = (lead - self._lead).astype(np.float32)
            self._lead = lead
            self._lead[dones] = self._paid(b.lead[dones], np.zeros(int(dones.sum()), bool))  # the new deals
        else:
            rewards = b.rewards.copy()
        self._returns += rewards
        self._lengths += 1
        infos: list[dict] = [{} for _ in range(self.num_envs)]
        n = self.config["players"]
        for i in np.flatnonzero(dones).tolist():
            final = np.concatenate([b.final_obs[i], np.zeros(self.extra, np.float32)]) if self.extra \
                else self.teacher.rows(b.final_obs[i:i + 1])[0] if self.teacher else b.final_obs[i].copy()
            infos[i] = {"terminal_observation": final, "TimeLimit.truncated": False,
                        "seat": int(b.final_seat[i]), "scores": b.final_scores[i, :n].tolist(),
                        "winners": np.flatnonzero(b.final_winners[i, :n]).tolist(),
                        "lead": float(b.final_lead[i]),  # the seat's margin over the score scale (Game.margins)
                        "episode": {"r": round(float(self._returns[i]), 6), "l": int(self._lengths[i]),
                                    "t": round(time.time() - self._start, 6)}}
            self._returns[i], self._lengths[i] = 0.0, 0
        return self._rows(), rewards, dones, infos

    def _rows(self) -> np.ndarray:
        """The learner's rows: the batch's, then with a state critic each game's state and the learner's seat (with
        --imitation: the observation and the heuristic's choice)."""
        b = self.batch
        if self.teacher is not None:
            return self.teacher.rows(b.obs)
        if not self.extra:
            return b.obs.copy()
        states = [state_features(self.table, b.state(i), int(b.seats[i])) for i in range(self.num_envs)]
        return np.concatenate([b.obs, np.stack(states)], axis=1)

    def _paid(self, leads: np.ndarray, over: np.ndarray) -> np.ndarray:
        """What the lead reward has paid in all at each game's ``leads`` (:func:`paid_lead`; ``over``: ended).
        Only the rewards of :data:`SQUASHED_ALONG` change a lead before the end: the others send only the ended
        games'."""
        paid = np.array(leads, dtype=np.float64)
        for i in range(len(paid)) if self.reward in SQUASHED_ALONG else np.flatnonzero(over).tolist():
            paid[i] = paid_lead(self.reward, float(paid[i]), bool(over[i]))
        return paid

    def action_masks(self) -> np.ndarray:
        """Each game's legal actions for its learner, ``(num_envs, num_actions)`` bool."""
        return self.batch.masks.copy()

    def states(self) -> list[Any]:
        """Copies of the games' states (for tests)."""
        return [self.batch.state(i) for i in range(self.num_envs)]

    def evaluation_games(self, model: str, config: dict, opponent: str,
                         games: list[int]) -> list[tuple[float, float]]:
        """The trainer's evaluation games (:func:`agents.training.evaluations.play_evaluation_games`)."""
        return play_evaluation_games(load_ppo(model, deterministic=True), config, opponent, games)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next reset and the snapshots' draws (those held now, in order, and those to come)."""
        self._seed = seed
        self._rng = np.random.default_rng(seed)
        for option in sorted(self._externals):
            if isinstance(self._externals[option], Snapshot):
                self._externals[option].rng = np.random.default_rng(int(self._rng.integers(SEED_BOUND)))
        return [seed] * self.num_envs

    def close(self) -> None:
        self._externals.clear()

    def shared_method(self, method_name: str, indices: VecEnvIndices, *args: Any, **kwargs: Any) -> list[Any]:
        indices = list(self._get_indices(indices))
        if method_name == "add_snapshot":  # one pool for every game
            self.add_snapshot(*args, **kwargs)
            return [None for _ in indices]
        if method_name == "evaluation_games":
            return [self.evaluation_games(*args, **kwargs)] + [[] for _ in indices[1:]]
        return super().shared_method(method_name, indices, *args, **kwargs)


__all__ = ["NativeTrainingEnv", "Snapshot", "native_opponent", "native_possible"]
