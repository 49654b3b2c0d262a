"""What an agent's departures cost, phase by phase: the baseline plays, and the agent takes over only the
decisions of some phases.

    sobek-env swaps --game kleopatra --players 3 --agent net:models/kleopatra-net-3p.zip --games 999 --workers 2

``sobek-env departures`` shows where an agent's choices differ from a baseline's, not whether the difference
was right. Here, for each group of phases (by default every phase of the game on its own; ``--groups turn
quarry mosaic_orient+mosaic_square`` names them), game g is dealt with ``--seed`` + g and the seat g mod
players is played by a *swap*: the baseline's choice, except at the decisions of the group's phases (read from
the observation), where the agent's is played. Every other seat is the baseline. The same deals played by the
baseline alone (``none``) and by the agent alone (``all``) frame the table: per group, the seat's share of the
wins, the paired difference with the baseline alone (game by game, with its 95% interval), the group's
decisions with a choice per game and the share of them where the agent differed. A group whose swap loses
clearly to the baseline alone is where the agent's choices cost games.

Both agents must read the observation (a search, which reads the state, is refused). Each game's agents are
seeded from its deal as in tournaments, so the figures are the same on any number of ``--workers``.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from agents.analysis.paired import mean_and_margin
from agents.common.arguments import TrainingParser, add_json_option, non_negative_int, one_line_errors, positive_int
from agents.common.workers import die_with_parent
from agents.players.base import BaseAgent
from agents.players.registry import make
from agents.tournaments.tournament import wilson_interval
from agents.training.evaluations import play_evaluation_games
from sobek_env.game import Table
from sobek_env.registry import GAMES, load_game

NONE, ALL = "none", "all"  # the frame: the baseline alone, the agent alone
GAMES_PER_TASK = 25


class Swap(BaseAgent):
    """The ``baseline``'s choice, except in ``phases`` (indices into the game's ``phase_names``), where
    ``agent`` chooses; it counts those decisions with a choice, and those where the two differ."""

    name = "swap"

    def __init__(self, table: Table, agent: str, baseline: str, phases: frozenset[int]) -> None:
        self.table = table
        self.agent, self.baseline = (make(spec, table=table) for spec in (agent, baseline))
        for spec, made in ((agent, self.agent), (baseline, self.baseline)):
            if getattr(made, "wants_state", False):
                raise ValueError(f"{spec!r} searches the game's state; swaps need agents that read the observation")
        self.phases = phases
        self.decisions = self.differ = 0

    def seed(self, seed: int) -> None:
        for made in (self.agent, self.baseline):
            if hasattr(made, "seed"):
                made.seed(seed)

    def act(self, observation: dict) -> int:
        game, players = self.table.game, self.table.num_players
        phase = int(game.observation_phases(np.asarray(observation["observation"])[None], players)[0])
        if phase not in self.phases:
            return self.baseline.act(observation)
        chosen = self.agent.act(observation)
        if np.count_nonzero(observation["action_mask"]) > 1:
            self.decisions += 1
            self.differ += chosen != self.baseline.act(observation)
        return chosen


@dataclass
class Group:
    """One group's games: the seat's share of the wins, its paired difference with the baseline alone."""

    name: str
    games: int
    share: float
    low: float
    high: float
    difference: float  # share minus the baseline alone's, on the same deals
    margin: float      # its 95% interval's half-width (NaN for the baseline alone)
    decisions: float   # the agent's decisions with a choice, per game
    differ: float      # the share of them where the baseline would have chosen otherwise


def play(task: tuple[str, int, str, str, str, tuple[int, ...], int, Sequence[int]]) -> tuple[list[float], int, int]:
    """Games ``games`` of one group (a worker's task): the swap seat's shares of the wins, and the decisions
    it handed the agent and how many of them differed."""
    game_name, players, mode, agent, baseline, phases, seed, games = task
    swap = Swap(load_game(game_name).table(players, mode), agent, baseline, frozenset(phases))
    config = {"game": game_name, "players": players, "mode": mode, "eval_seed": seed}
    results = play_evaluation_games(swap, config, baseline, games, seed_learner=True)
    return [share for share, _ in results], swap.decisions, swap.differ


def swaps(game: str, players: int, agent: str, baseline: str, groups: Sequence[str], games: int, seed: int = 0,
          mode: str = "original", workers: int = 1) -> list[Group]:
    """The table of :func:`format_swaps`: the baseline alone, the agent alone, then each group (phase names
    joined by ``+``); ValueError naming an unknown phase or an agent that cannot sit at the table."""
    info = load_game(game)
    table = info.table(players, mode)
    named = {NONE: (), ALL: tuple(range(len(info.phase_names)))}
    for group in groups:
        phases = []
        for name in group.split("+"):
            if name not in info.phase_names:
                raise ValueError(f"{info.title} has no phase {name!r}; its phases are {', '.join(info.phase_names)}")
            phases.append(info.phase_names.index(name))
        named[group] = tuple(sorted(set(phases)))
    Swap(table, agent, baseline, frozenset())  # refuse a bad spec here, not in a worker
    tasks = [(game, players, mode, agent, baseline, phases, seed, range(start, min(start + GAMES_PER_TASK, games)))
             for phases in named.values() for start in range(0, games, GAMES_PER_TASK)]
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers, die_with_parent, (os.getpid(),)) as pool:
            results = pool.map(play, tasks, chunksize=1)
    else:
        results = [play(task) for task in tasks]
    per_group = len(results) // len(named)
    outcomes = {}
    for index, name in enumerate(named):
        part = results[index * per_group:(index + 1) * per_group]
        outcomes[name] = (np.concatenate([shares for shares, _, _ in part]),
                          sum(d for _, d, _ in part), sum(x for _, _, x in part))
    alone = outcomes[NONE][0]
    table_rows = []
    for name, (shares, decisions, differ) in outcomes.items():
        mean, margin = mean_and_margin((shares - alone).tolist())
        table_rows.append(Group(name, games, float(shares.mean()), *wilson_interval(float(shares.sum()), games),
                                mean, margin if name != NONE else math.nan, decisions / games,
                                differ / decisions if decisions else math.nan))
    return table_rows


def format_swaps(rows: list[Group], agent: str, baseline: str) -> str:
    """The table: a line per group, the baseline alone first, the first column as wide as its longest name."""
    labels = [{NONE: "none: the baseline alone", ALL: "all: the agent alone"}.get(row.name, row.name) for row in rows]
    width = max(32, *map(len, labels))
    lines = [f"{baseline} plays one seat, {agent} taking the decisions of the phases named; {baseline} in every "
             f"other seat; {rows[0].games:,} games each, the same deals", "",
             f"{'phases':<{width}} {'wins':>6} {'95% interval':>13} {'paired':>16} {'decisions':>9} {'differ':>6}"]
    for label, row in zip(labels, rows):
        paired = "" if row.name == NONE else f"{100 * row.difference:+.1f} ± {100 * row.margin:.1f}"
        differ = "" if math.isnan(row.differ) else f"{100 * row.differ:.0f}%"
        decisions = "" if row.name == NONE else f"{row.decisions:.1f}"
        interval = f"[{100 * row.low:4.1f}, {100 * row.high:4.1f}]"
        lines.append(f"{label:<{width}} {100 * row.share:5.1f}% {interval:>13} {paired:>16} {decisions:>9} "
                     f"{differ:>6}")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = TrainingParser(prog="sobek-env swaps", description=__doc__.split("\n\n")[0],
                            epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, default="sobek", help="the game (default sobek)")
    parser.add_argument("--players", type=positive_int, required=True, help="players per game")
    parser.add_argument("--mode", choices=("original", "memory"), default="original",
                        help="observation mode (default original)")
    parser.add_argument("--agent", required=True, metavar="SPEC", help="the agent whose choices are tried")
    parser.add_argument("--baseline", default="heuristic", metavar="SPEC", help="everyone else (default heuristic)")
    parser.add_argument("--groups", nargs="+", metavar="PHASE[+PHASE...]",
                        help="the groups of phases the agent takes over, one at a time (default: each phase alone)")
    parser.add_argument("--games", type=positive_int, default=999, help="games per group (default 999)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="game g is dealt with seed + g (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1, help="processes playing the games (default 1)")
    add_json_option(parser, "the table")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    with one_line_errors(parser):  # an unknown phase, a bad spec, a model file for another table
        game = load_game(args.game)
        game.check_table(args.players)
        groups = args.groups or list(game.phase_names)
        rows = swaps(args.game, args.players, args.agent, args.baseline, groups, args.games, args.seed, args.mode,
                     args.workers)
    if args.json:
        print(json.dumps({"game": args.game, "players": args.players, "agent": args.agent,
                          "baseline": args.baseline, "seed": args.seed,
                          "groups": [{k: None if isinstance(v, float) and math.isnan(v) else v  # JSON has no NaN
                                      for k, v in asdict(r).items()} for r in rows]}))
    else:
        print(format_swaps(rows, args.agent, args.baseline))


if __name__ == "__main__":
    main(sys.argv[1:])
