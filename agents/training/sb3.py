"""Train a player of any registered game with sb3-contrib's MaskablePPO against a pool of opponents.

    sobek-env train --players 2 --out runs/p2
    sobek-env train --game kleopatra --players 3 --out runs/k3
    sobek-env train --players 4 --timesteps 200000 --out runs/p4 --pool random heuristic@3 --self-play-weight 1
    sobek-env train --out runs/p2 --resume

The learner plays at a random seat; each other seat is filled, per episode,
by an opponent drawn from the pool: the --pool specs (SPEC[@WEIGHT], weight 1
by default) and frozen snapshots of the learner itself (self-play), which
share --self-play-weight. A snapshot is taken at the start and every
--snapshot-every steps; the latest --snapshots of them play.

By default (--features advice) the network reads the observation and the
heuristic's reading of it (its choice and its view of the corruption race;
see agents/sobek/features.py and agents/kleopatra/features.py), and the
heuristic's choice is added to the policy's logits with a learnt weight that
starts at --advice-prior: the learner starts from the heuristic's play and
learns where to depart from it. --features raw learns from the observation alone.
--init MODEL starts the policy from a model for the same table and network (the
model of another run, or one taught by sobek-env imitate from a
search's replays) instead of from scratch. With --critic state (one trunk,
as from --init net:PATH) the value function is a network of its own that
reads the observation and env.state(), the full state with every hidden
card, in training only; the policy reads the observation alone. With --imitation W
(--features raw) the loss also pulls the policy toward the heuristic's choice
on the learner's own states, W falling to 0 over --imitation-decay steps
(kickstarting, agents/training/kickstart.py); the network still reads the
observation alone.

The --envs games are shared among worker processes (one per core at most), each
stepping its share in one call: natively where the game's engine and baselines
were built (agents/training/batched.py: the pool's random, greedy and heuristic
opponents and the advice features in C++, the learner's snapshots deciding for
every game that waits for them in one forward pass), else in Python one game at
a time (and always for --reward paired-margin). Both give the same observations,
masks, rewards and opponents' distribution.

Every --eval-every steps the deterministic policy plays --eval-games games
against each baseline (every other seat random, then heuristic); the win
rates and their Wilson 95% intervals go to stdout, TensorBoard and eval.csv.
Every --checkpoint-every steps the model (with its optimizer), the pool and
the step count are saved; --resume continues from the last checkpoint to the
run's --timesteps (give a larger --timesteps to extend the run, or --envs to
suit another machine; any other option is refused, as the run is defined by
its config.json). If the newest checkpoint cannot be read back whole, --resume
warns and takes the one before; evaluations of steps beyond the checkpoint
resumed from are dropped from eval.csv, as the run makes them again.

Ctrl-C or SIGTERM (what timeout, docker stop and schedulers send) stops the
run with a checkpoint of the last rollout boundary, exit status 130 or 143. The
environment workers end with the trainer however it ends, even by SIGKILL; a
worker that dies stops the run with a checkpoint and one line naming it (exit
status 1). A training that diverges (a weight no longer a finite number) stops
at the next rollout boundary with one line, before those weights play or are saved.
Every option's range is checked before anything is written.

The run directory --out holds config.json (the full configuration, seeds and
each start), tb/ (tensorboard --logdir DIR/tb), eval.csv, snapshots/,
checkpoints/ and the final model.zip, which plays as ppo:DIR/model.zip; with
--keep-evaluated also evaluated/, the model of each evaluation.

With --backend rllib the training is RLlib's PPO, multi-agent self-play (needs the ray extra):
sobek-env train --backend rllib --help.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import errno
import multiprocessing
import os
import platform
import shlex
import signal
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

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
from stable_baselines3.common.vec_env.base_vec_env import CloudpickleWrapper, VecEnvIndices
from tqdm import tqdm

import sobek_env
from agents.common.arguments import (
    EVAL_BASELINES,
    EVAL_SEED,
    MAX_ROLLOUT,
    MAX_STEPS,
    PPO_RANGES,
    STEPS,
    WEIGHTS,
    Bounds,
    TrainingParser,
    layer_sizes,
    positive_int,
)
from agents.common.files import DirectoryLock
from agents.common.workers import (
    Interrupted,
    WorkerDied,
    cpu_seconds,
    die_with_parent,
    how_it_ended,
)
from agents.games import tables
from agents.players.features import Featurizer, default_features, feature_sets
from agents.players.heads import heads_problem
from agents.players.modelfile import network_problem, non_finite, write_model
from agents.players.net import net_cpu_seconds, net_meta, read_net, save_net
from agents.players.net import new_net as new_policy_value_net
from agents.players.ppo import (
    critic_state_size,
    load_ppo,
    load_state,
    net_from_policy,
    parameter_count,
    policy_from_net,
    policy_spec,
    read_model,
    save_ppo,
    state_features,
)
from agents.players.registry import make
from agents.tournaments.tournament import wilson_interval
from agents.training.batched import NativeTrainingEnv, native_possible
from agents.training.evaluations import play_evaluation_games
from agents.training.kickstart import ImitatingPPO, Teacher, imitating, teacher_features
from agents.training.pool import OpponentPool, parse_entry
from agents.training.rewards import (
    CAPPED_MARGIN,
    CAPPED_OUTLOOK,
    LEAD_REWARDS,
    MARGIN_CAP,
    OUTLOOK_MARGIN,
    PAIRED_MARGIN,
    REWARDS,
    ROUND_MARGIN,
    lead_margins,
    paid_lead,
)
from agents.training.rundir import Checkpoint, Run, RunError, ending_a_run, lock_run, now, run_options
from agents.training.vecenv import SharedGamesVecEnv
from sobek_env.env import as_action, ask
from sobek_env.game import OBSERVATION_MODES, Table
from sobek_env.registry import GAMES, load_game

FALLBACK_TIMESTEPS = 1_000_000  # a table without a measured budget
DEFAULT_POOL = ("random@1", "greedy@1", "heuristic@3", "heuristic:tolerance=0.2@1", "heuristic:tolerance=0.8@1")
# games stepped at once: the policy decides for all of them in one forward pass, whose cost barely grows with the
# batch, so many games amortise it (64: sb3's rollout bookkeeping fell from about 140 to 50 us of CPU a step;
# 128 with half the steps each: a fifth less rollout time again); with the default --n-steps the rollout holds
# 128 x 64 = 8,192 steps, as 8 environments x 1,024 did on 2 cores (docs/training.md, "The network and the rollout")
DEFAULT_ENVS = 128
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
BROKEN_PIPE = (EOFError, BrokenPipeError, ConnectionResetError)
# what --resume may change besides --out: a longer run, another machine
RESUMABLE = ("timesteps", "envs", "update_threads", "keep_evaluated")

DEFAULTS = {
    "game": "sobek", "players": None, "timesteps": None, "seed": None,
    "envs": DEFAULT_ENVS, "update_threads": 1,
    "pool": list(DEFAULT_POOL), "self_play_weight": 1.0, "snapshot_every": 250_000, "snapshots": 5,
    "eval_every": 250_000, "eval_games": 200, "eval_seed": EVAL_SEED, "checkpoint_every": 250_000,
    "mode": "original", "reward": ROUND_MARGIN, "features": None, "advice_prior": 3.0, "critic_warmup": 0, "init": None,
    "trunk": "separate", "critic": "observation", "heads": [],  # heads: a --init net:'s structured heads
    "imitation": 0.0, "imitation_decay": 0, "keep_evaluated": False,
    "lr": 3e-4, "n_steps": 64, "batch_size": 512, "epochs": 5, "gamma": 0.995, "gae_lambda": 0.95,
    "clip": 0.2, "ent_coef": 0.01, "net": [64, 64],  # as fast to learn as 256 x 256, 4x cheaper
}

# the numbers each option (and config.json field) accepts, checked before anything is written
RANGES: dict[str, Bounds] = {
    **PPO_RANGES,
    "advice_prior": Bounds(float, 0, 100),  # a logit 100 ahead leaves the others less than float32's smallest normal
    "critic_warmup": Bounds(int, 0, MAX_STEPS), "self_play_weight": WEIGHTS,
    "imitation": Bounds(float, 0, 100), "imitation_decay": Bounds(int, 0, MAX_STEPS),
    "snapshots": Bounds(int, 1, 100),  # each a network held in every environment worker
    "checkpoint_every": STEPS, "n_steps": Bounds(int, 1, MAX_ROLLOUT), "update_threads": Bounds(int, 1, 256),
}

TRUNKS = ("separate", "shared")  # --trunk: the policy and the value on their own layers, or on one trunk
# --critic: what the value function reads: the learner's observation, or (in training only) also env.state()
CRITICS = ("observation", "state")
NET_PREFIX = "net:"  # --init net:PATH: start from a network of expert iteration (agents.players.net)


def game_defaults(game: str) -> dict[str, Any]:
    """The options ``game``'s agents package trains with besides the common DEFAULTS (``agents.games``)."""
    return copy.deepcopy(dict(tables(game).training))  # a run's config may change its lists


def default_text(key: str) -> str:
    """The default of option ``key`` for the help: the common one, and any game's own."""
    common = DEFAULTS[key]
    shown = " ".join(common) if isinstance(common, list) else str(common)
    owns = {game: tables(game).training for game in GAMES}  # each game's own defaults (agents.games)
    games = "".join(f"; {game}: {' '.join(own[key]) if isinstance(own[key], list) else own[key]}"
                    for game, own in owns.items() if key in own)
    return shown + games


def build_parser() -> TrainingParser:
    """The command line. Its options have no defaults (DEFAULTS fills them in later), so that
    the options actually given can be told apart, which --resume needs."""
    parser = TrainingParser(
        prog="sobek-env train", description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter, argument_default=argparse.SUPPRESS)
    d = DEFAULTS
    run = parser.add_argument_group("run")
    run.add_argument("--backend", choices=BACKENDS,
                     help="sb3: sb3-contrib's MaskablePPO (this help); rllib: RLlib's PPO, multi-agent self-play "
                          "(sobek-env train --backend rllib --help)")
    run.add_argument("--algo", choices=ALGOS,
                     help="ppo: MaskablePPO (this help); exit: expert iteration, a policy-value network taught by the "
                          "search (sobek-env train --algo exit --help)")
    run.add_argument("--game", choices=GAMES, help=f"the game (default {d['game']})")
    run.add_argument("--players", type=positive_int,
                     help="players per game (required for a new run; Sobek 2-4, Kleopatra 2-5)")
    run.add_argument("--timesteps", type=RANGES["timesteps"], metavar="N",
                     help="learner steps in all (default by game and players: "
                          f"{ {game: dict(tables(game).timesteps) for game in GAMES} })")
    run.add_argument("--out", type=Path, required=True, metavar="DIR", help="run directory")
    run.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    run.add_argument("--seed", type=RANGES["seed"], metavar="N",
                     help="seed of everything (default: drawn, then recorded)")
    run.add_argument("--envs", type=RANGES["envs"], metavar="N",
                     help="games played at once, shared among worker processes (one per core at most; "
                          f"default {d['envs']})")
    run.add_argument("--update-threads", type=RANGES["update_threads"], metavar="N",
                     help="torch threads of the PPO update, while the games wait (the rollouts keep one: the "
                          f"game workers have the other cores; default {d['update_threads']})")
    run.add_argument("--mode", choices=OBSERVATION_MODES, help=f"observation mode (default {d['mode']})")
    run.add_argument("--reward", choices=(*REWARDS, PAIRED_MARGIN),
                     help=f"reward: {ROUND_MARGIN} (the margin, paid at each scoring), {CAPPED_MARGIN} (the same, the "
                          f"final margin squashed to +-{MARGIN_CAP:g} of the score scale), {OUTLOOK_MARGIN} (the "
                          "margin were the game to end now, paid as it moves: Kleopatra's crocodile counted at "
                          f"every step), {CAPPED_OUTLOOK} (the same squashed as {CAPPED_MARGIN} squashes, at every "
                          f"step: paid for moving toward a win), {PAIRED_MARGIN} (the "
                          "capped margin less the advice's own on the same deal, from the learner's first departure "
                          "from it: what its departures changed) or an environment's reward mode "
                          f"(default {default_text('reward')})")
    run.add_argument("--features", metavar="SET",
                     help="what the network reads: raw (the observation) or a game's own set, e.g. Sobek's advice "
                          "(the observation and the heuristic's reading of it, see agents/sobek/features.py; "
                          "default: the game's own set)")
    run.add_argument("--advice-prior", type=RANGES["advice_prior"], metavar="W",
                     help="with --features advice: the starting weight of the heuristic's choice in the policy's "
                          f"logits (0: none; default {default_text('advice_prior')})")
    run.add_argument("--init", metavar="MODEL",
                     help="start from this model's weights instead of from scratch: a ppo: model of the same table "
                          "and network (e.g. from sobek-env imitate), or net:PATH, a network of expert iteration "
                          "(sobek-env train --algo exit), which sets --trunk shared, --features raw and its --net")
    run.add_argument("--trunk", choices=TRUNKS,
                     help="separate: the policy and the value each on their own layers; shared: one trunk feeding "
                          "both heads (with --features raw), the layout of a net: model, written as DIR/net.zip "
                          f"beside model.zip (default {d['trunk']})")
    run.add_argument("--critic", choices=CRITICS,
                     help="what the value function reads: observation (the learner's, as the policy) or state "
                          "(with --trunk shared: a value network of its own over the observation and env.state(), "
                          "every hidden card included, in training only; the policy still reads the observation "
                          f"alone, and net.zip keeps the value head it started with; default {d['critic']})")
    run.add_argument("--critic-warmup", type=RANGES["critic_warmup"], metavar="N",
                     help="learner steps at the start during which only the value function learns: the policy "
                          "keeps its starting play (with advice, the heuristic's) until the value function can "
                          f"judge it (default {default_text('critic_warmup')})")
    teach = parser.add_argument_group("imitation (kickstarting: agents/training/kickstart.py)")
    teach.add_argument("--imitation", type=RANGES["imitation"], metavar="W",
                       help="with --features raw: add W times the cross-entropy between the policy and the "
                            "heuristic's choice on the learner's own states to PPO's loss (the network still reads "
                            f"the observation alone; default {d['imitation']:g}: none)")
    teach.add_argument("--imitation-decay", type=RANGES["imitation_decay"], metavar="N",
                       help="learner steps over which the imitation's weight falls linearly from W to 0 "
                            f"(default {d['imitation_decay']}: it stays W)")
    pool = parser.add_argument_group("opponents")
    pool.add_argument("--pool", nargs="*", metavar="SPEC[@WEIGHT]",
                      help=f"fixed opponents and their weights (default {default_text('pool')}); "
                           "give --pool alone for self-play only")
    pool.add_argument("--self-play-weight", type=RANGES["self_play_weight"],
                      help="weight shared by the learner's snapshots "
                           f"(default {default_text('self_play_weight')}; 0: none)")
    pool.add_argument("--snapshot-every", type=RANGES["snapshot_every"],
                      help=f"steps between snapshots (default {d['snapshot_every']})")
    pool.add_argument("--snapshots", type=RANGES["snapshots"],
                      help=f"latest snapshots that play (default {d['snapshots']})")
    schedule = parser.add_argument_group("evaluation and checkpoints")
    schedule.add_argument("--eval-every", type=RANGES["eval_every"],
                          help=f"steps between evaluations (default {d['eval_every']})")
    schedule.add_argument("--eval-games", type=RANGES["eval_games"],
                          help=f"games per baseline at each evaluation (default {d['eval_games']})")
    schedule.add_argument("--checkpoint-every", type=RANGES["checkpoint_every"],
                          help=f"steps between checkpoints (default {d['checkpoint_every']})")
    schedule.add_argument("--keep-evaluated", action="store_true",
                          help="keep the model each evaluation played as DIR/evaluated/step_N.zip (with a shared "
                               "trunk also step_N.net.zip, a net: model), to play the best one eval.csv shows "
                               "(checkpoints keep only the last two)")
    ppo = parser.add_argument_group("PPO")
    ppo.add_argument("--lr", type=RANGES["lr"], help=f"learning rate (default {d['lr']})")
    ppo.add_argument("--n-steps", type=RANGES["n_steps"],
                     help=f"steps per environment per update (default {d['n_steps']})")
    ppo.add_argument("--batch-size", type=RANGES["batch_size"], help=f"minibatch size (default {d['batch_size']})")
    ppo.add_argument("--epochs", type=RANGES["epochs"], help=f"passes over each rollout (default {d['epochs']})")
    ppo.add_argument("--gamma", type=RANGES["gamma"], help=f"discount (default {d['gamma']})")
    ppo.add_argument("--gae-lambda", type=RANGES["gae_lambda"], help=f"GAE lambda (default {d['gae_lambda']})")
    ppo.add_argument("--clip", type=RANGES["clip"], help=f"clip range (default {d['clip']})")
    ppo.add_argument("--ent-coef", type=RANGES["ent_coef"], help=f"entropy bonus (default {d['ent_coef']})")
    ppo.add_argument("--net", type=layer_sizes, help="hidden layers of the policy and value networks "
                                                     f"(default {','.join(map(str, d['net']))})")
    return parser


def configure_run(argv: Sequence[str] | None) -> tuple[dict, Path, bool, DirectoryLock]:
    """The run's configuration, its directory, whether it resumes, and the lock held on the directory for the
    run; exits with status 2 on a bad configuration or a directory in use."""
    parser = build_parser()
    given, out, resume = run_options(parser, argv, RESUMABLE)
    if resume:
        lock = lock_run(parser, out)
        try:
            return _resumed_config(parser, out, given), out, True, lock
        except SystemExit:
            lock.release()
            raise
    config = {**DEFAULTS, **game_defaults(given.get("game", DEFAULTS["game"])), **given}
    if isinstance(config["init"], str) and config["init"].startswith(NET_PREFIX):
        config.update(implied_by_net(parser, config["init"], given))
    game = load_game(config["game"])
    if "players" not in given:
        parser.error(f"--players is required for a new run ({game.min_players} to {game.max_players} for "
                     f"{game.title})")
    if config["players"] not in game.player_counts:
        parser.error(f"argument --players: {game.title} is for {game.min_players} to {game.max_players} players, "
                     f"got {config['players']}")
    config["features"] = run_features(config)
    budgets = tables(game).timesteps
    config["timesteps"] = config["timesteps"] or budgets.get(config["players"], FALLBACK_TIMESTEPS)
    config["seed"] = config["seed"] if config["seed"] is not None else int(np.random.SeedSequence().entropy % 2**32)
    check_config(parser, config)
    config["command"] = "python train.py " + shlex.join(list(argv) if argv is not None else sys.argv[1:])
    return config, out, False, lock_run(parser, out, new=True)


def implied_by_net(parser: TrainingParser, init: str, given: dict) -> dict:
    """What ``--init net:PATH`` sets (the network's layers, one trunk, raw features), refusing an option given
    otherwise."""
    path = init[len(NET_PREFIX):]
    try:
        meta = read_net(path)[0]
    except (OSError, ValueError) as exc:
        parser.error(f"argument --init: {exc}")
    implied = {"trunk": "shared", "features": "raw", "net": meta["hidden"], "heads": meta.get("heads", [])}
    for key, value in implied.items():
        if key in given and given[key] != value:
            shown = ",".join(map(str, value)) if isinstance(value, list) else value
            parser.error(f"argument --{key}: --init {init} is a network with --{key} {shown}; leave --{key} out "
                         "or give that")
    return implied


def _resumed_config(parser: TrainingParser, out: Path, given: dict) -> dict:
    config = read_config(parser, out)
    if given.get("timesteps", config["timesteps"]) < config["timesteps"]:
        parser.error(f"--timesteps {given['timesteps']} is below the run's {config['timesteps']}; "
                     "give at least that")
    config.update(given)
    try:
        check_rollout(config)
    except ValueError as exc:
        parser.error(str(exc))
    return config


def read_config(parser: TrainingParser, out: Path) -> dict:
    """The configuration of the run in ``out``, to resume it, each field checked as a new run's options are."""
    path = out / "config.json"
    if not path.is_file():
        parser.error(f"no run to resume in {str(out)!r} (no config.json); start one without --resume")
    try:
        config = Run(out).read_config()
    except (OSError, ValueError) as exc:
        parser.error(f"cannot read the run's configuration: {exc}; fix or remove it")
    config.setdefault("features", "raw")  # runs from before feature sets read the observation alone
    config.setdefault("advice_prior", DEFAULTS["advice_prior"])
    config.setdefault("critic_warmup", 0)  # runs from before the warm-up
    config.setdefault("init", None)  # runs from before --init
    config.setdefault("trunk", "separate")  # runs from before --trunk
    config.setdefault("critic", "observation")  # runs from before --critic
    config.setdefault("heads", [])  # runs from before networks with heads
    config.setdefault("imitation", 0.0)  # runs from before --imitation
    config.setdefault("imitation_decay", 0)
    config.setdefault("keep_evaluated", False)  # runs from before --keep-evaluated
    config.setdefault("update_threads", 1)  # runs from before --update-threads
    config.setdefault("game", "sobek")  # runs from before there were several games
    missing = sorted(set(DEFAULTS) - set(config))
    if missing:
        parser.error(f"{str(path)!r} lacks {', '.join(missing)}; it was not written by this train.py")
    try:
        check_fields(config)
        check_run(config)
    except (ValueError, OSError, ImportError) as exc:
        parser.error(f"{str(path)!r} cannot be resumed: {exc}; fix it, or start a new run in another --out")
    return config


def check_fields(config: dict) -> None:
    """ValueError naming the first field of a config.json read back (perhaps edited by hand) whose value a new
    run's option could not have given."""
    def fail(key: str, problem: str) -> ValueError:
        return ValueError(f"its field {key!r} {problem}")

    if config["game"] not in GAMES:
        raise fail("game", f"must be one of {', '.join(GAMES)}, got {config['game']!r}")
    game = load_game(config["game"])
    if isinstance(config["players"], bool) or config["players"] not in game.player_counts:
        raise fail("players", f"must be a player count of {game.title}, {game.min_players} to {game.max_players}, "
                              f"got {config['players']!r}")
    for key, choices in (("mode", OBSERVATION_MODES), ("reward", (*REWARDS, PAIRED_MARGIN)), ("trunk", TRUNKS),
                         ("critic", CRITICS),
                         ("features", feature_sets(config["game"]))):
        if config[key] not in choices:
            raise fail(key, f"must be one of {', '.join(choices)}, got {config[key]!r}")
    for key, bounds in RANGES.items():
        try:
            bounds.check(config[key])
        except ValueError as exc:
            raise fail(key, str(exc)) from None
    pool = config["pool"]
    if not isinstance(pool, list) or not all(
            isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str) for entry in pool):
        raise fail("pool", f"must be a list of [spec, weight] pairs, got {pool!r}")
    for spec, weight in pool:
        try:
            WEIGHTS.check(weight)
            if weight == 0:
                raise ValueError(f"must be above 0, got {weight!r}")
        except ValueError as exc:
            raise fail("pool", f"gives {spec!r} a weight that {exc}") from None
    if not isinstance(config["keep_evaluated"], bool):
        raise fail("keep_evaluated", f"must be true or false, got {config['keep_evaluated']!r}")
    if config["init"] is not None and not isinstance(config["init"], str):
        raise fail("init", f"must be a model's path or null, got {config['init']!r}")
    if "starts" in config and not isinstance(config["starts"], list):
        raise fail("starts", f"must be a list, got {config['starts']!r}")
    net = config["net"]
    if not isinstance(net, list) or not all(isinstance(size, int) and not isinstance(size, bool) for size in net):
        raise fail("net", f"must be a list of layer sizes, got {net!r}")
    problem = network_problem(net, network_parameters(config))
    if problem:
        raise fail("net", problem)


def run_table(config: dict) -> Table:
    """The table the run trains for."""
    return load_game(config["game"]).table(config["players"], config["mode"])


def run_features(config: dict) -> str:
    """The feature set the run's network reads: as configured, else the game's own default."""
    return config["features"] or default_features(config["game"])


def row_size(config: dict) -> int:
    """The entries of the learner's row: its features, then with --critic state what the critic reads besides, or
    with --imitation the heuristic's choice, one-hot."""
    table = run_table(config)
    extra = critic_state_size(table) if state_critic(config) else table.game.num_actions if imitating(config) else 0
    return Featurizer(run_features(config), table).size + extra


def state_critic(config: dict) -> bool:
    """Whether the run's value function reads the state (``--critic state``)."""
    return config.get("critic") == "state"


def network_parameters(config: dict) -> int:
    """The parameters of the run's network (a model file may hold only so many: agents.players.modelfile)."""
    return parameter_count(policy_description(config), row_size(config), load_game(config["game"]).num_actions,
                           run_table(config))


def check_config(parser: TrainingParser, config: dict) -> None:
    """A new run's checks that need several options together, or that build the opponents."""
    try:
        config["pool"] = [list(parse_entry(text)) for text in config["pool"]]
        check_run(config)
    except (ValueError, OSError, ImportError) as exc:
        parser.error(str(exc))
    problem = network_problem(config["net"], network_parameters(config))
    if problem:
        parser.error(f"argument --net: {problem}")
    if config["init"] is not None:
        check_init(parser, config)


def check_run(config: dict) -> None:
    """What must go together in a run's configuration, new or resumed: ValueError (or the error of an opponent
    that cannot be built) saying what does not."""
    if run_features(config) not in feature_sets(config["game"]):
        raise ValueError(f"--features {config['features']!r}: {config['game']} models read one of "
                         f"{', '.join(feature_sets(config['game']))}")
    if config["trunk"] == "shared" and run_features(config) != "raw":
        raise ValueError(f"--trunk shared builds a net: model's layout, which reads the observation alone: use "
                         f"--features raw, not {run_features(config)}")
    if state_critic(config) and config["trunk"] != "shared":
        raise ValueError("--critic state gives a net: model's trunk a value network of its own: use --trunk shared "
                         "(or --init net:PATH, which sets it)")
    problem = heads_problem(config["heads"], config["game"])
    if problem:
        raise ValueError(f"heads {problem}")
    if imitating(config):
        if run_features(config) != "raw":
            raise ValueError(f"--imitation teaches a network that reads the observation alone: use --features raw "
                             f"(or --init net:PATH), not {run_features(config)}")
        if state_critic(config):
            raise ValueError("--imitation and --critic state both add entries to the learner's rows: give one")
        if teacher_features(config["game"]) is None:
            raise ValueError(f"--imitation: {config['game']} has no heuristic's choice to imitate")
    if config["heads"] and (config["trunk"] != "shared" or state_critic(config)):
        raise ValueError(f"a network with structured heads ({', '.join(config['heads'])}) trains on its own trunk "
                         "and value head: leave out --critic state")
    if (config["reward"] == PAIRED_MARGIN
            and Featurizer(run_features(config), run_table(config)).advice_slice is None):
        raise ValueError(f"--reward {PAIRED_MARGIN} compares the learner with the advice its features carry: "
                         f"use --features advice, not {run_features(config)}")
    for spec, _ in config["pool"]:
        make(spec, table=run_table(config))
    if not config["pool"] and config["self_play_weight"] == 0:
        raise ValueError("the pool is empty: give --pool SPEC... or a positive --self-play-weight")
    check_rollout(config)


def check_init(parser: TrainingParser, config: dict) -> None:
    """--init must name a readable model of the run's table and network (a ``net:`` one: of its table);
    recorded as an absolute path."""
    net = config["init"].startswith(NET_PREFIX)
    path = Path(config["init"][len(NET_PREFIX):] if net else config["init"]).resolve()
    try:
        meta = read_net(path)[0] if net else read_model(path).meta
    except (OSError, ValueError) as exc:  # missing, not a model, damaged, the old format
        parser.error(f"argument --init: {exc}")
    wanted = {"game": config["game"], "num_players": config["players"], "observation_mode": config["mode"],
              "features": run_features(config)}
    wanted["hidden" if net else "policy"] = config["net"] if net else policy_description(config)
    for key, value in wanted.items():
        if meta.get(key) != value:
            parser.error(f"argument --init: {str(path)!r} has {key}={meta.get(key)!r} where this run has "
                         f"{key}={value!r}; give a model of the same table and network (or change the run's "
                         "options to the model's)")
    config["init"] = NET_PREFIX + str(path) if net else str(path)


def check_rollout(config: dict) -> None:
    """A minibatch must fit in a rollout, and a rollout in memory: ValueError if not."""
    rollout = config["n_steps"] * config["envs"]
    if rollout > MAX_ROLLOUT:
        raise ValueError(f"the rollout --n-steps x --envs = {rollout:,} steps is more than the {MAX_ROLLOUT:,} "
                         "allowed; lower either")
    if config["batch_size"] > rollout:
        raise ValueError(f"--batch-size {config['batch_size']} exceeds the rollout size --n-steps x --envs = "
                         f"{rollout}; lower it or raise --n-steps")


class TrainingEnv(sobek_env.SingleAgentEnv):
    """The learner's environment against an :class:`OpponentPool`, whose snapshots the trainer
    adds through ``VecEnv.env_method("add_snapshot", path)``.

    ``reward`` is one of the environment's reward modes, or ``round-margin``: the ``margin``
    reward paid as it accrues: the change of the game's margin (own score - best other score, see
    ``Game.margins``) / its score scale whenever scores move. It sums to the margin but tells which
    part of the game earned it. ``capped-margin`` is paid the same way, but sums to the final margin
    squashed (:func:`agents.training.rewards.paid_lead`); ``outlook-margin`` pays the change of
    ``Game.outlook``, the margin were the game to end now (Kleopatra's crocodile counted at every step), and
    ``capped-outlook`` the change of that outlook squashed as the capped margin is.

    ``paired-margin`` (features with advice) pays, at the end, the capped margin less the one the advice
    would have reached on the same deal: at the learner's first departure from the advised action the game
    is copied and played on to its end with the advice in the learner's seat and the same opponents (copies,
    their random state with them), and the learner is paid the difference; nothing if it never departs.
    What the deal gives or takes cancels out, and what is left is what its departures changed: the paired
    comparison that lets a search tell a better action from a lucky one (``agents.search.ismcts``, paired mode).

    With ``critic_state`` (``--critic state``) each row goes on with what a state critic reads
    (:func:`agents.players.ppo.critic_state_size`): ``env.state()``, the full-information vector, and the learner's
    seat one-hot; a finished game's row has zeros there (its value is never asked). With ``imitation``
    (``--imitation``, raw features) it goes on with the heuristic's choice instead, one-hot
    (:class:`agents.training.kickstart.Teacher`).
    """

    def __init__(self, pool: OpponentPool, reward: str, features: str = "raw", critic_state: bool = False,
                 imitation: bool = False, **kwargs) -> None:
        by_lead = reward in LEAD_REWARDS
        self.paired = reward == PAIRED_MARGIN
        super().__init__(pool, num_players=pool.num_players, game=pool.game,
                         reward_mode="margin" if by_lead or self.paired else reward, **kwargs)
        self.pool = pool
        self.reward = reward
        self.by_lead = by_lead
        self._lead = 0.0
        self.featurize = Featurizer(features, self.table)
        if self.paired and self.featurize.advice_slice is None:
            raise ValueError(f"reward {PAIRED_MARGIN} compares the learner with its advice: use features that "
                             f"carry one (advice), not {features!r}")
        self.critic_state = critic_state
        self.teacher = Teacher(self.table) if imitation else None
        if self.teacher is not None and (features != "raw" or critic_state):
            raise ValueError("a learner taught by the heuristic's choices reads the raw observation, no state critic")
        width = self.teacher.size if self.teacher else \
            self.featurize.size + (critic_state_size(self.table) if critic_state else 0)
        if width != self.observation_space.shape[0]:
            self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, (width,), np.float32)
        self._observer = self.table.game.observer(self.num_players, self.table.observation_mode)
        self._vector: np.ndarray | None = None  # the features of the learner's decision now
        self.twin: float | None = None  # with paired-margin: the advice's capped margin on this deal, once departed

    def _features(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if self.teacher is not None:
            row = self.teacher.row({"observation": observation, "action_mask": mask})
            self._vector = row[:self.teacher.base]
            return row
        self._vector = self.featurize({"observation": observation, "action_mask": mask})
        if not self.critic_state:
            return self._vector
        return np.concatenate([self._vector, state_features(self.table, self.game, self.seat)])

    def advised(self, vector: np.ndarray) -> int:
        """The action the advice in the feature ``vector`` chooses."""
        start, stop = self.featurize.advice_slice
        return int(np.argmax(vector[start:stop]))

    def twin_lead(self, advised: int) -> float:
        """The learner's capped margin at the end of a copy of the game in which it plays ``advised`` now and
        then the advice, against copies of its opponents (the game itself is left as it is)."""
        game, state = self.table.game, self.game.clone()
        opponents = copy.deepcopy(self.opponents)
        mask = np.zeros(game.num_actions, dtype=np.int8)
        action = advised
        while True:
            state.apply(action)
            if state.is_over:
                break
            seat = state.current_player
            mask[:] = 0
            mask[state.legal_actions()] = 1
            observation = {"observation": self._observer.encode(state, seat).copy(), "action_mask": mask.copy()}
            if seat == self.seat:
                action = self.advised(self.featurize(observation))
                continue
            action = ask(opponents[(seat - self.seat) % self.num_players - 1], observation, state)
        return paid_lead(CAPPED_MARGIN, game.margins(state)[self.seat] / game.score_scale, True)

    def lead(self) -> float:
        """The learner's margin now (own score - best other score: Game.margins, or Game.outlook for
        outlook-margin and capped-outlook) / the game's score scale."""
        game = self.table.game
        return lead_margins(self.reward, game, self.game)[self.seat] / game.score_scale

    def add_snapshot(self, path: str) -> None:
        """Let the snapshot at ``path`` play (see :meth:`OpponentPool.add_snapshot`)."""
        self.pool.add_snapshot(path)

    def evaluation_games(self, model: str, config: dict, opponent: str,
                         games: list[int]) -> list[tuple[float, float]]:
        """:func:`play_evaluation_games` of the model file ``model`` (the trainer's evaluation, spread over its
        environments' processes). The environment's own game is left as it is."""
        learner = load_ppo(model, deterministic=True)
        return play_evaluation_games(learner, config, opponent, games)

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        observation, info = super().reset(seed=seed, options=options)
        self._lead = paid_lead(self.reward, self.lead(), False) if self.by_lead else 0.0
        self.twin = None
        mask = self.action_masks()
        return self._features(observation, mask), {**info, "action_mask": mask}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self.paired and self.twin is None and self._vector is not None and not self.game.is_over:
            chosen, advised = as_action(action, self.table.game.num_actions), self.advised(self._vector)
            mask = self.action_masks()
            if chosen != advised and 0 <= chosen < len(mask) and mask[chosen]:
                self.twin = self.twin_lead(advised)  # (an illegal action is refused below, changing nothing)
        observation, reward, terminated, truncated, info = super().step(action)
        if self.by_lead:
            lead = paid_lead(self.reward, self.lead(), terminated)
            reward, self._lead = lead - self._lead, lead
        elif self.paired:
            reward = 0.0
            if terminated and self.twin is not None:
                reward = paid_lead(CAPPED_MARGIN, self.lead(), True) - self.twin
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


class WorkerVecEnv(SubprocVecEnv):
    """sb3's ``SubprocVecEnv`` raising :class:`WorkerDied` instead of ``EOFError`` or ``BrokenPipeError``
    when a worker process has died, and closing without waiting for the dead."""

    @contextlib.contextmanager
    def _alive(self) -> Iterator[None]:
        try:
            yield
        except BROKEN_PIPE:
            raise WorkerDied(self._dead()) from None

    def _dead(self) -> str:
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline and all(p.exitcode is None for p in self.processes):
            time.sleep(0.05)  # the pipe breaks a moment before the process is reaped
        dead = [(i, p) for i, p in enumerate(self.processes) if p.exitcode is not None]
        self._kill_all()
        if not dead:
            return "an environment worker closed its connection"
        return "; ".join(f"environment worker {i} (process {p.pid}) {how_it_ended(p.exitcode)}" for i, p in dead)

    def _kill_all(self) -> None:
        for process in self.processes:
            if process.exitcode is None:
                process.kill()
        for process in self.processes:
            process.join(5)
        self.closed = True

    def step_async(self, actions: Any) -> None:
        with self._alive():
            super().step_async(actions)

    def step_wait(self) -> Any:
        with self._alive():
            return super().step_wait()

    def reset(self) -> Any:
        with self._alive():
            return super().reset()

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        with self._alive():
            return super().env_method(method_name, *args, indices=indices, **kwargs)

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        with self._alive():
            return super().get_attr(attr_name, indices)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        with self._alive():
            super().set_attr(attr_name, value, indices)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        with self._alive():
            return super().env_is_wrapped(wrapper_class, indices)

    def close(self) -> None:
        if self.closed:
            return
        try:
            super().close()
        except (*BROKEN_PIPE, OSError):
            self._kill_all()


def env_factory(config: dict, snapshots: Sequence[str]) -> Callable[[], Monitor]:
    """A function building one Python training environment (:class:`TrainingEnv` against its pool, in a Monitor)."""

    def build() -> Monitor:
        pool = OpponentPool([tuple(e) for e in config["pool"]], config["players"], config["mode"],
                            config["self_play_weight"], config["snapshots"], snapshots, game=config["game"])
        return Monitor(TrainingEnv(pool, config["reward"], run_features(config), state_critic(config),
                                   imitating(config), observation_mode=config["mode"]))

    return build


def games_factory(config: dict, snapshots: Sequence[str]) -> Callable[[int], VecEnv]:
    """A function building a ``VecEnv`` of that many of the run's games: natively stepped
    (:class:`agents.training.batched.NativeTrainingEnv`) where the game's native parts were built and the reward
    allows, else :class:`TrainingEnv` one by one."""
    native = native_possible(config)

    def build(games: int) -> VecEnv:
        if native:
            return NativeTrainingEnv(config, games, snapshots)
        return MasksFromInfo(DummyVecEnv([env_factory(config, snapshots) for _ in range(games)]))

    return build


def masks_of(env: VecEnv) -> np.ndarray:
    """The learner's masks of every game of ``env``, one row a game."""
    return np.stack(env.env_method("action_masks"))


def serve_games(remote: Any, parent_remote: Any, trainer: int, build: Any, games: int) -> None:
    """A worker process: builds its share of the games (``build.var(games)``) and answers the trainer's
    commands (reset, step, add_snapshot, evaluate, close) until told to close; it ends with the trainer."""
    parent_remote.close()
    die_with_parent(trainer)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # sent to the whole run: the trainer stops, then closes us
    env = build.var(games)
    try:
        while True:
            command, data = remote.recv()
            if command == "step":
                env.step_async(data)
                remote.send((*env.step_wait(), masks_of(env)))
            elif command == "reset":
                if data is not None:
                    env.seed(data)
                remote.send((env.reset(), masks_of(env)))
            elif command == "add_snapshot":
                env.env_method("add_snapshot", data)
                remote.send(None)
            elif command == "evaluate":
                remote.send(env.env_method("evaluation_games", *data, indices=[0])[0])
            elif command == "spaces":
                remote.send((env.observation_space, env.action_space))
            elif command == "close":
                env.close()
                remote.close()
                return
            else:
                raise ValueError(f"unknown command {command!r} for an environment worker")
    except (KeyboardInterrupt, EOFError, BrokenPipeError):
        return


class GameWorkers(SharedGamesVecEnv, WorkerVecEnv):
    """The run's games shared among worker processes (one per core at most), each stepping its share in one
    call (natively where it can: :func:`games_factory`); as a ``VecEnv`` of all the games. A worker that dies
    raises :class:`WorkerDied` as :class:`WorkerVecEnv` does."""

    what = "the environment workers"

    def __init__(self, build: Callable[[int], VecEnv], num_envs: int, workers: int, start_method: str | None) -> None:
        shares = [len(range(w, num_envs, workers)) for w in range(workers)]
        self.slices = np.cumsum([0, *shares])
        context = multiprocessing.get_context(start_method)
        self.waiting, self.closed = False, False
        self.remotes, work_remotes = zip(*[context.Pipe() for _ in range(workers)])
        self.processes = []
        wrapped = CloudpickleWrapper(build)
        for remote, work_remote, games in zip(self.remotes, work_remotes, shares):
            process = context.Process(target=serve_games, args=(work_remote, remote, os.getpid(), wrapped, games),
                                      daemon=True)
            process.start()
            self.processes.append(process)
            work_remote.close()
        self._seed: int | None = None
        self.masks = np.zeros((num_envs, 0), bool)
        with self._alive():
            self.remotes[0].send(("spaces", None))
            observation_space, action_space = self.remotes[0].recv()
        VecEnv.__init__(self, num_envs, observation_space, action_space)

    def reset(self) -> np.ndarray:
        with self._alive():
            for w, remote in enumerate(self.remotes):
                remote.send(("reset", None if self._seed is None else self._seed + int(self.slices[w])))
            answers = [remote.recv() for remote in self.remotes]
        self._seed = None
        self.masks = np.concatenate([masks for _, masks in answers])
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return np.concatenate([obs for obs, _ in answers])

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions)
        with self._alive():
            for w, remote in enumerate(self.remotes):
                remote.send(("step", actions[self.slices[w]:self.slices[w + 1]]))
        self.waiting = True

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        with self._alive():
            answers = [remote.recv() for remote in self.remotes]
        self.waiting = False
        observations, rewards, dones, infos, masks = zip(*answers)
        self.masks = np.concatenate(masks)
        return (np.concatenate(observations), np.concatenate(rewards), np.concatenate(dones),
                [info for share in infos for info in share])

    def seed(self, seed: int | None = None) -> list[int | None]:
        self._seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    def spread(self, items: Sequence[Any], *args: Any) -> list[Any]:
        """The evaluation games ``items`` shared among the workers, played at once; results in their order."""
        k = len(self.remotes)
        with self._alive():
            for w, remote in enumerate(self.remotes):
                remote.send(("evaluate", (*args, list(items[w::k]))))
            answers = [remote.recv() for remote in self.remotes]
        results: list[Any] = [None] * len(items)
        for w, answer in enumerate(answers):
            results[w::k] = answer
        return results

    def action_masks(self) -> np.ndarray:
        return self.masks

    def shared_method(self, method_name: str, indices: VecEnvIndices, *args: Any, **kwargs: Any) -> list[Any]:
        if method_name == "add_snapshot" and indices is None and not kwargs:
            with self._alive():
                for remote in self.remotes:
                    remote.send(("add_snapshot", *args))
                for remote in self.remotes:
                    remote.recv()
            return [None] * self.num_envs
        return super().shared_method(method_name, indices, *args, **kwargs)

    def shared_attribute(self, attr_name: str) -> Any:
        raise AttributeError(f"the environment workers do not share the attribute {attr_name!r}")


def make_vec_env(config: dict, snapshots: Sequence[str]) -> VecEnv:
    """``config["envs"]`` games: in worker processes (one per core at most, each stepping its share of the games
    in one call) when more than one, else in this process."""
    build = games_factory(config, snapshots)
    if config["envs"] == 1:
        return build(1)
    # fork starts a worker in 0.1 s where forkserver takes 1.5 s (it imports torch again in each);
    # the trainer makes its environments before torch computes anything, so forking is safe
    fork = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return GameWorkers(build, config["envs"], min(config["envs"], os.cpu_count() or 1), fork)


def model_meta(config: dict, timesteps: int) -> dict:
    """What ``sobek.json`` records about a model of this run."""
    return {"game": config["game"], "num_players": config["players"], "observation_mode": config["mode"],
            "reward_mode": config["reward"], "features": run_features(config), "timesteps": timesteps}


def policy_description(config: dict) -> dict:
    """The run's network as ``sobek.json`` describes it (see :func:`agents.players.ppo.describe_policy`)."""
    featurize = Featurizer(run_features(config), run_table(config))
    cls = "TrunkPolicy" if config["trunk"] == "shared" else "MaskableActorCriticPolicy"
    if config["heads"]:
        cls = "HeadsPolicy"
    description = {"class": cls, "net_arch": {"pi": config["net"], "vf": config["net"]},
                   "activation": "ReLU", "features_extractor": "Log1pFeatures",
                   "features_extractor_kwargs": {"squashed": featurize.base}}
    if config["heads"]:
        description["heads"] = list(config["heads"])
    if imitating(config):  # the teacher's choice follows the observation in a row: the network does not read it
        description["features_extractor_kwargs"]["reads"] = featurize.size
    if state_critic(config):  # the state's entries are counts and places too: squashed as the observation's
        description.update({"class": "StateCriticPolicy", "actor_size": featurize.size,
                            "features_extractor_kwargs": {"squashed": row_size(config)}})
    if featurize.advice_slice is not None:  # features that carry an advised action: start from the advice
        description.update({"class": "AdvisedPolicy", "advice_start": featurize.advice_slice[0],
                            "advice_prior": config["advice_prior"]})
    return description


def new_model(config: dict, env: VecEnv, seed: int) -> MaskablePPO:
    """An untrained MaskablePPO with the run's network and hyper-parameters."""
    description = policy_description(config)
    policy, policy_kwargs = policy_spec(description, run_table(config))
    algorithm, imitation = MaskablePPO, {}
    if imitating(config):
        algorithm = ImitatingPPO
        imitation = {"imitation": config["imitation"], "imitation_decay": config["imitation_decay"],
                     "reads": description["features_extractor_kwargs"]["reads"]}
    return algorithm(
        policy, env, learning_rate=config["lr"], n_steps=config["n_steps"], batch_size=config["batch_size"],
        n_epochs=config["epochs"], gamma=config["gamma"], gae_lambda=config["gae_lambda"],
        clip_range=config["clip"], ent_coef=config["ent_coef"], policy_kwargs=policy_kwargs,
        seed=seed, device="cpu", verbose=0, **imitation)


def summarize_evaluation(results: Sequence[tuple[float, float]]) -> tuple[float, float, float, float]:
    """(win rate, its 95% low, high, mean margin) of :func:`play_evaluation_games`' results."""
    wins = sum(share for share, _ in results)
    low, high = wilson_interval(wins, len(results))
    return wins / len(results), low, high, float(np.mean([margin for _, margin in results]))


def spread(venv: VecEnv, method: str, items: Sequence[Any], *args: Any) -> list[Any]:
    """Call ``method(*args, share)`` of every environment of ``venv`` at once, each with its share of
    ``items`` (dealt round the table), where ``method`` returns one result per item; the results in the
    order of ``items``. Worker processes work in parallel; environments in this process, one after another."""
    if isinstance(venv, GameWorkers):
        return venv.spread(items, *args)
    k = venv.num_envs
    shares = [list(items[i::k]) for i in range(k)]
    if isinstance(venv, WorkerVecEnv):
        with venv._alive():
            for remote, share in zip(venv.remotes, shares):
                remote.send(("env_method", (method, (*args, share), {})))
            answers = [remote.recv() for remote in venv.remotes]
    else:
        answers = [venv.env_method(method, *args, share, indices=[i])[0] for i, share in enumerate(shares)]
    results: list[Any] = [None] * len(items)
    for i, answer in enumerate(answers):
        results[i::k] = answer
    return results


def critic_only(policy: MaskableActorCriticPolicy, only: bool) -> None:
    """Let only the value function's layers learn (``only``), or every layer (but a state critic's policy's kept
    value head, which no loss reaches)."""
    for name, parameter in policy.named_parameters():
        if not name.startswith(("value_net.", "mlp_extractor.value_net.", "mlp_extractor.critic.", "public_value.")):
            parameter.requires_grad_(not only)


class Diverged(RunError):
    """The training diverged: the policy's weights are no longer finite numbers."""


def next_multiple(steps: int, every: int) -> int:
    """The first multiple of ``every`` after ``steps``."""
    return (steps // every + 1) * every


class Trainer(BaseCallback):
    """Progress bar, and at rollout boundaries (where the model matches its step count):
    snapshots for self-play, evaluations and checkpoints, on their schedules.

    Ctrl-C or SIGTERM stops the training at the next step with a checkpoint of the last rollout
    boundary (the partial rollout, not yet learned from, is dropped); ``interrupted`` tells it
    happened and ``signal`` which signal it was.
    """

    def __init__(self, run: Run, config: dict, snapshots: list[str], cpu_spent: float = 0.0) -> None:
        super().__init__()
        self.cpu_spent = cpu_spent  # CPU seconds before this start (the checkpoint's, or the --init network's)
        self.cpu_start = cpu_seconds()
        self.run = run
        self.config = config
        self.pool_snapshots = snapshots
        self.bar: tqdm | None = None
        self.interrupted = False
        self.signal = signal.SIGINT
        self.rollout_start: int | None = None
        self.default_handlers: dict[int, object] = {}

    def _interrupt(self, signum: int, frame: object) -> None:
        if not self.interrupted:
            tqdm.write(f"stopping ({signal.Signals(signum).name}): saving a checkpoint at the last rollout boundary")
            self.signal = signum
        self.interrupted = True

    def _on_training_start(self) -> None:
        self.default_handlers = {s: signal.signal(s, self._interrupt) for s in STOP_SIGNALS}
        steps = self.rollout_start = self.model.num_timesteps
        self.next_snapshot = next_multiple(steps, self.config["snapshot_every"])
        self.next_eval = next_multiple(steps, self.config["eval_every"])
        self.next_checkpoint = next_multiple(steps, self.config["checkpoint_every"])
        self.bar = tqdm(total=self.config["timesteps"], initial=steps, unit="step", dynamic_ncols=True,
                        smoothing=0.05, desc=f"{self.config['players']}p")

    def _on_step(self) -> bool:
        self.bar.update(min(self.training_env.num_envs, self.bar.total - self.bar.n))  # the last rollout may overshoot
        return not self.interrupted

    def _on_rollout_end(self) -> None:
        torch.set_num_threads(self.config["update_threads"])  # the update: the game workers wait meanwhile

    def _on_rollout_start(self) -> None:
        torch.set_num_threads(1)  # the rollout's forward passes, beside the game workers
        steps = self.model.num_timesteps
        self.check_finite(steps)
        self.rollout_start = steps
        critic_only(self.model.policy, steps < self.config["critic_warmup"])  # for the update after this rollout
        if self.interrupted:  # during the last update: stop at the first step, without evaluating
            return
        if self.config["self_play_weight"] > 0 and steps >= self.next_snapshot:
            self.add_snapshot()
            self.next_snapshot = next_multiple(steps, self.config["snapshot_every"])
        if steps >= self.next_eval:
            self.evaluate()
            self.next_eval = next_multiple(steps, self.config["eval_every"])
        if steps >= self.next_checkpoint:
            self.save_checkpoint()
            self.next_checkpoint = next_multiple(steps, self.config["checkpoint_every"])

    def _on_training_end(self) -> None:
        """The final evaluation and checkpoint, unless the last rollout boundary just made them."""
        torch.set_num_threads(1)
        self.restore_signals()
        if self.interrupted:
            self.save_at_boundary()
            return
        steps = self.model.num_timesteps
        if self.next_eval - self.config["eval_every"] < steps:
            self.evaluate()
        if self.next_checkpoint - self.config["checkpoint_every"] < steps:
            self.save_checkpoint()
        self.bar.close()

    def check_finite(self, steps: int) -> None:
        """Stop the run (:class:`Diverged`) if the last update left a NaN or an infinity in the policy: before it
        plays (NaN logits draw illegal actions) or is saved (no model file may hold such weights)."""
        bad = non_finite(self.model.policy.state_dict())
        if bad is not None:
            if self.bar is not None:
                self.bar.close()
            raise Diverged(f"the training diverged: after the update at {steps:,} steps the policy's tensor {bad!r} "
                           "holds NaN or infinite values, so the run stops here (its checkpoints hold the weights from "
                           f"before); resuming would diverge again: start a new run with a smaller --lr (this one's is "
                           f"{self.config['lr']:g}) in another --out")

    def restore_signals(self) -> None:
        """Give Ctrl-C and SIGTERM back to the handlers from before the training."""
        for signum, handler in self.default_handlers.items():
            signal.signal(signum, handler)
        self.default_handlers = {}

    def save_at_boundary(self) -> None:
        """Checkpoint the model as it was at the last rollout boundary (it has not learned from the steps
        since), if the training got that far."""
        if self.rollout_start is not None:
            self.model.num_timesteps = self.rollout_start  # the count the weights have learned from
            self.save_checkpoint()
        if self.bar is not None:
            self.bar.close()

    def cpu_hours(self) -> float:
        """The CPU hours the run has spent: its trainer's and its workers', from every start (and, started from a
        network of expert iteration, that network's own)."""
        return (self.cpu_spent + cpu_seconds() - self.cpu_start) / 3600

    def save_checkpoint(self) -> None:
        """A checkpoint of the model at its step count."""
        self.run.save_checkpoint(self.model, model_meta(self.config, self.model.num_timesteps), self.pool_snapshots,
                                 self.cpu_hours() * 3600)

    def add_snapshot(self) -> None:
        """Freeze the learner and send the snapshot to every environment's pool."""
        path = self.run.save_snapshot(self.model, model_meta(self.config, self.model.num_timesteps))
        self.training_env.env_method("add_snapshot", path)
        self.pool_snapshots = [*self.pool_snapshots, path][-self.config["snapshots"]:]

    def evaluate(self) -> None:
        """Play the baselines, then log to TensorBoard, eval.csv and above the progress bar."""
        steps, start = self.model.num_timesteps, time.perf_counter()
        row: dict = {"timesteps": steps}
        venv = self.training_env.venv if isinstance(self.training_env, VecEnvWrapper) else self.training_env
        games = list(range(self.config["eval_games"]))
        with tempfile.TemporaryDirectory(prefix="sobek-eval-") as folder:
            model = Path(folder) / "model.zip"  # the workers read the learner from here
            save_ppo(self.model, model, model_meta(self.config, steps), with_optimizer=False)
            results = {baseline: spread(venv, "evaluation_games", games, str(model), self.config, baseline)
                       for baseline in EVAL_BASELINES}
            if self.config["keep_evaluated"]:
                self.run.keep_evaluated(steps, model)
                if self.config["trunk"] == "shared":
                    save_shared_trunk(self.model.policy.state_dict(), self.run.evaluated_net(steps), self.config,
                                      self.cpu_hours())
        for baseline in EVAL_BASELINES:
            rate, low, high, margin = summarize_evaluation(results[baseline])
            row.update({f"{baseline}_win_rate": rate, f"{baseline}_low": low, f"{baseline}_high": high,
                        f"{baseline}_margin": margin})
            for key in ("win_rate", "low", "high", "margin"):
                self.logger.record(f"eval/{baseline}_{key}", row[f"{baseline}_{key}"])
        self.logger.dump(step=steps)
        row["games"], row["seconds"] = self.config["eval_games"], round(time.perf_counter() - start, 1)
        row["cpu_hours"] = round(self.cpu_hours(), 4)
        self.run.log_eval(row)
        summary = ", ".join(f"{b} {row[f'{b}_win_rate']:.3f} [{row[f'{b}_low']:.3f}, {row[f'{b}_high']:.3f}]"
                            for b in EVAL_BASELINES)
        tqdm.write(f"eval at {steps:,} steps, win rate vs {summary} ({row['games']} games each, {row['seconds']} s)")
        self.bar.set_postfix_str(summary)


def train(config: dict, out: Path, resume: bool) -> Path:
    """Run (or continue) the training in ``out``; return the final model's path."""
    torch.set_num_threads(1)  # small batches: extra threads cost more in contention than they gain
    run = Run(out)
    checkpoint = run.last_checkpoint(config["players"], config["mode"]) if resume else None
    if checkpoint and checkpoint.model.meta["policy"] != policy_description(config):
        raise RunError(f"{str(checkpoint.path)!r} holds another network than the run's config.json describes "
                       f"({checkpoint.model.meta['policy']}, not {policy_description(config)}); "
                       "it is not this run's checkpoint")
    done = checkpoint.timesteps if checkpoint else 0
    path = out / "model.zip"
    if done >= config["timesteps"]:
        print(f"the run in {str(out)!r} is complete ({done:,} of {config['timesteps']:,} steps); "
              "give a larger --timesteps to extend it")
        meta = {key: value for key, value in checkpoint.model.meta.items() if key != "training"}
        write_model(path, meta, checkpoint.model.policy)
        policy, hours = checkpoint.model.policy, checkpoint.cpu_seconds / 3600
    else:
        model, hours = learn(run, config, checkpoint)
        save_ppo(model, path, model_meta(config, model.num_timesteps), with_optimizer=False)
        policy = model.policy.state_dict()
    print(f"model saved to {path}; play it as ppo:{path}")
    if config["trunk"] == "shared":
        net = out / "net.zip"
        save_shared_trunk(policy, net, config, hours)
        print(f"its network saved to {net}; play it as net:{net}")
    return path


def save_shared_trunk(policy: dict[str, torch.Tensor], path: Path, config: dict, cpu_hours: float) -> None:
    """Write a :class:`agents.players.ppo.TrunkPolicy`'s tensors as a ``net:`` model, its record naming the run and
    the CPU hours the network has cost so far (``training.cpu_hours``, which a run from it counts, as it counts
    those of expert iteration's networks)."""
    training = {"algo": "ppo", **config, "cpu_hours": round(cpu_hours, 4)}
    meta = net_meta(run_table(config), config["net"], training=training, heads=config["heads"])
    net = new_policy_value_net(meta)
    net.load_state_dict(net_from_policy(policy, state_critic(config), bool(config["heads"])))
    save_net(net, path, meta)


def restore(model: MaskablePPO, config: dict, checkpoint: Checkpoint) -> None:
    """Load the checkpoint's tensors, optimizer state and counters into ``model``, built from ``config``."""
    where = checkpoint.path / "model.zip"
    load_state(model.policy, checkpoint.model.policy, where)
    load_state(model.policy.optimizer, checkpoint.model.optimizer, where, "optimizer")
    model.num_timesteps = checkpoint.model.meta["training"]["num_timesteps"]
    model._n_updates = checkpoint.model.meta["training"]["n_updates"]


def learn(run: Run, config: dict, checkpoint: Checkpoint | None) -> tuple[MaskablePPO, float]:
    """Train from ``checkpoint`` (or from scratch) to ``config["timesteps"]``, recording this start in config.json;
    the model and the CPU hours the run has spent (with those of an ``--init`` network)."""
    done = checkpoint.timesteps if checkpoint else 0
    snapshots = list(checkpoint.snapshots) if checkpoint else []
    seed = config["seed"] if done == 0 else int(np.random.SeedSequence([config["seed"], done]).generate_state(1)[0])
    config.setdefault("starts", []).append({"timesteps": done, "seed": seed, "envs": config["envs"], "time": now()})
    config["versions"] = {"python": platform.python_version(), "torch": torch.__version__,
                          "stable_baselines3": stable_baselines3.__version__, "sb3_contrib": sb3_contrib.__version__,
                          "numpy": np.__version__}
    env = make_vec_env(config, snapshots)
    try:
        model = new_model(config, env, seed)
        spent = 0.0  # CPU seconds already in the starting weights (a checkpoint's are its own)
        if checkpoint:
            restore(model, config, checkpoint)
            model.set_random_seed(seed)
            print(f"resuming from {checkpoint.path} at {done:,} steps")
        elif config["init"]:
            net = config["init"].startswith(NET_PREFIX)
            where = config["init"][len(NET_PREFIX):] if net else config["init"]
            try:  # checked when the run began; a run resumed before its first checkpoint reads it again
                if net:  # a state critic is not in the network: it starts fresh
                    meta, tensors, _ = read_net(where)
                    init = {**model.policy.state_dict(), **policy_from_net(tensors, state_critic(config),
                                                                                  bool(config["heads"]))}
                    spent = net_cpu_seconds(meta)
                else:
                    init = read_model(where).policy
            except (OSError, ValueError) as exc:
                raise RunError(f"the run starts from --init {config['init']!r}, which cannot be read now ({exc}); "
                               "put the model back, or start a new run in another --out") from None
            load_state(model.policy, init, where)
            print(f"starting from the weights of {config['init']}")
        # only now, the model built: a new run that could not start leaves no config.json to refuse its retry
        run.write_config(config)
        dropped = run.drop_evaluations_after(done)
        if dropped:
            print(f"eval.csv: removed {dropped} evaluation(s) after {done:,} steps, from the continuation that was "
                  "lost; this run makes them again")
        model.set_logger(configure(str(run.out / "tb"), ["tensorboard"]))
        if config["self_play_weight"] > 0 and not snapshots:  # before the first reset: the pool may be only self-play
            snapshots = [run.save_snapshot(model, model_meta(config, model.num_timesteps))]
            env.env_method("add_snapshot", snapshots[0])
        trainer = Trainer(run, config, snapshots, checkpoint.cpu_seconds if checkpoint else spent)
        try:
            model.learn(config["timesteps"] - done, callback=trainer, reset_num_timesteps=False)
        except WorkerDied:
            trainer.save_at_boundary()
            raise
        finally:
            trainer.restore_signals()
    finally:
        env.close()
    if trainer.interrupted:
        raise Interrupted(trainer.signal)
    return model, trainer.cpu_hours()


def resume_hint(out: Path) -> str:
    """How to continue the run in ``out``, and from where."""
    if not (out / "config.json").is_file():  # stopped before its model was built: nothing to resume
        return "the run had not started (nothing was written); the same command starts it"
    done = Run(out).checkpoint_dirs()
    where = f"the checkpoint at {int(done[-1].name.removeprefix('step_')):,} steps" if done else "the start"
    return f"sobek-env train --out {out} --resume continues from {where}"


BACKENDS = ("sb3", "rllib")
ALGOS = ("ppo", "exit")
RLLIB_HASH_SEED = "0"  # train.py --backend rllib runs with this PYTHONHASHSEED (see main)


def split_backend(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The ``--backend`` of a train.py command line (default sb3) and the rest of it."""
    parser = TrainingParser(prog="sobek-env train", add_help=False)
    parser.add_argument("--backend", choices=BACKENDS, default="sb3")
    known, rest = parser.parse_known_args(argv)
    return known.backend, rest


def split_algo(argv: Sequence[str]) -> tuple[str, list[str]]:
    """The ``--algo`` of a train.py command line (default ppo) and the rest of it."""
    parser = TrainingParser(prog="train.py", add_help=False)
    parser.add_argument("--algo", choices=ALGOS, default="ppo")
    known, rest = parser.parse_known_args(argv)
    return known.algo, rest


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring). Ctrl-C or SIGTERM exits with status 130 or 143 after a
    checkpoint; a dead environment worker, with status 1 after a checkpoint. ``--backend rllib`` trains with
    RLlib instead (:mod:`agents.training.rllib_train`), ``--algo exit`` by expert iteration
    (:mod:`agents.training.exit`)."""
    command_line = argv is None
    algo, argv = split_algo(sys.argv[1:] if argv is None else list(argv))
    if algo == "exit":
        from agents.training.exit import main as expert_iteration

        expert_iteration(argv)
        return
    backend, argv = split_backend(argv)
    if backend == "rllib":
        if command_line and os.environ.get("PYTHONHASHSEED") != RLLIB_HASH_SEED:
            # RLlib iterates sets of agent and module ids, whose order follows Python's string hashing, random per
            # process: with it fixed, the same --seed trains the same weights (measured: two outcomes otherwise)
            os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]],
                      {**os.environ, "PYTHONHASHSEED": RLLIB_HASH_SEED})
        from agents.training.rllib_train import main as train_with_rllib

        train_with_rllib(argv)
        return
    config, out, resume, lock = configure_run(argv)
    with ending_a_run("sobek-env train", out, lock, resume_hint):
        try:
            train(config, out, resume)
        except WorkerDied as exc:
            print(f"sobek-env train: error: {exc}; {resume_hint(out)}", file=sys.stderr)
            sys.exit(1)
        except OSError as exc:
            if exc.errno != errno.ENOSPC:
                raise
            # files are written aside: the last checkpoint is whole
            where = f": {exc.filename!r}" if exc.filename else ""
            print(f"sobek-env train: error: {exc.strerror}{where}; free some space: {resume_hint(out)}",
                  file=sys.stderr)
            sys.exit(1)


if __name__ == "__main__":
    main()
