"""Train a masked policy on any registered game with RLlib's PPO, multi-agent and self-play (``sobek-env train
--backend rllib``).

    sobek-env train --backend rllib --game sobek --players 2 --timesteps 200000 --out runs/rllib-2p
    sobek-env train --backend rllib --game kleopatra --players 3 --self-play league --out runs/rllib-k3
    sobek-env train --backend rllib --players 2 --address 192.168.1.10:6379 --env-runners 8 --out runs/big

Every seat of every game is played by RLlib modules (agents/training/rllib_env.py): with --self-play shared (the
default) one policy, main, plays them all and learns from every seat's decisions; with --self-play
league main plays one seat and frozen snapshots of it the others, --snapshots of them, the oldest
replaced by main's current weights every --snapshot-every steps. --timesteps counts environment steps,
every seat's decisions (a 2-player game's learner in train.py's stable-baselines3 runs sees about half).

Ray runs locally (--cpus of this machine) unless --address names a cluster; --env-runners > 0 samples in
that many Ray actors (one CPU each), each stepping --envs games; 0 samples in this process.

Every --eval-every steps (and at the start and the end) main plays --eval-games games against each
baseline (every other seat random, then heuristic; seats rotating, the same deals each time) as it is
then, deterministically, through the rllib: agent; the win rates with their Wilson 95% intervals go to
stdout and eval.csv. The policy played is kept in policies/. Ctrl-C or SIGTERM stops the run and saves
the last iteration's policy (exit status 130 or 143).

The run directory --out holds config.json (the configuration, seeds and versions), eval.csv, policies/ and
the final policy.zip, which plays as rllib:DIR/policy.zip. RLlib's own checkpoints are not written: they
are pickles, which run code when loaded (see agents/players/rllib_policy.py); a run cannot be resumed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.common.arguments import (
    BATCHES,
    EVAL_BASELINES,
    EVAL_SEED,
    PPO_RANGES,
    Bounds,
    TrainingParser,
    layer_sizes,
    positive_int,
)
from agents.common.files import DirectoryLock, lock_for_command, write_atomic
from agents.common.workers import sigterm_as_interrupt, stopped_by
from agents.training.rewards import REWARDS, ROUND_MARGIN
from sobek_env.game import OBSERVATION_MODES
from sobek_env.registry import GAMES, load_game

SELF_PLAY = ("shared", "league")  # agents.training.rllib_env.SELF_PLAY, without importing Ray to parse arguments
DEFAULTS = {
    "game": "sobek", "players": None, "timesteps": 200_000, "seed": None, "mode": "original", "reward": ROUND_MARGIN,
    "self_play": "shared", "snapshots": 4, "snapshot_every": 20_000, "eval_every": 25_000, "eval_games": 100,
    "eval_seed": EVAL_SEED, "net": [256, 256], "lr": 3e-4, "gamma": 0.995, "gae_lambda": 0.95, "clip": 0.2,
    "ent_coef": 0.01, "batch_size": 4000, "minibatch_size": 500, "epochs": 4, "env_runners": 0, "envs": 8,
    "address": None, "cpus": os.cpu_count() or 1,
}
SNAPSHOTS = Bounds(int, 1, 100)  # each a module the learner and every sampler hold
CPUS = Bounds(int, 1, 4096)
ENV_RUNNERS = Bounds(int, 0, 4096)  # one CPU each
NO_RESUME = ("--resume: the RLlib backend cannot resume a run: it writes no RLlib checkpoints (they are pickles, "
             "which run code when loaded), only the policies it evaluates; start a new run in another --out, or "
             "train with --backend sb3, which resumes")


def build_parser() -> TrainingParser:
    """The command line of ``train.py --backend rllib``."""
    parser = TrainingParser(prog="sobek-env train --backend rllib", description=__doc__.split("\n\n")[0],
                            epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    d = DEFAULTS
    run = parser.add_argument_group("run")
    run.add_argument("--game", choices=GAMES, default=d["game"], help=f"the game (default {d['game']})")
    run.add_argument("--players", type=positive_int,
                     help="players per game (Sobek 2-4, Kleopatra 2-5)")
    run.add_argument("--timesteps", type=PPO_RANGES["timesteps"], default=d["timesteps"], metavar="N",
                     help=f"environment steps in all, every seat's (default {d['timesteps']:,})")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="run directory (a new one)")
    run.add_argument("--resume", action="store_true", help="not available with this backend: a run cannot be resumed")
    run.add_argument("--seed", type=PPO_RANGES["seed"], metavar="N", help="seed of everything (default: drawn, "
                                                                         "then recorded)")
    run.add_argument("--mode", choices=OBSERVATION_MODES, default=d["mode"],
                     help=f"observation mode (default {d['mode']})")
    run.add_argument("--reward", choices=REWARDS, default=d["reward"],
                     help=f"reward: {ROUND_MARGIN} (the margin over the best opponent, paid at each scoring) or an "
                          f"environment's reward mode (default {d['reward']})")
    play = parser.add_argument_group("self-play")
    play.add_argument("--self-play", choices=SELF_PLAY, default=d["self_play"],
                      help="shared: one policy plays every seat; league: main against frozen snapshots of itself "
                           f"(default {d['self_play']})")
    play.add_argument("--snapshots", type=SNAPSHOTS,
                      help=f"with --self-play league: the snapshots in the league (default {d['snapshots']})")
    play.add_argument("--snapshot-every", type=PPO_RANGES["snapshot_every"], metavar="N",
                      help=f"with --self-play league: steps between snapshots (default {d['snapshot_every']:,})")
    schedule = parser.add_argument_group("evaluation")
    schedule.add_argument("--eval-every", type=PPO_RANGES["eval_every"], default=d["eval_every"], metavar="N",
                          help=f"steps between evaluations (default {d['eval_every']:,})")
    schedule.add_argument("--eval-games", type=PPO_RANGES["eval_games"], default=d["eval_games"], metavar="N",
                          help=f"games per baseline at each evaluation, a multiple of --players "
                               f"(default {d['eval_games']})")
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument("--net", type=layer_sizes, default=d["net"],
                     help=f"hidden layers of the policy and value networks (default {','.join(map(str, d['net']))})")
    ppo.add_argument("--lr", type=PPO_RANGES["lr"], default=d["lr"], help=f"learning rate (default {d['lr']})")
    ppo.add_argument("--gamma", type=PPO_RANGES["gamma"], default=d["gamma"], help=f"discount (default {d['gamma']})")
    ppo.add_argument("--gae-lambda", type=PPO_RANGES["gae_lambda"], default=d["gae_lambda"],
                     help=f"GAE lambda (default {d['gae_lambda']})")
    ppo.add_argument("--clip", type=PPO_RANGES["clip"], default=d["clip"], help=f"clip range (default {d['clip']})")
    ppo.add_argument("--ent-coef", type=PPO_RANGES["ent_coef"], default=d["ent_coef"],
                     help=f"entropy bonus (default {d['ent_coef']})")
    ppo.add_argument("--batch-size", type=PPO_RANGES["batch_size"], default=d["batch_size"],
                     help=f"steps per training iteration (default {d['batch_size']})")
    ppo.add_argument("--minibatch-size", type=BATCHES, default=d["minibatch_size"],
                     help=f"minibatch size (default {d['minibatch_size']})")
    ppo.add_argument("--epochs", type=PPO_RANGES["epochs"], default=d["epochs"], help=f"passes over each batch "
                                                                             f"(default {d['epochs']})")
    ray = parser.add_argument_group("Ray")
    ray.add_argument("--address", metavar="ADDR", help="the Ray cluster's address (HOST:PORT as ray start --head "
                                                      "prints it, or auto); default: a local Ray")
    ray.add_argument("--cpus", type=CPUS,
                     help=f"CPUs of the local Ray (default: the number of cores, {d['cpus']})")
    ray.add_argument("--env-runners", type=ENV_RUNNERS, default=d["env_runners"],
                     help=f"Ray actors sampling games (0: this process; default {d['env_runners']})")
    ray.add_argument("--envs", type=PPO_RANGES["envs"], default=d["envs"],
                     help=f"games each sampler steps at once (default {d['envs']})")
    return parser


def configure(argv: Sequence[str] | None) -> tuple[dict, Path, DirectoryLock]:
    """The run's configuration, its directory and the lock held on it; exits with status 2 on a bad
    configuration, a directory that already holds a run or is in use."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.resume:
        parser.error(NO_RESUME)
    out: Path = args.out
    config = {key: value for key, value in vars(args).items() if key not in ("out", "resume")}
    config["eval_seed"] = DEFAULTS["eval_seed"]
    game = load_game(config["game"])
    if config["players"] is None:
        parser.error(f"--players is required ({game.min_players} to {game.max_players} for {game.title})")
    if config["players"] not in game.player_counts:
        parser.error(f"argument --players: {game.title} is for {game.min_players} to {game.max_players} players, "
                     f"got {config['players']}")
    if config["eval_games"] % config["players"]:
        parser.error(f"--eval-games {config['eval_games']} is not a multiple of --players {config['players']} "
                     "(seats rotate so the learner sits in every seat equally)")
    if config["minibatch_size"] > config["batch_size"]:
        parser.error(f"--minibatch-size {config['minibatch_size']} exceeds --batch-size {config['batch_size']}")
    problem = network_problem(config)
    if problem:
        parser.error(f"argument --net: {problem}")
    if config["address"] is not None and config["cpus"] is not None:
        parser.error("--cpus sizes a local Ray; a cluster given by --address has its own")
    if config["self_play"] == "shared" and (config["snapshots"] or config["snapshot_every"]):
        parser.error("--snapshots and --snapshot-every go with --self-play league")
    for key in ("snapshots", "snapshot_every", "cpus"):
        if config[key] is None:
            config[key] = DEFAULTS[key]
    from agents.tournaments.cluster import RayUnavailable, check_reachable, require_ray

    try:
        require_ray("sobek-env train --backend rllib")
        if config["address"] is not None:
            check_reachable(config["address"])
    except RayUnavailable as exc:
        parser.error(str(exc))
    config["seed"] = config["seed"] if config["seed"] is not None else int(np.random.SeedSequence().entropy % 2**32)
    if (out / "config.json").exists():
        parser.error(f"{str(out)!r} already holds a run; choose another --out (RLlib runs cannot be resumed)")
    lock = lock_for_command(parser, out, "the run")
    return config, out, lock


def network_problem(config: dict) -> str | None:
    """What makes the run's --net a network its policy file could not hold (the model file's limits), or None."""
    from agents.players.modelfile import network_problem as problem  # torch, not Ray: only once the options are read
    from agents.players.rllib_policy import parameter_count

    game = load_game(config["game"])
    hidden = config["net"]
    return problem(hidden, parameter_count(game.observation_size(config["players"]), game.num_actions, hidden))


# ---------------------------------------------------------------- RLlib's configuration


def modules(config: dict) -> list[str]:
    """The module ids of the run: main, and in a league its snapshots."""
    from agents.training.rllib_env import MAIN

    if config["self_play"] == "shared":
        return [MAIN]
    return [MAIN, *(f"snapshot_{i}" for i in range(config["snapshots"]))]


def algorithm_config(config: dict) -> Any:
    """RLlib's PPO configuration for the run (``.build_algo()`` builds it)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.training.rllib_env import MAIN, LeagueMapping, MaskedRLModule, RLlibEnv, shared_mapping

    ids = modules(config)
    mapping = shared_mapping if config["self_play"] == "shared" else LeagueMapping(config["players"], ids[1:],
                                                                                  config["seed"])
    spec = {"hidden": list(config["net"]), "activation": "ReLU"}
    env_config = {"game": config["game"], "num_players": config["players"], "observation_mode": config["mode"],
                  "reward": config["reward"]}
    return (
        PPOConfig()
        .environment(RLlibEnv, env_config=env_config)
        .multi_agent(policies=set(ids), policy_mapping_fn=mapping, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            module: RLModuleSpec(module_class=MaskedRLModule, model_config=spec) for module in ids}))
        .env_runners(num_env_runners=config["env_runners"], num_envs_per_env_runner=config["envs"],
                     num_cpus_per_env_runner=1)
        .learners(num_learners=0)
        .training(lr=config["lr"], gamma=config["gamma"], lambda_=config["gae_lambda"], clip_param=config["clip"],
                  entropy_coeff=config["ent_coef"], train_batch_size_per_learner=config["batch_size"],
                  minibatch_size=config["minibatch_size"], num_epochs=config["epochs"])
        .debugging(seed=config["seed"], log_level="ERROR")
    )


def main_weights(algo: Any) -> dict[str, Any]:
    """The learning module's network tensors (MaskedNet's names), as the learner holds them."""
    import torch

    from agents.training.rllib_env import MAIN

    state = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    return {name.removeprefix("net."): torch.as_tensor(np.array(value)) for name, value in state.items()
            if name.startswith("net.")}


def refresh_snapshot(algo: Any, module: str) -> None:
    """Freeze main's current weights into the snapshot ``module`` (learner and samplers)."""
    from agents.training.rllib_env import MAIN

    weights = algo.learner_group.get_weights(module_ids=[MAIN])[MAIN]
    algo.learner_group.set_weights({module: weights})
    # straight to every sampler: RLlib's own sync skips a sampler whose weights' sequence number is current, and
    # after each update it syncs only the modules it trains
    state = {"rl_module": {module: weights}}
    algo.env_runner_group.foreach_env_runner(lambda runner: runner.set_state(state), local_env_runner=True)


# ---------------------------------------------------------------- the run


def policy_meta(config: dict, timesteps: int, iterations: int) -> dict:
    """What a policy file of this run records (agents/players/rllib_policy.py)."""
    import ray

    game = load_game(config["game"])
    return {"game": config["game"], "num_players": config["players"], "observation_mode": config["mode"],
            "reward": config["reward"], "timesteps": timesteps,
            "observation_size": game.observation_size(config["players"]), "action_count": game.num_actions,
            "network": {"hidden": list(config["net"]), "activation": "ReLU"},
            "training": {"algorithm": "PPO", "self_play": config["self_play"], "iterations": iterations,
                         "ray": ray.__version__}}


def evaluate(path: Path, config: dict, steps: int, elapsed: float) -> dict:
    """The policy file ``path`` against each baseline in every other seat: a row of eval.csv."""
    from agents.tournaments.tournament import play_tournament, summarize

    start = time.perf_counter()
    row: dict[str, Any] = {"timesteps": steps}
    for baseline in EVAL_BASELINES:
        specs = [f"rllib:{path}", *[baseline] * (config["players"] - 1)]
        records = play_tournament(specs, config["eval_games"], game=config["game"], seed=config["eval_seed"],
                                  observation_mode=config["mode"], workers=1)
        learner = summarize(records, specs, config["game"])[0]
        margins = [r.scores[r.seat_of(0)] - max(s for q, s in enumerate(r.scores) if q != r.seat_of(0))
                   for r in records]
        row.update({f"{baseline}_win_rate": learner.win_rate, f"{baseline}_low": learner.win_low,
                    f"{baseline}_high": learner.win_high, f"{baseline}_margin": float(np.mean(margins))})
    row.update(games=config["eval_games"], seconds=round(time.perf_counter() - start, 1),
               training_seconds=round(elapsed, 1))
    return row


class RLlibRun:
    """The run directory and the state of a run in progress: what it has learned, evaluated and saved."""

    def __init__(self, out: Path, config: dict) -> None:
        self.out = out
        self.config = config
        self.policies = out / "policies"
        self.rows: list[dict] = []
        self.steps = 0
        self.iterations = 0
        self.weights: dict | None = None

    def write_config(self) -> None:
        import ray
        import torch

        self.config["versions"] = {"python": platform.python_version(), "ray": ray.__version__,
                                   "torch": torch.__version__, "numpy": np.__version__}
        self.out.mkdir(parents=True, exist_ok=True)
        write_atomic(self.out / "config.json", json.dumps(self.config, indent=1) + "\n")

    def save(self, path: Path) -> Path:
        """The last iteration's policy, saved at ``path``."""
        from agents.players.rllib_policy import save_policy

        path.parent.mkdir(parents=True, exist_ok=True)
        save_policy(path, policy_meta(self.config, self.steps, self.iterations), self.weights)
        return path

    def evaluate(self, elapsed: float) -> None:
        from agents.tournaments.evaluation import write_csv

        path = self.save(self.policies / f"step_{self.steps:09d}.zip")
        row = evaluate(path, self.config, self.steps, elapsed)
        self.rows.append(row)
        write_csv(self.out / "eval.csv", self.rows)
        summary = ", ".join(f"{b} {row[f'{b}_win_rate']:.3f} [{row[f'{b}_low']:.3f}, {row[f'{b}_high']:.3f}]"
                            for b in EVAL_BASELINES)
        print(f"eval at {self.steps:,} steps ({elapsed:.0f} s of training), win rate vs {summary} "
              f"({row['games']} games each, {row['seconds']} s)", flush=True)


def learn(run: RLlibRun) -> Path:
    """Train to the run's --timesteps, evaluating and snapshotting on schedule; the final policy's path."""
    import torch

    config = run.config
    torch.manual_seed(config["seed"])
    torch.set_num_threads(1)  # small batches: more threads only contend with the samplers
    algo = algorithm_config(config).build_algo()
    snapshot_ids = modules(config)[1:]
    try:
        run.write_config()  # only once RLlib is built: a run that could not start leaves no config.json in the way
        for module in snapshot_ids:  # the league starts from main's untrained weights
            refresh_snapshot(algo, module)
        run.weights = main_weights(algo)
        training, next_eval, next_snapshot, oldest = 0.0, 0, config["snapshot_every"], 0
        while True:
            if run.steps >= next_eval or run.steps >= config["timesteps"]:
                run.evaluate(training)
                next_eval = (run.steps // config["eval_every"] + 1) * config["eval_every"]
            if run.steps >= config["timesteps"]:
                break
            start = time.perf_counter()
            result = algo.train()
            training += time.perf_counter() - start
            run.iterations += 1
            run.steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            run.weights = main_weights(algo)
            if snapshot_ids and run.steps >= next_snapshot:
                refresh_snapshot(algo, snapshot_ids[oldest])
                oldest = (oldest + 1) % len(snapshot_ids)
                next_snapshot = (run.steps // config["snapshot_every"] + 1) * config["snapshot_every"]
    finally:
        algo.stop()
    return run.save(run.out / "policy.zip")


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring). Ctrl-C or SIGTERM saves the last iteration's policy and
    exits with status 130 or 143."""
    config, out, lock = configure(argv)
    run = RLlibRun(out, config)
    try:
        from agents.tournaments.cluster import RayUnavailable, ray_session

        with sigterm_as_interrupt(), contextlib.ExitStack() as stack:
            try:
                stack.enter_context(ray_session(config["address"], config["cpus"]))
            except RayUnavailable as exc:
                print(f"sobek-env train: error: {exc}", file=sys.stderr)
                sys.exit(2)
            path = learn(run)
        print(f"policy saved to {path}; play it as rllib:{path}")
    except KeyboardInterrupt as exc:
        what, status = stopped_by(exc)
        if run.weights is not None:
            path = run.save(out / "policy.zip")
            what += f"; the policy of the last iteration ({run.steps:,} steps) is saved to {path}"
        print(what, file=sys.stderr)
        sys.exit(status)
    finally:
        lock.release()

