"""Imitation: a policy network taught to choose as an agent chose in replays, saved as a ``ppo:`` model.

    sobek-env imitate records/bar-kleopatra-ismcts.tar.xz --agent ismcts --out runs/imitate-3p
    sobek-env train --game kleopatra --players 3 --init runs/imitate-3p/model.zip --out runs/kp3 ...

A search plays better than any network that can act in a millisecond; its decisions in replays
(``evaluate.py --save-replays``) are a teacher's. Each decision of a seat the ``--agent`` spec played, with
more than one legal action (from ``--late`` of the game on, if given), becomes one example: the seat's
observation as the run's network reads it (the game's default feature set: in Kleopatra and Sobek the
observation and the heuristic's advice) and the action taken. The network is the one ``train.py`` builds
for that table with its defaults (``--net``, ``--advice-prior`` may change them), so the model it saves
plays as ``ppo:PATH`` and starts a ``train.py --init`` run, whose PPO then improves it against its pool.

The policy is fitted by cross-entropy over the legal actions (Adam, minibatches); the value head is not
taught (``train.py --critic-warmup`` lets it catch up before the policy moves). The target is the action
taken (``--target action``), or, with ``--target values``, the teacher's own estimate of every legal action
where the replay recorded one (``ismcts`` records its mean reward per action, ``values`` in the replay):
``softmax(values / --temperature)``, so every searched decision teaches how close the other actions came,
not only which won. A share of the games (``--holdout``) is kept out of the fit and measured after every
epoch: the log-loss, how often the network chooses as the agent did, and, where the agent departed from the
advice its features carry, how often it departs the same way (the part of the teacher's play beyond the
heuristic's), and where the agent followed the advice, how often the network leaves it. Where values were
recorded, also ``value_gain``: the mean of the value of the network's choice less that of the advised
action, by the teacher's estimates on games the network never saw (``teacher_gain``: the same for the
teacher's own choice, which its estimates picked and so flatter). The epoch with the lowest held-out
log-loss is kept.

Written to ``--out``: ``model.zip`` (a ``ppo:`` model), ``imitation.csv`` (one row per epoch) and
``imitation.json`` (the command, the replays' table, the examples and the kept epoch). Seeded: the same
replays and seed give the same model.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from agents.analysis.departures import add_replay_arguments, check_seated, decisions_of, read_replays, unit_share
from agents.common.arguments import (
    LEARNING_RATES,
    TrainingParser,
    layer_sizes,
    non_negative_float,
    one_line_errors,
    positive_float,
    positive_int,
)
from agents.players.features import Featurizer
from agents.players.modelfile import network_problem
from agents.training.exit import soft_target
from sobek_env.game import Table
from sobek_env.replay import Replay

HOLDOUT = 0.2     # share of the games kept out of the fit
TARGETS = ("action", "values")
TEMPERATURE = 0.05  # of --target values, in the teacher's reward units
EPOCHS = 20
LR = 1e-3
BATCH = 256


@dataclass
class Examples:
    """Decisions as the network reads them: features, legal masks, the actions taken, the actions the
    features advised (-1 without advice), the game each came from, the distribution the network is fitted
    to, and the teacher's value of each action (NaN where none was recorded)."""

    features: np.ndarray  # float32 [n, size]
    masks: np.ndarray     # bool [n, actions]
    actions: np.ndarray   # int64 [n]
    advised: np.ndarray   # int64 [n]
    games: np.ndarray     # int64 [n]
    targets: np.ndarray   # float32 [n, actions], rows summing to 1
    values: np.ndarray    # float32 [n, actions]

    def __len__(self) -> int:
        return len(self.actions)

    def subset(self, keep: np.ndarray) -> Examples:
        return Examples(self.features[keep], self.masks[keep], self.actions[keep], self.advised[keep],
                        self.games[keep], self.targets[keep], self.values[keep])


def replay_table(replays: list[tuple[Path, Replay]]) -> Table:
    """The one table every replay was played at (game, players, mode, rules); ValueError otherwise."""
    first_path, first = replays[0]
    key = (first.game, first.num_players, first.mode, first.rules)
    for path, replay in replays[1:]:
        other = (replay.game, replay.num_players, replay.mode, replay.rules)
        if other != key:
            raise ValueError(f"{str(path)!r} was played at another table than {str(first_path)!r} "
                             f"({other} and {key}): learn from the replays of one table")
    return first.game_object.table(first.num_players, first.mode, **first.rules)


def examples(replays: list[tuple[Path, Replay]], agent: str, featurize: Featurizer, late: float = 0.0,
             target: str = "action", temperature: float = TEMPERATURE) -> Examples:
    """The decisions ``agent`` made in ``replays`` (see the module docstring), with ``target`` ``values``
    only those whose values were recorded; ValueError if a replay seats no ``agent`` or no decision
    qualifies."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    replay_table(replays)
    check_seated(replays, agent)
    advice = featurize.advice_slice
    size = replays[0][1].game_object.num_actions
    rows, masks, actions, advised, games, targets, values = [], [], [], [], [], [], []
    for index, (_, replay) in enumerate(replays):
        for _, _, observation, action, step in decisions_of(replay, agent, late):
            recorded = replay.values.get(step)
            if target == "values" and not recorded:
                continue
            vector = np.array(featurize(observation))  # a copy: the observation's arrays are reused
            rows.append(vector)
            masks.append(observation["action_mask"].astype(bool))
            actions.append(action)
            advised.append(int(np.argmax(vector[advice[0]:advice[1]])) if advice else -1)
            games.append(index)
            row = np.full(size, np.nan, dtype=np.float32)
            if recorded:
                row[list(recorded)] = list(recorded.values())
            values.append(row)
            if target == "values":
                targets.append(soft_target(recorded, size, temperature))
            else:
                targets.append(np.eye(1, size, action, dtype=np.float32)[0])
    if not rows:
        raise ValueError(f"the replays hold no decision of {agent!r} with a choice"
                         + (f" from {late:g} of the game on" if late else "")
                         + (" whose values were recorded" if target == "values" else ""))
    return Examples(np.stack(rows), np.stack(masks), np.array(actions, dtype=np.int64),
                    np.array(advised, dtype=np.int64), np.array(games, dtype=np.int64), np.stack(targets),
                    np.stack(values))


def split(data: Examples, holdout: float, seed: int) -> tuple[Examples, Examples]:
    """(fit, held out): whole games drawn with ``seed``, ``holdout`` of them held out (at least one game
    each side when there are two or more)."""
    games = np.unique(data.games)
    rng = np.random.default_rng(seed)
    order = rng.permutation(games)
    count = min(len(games) - 1, max(1, round(holdout * len(games)))) if holdout > 0 and len(games) > 1 else 0
    held = np.isin(data.games, order[:count])
    return data.subset(~held), data.subset(held)


def measure(policy: torch.nn.Module, data: Examples) -> dict[str, float]:
    """Log-loss, agreement with the agent, and on the agent's departures from the advice (and its
    agreements with it) how the network's choice stands."""
    if len(data) == 0:
        return {}
    with torch.no_grad():
        dist = policy.get_distribution(torch.as_tensor(data.features), action_masks=data.masks)
        loss = float(cross_entropy(dist, torch.as_tensor(data.targets)))
        chosen = dist.distribution.probs.argmax(dim=1).numpy()
    out = {"loss": loss, "agreement": float(np.mean(chosen == data.actions))}
    if (data.advised >= 0).all():
        departed = data.actions != data.advised
        if departed.any():
            out["departures_matched"] = float(np.mean(chosen[departed] == data.actions[departed]))
        if (~departed).any():
            out["advice_left"] = float(np.mean(chosen[~departed] != data.advised[~departed]))
        rows = np.arange(len(data))
        advised_value = data.values[rows, data.advised]
        network_gain = data.values[rows, chosen] - advised_value
        teacher_gain = data.values[rows, data.actions] - advised_value
        valued = ~np.isnan(network_gain) & ~np.isnan(teacher_gain)
        if valued.any():
            out["value_gain"] = float(network_gain[valued].mean())
            out["teacher_gain"] = float(teacher_gain[valued].mean())
    return out


def cross_entropy(dist, targets: torch.Tensor) -> torch.Tensor:
    """The mean cross-entropy of the masked distribution ``dist`` against ``targets`` (rows of
    probabilities, zero on illegal actions, whose masked log-probabilities are large but finite)."""
    return -(targets * dist.distribution.logits).sum(dim=1).mean()


def fit(policy: torch.nn.Module, fit_data: Examples, held: Examples, epochs: int, lr: float, batch: int, seed: int,
        log: list[dict]) -> int:
    """Fit ``policy`` by cross-entropy; after each epoch append its figures to ``log``. The policy ends with
    the weights of the epoch whose held-out log-loss was lowest (the last, with nothing held out); that
    epoch is returned (0: the start)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=lr)
    features, targets = torch.as_tensor(fit_data.features), torch.as_tensor(fit_data.targets)
    best_epoch, best_loss = 0, math.inf
    best_state = {k: v.clone() for k, v in policy.state_dict().items()}

    def figures(epoch: int) -> dict:
        return {"epoch": epoch, **{f"fit_{k}": v for k, v in measure(policy, fit_data).items()},
                **{f"held_{k}": v for k, v in measure(policy, held).items()}}

    start = figures(0)
    log.append(start)
    if len(held):
        best_loss = start["held_loss"]
    for epoch in range(1, epochs + 1):
        policy.set_training_mode(True)
        order = rng.permutation(len(fit_data))
        for at in range(0, len(order), batch):
            rows = order[at:at + batch]
            dist = policy.get_distribution(features[rows], action_masks=fit_data.masks[rows])
            loss = cross_entropy(dist, targets[rows])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        policy.set_training_mode(False)
        row = figures(epoch)
        log.append(row)
        if not len(held) or row["held_loss"] < best_loss:
            best_epoch, best_loss = epoch, row.get("held_loss", math.inf)
            best_state = {k: v.clone() for k, v in policy.state_dict().items()}
    policy.load_state_dict(best_state)
    return best_epoch


def build_parser() -> argparse.ArgumentParser:
    parser = TrainingParser(prog="sobek-env imitate",
                            description="Teach a policy network to choose as an agent chose in replays; save it as "
                                        "a ppo: model (and a start for train.py --init).")
    add_replay_arguments(parser, "learned (the replays of one table)")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="where model.zip, imitation.csv and imitation.json go (a new directory)")
    parser.add_argument("--holdout", type=unit_share, default=HOLDOUT, metavar="X",
                        help=f"share of the games kept out of the fit and measured (default {HOLDOUT})")
    parser.add_argument("--target", choices=TARGETS, default="action",
                        help="fit the action taken (default), or the teacher's recorded values of every legal "
                             "action (decisions without them are left out)")
    parser.add_argument("--temperature", type=positive_float, default=TEMPERATURE, metavar="T",
                        help=f"of --target values: the target is softmax(values / T) (default {TEMPERATURE})")
    parser.add_argument("--epochs", type=positive_int, default=EPOCHS,
                        help=f"passes over the examples (default {EPOCHS})")
    parser.add_argument("--lr", type=LEARNING_RATES, default=LR, help=f"Adam's learning rate (default {LR})")
    parser.add_argument("--batch-size", type=positive_int, default=BATCH, help=f"minibatch size (default {BATCH})")
    parser.add_argument("--net", type=layer_sizes, help="hidden layers (default: train.py's)")
    parser.add_argument("--advice-prior", type=non_negative_float, metavar="W",
                        help="the starting weight of the advised action (default: train.py's for the game)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the split, the network and the batches")
    return parser


def main(argv: list[str] | None = None) -> None:
    from agents.players.ppo import build_policy, save_policy
    from agents.training.sb3 import (
        DEFAULTS,
        game_defaults,
        model_meta,
        network_parameters,
        policy_description,
        run_features,
    )

    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.out / "model.zip").exists():
        parser.error(f"{str(args.out)!r} already holds a model.zip; choose another --out")
    with one_line_errors(parser):
        replays = read_replays(args.replays)
        table = replay_table(replays)
    game = table.game
    config = {**DEFAULTS, **game_defaults(game.name), "game": game.name, "players": table.num_players,
              "mode": table.observation_mode}
    if table.rules:
        parser.error("replays with rules options are not supported: train.py trains at the default rules")
    for key in ("net", "advice_prior"):
        if getattr(args, key) is not None:
            config[key] = getattr(args, key)
    problem = network_problem(config["net"], network_parameters(config))
    if problem:  # a model file may describe only so large a network: refused now, not after the fit
        parser.error(f"argument --net: {problem}")
    featurize = Featurizer(run_features(config), table)
    try:
        data = examples(replays, args.agent, featurize, args.late, args.target, args.temperature)
    except ValueError as exc:
        parser.error(str(exc))
    fit_data, held = split(data, args.holdout, args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    policy = build_policy({"policy": policy_description(config), "observation_size": featurize.size,
                           "action_count": game.num_actions})  # fit() gives it an optimizer of its own
    policy.set_training_mode(False)
    log: list[dict] = []
    print(f"{len(data):,} decisions of {args.agent} in {len(replays):,} games "
          f"({len(fit_data):,} to fit, {len(held):,} held out in {len(np.unique(held.games)):,} games)")
    kept = fit(policy, fit_data, held, args.epochs, args.lr, args.batch_size, args.seed, log)
    args.out.mkdir(parents=True, exist_ok=True)
    save_policy(policy, args.out / "model.zip", model_meta(config, 0))
    with open(args.out / "imitation.csv", "w", newline="") as handle:
        columns = list(dict.fromkeys(key for row in log for key in row))
        writer = csv.DictWriter(handle, columns)
        writer.writeheader()
        writer.writerows(log)
    command = "sobek-env imitate " + shlex.join(argv if argv is not None else sys.argv[1:])
    summary = {"command": command,
               "game": game.name, "players": table.num_players, "mode": table.observation_mode,
               "agent": args.agent, "target": args.target,
               **({"temperature": args.temperature} if args.target == "values" else {}),
               "games": len(replays), "decisions": len(data), "fit": len(fit_data),
               "held_out": len(held), "kept_epoch": kept, "kept": log[kept],
               "net": config["net"], "advice_prior": config["advice_prior"], "features": run_features(config)}
    (args.out / "imitation.json").write_text(json.dumps(summary, indent=2) + "\n")
    figures = ", ".join(f"{k} {v:.3f}" for k, v in log[kept].items() if k.startswith("held_"))
    print(f"kept epoch {kept} of {args.epochs}{': ' + figures if figures else ''}")
    print(f"model saved to {args.out / 'model.zip'}; play it as ppo:{args.out / 'model.zip'}")


if __name__ == "__main__":
    main(sys.argv[1:])
