"""Train a Sobek player with sb3-contrib's MaskablePPO against a pool of opponents.

    python train.py --players 2 --out runs/p2
    python train.py --players 4 --timesteps 200000 --out runs/p4 --pool random heuristic@3 --self-play-weight 1
    python train.py --out runs/p2 --resume

The learner plays at a random seat; each other seat is filled, per episode,
by an opponent drawn from the pool: the --pool specs (SPEC[@WEIGHT], weight 1
by default) and frozen snapshots of the learner itself (self-play), which
share --self-play-weight. A snapshot is taken at the start and every
--snapshot-every steps; the latest --snapshots of them play.

By default (--features advice) the network reads the observation and the
heuristic's reading of it (its choice, its estimate of each choice at the
start of a turn, the corruption race; see agents/features.py), and the
heuristic's choice is added to the policy's logits with a learnt weight that
starts at --advice-prior: the learner starts from the heuristic's play and
learns where to depart from it. --features raw learns from the observation alone.

Every --eval-every steps the deterministic policy plays --eval-games games
against each baseline (every other seat random, then heuristic); the win
rates and their Wilson 95% intervals go to stdout, TensorBoard and eval.csv.
Every --checkpoint-every steps the model (with its optimizer), the pool and
the step count are saved; --resume continues from the last checkpoint to the
run's --timesteps (give a larger --timesteps to extend the run, or --envs to
suit another machine; any other option is refused, as the run is defined by
its config.json).

The run directory --out holds config.json (the full configuration, seeds and
each start), tb/ (tensorboard --logdir DIR/tb), eval.csv, snapshots/,
checkpoints/ and the final model.zip, which plays as ppo:DIR/model.zip.
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import platform
import shutil
import signal
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path

import gymnasium
import numpy as np
import sb3_contrib
import stable_baselines3
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices
from tqdm import tqdm

import sobek_env
from agents.features import DEFAULT_FEATURES, FEATURE_SETS, Featurizer
from agents.pool import OpponentPool, parse_entry
from agents.ppo import AdvisedPolicy, Log1pFeatures, PPOAgent, save_ppo
from agents.registry import make
from agents.tournament import wilson_interval
from sobek_env.env import REWARD_MODES, SCORE_SCALE
from sobek_env.observation import MODES, observation_size

# within an hour on 2 cores: measured 1,400-2,000 steps/s with 2 players and the advice features,
# about half that with 4 (three opponents act between the learner's steps)
DEFAULT_TIMESTEPS = {2: 3_000_000, 3: 2_500_000, 4: 2_000_000}
ROUND_MARGIN = "round-margin"
REWARDS = (ROUND_MARGIN, *REWARD_MODES)
DEFAULT_POOL = ("random@1", "greedy@1", "heuristic@3", "heuristic:tolerance=0.2@1", "heuristic:tolerance=0.8@1")
EVAL_BASELINES = ("random", "heuristic")
EVAL_SEED = 2**31  # evaluation game g is dealt with seed EVAL_SEED + g: the same deals at every evaluation
KEEP_CHECKPOINTS = 2
ENVS_PER_CORE = 4  # a step is short: more envs than cores amortise the policy's batch (measured best at 4)
MAX_DEFAULT_ENVS = 16  # each worker holds torch (~300 MB)
RESUMABLE = ("timesteps", "envs")  # what --resume may change besides --out: a longer run, another machine

DEFAULTS = {
    "players": None, "timesteps": None, "seed": None,
    "envs": min(ENVS_PER_CORE * (os.cpu_count() or 1), MAX_DEFAULT_ENVS),
    "pool": list(DEFAULT_POOL), "self_play_weight": 1.0, "snapshot_every": 250_000, "snapshots": 5,
    "eval_every": 250_000, "eval_games": 200, "eval_seed": EVAL_SEED, "checkpoint_every": 250_000,
    "mode": "original", "reward": ROUND_MARGIN, "features": DEFAULT_FEATURES, "advice_prior": 3.0,
    "lr": 3e-4, "n_steps": 1024, "batch_size": 512, "epochs": 5, "gamma": 0.995, "gae_lambda": 0.95,
    "clip": 0.2, "ent_coef": 0.01, "net": [256, 256],
}


class TrainingParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line: ``train.py: error: ...`` and exit status 2."""

    def error(self, message: str) -> None:
        self.exit(2, f"{self.prog}: error: {message}\n")


def positive_int(text: str) -> int:
    """argparse type: an integer above 0."""
    value = _number(text, int)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer from 0."""
    value = _number(text, int)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def positive_float(text: str) -> float:
    """argparse type: a finite number above 0."""
    value = _number(text, float)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def non_negative_float(text: str) -> float:
    """argparse type: a finite number from 0."""
    value = _number(text, float)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


def _number(text: str, kind: type) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"must be {noun}, got {text!r}") from None
    if not np.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, got {text}")
    return value


def layer_sizes(text: str) -> list[int]:
    """argparse type: hidden layer sizes such as ``256,256``."""
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) <= 0:
        raise argparse.ArgumentTypeError(f"must be comma-separated positive layer sizes, e.g. 256,256; got {text!r}")
    return sizes


def build_parser() -> TrainingParser:
    """The command line. Its options have no defaults (DEFAULTS fills them in later), so that
    the options actually given can be told apart, which --resume needs."""
    parser = TrainingParser(
        prog="train.py", description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter, argument_default=argparse.SUPPRESS)
    d = DEFAULTS
    run = parser.add_argument_group("run")
    run.add_argument("--players", type=int, choices=(2, 3, 4), help="players per game (required for a new run)")
    run.add_argument("--timesteps", type=positive_int, metavar="N",
                     help=f"learner steps in all (default by players: {DEFAULT_TIMESTEPS})")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="run directory")
    run.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    run.add_argument("--seed", type=non_negative_int, metavar="N",
                     help="seed of everything (default: drawn, then recorded)")
    run.add_argument("--envs", type=positive_int, metavar="N",
                     help=f"environments in parallel processes (default {d['envs']})")
    run.add_argument("--mode", choices=MODES, help=f"observation mode (default {d['mode']})")
    run.add_argument("--reward", choices=REWARDS,
                     help=f"reward: {ROUND_MARGIN} (the margin, paid at each scoring) or an environment's reward "
                          f"mode (default {d['reward']})")
    run.add_argument("--features", choices=FEATURE_SETS,
                     help=f"what the network reads: raw (the observation) or advice (the observation and the "
                          f"heuristic's reading of it, see agents/features.py; default {d['features']})")
    run.add_argument("--advice-prior", type=non_negative_float, metavar="W",
                     help="with --features advice: the starting weight of the heuristic's choice in the policy's "
                          f"logits (0: none; default {d['advice_prior']})")
    pool = parser.add_argument_group("opponents")
    pool.add_argument("--pool", nargs="*", metavar="SPEC[@WEIGHT]",
                      help=f"fixed opponents and their weights (default {' '.join(DEFAULT_POOL)}); "
                           "give --pool alone for self-play only")
    pool.add_argument("--self-play-weight", type=non_negative_float,
                      help=f"weight shared by the learner's snapshots (default {d['self_play_weight']}; 0: none)")
    pool.add_argument("--snapshot-every", type=positive_int,
                      help=f"steps between snapshots (default {d['snapshot_every']})")
    pool.add_argument("--snapshots", type=positive_int, help=f"latest snapshots that play (default {d['snapshots']})")
    schedule = parser.add_argument_group("evaluation and checkpoints")
    schedule.add_argument("--eval-every", type=positive_int,
                          help=f"steps between evaluations (default {d['eval_every']})")
    schedule.add_argument("--eval-games", type=positive_int,
                          help=f"games per baseline at each evaluation (default {d['eval_games']})")
    schedule.add_argument("--checkpoint-every", type=positive_int,
                          help=f"steps between checkpoints (default {d['checkpoint_every']})")
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument("--lr", type=positive_float, help=f"learning rate (default {d['lr']})")
    ppo.add_argument("--n-steps", type=positive_int, help=f"steps per environment per update (default {d['n_steps']})")
    ppo.add_argument("--batch-size", type=positive_int, help=f"minibatch size (default {d['batch_size']})")
    ppo.add_argument("--epochs", type=positive_int, help=f"passes over each rollout (default {d['epochs']})")
    ppo.add_argument("--gamma", type=positive_float, help=f"discount (default {d['gamma']})")
    ppo.add_argument("--gae-lambda", type=positive_float, help=f"GAE lambda (default {d['gae_lambda']})")
    ppo.add_argument("--clip", type=positive_float, help=f"clip range (default {d['clip']})")
    ppo.add_argument("--ent-coef", type=non_negative_float, help=f"entropy bonus (default {d['ent_coef']})")
    ppo.add_argument("--net", type=layer_sizes, help="hidden layers of the policy and value networks "
                                                     f"(default {','.join(map(str, d['net']))})")
    return parser


def configure_run(argv: Sequence[str] | None) -> tuple[dict, Path, bool]:
    """The run's configuration, its directory and whether it resumes; exits with status 2 on a bad one."""
    parser = build_parser()
    given = vars(parser.parse_args(argv))
    out: Path = given.pop("out")
    resume = given.pop("resume", False)
    if resume:
        config = read_config(parser, out)
        refused = sorted(set(given) - set(RESUMABLE))
        if refused:
            options = ", ".join("--" + key.replace("_", "-") for key in refused)
            parser.error(f"--resume continues the run with its config.json; drop {options} "
                         "or start a new run in another --out")
        if given.get("timesteps", config["timesteps"]) < config["timesteps"]:
            parser.error(f"--timesteps {given['timesteps']} is below the run's {config['timesteps']}; "
                         "give at least that")
        config.update(given)
        check_rollout(parser, config)
        return config, out, True
    if (out / "config.json").exists():
        parser.error(f"{str(out)!r} already holds a run; continue it with --resume or choose another --out")
    if "players" not in given:
        parser.error("--players is required for a new run (2, 3 or 4)")
    config = {**DEFAULTS, **given}
    config["timesteps"] = config["timesteps"] or DEFAULT_TIMESTEPS[config["players"]]
    config["seed"] = config["seed"] if config["seed"] is not None else int(np.random.SeedSequence().entropy % 2**32)
    check_config(parser, config)
    return config, out, False


def read_config(parser: TrainingParser, out: Path) -> dict:
    """The configuration of the run in ``out``, to resume it."""
    path = out / "config.json"
    if not path.is_file():
        parser.error(f"no run to resume in {str(out)!r} (no config.json); start one without --resume")
    try:
        config = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        parser.error(f"cannot read {str(path)!r} ({exc}); fix or remove it")
    config.setdefault("features", "raw")  # runs from before feature sets read the observation alone
    config.setdefault("advice_prior", DEFAULTS["advice_prior"])
    missing = sorted(set(DEFAULTS) - set(config))
    if missing:
        parser.error(f"{str(path)!r} lacks {', '.join(missing)}; it was not written by this train.py")
    return config


def check_config(parser: TrainingParser, config: dict) -> None:
    """Checks that need several options together, or that build the opponents."""
    try:
        config["pool"] = [list(parse_entry(text)) for text in config["pool"]]
        for spec, _ in config["pool"]:
            make(spec, num_players=config["players"], observation_mode=config["mode"])
    except (ValueError, OSError, ImportError) as exc:
        parser.error(str(exc))
    if not config["pool"] and config["self_play_weight"] == 0:
        parser.error("the pool is empty: give --pool SPEC... or a positive --self-play-weight")
    check_rollout(parser, config)


def check_rollout(parser: TrainingParser, config: dict) -> None:
    """A minibatch must fit in a rollout."""
    if config["batch_size"] > config["n_steps"] * config["envs"]:
        parser.error(f"--batch-size {config['batch_size']} exceeds the rollout size --n-steps x --envs = "
                     f"{config['n_steps'] * config['envs']}; lower it or raise --n-steps")


class TrainingEnv(sobek_env.SingleAgentEnv):
    """The learner's environment against an :class:`OpponentPool`, whose snapshots the trainer
    adds through ``VecEnv.env_method("add_snapshot", path)``.

    ``reward`` is one of the environment's reward modes, or ``round-margin``: the ``margin``
    reward paid as it accrues, the change of (own score - best other score) / 100 at each
    scoring. It sums to the margin but tells which round earned it.
    """

    def __init__(self, pool: OpponentPool, reward: str, features: str = "raw", **kwargs) -> None:
        round_margin = reward == ROUND_MARGIN
        super().__init__(pool, num_players=pool.num_players, reward_mode="margin" if round_margin else reward, **kwargs)
        self.pool = pool
        self.round_margin = round_margin
        self._lead = 0.0
        self.featurize = Featurizer(features, pool.num_players)
        if self.featurize.size != self.observation_space.shape[0]:
            self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (self.featurize.size,), np.float32)

    def _features(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self.featurize({"observation": observation, "action_mask": mask})

    def lead(self) -> float:
        """(own score - best other score) / 100 now."""
        scores = self.game.scores
        return (scores[self.seat] - max(s for seat, s in enumerate(scores) if seat != self.seat)) / SCORE_SCALE

    def add_snapshot(self, path: str) -> None:
        """Let the snapshot at ``path`` play (see :meth:`OpponentPool.add_snapshot`)."""
        self.pool.add_snapshot(path)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        observation, info = super().reset(seed=seed, options=options)
        self._lead = self.lead()
        mask = self.action_masks()
        return self._features(observation, mask), {**info, "action_mask": mask}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        observation, reward, terminated, truncated, info = super().step(action)
        if self.round_margin:
            lead = self.lead()
            reward, self._lead = lead - self._lead, lead
        mask = self.action_masks()
        return self._features(observation, mask), reward, terminated, truncated, {**info, "action_mask": mask}


class MasksFromInfo(VecEnvWrapper):
    """Answers MaskablePPO's ``env_method("action_masks")`` from the masks that
    :class:`TrainingEnv` puts in its infos: one round trip to the workers per step instead of two."""

    def reset(self) -> np.ndarray:
        observation = self.venv.reset()
        self.masks = [info["action_mask"] for info in self.venv.reset_infos]
        return observation

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        observation, rewards, dones, infos = self.venv.step_wait()
        # a finished episode was reset at once: its mask is the new game's, in reset_infos
        self.masks = [(self.venv.reset_infos[i] if done else info)["action_mask"]
                      for i, (done, info) in enumerate(zip(dones, infos))]
        return observation, rewards, dones, infos

    def env_method(self, method_name: str, *args, indices: VecEnvIndices = None, **kwargs) -> list:
        if method_name == "action_masks" and not args and not kwargs:
            return [self.masks[i] for i in self._get_indices(indices)]
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)


def env_factory(config: dict, snapshots: Sequence[str]) -> Callable[[], Monitor]:
    """A picklable function building one training environment (in a worker process)."""

    def build() -> Monitor:
        if multiprocessing.parent_process() is not None:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a worker leaves Ctrl-C to the trainer, which closes it
        pool = OpponentPool([tuple(e) for e in config["pool"]], config["players"], config["mode"],
                            config["self_play_weight"], config["snapshots"], snapshots)
        return Monitor(TrainingEnv(pool, config["reward"], config["features"], observation_mode=config["mode"]))

    return build


def make_vec_env(config: dict, snapshots: Sequence[str]) -> VecEnv:
    """``config["envs"]`` environments: in worker processes when more than one."""
    factories = [env_factory(config, snapshots) for _ in range(config["envs"])]
    if len(factories) == 1:
        return MasksFromInfo(DummyVecEnv(factories))
    # fork starts a worker in 0.1 s where forkserver takes 1.5 s (it imports torch again in each);
    # the trainer makes its environments before torch computes anything, so forking is safe
    fork = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return MasksFromInfo(SubprocVecEnv(factories, start_method=fork))


def model_meta(config: dict, timesteps: int) -> dict:
    """What ``sobek.json`` records about a model of this run."""
    return {"num_players": config["players"], "observation_mode": config["mode"], "reward_mode": config["reward"],
            "features": config["features"], "timesteps": timesteps}


def new_model(config: dict, env: VecEnv, seed: int) -> MaskablePPO:
    """An untrained MaskablePPO with the run's network and hyper-parameters."""
    base = observation_size(config["players"])
    policy_kwargs = {"net_arch": {"pi": config["net"], "vf": config["net"]}, "activation_fn": torch.nn.ReLU,
                     "features_extractor_class": Log1pFeatures, "features_extractor_kwargs": {"squashed": base}}
    policy = MaskableActorCriticPolicy
    if config["features"] == "advice":
        policy = AdvisedPolicy
        policy_kwargs.update(advice_start=base, prior=config["advice_prior"])
    return MaskablePPO(
        policy, env, learning_rate=config["lr"], n_steps=config["n_steps"], batch_size=config["batch_size"],
        n_epochs=config["epochs"], gamma=config["gamma"], gae_lambda=config["gae_lambda"],
        clip_range=config["clip"], ent_coef=config["ent_coef"], policy_kwargs=policy_kwargs,
        seed=seed, device="cpu", verbose=0)


def play_baseline(
    policy: MaskableActorCriticPolicy, config: dict, opponent: str, games: int
) -> tuple[float, float, float, float]:
    """The deterministic policy against ``opponent`` in every other seat, seats rotating:
    (win rate, its 95% low, high, mean margin over the best opponent in points)."""
    n = config["players"]
    learner = PPOAgent(policy, model_meta(config, 0), deterministic=True)
    opponents = [make(opponent, num_players=n, observation_mode=config["mode"]) for _ in range(n - 1)]
    envs = [sobek_env.SingleAgentEnv(opponents, num_players=n, seat=seat, observation_mode=config["mode"])
            for seat in range(n)]
    wins, margins = 0.0, []
    for game in range(games):
        env = envs[game % n]
        observation, _ = env.reset(seed=config["eval_seed"] + game)
        over = False
        while not over:
            action = learner.act({"observation": observation, "action_mask": env.action_masks()})
            observation, _, over, _, info = env.step(action)
        if env.seat in info["winners"]:
            wins += 1 / len(info["winners"])
        scores = info["scores"]
        margins.append(scores[env.seat] - max(s for seat, s in enumerate(scores) if seat != env.seat))
    low, high = wilson_interval(wins, games)
    return wins / games, low, high, float(np.mean(margins))


class Run:
    """The run directory: configuration, checkpoints, snapshots and evaluation log."""

    def __init__(self, out: Path) -> None:
        self.out = out
        self.checkpoints = out / "checkpoints"
        self.snapshots = out / "snapshots"

    def write_config(self, config: dict) -> None:
        """Write config.json (aside, then renamed, so that a crash leaves the old one)."""
        self.out.mkdir(parents=True, exist_ok=True)
        tmp = self.out / "config.json.tmp"
        tmp.write_text(json.dumps(config, indent=1) + "\n")
        tmp.replace(self.out / "config.json")

    def last_checkpoint(self) -> tuple[Path, dict] | None:
        """The latest complete checkpoint (its directory and state), if any."""
        done = sorted(p for p in self.checkpoints.glob("step_*[0-9]") if (p / "state.json").is_file())
        return (done[-1], json.loads((done[-1] / "state.json").read_text())) if done else None

    def save_checkpoint(self, model: MaskablePPO, config: dict, snapshots: list[str]) -> Path:
        """Model with optimizer, snapshots in play and step count; written aside, then renamed."""
        steps = model.num_timesteps
        final = self.checkpoints / f"step_{steps:010d}"
        tmp = final.with_name(final.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        save_ppo(model, tmp / "model.zip", model_meta(config, steps))
        state = {"timesteps": steps, "snapshots": [Path(p).name for p in snapshots], "saved": now()}  # in snapshots/
        (tmp / "state.json").write_text(json.dumps(state, indent=1) + "\n")
        shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)
        for old in sorted(self.checkpoints.glob("step_*[0-9]"))[:-KEEP_CHECKPOINTS]:
            shutil.rmtree(old)
        return final

    def save_snapshot(self, model: MaskablePPO, config: dict) -> str:
        """Freeze the model for self-play (without its optimizer); its path."""
        self.snapshots.mkdir(parents=True, exist_ok=True)
        path = self.snapshots / f"step_{model.num_timesteps:010d}.zip"
        save_ppo(model, path, model_meta(config, model.num_timesteps), with_optimizer=False)
        return str(path)

    def log_eval(self, row: dict) -> None:
        """Append an evaluation to eval.csv."""
        path = self.out / "eval.csv"
        new = not path.exists()
        with path.open("a", newline="") as file:
            writer = csv.DictWriter(file, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)


def now() -> str:
    """The UTC time, for the records."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` after ``steps``."""
    return (steps // every + 1) * every


class Trainer(BaseCallback):
    """Progress bar, and at rollout boundaries (where the model matches its step count):
    snapshots for self-play, evaluations and checkpoints, on their schedules.

    Ctrl-C stops the training at the next step with a checkpoint of the last rollout boundary
    (the partial rollout, not yet learned from, is dropped); ``interrupted`` tells it happened.
    """

    def __init__(self, run: Run, config: dict, snapshots: list[str]) -> None:
        super().__init__()
        self.run = run
        self.config = config
        self.pool_snapshots = snapshots
        self.bar: tqdm | None = None
        self.interrupted = False

    def _interrupt(self, signum: int, frame: object) -> None:
        if not self.interrupted:
            tqdm.write("stopping: saving a checkpoint at the last rollout boundary")
        self.interrupted = True

    def _on_training_start(self) -> None:
        self.default_sigint = signal.signal(signal.SIGINT, self._interrupt)
        steps = self.rollout_start = self.model.num_timesteps
        self.next_snapshot = next_multiple(steps, self.config["snapshot_every"])
        self.next_eval = next_multiple(steps, self.config["eval_every"])
        self.next_checkpoint = next_multiple(steps, self.config["checkpoint_every"])
        self.bar = tqdm(total=self.config["timesteps"], initial=steps, unit="step", dynamic_ncols=True,
                        smoothing=0.05, desc=f"{self.config['players']}p")

    def _on_step(self) -> bool:
        self.bar.update(min(self.training_env.num_envs, self.bar.total - self.bar.n))  # the last rollout may overshoot
        return not self.interrupted

    def _on_rollout_start(self) -> None:
        steps = self.rollout_start = self.model.num_timesteps
        if self.config["self_play_weight"] > 0 and steps >= self.next_snapshot:
            self.add_snapshot()
            self.next_snapshot = next_multiple(steps, self.config["snapshot_every"])
        if steps >= self.next_eval:
            self.evaluate()
            self.next_eval = next_multiple(steps, self.config["eval_every"])
        if steps >= self.next_checkpoint:
            self.run.save_checkpoint(self.model, self.config, self.pool_snapshots)
            self.next_checkpoint = next_multiple(steps, self.config["checkpoint_every"])

    def _on_training_end(self) -> None:
        """The final evaluation and checkpoint, unless the last rollout boundary just made them."""
        signal.signal(signal.SIGINT, self.default_sigint)
        if self.interrupted:
            self.model.num_timesteps = self.rollout_start  # the count the weights have learned from
            self.run.save_checkpoint(self.model, self.config, self.pool_snapshots)
            self.bar.close()
            return
        steps = self.model.num_timesteps
        if self.next_eval - self.config["eval_every"] < steps:
            self.evaluate()
        if self.next_checkpoint - self.config["checkpoint_every"] < steps:
            self.run.save_checkpoint(self.model, self.config, self.pool_snapshots)
        self.bar.close()

    def add_snapshot(self) -> None:
        """Freeze the learner and send the snapshot to every environment's pool."""
        path = self.run.save_snapshot(self.model, self.config)
        self.training_env.env_method("add_snapshot", path)
        self.pool_snapshots = [*self.pool_snapshots, path][-self.config["snapshots"]:]

    def evaluate(self) -> None:
        """Play the baselines, then log to TensorBoard, eval.csv and above the progress bar."""
        steps, start = self.model.num_timesteps, time.perf_counter()
        row: dict = {"timesteps": steps}
        for baseline in EVAL_BASELINES:
            rate, low, high, margin = play_baseline(self.model.policy, self.config, baseline,
                                                      self.config["eval_games"])
            row.update({f"{baseline}_win_rate": rate, f"{baseline}_low": low, f"{baseline}_high": high,
                        f"{baseline}_margin": margin})
            for key in ("win_rate", "low", "high", "margin"):
                self.logger.record(f"eval/{baseline}_{key}", row[f"{baseline}_{key}"])
        self.logger.dump(step=steps)
        row["games"], row["seconds"] = self.config["eval_games"], round(time.perf_counter() - start, 1)
        self.run.log_eval(row)
        summary = ", ".join(f"{b} {row[f'{b}_win_rate']:.3f} [{row[f'{b}_low']:.3f}, {row[f'{b}_high']:.3f}]"
                            for b in EVAL_BASELINES)
        tqdm.write(f"eval at {steps:,} steps, win rate vs {summary} ({row['games']} games each, {row['seconds']} s)")
        self.bar.set_postfix_str(summary)


def train(config: dict, out: Path, resume: bool) -> Path:
    """Run (or continue) the training in ``out``; return the final model's path."""
    torch.set_num_threads(1)  # small batches: extra threads cost more in contention than they gain
    run = Run(out)
    checkpoint = run.last_checkpoint() if resume else None
    done = checkpoint[1]["timesteps"] if checkpoint else 0
    if done >= config["timesteps"]:
        print(f"the run in {str(out)!r} is complete ({done:,} of {config['timesteps']:,} steps); "
              "give a larger --timesteps to extend it")
        model = MaskablePPO.load(checkpoint[0] / "model.zip", device="cpu")
    else:
        model = learn(run, config, checkpoint)
    path = out / "model.zip"
    save_ppo(model, path, model_meta(config, model.num_timesteps), with_optimizer=False)
    print(f"model saved to {path}; play it as ppo:{path}")
    return path


def learn(run: Run, config: dict, checkpoint: tuple[Path, dict] | None) -> MaskablePPO:
    """Train from ``checkpoint`` (or from scratch) to ``config["timesteps"]``, recording this start in config.json."""
    done = checkpoint[1]["timesteps"] if checkpoint else 0
    # state.json names files in snapshots/, so a run may move (the first checkpoints stored whole paths)
    snapshots = [str(run.snapshots / Path(name).name) for name in checkpoint[1]["snapshots"]] if checkpoint else []
    seed = config["seed"] if done == 0 else int(np.random.SeedSequence([config["seed"], done]).generate_state(1)[0])
    config.setdefault("starts", []).append({"timesteps": done, "seed": seed, "envs": config["envs"], "time": now()})
    config["versions"] = {"python": platform.python_version(), "torch": torch.__version__,
                          "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__,
                          "numpy": np.__version__}
    run.write_config(config)
    env = make_vec_env(config, snapshots)
    try:
        if checkpoint:
            model = MaskablePPO.load(checkpoint[0] / "model.zip", env=env, device="cpu")
            model.set_random_seed(seed)
            print(f"resuming from {checkpoint[0]} at {done:,} steps")
        else:
            model = new_model(config, env, seed)
        model.set_logger(configure(str(run.out / "tb"), ["tensorboard"]))
        if config["self_play_weight"] > 0 and not snapshots:  # before the first reset: the pool may be only self-play
            snapshots = [run.save_snapshot(model, config)]
            env.env_method("add_snapshot", snapshots[0])
        trainer = Trainer(run, config, snapshots)
        model.learn(config["timesteps"] - done, callback=trainer, reset_num_timesteps=False)
    finally:
        env.close()
    if trainer.interrupted:
        raise KeyboardInterrupt
    return model


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring); Ctrl-C exits with status 130 after a checkpoint."""
    config, out, resume = configure_run(argv)
    try:
        train(config, out, resume)
    except KeyboardInterrupt:
        last = Run(out).last_checkpoint()
        where = f"the checkpoint at {last[1]['timesteps']:,} steps" if last else "the start"
        print(f"interrupted; python train.py --out {out} --resume continues from {where}", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
