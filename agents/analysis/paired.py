"""A paired comparison of two tournaments played on the same deals: how much an agent's share of the wins
moves when another agent takes its seats, game by game.

    sobek-env paired records/bar-kleopatra-ismcts.tar.xz records/bar-kleopatra-heuristics.tar.xz

Each argument is the --out directory of an ``evaluate.py`` tournament (or its ``games.jsonl``), finished or
not. The two must be of the same table (game, players, observation mode) and seeds; game ``i`` of one is
then dealt and seated as game ``i`` of the other. For the agent at ``--position`` in the list of ``--agents``
(default 0, the first), each game both have played gives its share of that game's wins in the first
tournament and in the second (a win shared by two counts a half). Where the agents in the other seats play
the same way in both (deterministic baselines such as ``heuristic``), the two games are one game until the
agent under test departs from the one it replaces, and the paired differences are far less spread than the
shares: the 95% interval of their mean is much narrower than that of two separate win rates.

Printed: the games compared, both shares (the first with its 95% Wilson interval), the mean difference
with its 95% interval (normal, over the games' differences), and the games whose outcome for that seat got
better or worse. ``--json`` prints the same as one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from agents.common.arguments import TrainingParser, add_json_option, non_negative_int, one_line_errors
from agents.tournaments.evaluation import GAMES_FILE, GamesFile
from agents.tournaments.tournament import Z95, GameRecord, labels_for, wilson_interval
from sobek_env import archive

# what must be equal for game i of both tournaments to be the same deal at the same table
SAME_TABLE = ("game", "players", "seed", "mode")


@dataclass(frozen=True)
class Paired:
    """The comparison of the agent at one position over the games both tournaments played."""

    agent: str      # its label in the first tournament
    baseline: str   # the label of the agent at the same position in the second
    games: int
    share: float    # its mean share of the wins
    low: float      # the 95% Wilson interval of that share
    high: float
    baseline_share: float
    difference: float  # share - baseline_share
    margin: float   # half the width of the difference's 95% interval (nan below two games)
    better: int     # games where its share is higher than the baseline's in the same game
    worse: int


def share(record: GameRecord, position: int) -> float:
    """The share of ``record``'s wins of the agent at ``position`` in the list of specs."""
    seat = record.seat_of(position)
    return 1 / len(record.winners) if seat in record.winners else 0.0


def mean_and_margin(differences: Sequence[float]) -> tuple[float, float]:
    """The mean of paired ``differences`` (one per deal) and the half-width of its 95% interval (the normal
    approximation; NaN for fewer than two deals)."""
    n = len(differences)
    mean = math.fsum(differences) / n
    if n < 2:
        return mean, math.nan
    variance = math.fsum((d - mean) ** 2 for d in differences) / (n - 1)
    return mean, Z95 * math.sqrt(variance / n)


def compare(first: dict[int, GameRecord], second: dict[int, GameRecord], position: int, agent: str = "",
            baseline: str = "") -> Paired:
    """The paired comparison over the game indices both hold; ValueError if they hold none, or if a game
    differs in seed or seating (then it is not the same deal)."""
    common = sorted(first.keys() & second.keys())
    if not common:
        raise ValueError("the two tournaments have no game in common yet")
    for index in common:
        a, b = first[index], second[index]
        if (a.seed, a.seating) != (b.seed, b.seating):
            raise ValueError(f"game {index} is dealt with seed {a.seed} and seating {list(a.seating)} in one "
                             f"and seed {b.seed} and seating {list(b.seating)} in the other: not the same deal")
    differences = [share(first[i], position) - share(second[i], position) for i in common]
    n = len(differences)
    mean, margin = mean_and_margin(differences)
    mine = math.fsum(share(first[i], position) for i in common)
    return Paired(agent, baseline, n, mine / n, *wilson_interval(mine, n),
                  math.fsum(share(second[i], position) for i in common) / n, mean, margin,
                  sum(d > 0 for d in differences), sum(d < 0 for d in differences))


def read_tournament(path: Path) -> tuple[dict, dict[int, GameRecord]]:
    """The arguments and the games so far of the tournament in ``path`` (an --out directory, its games file or
    the tournament packed in one file, :mod:`sobek_env.archive`); ValueError naming what is wrong."""
    if archive.is_archive(path):
        games = GamesFile.packed(path, 1)
    else:
        games = GamesFile(path.parent if path.is_file() else path, 1)
    if not games.exists:
        raise ValueError(f"{str(path)!r} holds no {GAMES_FILE} (give an evaluate --out directory or a packed "
                         f"tournament, {archive.SUFFIX})")
    arguments = games.read_header()
    if arguments.get("sweep"):
        raise ValueError(f"{str(path)!r} is a sweep: compare tournaments of one table")
    try:
        players, total, seed = int(arguments["players"]), int(arguments["games"]), int(arguments["seed"])
        agents = [str(spec) for spec in arguments["agents"]]
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{str(games.path)!r}: its header does not give the tournament's players, games, "
                         "seed and agents") from None
    games.read(players, total, seed)
    return {**arguments, "labels": labels_for(agents)}, games.done[0]


def format_paired(result: Paired) -> str:
    """The comparison in a few lines."""
    margin = "" if math.isnan(result.margin) else f" ± {100 * result.margin:.1f}"
    return (f"{result.games:,} games on the same deals\n"
            f"  {result.agent}: {100 * result.share:.1f}% of the wins "
            f"[{100 * result.low:.1f}, {100 * result.high:.1f}]\n"
            f"  {result.baseline} in its seats: {100 * result.baseline_share:.1f}%\n"
            f"  difference: {100 * result.difference:+.1f}{margin} points (95%)\n"
            f"  games better for it: {result.better:,}, worse: {result.worse:,}")


def build_parser() -> argparse.ArgumentParser:
    parser = TrainingParser(prog="sobek-env paired",
                            description="Compare an agent with another on the same deals: two evaluate.py "
                                        "tournaments, game by game.")
    parser.add_argument("first", type=Path, help="the tournament of the agent under test (an --out directory)")
    parser.add_argument("second", type=Path, help="the same deals with another agent in its place")
    parser.add_argument("--position", type=non_negative_int, default=0,
                        help="the agent's position in the tournaments' --agents (default 0, the first)")
    add_json_option(parser, "the lines")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    tournaments = []
    for name, path in (("first", args.first), ("second", args.second)):
        with one_line_errors(parser, f"argument {name}"):
            tournaments.append(read_tournament(path))
    (first_args, first), (second_args, second) = tournaments
    changed = [key for key in SAME_TABLE if first_args.get(key) != second_args.get(key)]
    if changed:
        parser.error("the tournaments are not of the same deals: they differ in "
                     + ", ".join(f"{key} ({first_args.get(key)!r} and {second_args.get(key)!r})" for key in changed))
    positions = min(len(first_args["labels"]), len(second_args["labels"]))
    if args.position >= positions:
        parser.error(f"argument --position: the tournaments have agents at positions 0 to {positions - 1}, "
                     f"got {args.position}")
    with one_line_errors(parser):
        result = compare(first, second, args.position, first_args["labels"][args.position],
                         second_args["labels"][args.position])
    if args.json:
        print(json.dumps({key: (None if isinstance(v, float) and math.isnan(v) else v)
                          for key, v in asdict(result).items()}))
    else:
        print(format_paired(result))


if __name__ == "__main__":
    main(sys.argv[1:])
