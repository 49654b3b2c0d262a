"""Expert iteration: the search labels decisions, a policy-value network learns them, then guides the search.

    python train.py --algo exit --game sobek --players 2 --out runs/exit-2p
    python train.py --algo exit --game kleopatra --players 3 --out runs/exit-k3 --iterations 20 --workers 2
    python train.py --algo exit --out runs/exit-2p --resume

Each iteration (Anthony, Tian and Barber 2017), after an optional warm start (``--warm-start N``: the network
first learns N of the heuristic's decisions, played in the native training batch; iteration 0,
:mod:`agents.training.warmstart`; with ``--warm-rounds R``, R-1 more rounds of N decisions each follow in which
the network plays the learner's seat and the heuristic labels the states it reaches, DAgger, the network training
on all rounds' examples after each; with ``--warm-chunk C``, streamed: the N decisions are played C at a time,
each chunk of fresh games learnt and dropped, its agreement before training a held-out figure), or from a
network (``--init net:PATH``: its weights, layers and heads, evaluated as iteration 0):

1. **Labels.** ``--games`` games are played on ``--workers`` processes. In game g the learner's seat (g mod
   players) is played by the expert, ``--expert`` (default ``ismcts``: the game's search setting); every other
   seat by an opponent drawn from ``--opponents`` (``self``: the expert again, labelled too). Each decision of an
   expert seat with a choice becomes an example: the seat's observation, its legal actions, a policy target and
   value targets. Where the search ran, the policy target is ``softmax(means / --temperature)`` of its mean reward
   per root action (``last_means``; ``--target visits``: its visit counts; ``--target played``: the action it
   played, which in paired mode is its guide's choice unless another beat it significantly); where it did not
   (before the setting's ``late`` share of the game it plays its guide's choice), the heuristic's choice is the
   target (``--early heuristic``) or there is none (``--early skip``). The value targets are the seat's outcome
   (the final margin squashed as the search squashes its rewards, ``tanh(margin / (squash * score_scale))``) and
   the search's mean for the action it played; ``--value`` picks one or their average. The examples go to
   ``data/iter_NNNN.npz`` (float16 observations and targets).
2. **Training.** The network (:mod:`agents.players.net`: an MLP over the raw observation with a masked policy head
   and a value head) is trained on the last ``--window`` iterations' examples, and with ``--warm-share F`` a
   seeded sample of the warm start's making F of the whole (so the search's few labels correct the heuristic's
   many instead of replacing them): ``--epochs`` passes at ``--lr`` (the warm start at ``--warm-lr``) in
   minibatches, cross-entropy against the policy targets plus ``--value-weight`` times the value's squared error,
   Adam (its state carried over iterations), seeded; ``--phase-weights`` weighs the cross-entropy of chosen
   phases' decisions (read from the observation's phase), the warm start's included. Before it trains, its
   figures on the new iteration's examples (which it has not seen) are logged: how often its choice is the
   target's best, and both losses.
3. **Evaluation.** The network alone plays ``--eval-games`` games against heuristics in every other seat, and
   the heuristic plays the same deals in its seats (seats rotating, the same seeds each iteration): its share of
   the wins, the heuristic's, the paired difference with its 95% interval (:func:`agents.analysis.paired.compare`)
   and its share against random, to stdout, TensorBoard (``tb/``) and ``eval.csv``.
4. **Guidance.** The next iteration's expert is the search guided by the latest network (``ismcts:net=PATH``):
   its choice is the hint the search keeps unless the rollouts beat it, and is played unsearched before the
   setting's ``late`` share of the game. With ``--guide auto`` (the default) that happens once the network
   has beaten the heuristic on the evaluation's deals (a paired difference above 0), so a weak network never
   plays the learner's early game; ``always`` guides from the second iteration, ``never`` keeps the setting's
   own guide.

The run directory ``--out`` holds ``config.json`` (the configuration, each start and the CPU hours so far),
``data/``, ``nets/iter_NNNN.zip`` (each iteration's network), ``checkpoints/`` (the last two iterations' network
with the optimizer's state), ``eval.csv``, ``tb/`` and ``model.zip`` (the latest network: ``net:DIR/model.zip``).
``--resume`` continues from the last checkpoint (an iteration whose games were all played reuses its data
file); only ``--iterations`` and ``--workers`` may change. A second run in the same directory is refused (a
lock). Ctrl-C or SIGTERM stops the run, keeping the last whole iteration (exit status 130 or 143). The same
seed gives the same data and networks whatever the number of workers.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import multiprocessing
import os
import platform
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

import sobek_env
from agents.analysis.paired import compare
from agents.common.arguments import (
    EVAL_SEED,
    LEARNING_RATES,
    SEEDS,
    Bounds,
    TrainingParser,
    layer_sizes,
)
from agents.common.files import DirectoryLock, read_json, write_atomic
from agents.common.workers import cpu_seconds, die_with_parent
from agents.players.heads import heads_parameters, heads_problem
from agents.players.modelfile import NET_FILE, check_trained_for
from agents.players.net import (
    PolicyValueNet,
    load_weights,
    masked_argmax,
    masked_log_softmax,
    net_cpu_seconds,
    net_meta,
    net_problem,
    new_net,
    read_net,
    save_net,
)
from agents.players.registry import make, with_option
from agents.search.ismcts import REWARD_POINTS_SHARE
from agents.tournaments.tournament import agent_seed, play_tournament, turns, wilson_interval
from agents.training.rundir import Run, RunError, ending_a_run, lock_run, now, run_options
from agents.training.warmstart import Player, heuristic_examples, net_player
from sobek_env.env import ask
from sobek_env.game import Game, Table
from sobek_env.registry import GAMES, load_game

WARM_EXPERT = "heuristic (warm start)"  # iteration 0's labeller, in eval.csv
SELF = "self"  # an opponent that is the expert itself, its decisions labelled too
TARGETS = ("means", "visits", "played")
EARLY = ("heuristic", "skip")
VALUES = ("outcome", "search", "both")
GUIDANCE = ("auto", "always", "never")  # when the network guides the expert
KEEP_CHECKPOINTS = 2
MEASURED_AT_ONCE = 65_536  # examples a forward pass of measure()
RESUMABLE = ("iterations", "workers")  # what --resume may change: a longer run, another machine

DEFAULTS: dict[str, Any] = {
    "game": "sobek", "players": None, "mode": "original", "seed": None, "iterations": 10, "games": 64,
    "workers": 1, "expert": "ismcts", "opponents": ["heuristic", SELF], "guide": "auto",
    "target": "means", "temperature": 0.05, "early": "heuristic", "value": "outcome", "window": 3,
    "epochs": 4, "lr": 1e-3, "batch_size": 256, "value_weight": 1.0, "net": [256, 256],
    "eval_games": 120, "eval_seed": EVAL_SEED, "warm_start": 0, "warm_epochs": 3, "warm_lr": None,
    "warm_rounds": 1,
    "warm_share": 0.0, "warm_chunk": 0, "warm_lr_end": None, "warm_dagger": 0.0, "phase_weights": {}, "heads": [],
    "init": None,
}
# a run made before these fields had them so
WARM_DEFAULTS = {key: DEFAULTS[key] for key in ("warm_start", "warm_epochs", "warm_lr", "warm_share",
                                                  "warm_rounds", "warm_chunk", "warm_lr_end", "warm_dagger",
                                                  "phase_weights", "heads", "init")}
RANGES: dict[str, Bounds] = {
    "seed": SEEDS, "iterations": Bounds(int, 0, 10**6), "games": Bounds(int, 1, 10**7), "workers": Bounds(int, 1, 256),
    "temperature": Bounds(float, 0, 100, above=True), "window": Bounds(int, 1, 1000), "epochs": Bounds(int, 1, 1000),
    "lr": LEARNING_RATES, "batch_size": Bounds(int, 1, 2**20), "value_weight": Bounds(float, 0, 100),
    "eval_games": Bounds(int, 0, 10**6), "eval_seed": SEEDS, "warm_start": Bounds(int, 0, 10**8),
    "warm_epochs": Bounds(int, 1, 1000), "warm_rounds": Bounds(int, 1, 100),
    "warm_share": Bounds(float, 0, 0.99), "warm_lr": LEARNING_RATES, "warm_chunk": Bounds(int, 0, 10**8),
    "warm_lr_end": LEARNING_RATES, "warm_dagger": Bounds(float, 0, 1),
}
PHASE_WEIGHT = Bounds(float, 0, 100)  # of a phase's decisions in the policy loss (--phase-weights)
# fields whose null means "as another option" (--warm-lr: as --lr; --warm-lr-end: as --warm-lr, no decay)
UNSET = ("warm_lr", "warm_lr_end")
NET_PREFIX = "net:"  # --init net:PATH
INIT_EXPERT = "the --init network"  # iteration 0's row in eval.csv when the run starts from a network
CHOICES: dict[str, tuple[str, ...]] = {"game": GAMES, "mode": ("original", "memory"), "target": TARGETS,
                                       "early": EARLY, "value": VALUES, "guide": GUIDANCE}


# ---------------------------------------------------------------- the command line and the configuration


def build_parser() -> TrainingParser:
    """The command line; its options have no defaults (DEFAULTS fills them in), so --resume can tell which were
    given."""
    parser = TrainingParser(prog="train.py --algo exit", description=__doc__.split("\n\n")[0],
                            epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter,
                            argument_default=argparse.SUPPRESS)
    d = DEFAULTS
    parser.add_argument("--game", choices=GAMES, help=f"the game (default {d['game']})")
    parser.add_argument("--players", type=int, help="players per game (required for a new run)")
    parser.add_argument("--mode", choices=CHOICES["mode"], help=f"observation mode (default {d['mode']})")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="run directory")
    parser.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint")
    parser.add_argument("--seed", type=RANGES["seed"], metavar="N", help="seed of everything (default: drawn, "
                                                                         "then recorded)")
    parser.add_argument("--iterations", type=RANGES["iterations"], metavar="N",
                        help=f"iterations in all (default {d['iterations']}; 0 with --warm-start: the warm start "
                             "alone, a network of the heuristic's play for a PPO phase, train.py --init net:PATH)")
    parser.add_argument("--games", type=RANGES["games"], metavar="N",
                        help=f"games labelled per iteration (default {d['games']})")
    parser.add_argument("--workers", type=RANGES["workers"], metavar="N",
                        help=f"processes playing the games (default {d['workers']})")
    parser.add_argument("--expert", metavar="SPEC", help=f"the search that labels (default {d['expert']}: the "
                                                         "game's setting)")
    parser.add_argument("--opponents", nargs="+", metavar="SPEC",
                        help=f"drawn for each other seat ({SELF}: the expert, labelled too; default "
                             f"{' '.join(d['opponents'])})")
    parser.add_argument("--guide", choices=GUIDANCE,
                        help="when the network guides the expert: once it has beaten the heuristic in an evaluation "
                             f"(auto), from the second iteration (always), or never (default {d['guide']})")
    parser.add_argument("--target", choices=TARGETS, help="policy target: softmax of the search's mean rewards, or "
                                                          f"its visit counts (default {d['target']})")
    parser.add_argument("--temperature", type=RANGES["temperature"], metavar="T",
                        help=f"of --target means, in reward units (default {d['temperature']})")
    parser.add_argument("--early", choices=EARLY, help="decisions the search did not search: the heuristic's choice "
                                                       f"as the target, or none (default {d['early']})")
    parser.add_argument("--value", choices=VALUES, help="value target: the outcome, the search's mean for the "
                                                        f"action played, or their average (default {d['value']})")
    parser.add_argument("--window", type=RANGES["window"], metavar="N",
                        help=f"iterations whose examples the network trains on (default {d['window']})")
    parser.add_argument("--epochs", type=RANGES["epochs"], help=f"passes over them (default {d['epochs']})")
    parser.add_argument("--lr", type=RANGES["lr"], help=f"Adam's learning rate (default {d['lr']})")
    parser.add_argument("--batch-size", type=RANGES["batch_size"], help=f"minibatch size (default {d['batch_size']})")
    parser.add_argument("--value-weight", type=RANGES["value_weight"], metavar="W",
                        help=f"of the value's squared error in the loss (default {d['value_weight']})")
    parser.add_argument("--net", type=layer_sizes, help=f"hidden layers (default {','.join(map(str, d['net']))})")
    parser.add_argument("--heads", type=head_list, metavar="HEAD,...",
                        help="structured policy heads beside the MLP (agents/players/heads.py; Kleopatra: hands, "
                             "board): actions scored alike from the observation's slices, such as each market "
                             "stall by the hand it makes (default: none)")
    parser.add_argument("--warm-start", type=RANGES["warm_start"], metavar="N",
                        help="first teach the network N of the heuristic's decisions, played in the native training "
                             f"batch (iteration 0; default {d['warm_start']}: none)")
    parser.add_argument("--warm-epochs", type=RANGES["warm_epochs"], metavar="N",
                        help=f"passes over the warm start's decisions (default {d['warm_epochs']})")
    parser.add_argument("--warm-rounds", type=RANGES["warm_rounds"], metavar="R",
                        help="rounds of the warm start: the first played by the heuristic, each other by the network "
                             "so far, the heuristic labelling the states it reaches (DAgger); --warm-start decisions "
                             f"each, the network training on all of them after each round (default {d['warm_rounds']})")
    parser.add_argument("--warm-lr", type=RANGES["warm_lr"], metavar="LR",
                        help="Adam's learning rate in the warm start (default: --lr); --lr then applies to the "
                             "search's iterations")
    parser.add_argument("--warm-share", type=RANGES["warm_share"], metavar="F",
                        help="share of each later iteration's training examples drawn from the warm start's (a "
                             f"seeded sample beside the --window; default {d['warm_share']}: none)")
    parser.add_argument("--warm-chunk", type=RANGES["warm_chunk"], metavar="C",
                        help="play and learn the warm start's decisions C at a time, each chunk fresh games learnt "
                             "--warm-epochs times, then dropped: millions more decisions than memory holds, none "
                             "kept on disk (default 0: all at once, kept as data/iter_0000.npz)")
    parser.add_argument("--warm-lr-end", type=RANGES["warm_lr_end"], metavar="LR",
                        help="with --warm-chunk: the learning rate falls from --warm-lr at the first chunk to LR at "
                             "the last, by the same factor from chunk to chunk (default: it stays --warm-lr)")
    parser.add_argument("--warm-dagger", type=RANGES["warm_dagger"], metavar="P",
                        help="with --warm-chunk: from the second chunk on, the network so far makes a share P of the "
                             "learner's decisions and the heuristic the rest, the heuristic labelling them all "
                             "(DAgger, streamed): the network learns the states its own play leads to "
                             f"(default {d['warm_dagger']}: the heuristic plays them all)")
    parser.add_argument("--phase-weights", type=phase_weights, metavar="PHASE=W,...",
                        help="weigh the policy loss of the decisions of these phases (the game's phase_names, e.g. "
                             "mosaic_square=8,turn=2 in Kleopatra) by W, every other phase's by 1: the rare or hard "
                             "decisions that cost the most games get more of the network (default: all 1)")
    parser.add_argument("--init", metavar="net:PATH",
                        help="start from this network (a net: file for the run's table) instead of a new one: its "
                             "layers and heads are the run's, iteration 0 is its evaluation, and its recorded CPU "
                             "hours start the run's; not with --warm-start (default: a new network)")
    parser.add_argument("--eval-games", type=RANGES["eval_games"], metavar="N",
                        help=f"evaluation games per iteration (0: none; default {d['eval_games']})")
    return parser


def phase_weights(text: str) -> dict[str, float]:
    """argparse type: ``PHASE=W`` pairs, comma-separated (the phases are checked against the game later)."""
    weights: dict[str, float] = {}
    for part in text.split(","):
        name, equals, weight = part.partition("=")
        name = name.strip()
        if not equals or not name:
            raise argparse.ArgumentTypeError(f"expected PHASE=W pairs such as turn=2,mosaic_square=8, got {part!r}")
        if name in weights:
            raise argparse.ArgumentTypeError(f"phase {name!r} is given twice")
        try:
            weights[name] = PHASE_WEIGHT(weight)
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentTypeError(f"the weight of {name} {exc}") from None
    return weights


def head_list(text: str) -> list[str]:
    """argparse type: comma-separated head names (checked against the game later)."""
    return [name.strip() for name in text.split(",")]


def check_phase_weights(weights: Any, game: Game) -> None:
    """ValueError unless ``weights`` maps some of ``game``'s phase names to weights from 0 to 100."""
    if not isinstance(weights, dict):
        raise ValueError(f"phase_weights must be an object of phase names and weights, got {weights!r}")
    for name, weight in weights.items():
        if name not in game.phase_names:
            raise ValueError(f"--phase-weights: {game.title} has no phase {name!r}; its phases are "
                             f"{', '.join(game.phase_names)}")
        try:
            PHASE_WEIGHT.check(weight)
        except ValueError as exc:
            raise ValueError(f"--phase-weights: the weight of {name} {exc}") from None


def example_weights(data: Examples, config: dict) -> np.ndarray:
    """Each example's weight in the policy loss: 0 where it has no policy target, else its phase's weight
    (``--phase-weights``; 1 for a phase not named)."""
    weights = data.weights.astype(np.float32)
    if config["phase_weights"]:
        game = load_game(config["game"])
        table = np.array([config["phase_weights"].get(name, 1.0) for name in game.phase_names], dtype=np.float32)
        weights *= table[game.observation_phases(data.observations, config["players"])]
    return weights


def run_table(config: dict) -> Table:
    """The table the run trains for."""
    return load_game(config["game"]).table(config["players"], config["mode"])


def run_net_meta(config: dict) -> dict[str, Any]:
    """The record of the run's network: its table, layers and heads, and the run's configuration."""
    training = {key: value for key, value in config.items() if key != "starts"}
    return net_meta(run_table(config), config["net"], training, config["heads"])


def init_path(config: dict) -> Path | None:
    """The network file the run starts from (``--init net:PATH``), or None."""
    return None if config["init"] is None else Path(config["init"][len(NET_PREFIX):])


def check_init(config: dict) -> None:
    """ValueError unless ``--init`` is absent or of the form net:PATH, without a warm start."""
    init = config["init"]
    if init is None:
        return
    if not isinstance(init, str) or not init.startswith(NET_PREFIX) or len(init) == len(NET_PREFIX):
        raise ValueError(f"--init takes net:PATH, a network file (sobek-env train --algo exit writes them), got "
                         f"{init!r}")
    if config["warm_start"]:
        raise ValueError("--init starts from a network and --warm-start teaches a new one: give one of them")


def init_network(config: dict, given: dict) -> dict[str, Any] | None:
    """The record of a new run's ``--init`` network (None without one), after making its path absolute and setting
    the run's ``--net`` and ``--heads`` from it where they were not given; ValueError if the file cannot be read,
    was made for another table, or has other layers or heads than those given."""
    if config["init"] is None:
        return None
    check_init(config)
    path = init_path(config).resolve()  # recorded so, as train.py's --init: a resume may run from elsewhere
    meta = read_net(path)[0]
    check_trained_for(meta, path, NET_FILE, run_table(config))
    config["init"] = NET_PREFIX + str(path)
    for key, field in (("net", "hidden"), ("heads", "heads")):
        if key not in given:
            config[key] = list(meta.get(field, []))
        elif config[key] != meta.get(field, []):
            raise ValueError(f"--init {config['init']} is a network with --{key} "
                             f"{','.join(map(str, meta.get(field, []))) or 'none'}; leave --{key} out or give that")
    return meta


def check_config(config: dict) -> None:
    """ValueError naming the first field of ``config`` (new, or read back from config.json) that no run may have."""
    for key in DEFAULTS:
        if key not in config:
            raise ValueError(f"its field {key!r} is missing")
    for key, choices in CHOICES.items():
        if config[key] not in choices:
            raise ValueError(f"{key} must be one of {', '.join(choices)}, got {config[key]!r}")
    for key, bounds in RANGES.items():
        if key in UNSET and config[key] is None:
            continue
        try:
            bounds.check(config[key])
        except ValueError as exc:
            raise ValueError(f"{key} {exc}") from None
    check_init(config)
    if config["iterations"] == 0 and not config["warm_start"]:
        raise ValueError("--iterations 0 trains the warm start alone: give --warm-start N too, or iterations above 0")
    if config["warm_chunk"] and (not config["warm_start"] or config["warm_rounds"] > 1 or config["warm_share"]):
        raise ValueError("--warm-chunk streams the heuristic's own games through the warm start, which it then drops: "
                         "it needs --warm-start N, and no --warm-rounds or --warm-share (which keep them)")
    if config["warm_lr_end"] is not None and not config["warm_chunk"]:
        raise ValueError("--warm-lr-end lowers the learning rate from chunk to chunk: it needs --warm-chunk C")
    if config["warm_dagger"] and not config["warm_chunk"]:
        raise ValueError("--warm-dagger lets the network play in the chunks of a streamed warm start: it needs "
                         "--warm-chunk C (--warm-rounds is DAgger for a warm start kept whole)")
    game = load_game(config["game"])
    check_phase_weights(config["phase_weights"], game)
    if isinstance(config["players"], bool) or config["players"] not in game.player_counts:
        raise ValueError(f"{game.title} is for {game.min_players} to {game.max_players} players, "
                         f"got {config['players']!r}")
    table = run_table(config)
    problem = heads_problem(config["heads"], config["game"])
    if problem:
        raise ValueError(f"--heads {problem}")
    problem = net_problem(config["net"], game.observation_size(table.num_players), game.num_actions,
                          heads_parameters(config["game"], config["heads"], config["players"], config["net"]))
    if problem:
        raise ValueError(f"--net {problem}")
    expert = make(config["expert"], table=table)
    if not getattr(expert, "wants_state", False) or not hasattr(expert, "last_means"):
        raise ValueError(f"--expert {config['expert']!r} is not a search: give ismcts[:options], whose decisions "
                         "record what it searched")
    if config["guide"] != "never" and expert.net:
        raise ValueError(f"--expert {config['expert']!r} names a network, but the run guides its expert with its "
                         "own: drop net=, or give --guide never")
    opponents = config["opponents"]
    if not isinstance(opponents, list) or not opponents or not all(isinstance(s, str) for s in opponents):
        raise ValueError(f"opponents must be a list of agent specs, got {opponents!r}")
    for spec in opponents:
        if spec != SELF:
            make(spec, table=table)


def configure(argv: Sequence[str] | None) -> tuple[dict, Path, bool, DirectoryLock]:
    """The run's configuration, its directory, whether it resumes, and the lock held on the directory; exits
    with status 2 and one line on a bad configuration or a directory in use."""
    parser = build_parser()
    given, out, resume = run_options(parser, argv, RESUMABLE)
    if resume:
        lock = lock_run(parser, out)
        try:
            config = Run(out).read_config()
            if config.get("algo") != "exit":
                raise ValueError("it is not a run of train.py --algo exit")
            for key, value in WARM_DEFAULTS.items():
                config.setdefault(key, value)
            config.update(given)
            check_config(config)
        except (OSError, ValueError) as exc:
            lock.release()
            parser.error(f"{str(out / 'config.json')!r} cannot be resumed: {exc}")
        return config, out, True, lock
    if "players" not in given:
        parser.error("--players is required for a new run")
    config = {"algo": "exit", **DEFAULTS, **given}
    if config["seed"] is None:
        config["seed"] = int(np.random.SeedSequence().entropy % 2**32)
    try:
        init_network(config, given)
        check_config(config)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    lock = lock_run(parser, out, new=True)
    config["command"] = "python train.py --algo exit " + shlex.join(list(argv) if argv is not None else sys.argv[1:])
    return config, out, False, lock


# ---------------------------------------------------------------- labelling games


@dataclass
class Examples:
    """Labelled decisions: observations, legal masks, policy targets (rows summing to 1 where ``weights`` is 1),
    the outcome and the search's value for the deciding seat (NaN where it did not search), the game index."""

    observations: np.ndarray  # float16 [n, size]
    masks: np.ndarray         # bool [n, actions]
    targets: np.ndarray       # float16 [n, actions]
    weights: np.ndarray       # uint8 [n]: 1 where the policy target counts
    outcomes: np.ndarray      # float32 [n]
    searched: np.ndarray      # float32 [n]
    games: np.ndarray         # int32 [n]

    def __len__(self) -> int:
        return len(self.weights)

    @classmethod
    def join(cls, parts: Sequence[Examples]) -> Examples:
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in cls.__dataclass_fields__))

    def save(self, path: Path) -> None:
        """Write the examples to ``path`` (npz, written aside then renamed)."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, **{f: getattr(self, f) for f in self.__dataclass_fields__})
        write_atomic(path, buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> Examples:
        """The examples in ``path``; ValueError if it is not such a file."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls(*(data[f] for f in cls.__dataclass_fields__))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{str(path)!r} is not a data file of this run ({exc})") from None

    def take(self, rows: np.ndarray) -> Examples:
        """The examples at ``rows``."""
        return Examples(*(getattr(self, f)[rows] for f in self.__dataclass_fields__))

    def value_targets(self, value: str) -> np.ndarray:
        """The value target of each example (``--value``), the outcome where the search did not run."""
        if value == "outcome":
            return self.outcomes
        searched = np.where(np.isnan(self.searched), self.outcomes, self.searched)
        return searched if value == "search" else (self.outcomes + searched) / 2


def soft_target(means: dict[int, float], size: int, temperature: float) -> np.ndarray:
    """``softmax(means / temperature)`` over the searched actions, as a distribution over ``size`` actions."""
    actions = np.fromiter(means, dtype=np.int64, count=len(means))
    scaled = np.fromiter(means.values(), dtype=np.float64, count=len(means)) / temperature
    weights = np.exp(scaled - scaled.max())
    out = np.zeros(size, dtype=np.float32)
    out[actions] = weights / weights.sum()
    return out


def game_seed(config: dict, iteration: int, game: int) -> int:
    """The deal of game ``game`` of iteration ``iteration``."""
    return int(np.random.SeedSequence([config["seed"], iteration, game]).generate_state(1)[0] % 2**31)


class Labeller:
    """Plays labelling games in one process, its environment and agents made once (each spec once per seat)."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.table = run_table(config)
        self.env = sobek_env.env(game=self.table.game, num_players=self.table.num_players,
                                 observation_mode=self.table.observation_mode)
        self.agents: dict[tuple[str, int], Any] = {}
        self.heuristic = make("heuristic", table=self.table) if config["early"] == "heuristic" else None

    def agent(self, spec: str, seat: int) -> Any:
        key = (spec, seat)
        if key not in self.agents:
            self.agents[key] = make(spec, table=self.table)
        return self.agents[key]

    def play(self, iteration: int, game: int, expert: str) -> Examples:
        """Game ``game`` of ``iteration``, the learner's seat played by ``expert``: its labelled decisions."""
        config, table = self.config, self.table
        n, size = table.num_players, table.game.num_actions
        observation_size = table.game.observation_size(n)
        seed = game_seed(config, iteration, game)
        rng = np.random.default_rng(seed)
        specs = [expert if seat == game % n else config["opponents"][rng.integers(len(config["opponents"]))]
                 for seat in range(n)]
        specs = [expert if spec == SELF else spec for spec in specs]
        players = []
        for seat, spec in enumerate(specs):
            agent = self.agent(spec, seat)
            if hasattr(agent, "seed"):
                agent.seed(agent_seed(seed, seat))
            players.append(agent)
        if self.heuristic is not None and hasattr(self.heuristic, "seed"):
            self.heuristic.seed(seed)
        env = self.env
        env.reset(seed=seed)
        state = env.unwrapped.game
        rows: list[tuple] = []
        for seat, observation in turns(env):
            agent = players[seat]
            action = ask(agent, observation, state)
            if specs[seat] == expert and observation["action_mask"].sum() > 1:
                rows.append((seat, *self.label(agent, observation, action)))
            env.step(action)
        scale = getattr(players[game % n], "squash", REWARD_POINTS_SHARE) * table.game.score_scale
        outcome = [math.tanh(m / scale) for m in table.game.margins(state)]
        count = len(rows)
        return Examples(
            np.array([r[1] for r in rows], dtype=np.float16).reshape(count, observation_size),
            np.array([r[2] for r in rows], dtype=bool).reshape(count, size),
            np.array([r[3] for r in rows], dtype=np.float16).reshape(count, size),
            np.array([r[4] for r in rows], dtype=np.uint8),
            np.array([outcome[r[0]] for r in rows], dtype=np.float32),
            np.array([r[5] for r in rows], dtype=np.float32),
            np.full(count, game, dtype=np.int32))

    def label(self, agent: Any, observation: dict, action: int) -> tuple:
        """(observation, mask, policy target, its weight, the search's value) of one expert decision."""
        size = self.table.game.num_actions
        means, visits = agent.last_means, agent.last_visits
        target, weight, value = np.zeros(size, dtype=np.float32), 1, math.nan
        if (means or visits) and self.config["target"] == "played":
            target[action] = 1.0
        elif means and self.config["target"] == "means":
            target = soft_target(means, size, self.config["temperature"])
        elif visits:
            total = sum(visits.values())
            for a, v in visits.items():
                target[a] = v / total
        elif self.heuristic is not None:
            target[self.heuristic.act(observation)] = 1.0
        else:
            weight = 0
        if means and action in means:
            value = means[action]
        return (np.array(observation["observation"]), np.asarray(observation["action_mask"], dtype=bool), target,
                weight, value)


_LABELLER: Labeller | None = None


def _start_worker(parent: int, config: dict) -> None:
    global _LABELLER
    die_with_parent(parent)  # Ctrl-C is the trainer's to handle; SIGTERM ends a worker (Pool.terminate sends it)
    torch.set_num_threads(1)
    _LABELLER = Labeller(config)


def _label_in_worker(task: tuple[int, int, str]) -> tuple[int, Examples]:
    return task[1], _LABELLER.play(*task)


def label_games(config: dict, iteration: int, expert: str, progress: bool = True) -> Examples:
    """Play the iteration's ``config["games"]`` games on ``config["workers"]`` processes; their examples in
    game order (the same whatever the number of workers)."""
    tasks = [(iteration, game, expert) for game in range(config["games"])]
    bar = tqdm(total=len(tasks), unit="game", dynamic_ncols=True, disable=not progress,
               desc=f"iteration {iteration}/{config['iterations']}")
    parts: dict[int, Examples] = {}
    try:
        if config["workers"] == 1:
            labeller = Labeller(config)
            for task in tasks:
                parts[task[1]] = labeller.play(*task)
                bar.update()
        else:
            # fork: the parent has set torch to one thread, so no thread pool is copied mid-work
            context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods()
                                                  else None)
            pool = context.Pool(min(config["workers"], len(tasks)), _start_worker, (os.getpid(), config))
            try:
                for game, examples in pool.imap_unordered(_label_in_worker, tasks):
                    parts[game] = examples
                    bar.update()
                pool.close()
            except BaseException:
                pool.terminate()
                raise
            finally:
                pool.join()  # its CPU time counts in the run's from here (RUSAGE_CHILDREN)
    finally:
        bar.close()
    return Examples.join([parts[i] for i in range(len(tasks))])


# ---------------------------------------------------------------- training


def train_net(net: PolicyValueNet, optimizer: torch.optim.Optimizer, data: Examples, config: dict,
              iteration: int, epochs: int | None = None, lr: float | None = None, part: int = 0) -> dict[str, float]:
    """``epochs`` (default ``config["epochs"]``) passes of Adam at ``lr`` (default ``config["lr"]``) over
    ``data`` in minibatches, seeded by the iteration (and the chunk ``part`` of a streamed warm start); the last
    pass's mean losses."""
    for group in optimizer.param_groups:  # a checkpoint's optimizer state carries the rate it was saved with
        group["lr"] = config["lr"] if lr is None else lr
    generator = np.random.default_rng([config["seed"], iteration, 1, *([part] if part else [])])
    torch.manual_seed(int(generator.integers(2**31)))
    # kept in float16 and widened a minibatch at a time: a window of a long run holds millions of observations
    observations, targets = torch.as_tensor(data.observations), torch.as_tensor(data.targets)
    masks = torch.as_tensor(data.masks)
    weights = torch.as_tensor(example_weights(data, config))
    values = torch.as_tensor(data.value_targets(config["value"]).astype(np.float32))
    net.train()
    figures: dict[str, float] = {}
    for _ in range(config["epochs"] if epochs is None else epochs):
        order = generator.permutation(len(data))
        sums = np.zeros(3)
        for at in range(0, len(order), config["batch_size"]):
            rows = torch.as_tensor(order[at:at + config["batch_size"]])
            policy_loss, value_loss = losses(net, observations[rows].float(), masks[rows], targets[rows].float(),
                                             weights[rows], values[rows])
            loss = policy_loss + config["value_weight"] * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            sums += (policy_loss.item() * len(rows), value_loss.item() * len(rows), len(rows))
        figures = {"policy_loss": sums[0] / sums[2], "value_loss": sums[1] / sums[2]}
    net.eval()
    return figures


def chunk_lr(config: dict, number: int) -> float:
    """The learning rate of a streamed warm start's chunk ``number`` (from 0): ``--warm-lr`` (or ``--lr``), falling
    geometrically to ``--warm-lr-end`` at the last chunk when that is given."""
    start = config["lr"] if config["warm_lr"] is None else config["warm_lr"]
    chunks = -(-config["warm_start"] // config["warm_chunk"])
    if config["warm_lr_end"] is None or chunks == 1:
        return start
    return start * (config["warm_lr_end"] / start) ** (number / (chunks - 1))


def losses(net: PolicyValueNet, observations: torch.Tensor, masks: torch.Tensor, targets: torch.Tensor,
           weights: torch.Tensor, values: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(the cross-entropy against the policy targets, over the rows that have one; the value's squared error)."""
    logits, predicted = net(observations)
    cross_entropy = -(targets * masked_log_softmax(logits, masks)).sum(dim=1)
    policy_loss = (weights * cross_entropy).sum() / weights.sum().clamp(min=1)
    return policy_loss, torch.mean((predicted - values) ** 2)


def measure(net: PolicyValueNet, data: Examples, value: str) -> dict[str, float]:
    """The network's figures on examples it has not trained on: both losses, and how often its choice is the
    target's most likely action (over the examples with a policy target); in slices, a warm start's millions
    of examples included."""
    sums = np.zeros(4)  # policy loss x weight, value loss x rows, agreements x weight, weights
    values = data.value_targets(value)
    with torch.no_grad():
        for at in range(0, len(data), MEASURED_AT_ONCE):
            rows = slice(at, at + MEASURED_AT_ONCE)
            observations = torch.as_tensor(data.observations[rows].astype(np.float32))
            masks = torch.as_tensor(data.masks[rows])
            targets = torch.as_tensor(data.targets[rows].astype(np.float32))
            weights = torch.as_tensor(data.weights[rows].astype(np.float32))
            policy_loss, value_loss = losses(net, observations, masks, targets, weights,
                                             torch.as_tensor(values[rows].astype(np.float32)))
            logits, _ = net(observations)
            chosen = masked_argmax(logits, masks)
            agree = (chosen == targets.argmax(dim=1)).float()
            counted = float(weights.sum())
            sums += (float(policy_loss) * max(counted, 1), float(value_loss) * len(weights),
                     float((agree * weights).sum()), counted)
    rows_total = max(len(data), 1)
    return {"fresh_policy_loss": sums[0] / max(sums[3], 1), "fresh_value_loss": sums[1] / rows_total,
            "fresh_agreement": sums[2] / sums[3] if sums[3] else math.nan}


# ---------------------------------------------------------------- evaluation


def evaluate(config: dict, path: Path) -> dict[str, float]:
    """The network at ``path`` alone against heuristics, paired with the heuristic in its seats on the same deals,
    and against random: its shares of the wins, intervals and the paired difference."""
    n, games = config["players"], config["eval_games"]
    games -= games % n  # seats rotate: a multiple of the players
    if games <= 0:
        return {}
    common = {"game": config["game"], "seed": config["eval_seed"], "observation_mode": config["mode"],
              "workers": config["workers"]}
    learner = f"net:{path}"
    rows: dict[str, float] = {"eval_games": games}
    tested = play_tournament([learner, *["heuristic"] * (n - 1)], games, **common)
    baseline = play_tournament(["heuristic"] * n, games, **common)
    paired = compare({r.index: r for r in tested}, {r.index: r for r in baseline}, 0)
    rows.update(heuristic_share=paired.share, heuristic_low=paired.low, heuristic_high=paired.high,
                heuristic_baseline=paired.baseline_share, paired_difference=paired.difference,
                paired_margin=paired.margin)
    against_random = play_tournament([learner, *["random"] * (n - 1)], games, **common)
    wins = sum(1 / len(r.winners) for r in against_random if r.seat_of(0) in r.winners)
    low, high = wilson_interval(wins, games)
    rows.update(random_share=wins / games, random_low=low, random_high=high)
    return rows


# ---------------------------------------------------------------- the run


class ExitRun(Run):
    """The run directory (see the module docstring): :class:`~agents.training.rundir.Run`'s config.json and
    eval.csv, with iterations' data files, networks and checkpoints."""

    def data(self, iteration: int) -> Path:
        return self.out / "data" / f"iter_{iteration:04d}.npz"

    def net(self, iteration: int) -> Path:
        return self.out / "nets" / f"iter_{iteration:04d}.zip"

    def iteration_dirs(self) -> list[Path]:
        return sorted(p for p in self.checkpoints.glob("iter_*[0-9]") if p.is_dir())

    def save_iteration(self, iteration: int, net: PolicyValueNet, optimizer: torch.optim.Optimizer, meta: dict,
                       state: dict) -> None:
        """The iteration's network (nets/) and checkpoint (network, optimizer, counters), each written aside and
        renamed; the checkpoints but the last two are removed."""
        self.net(iteration).parent.mkdir(parents=True, exist_ok=True)
        save_net(net, self.net(iteration), meta)
        self.checkpoints.mkdir(parents=True, exist_ok=True)
        final = self.checkpoints / f"iter_{iteration:04d}"
        aside = Path(tempfile.mkdtemp(dir=self.checkpoints, prefix=f".{final.name}."))
        save_net(net, aside / "model.zip", meta, optimizer.state_dict())
        write_atomic(aside / "state.json", json.dumps({**state, "saved": now()}, indent=1) + "\n")
        aside.chmod(0o755)
        shutil.rmtree(final, ignore_errors=True)
        aside.rename(final)
        for old in self.iteration_dirs()[:-KEEP_CHECKPOINTS]:
            shutil.rmtree(old)

    def last_iteration(self, net: PolicyValueNet, optimizer: torch.optim.Optimizer) -> dict | None:
        """Load the newest checkpoint that reads back whole into ``net`` and ``optimizer``; its state (None if
        there is none), warning about each newer one that does not read."""
        problems = []
        for path in reversed(self.iteration_dirs()):
            try:
                state = read_json(path / "state.json")
                if not isinstance(state, dict) or not isinstance(state.get("iteration"), int):
                    raise ValueError("its state.json does not give the iteration")
                _, tensors, optimizer_state = read_net(path / "model.zip", with_optimizer=True)
                if optimizer_state is None:
                    raise ValueError("its model.zip holds no optimizer state")
                load_weights(net, tensors, path / "model.zip")
                load_weights(optimizer, optimizer_state, path / "model.zip", "optimizer")
            except (OSError, ValueError) as exc:
                problems.append(f"{path.name}: {exc}")
                print(f"warning: the checkpoint {str(path)!r} cannot be used ({exc}); trying the one before",
                      file=sys.stderr)
                continue
            return state
        if problems:
            raise RunError(f"no usable checkpoint in {str(self.checkpoints)!r} ({'; '.join(problems)}); "
                           "start a new run in another --out")
        return None

    def drop_evaluations_after(self, iteration: int) -> int:
        columns, rows = self.read_evaluations()
        kept = [r for r in rows if not r.get("iteration", "").isdigit() or int(r["iteration"]) <= iteration]
        if len(kept) < len(rows):
            self.write_evaluations(columns, kept)
        return len(rows) - len(kept)


def guided_by_net(config: dict, run: ExitRun, iteration: int) -> bool:
    """Whether the expert of ``iteration`` is guided by the previous iteration's network (``--guide``)."""
    if config["guide"] == "never" or (iteration == 1 and not run.net(0).is_file()):  # no network yet
        return False
    if config["guide"] == "always":
        return True
    _, rows = run.read_evaluations()
    last = [row for row in rows if row.get("iteration") == str(iteration - 1)]
    try:
        return bool(last) and float(last[-1]["paired_difference"]) > 0
    except (KeyError, ValueError):  # not evaluated (--eval-games 0): no evidence that it beats the heuristic
        return False


def training_data(run: ExitRun, config: dict, iteration: int, warm: WarmExamples) -> Examples:
    """What ``iteration`` trains on: the examples of the last ``--window`` iterations up to it, and with
    ``--warm-share F`` a seeded sample of the warm start's examples making F of the whole."""
    first = max(1, iteration - config["window"] + 1)
    window = Examples.join([Examples.load(run.data(i)) for i in range(first, iteration + 1)])
    share = config["warm_share"]
    if not share or not config["warm_start"]:
        return window
    pool = warm.get(run)
    wanted = min(len(pool), round(len(window) * share / (1 - share)))
    rows = np.sort(np.random.default_rng([config["seed"], iteration, 3]).choice(len(pool), wanted, replace=False))
    return Examples.join([window, pool.take(rows)])


class WarmExamples:
    """The warm start's examples (iteration 0's data file), read once for all the iterations that sample it, and
    played again from the run's seed where the file is missing (the same examples: a run directory may be kept
    without its largest file)."""

    def __init__(self, config: dict) -> None:
        self.config = config
        self.examples: Examples | None = None

    def play(self, decisions: int, keys: Sequence[int], player: Player | None = None,
             share: float = 1.0) -> Examples:
        """``decisions`` of the heuristic's (with ``player``, in the states it reaches making ``share`` of the
        learner's decisions), dealt from the run's seed and ``keys`` (which part of the warm start they are)."""
        config = self.config
        seed = int(np.random.default_rng([config["seed"], 0, 2, *keys]).integers(2**62))
        return Examples(**heuristic_examples(config["game"], config["players"], config["mode"], decisions, seed,
                                             player=player, share=share))

    def get(self, run: ExitRun) -> Examples:
        if self.examples is None:
            if run.data(0).is_file():
                self.examples = Examples.load(run.data(0))
            else:
                self.examples = self.play(self.config["warm_start"], ())
                run.data(0).parent.mkdir(parents=True, exist_ok=True)
                self.examples.save(run.data(0))
        return self.examples

    def chunks(self, net: PolicyValueNet | None = None) -> Iterator[Examples]:
        """A streamed warm start (``--warm-chunk C``): ``--warm-start`` decisions as chunks of at least C
        decisions of whole games, each dealt from the run's seed and the chunk's number, none kept. With
        ``--warm-dagger P`` and ``net``, the network as it is when a chunk is played makes P of the learner's
        decisions in every chunk after the first."""
        size, total, share = self.config["warm_chunk"], self.config["warm_start"], self.config["warm_dagger"]
        player = net_player(net) if share and net is not None else None
        for number, start in enumerate(range(0, total, size)):
            yield self.play(min(size, total - start), (0, number), player if number else None, share)

    def round(self, run: ExitRun, net: PolicyValueNet, number: int) -> Examples:
        """Round ``number`` (2 onwards) of a DAgger warm start: the heuristic's choices in the states ``net``
        reaches playing the learner's seat, kept as ``data/iter_0000_round_N.npz`` (read back if there, as the
        same network plays the same games)."""
        path = run.data(0).with_name(f"iter_0000_round_{number}.npz")
        if path.is_file():
            return Examples.load(path)
        examples = self.play(self.config["warm_start"], (number,), net_player(net))
        examples.save(path)
        return examples


def train(config: dict, out: Path, resume: bool, progress: bool = True) -> Path:
    """Run (or continue) expert iteration in ``out``; the final network's path."""
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(1)  # small batches; and the labelling workers are forked from this process
    run = ExitRun(out)
    torch.manual_seed(int(np.random.default_rng([config["seed"], 0]).integers(2**31)))
    net = new_net(run_net_meta(config))
    optimizer = torch.optim.Adam(net.parameters(), lr=config["lr"])
    state = run.last_iteration(net, optimizer) if resume else None
    done = state["iteration"] if state else 0
    spent = float(state.get("cpu_seconds", 0.0)) if state else 0.0
    if state is None and config["init"] is not None:  # a new run from a network: its weights and its cost
        meta, tensors, _ = read_net(init_path(config))
        load_weights(net, tensors, init_path(config))
        spent = net_cpu_seconds(meta)
    decisions = int(state.get("decisions", 0)) if state else 0
    config.setdefault("starts", []).append({"iteration": done, "workers": config["workers"], "time": now()})
    config["versions"] = {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__}
    run.write_config(config)
    if run.drop_evaluations_after(done):
        print(f"eval.csv: removed the evaluations after iteration {done}, which this run makes again")
    if state:
        print(f"resuming after iteration {done} ({decisions:,} decisions labelled, "
              f"{spent / 3600:.2f} CPU hours so far)")
    start = cpu_seconds()
    writer = SummaryWriter(str(out / "tb"))

    def close_iteration(iteration: int, expert: str, examples: int, fresh: dict, figures: dict) -> None:
        """Save the iteration's network and checkpoint, evaluate it, log its row (``examples``: what it learnt)."""
        nonlocal decisions
        decisions += examples
        cpu = spent + cpu_seconds() - start
        config["cpu_hours"] = round(cpu / 3600, 4)
        meta = run_net_meta(config)
        run.save_iteration(iteration, net, optimizer, meta,
                           {"iteration": iteration, "decisions": decisions, "cpu_seconds": cpu})
        run.write_config(config)
        row: dict[str, Any] = {"iteration": iteration, "expert": expert, "decisions": decisions,
                               "examples": examples, **fresh, **figures}
        row.update(evaluate(config, run.net(iteration)))
        row["cpu_hours"] = round((spent + cpu_seconds() - start) / 3600, 4)
        run.log_eval(row)
        for key, value in row.items():
            if key != "iteration" and isinstance(value, (int, float)) and math.isfinite(value):
                writer.add_scalar(f"exit/{key}", value, iteration)
        writer.flush()
        tqdm.write(summary(row))

    warm = WarmExamples(config)
    try:
        if state is None and config["warm_chunk"]:  # iteration 0 streamed: fresh games, chunk by chunk
            fresh, examples = {}, 0
            for number, chunk in enumerate(warm.chunks(net)):
                before = measure(net, chunk, config["value"])  # games it never learnt from: a held-out figure
                fresh = fresh or before
                figures = train_net(net, optimizer, chunk, config, 0, config["warm_epochs"],
                                    chunk_lr(config, number), part=number)
                examples += len(chunk)
                share = config["warm_dagger"] if number else 0
                played = f" (it made {share:.0%} of the learner's decisions)" if share else ""
                tqdm.write(f"warm start, chunk {number + 1}: {examples:,} decisions learnt; on this chunk's fresh "
                           f"games{played} it chose the heuristic's action on {before['fresh_agreement']:.3f} before "
                           "training")
                del chunk  # before the next is played: one chunk in memory at a time
            close_iteration(0, WARM_EXPERT, examples, fresh, figures)
        elif state is None and config["warm_start"]:  # iteration 0: the heuristic's play, in bulk
            data = warm.get(run)
            fresh = measure(net, data, config["value"])
            figures = train_net(net, optimizer, data, config, 0, config["warm_epochs"], config["warm_lr"])
            for round_ in range(2, config["warm_rounds"] + 1):  # DAgger: the states the network reaches
                more = warm.round(run, net, round_)
                agreement = measure(net, more, config["value"])["fresh_agreement"]
                tqdm.write(f"warm start, round {round_}: {len(more):,} decisions of the network's own games, where "
                           f"it chose the heuristic's action on {agreement:.3f} before training on them")
                data = Examples.join([data, more])
                figures = train_net(net, optimizer, data, config, 0, config["warm_epochs"], config["warm_lr"])
            close_iteration(0, WARM_EXPERT, len(data), fresh, figures)
        elif state is None and config["init"] is not None:  # iteration 0: the network it starts from, measured
            close_iteration(0, INIT_EXPERT, 0, {"fresh_agreement": math.nan},
                            {"policy_loss": math.nan, "value_loss": math.nan})
        for iteration in range(done + 1, config["iterations"] + 1):
            expert = config["expert"]
            if guided_by_net(config, run, iteration):
                expert = with_option(expert, "net", str(run.net(iteration - 1).resolve()))
            if run.data(iteration).is_file():  # labelled before the run stopped: the same games again otherwise
                data = Examples.load(run.data(iteration))
            else:
                data = label_games(config, iteration, expert, progress)
                run.data(iteration).parent.mkdir(parents=True, exist_ok=True)
                data.save(run.data(iteration))
            fresh = measure(net, data, config["value"])
            figures = train_net(net, optimizer, training_data(run, config, iteration, warm), config, iteration)
            close_iteration(iteration, expert, len(data), fresh, figures)
    finally:
        writer.close()
    final = out / "model.zip"
    shutil.copyfile(run.net(max(done, config["iterations"])), final)
    print(f"network saved to {final}; play it as net:{final}")
    return final


def summary(row: dict[str, Any]) -> str:
    """An iteration's figures in one line."""
    text = (f"iteration {row['iteration']}: {row['examples']:,} examples, agreement with the expert before training "
            f"{row['fresh_agreement']:.3f}, losses {row['policy_loss']:.3f} / {row['value_loss']:.3f}")
    if "heuristic_share" in row:
        text += (f"; alone vs heuristic {row['heuristic_share']:.3f} [{row['heuristic_low']:.3f}, "
                 f"{row['heuristic_high']:.3f}] (the heuristic {row['heuristic_baseline']:.3f} in its seats, "
                 f"{row['paired_difference']:+.3f} ± {row['paired_margin']:.3f}), vs random {row['random_share']:.3f}")
    return text + f"; {row['cpu_hours']:.3f} CPU hours"


def resume_hint(out: Path) -> str:
    """How to continue the run in ``out``."""
    done = ExitRun(out).iteration_dirs()
    where = f"iteration {int(done[-1].name.removeprefix('iter_'))}" if done else "the start"
    return f"python train.py --algo exit --out {out} --resume continues after {where}"


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    config, out, resume, lock = configure(argv)
    with ending_a_run("train.py", out, lock, resume_hint):
        train(config, out, resume)


if __name__ == "__main__":
    main(sys.argv[1:])
