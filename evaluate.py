"""Play Sobek agents against each other and report win rates, scores, corruption and ratings.

    python evaluate.py --players 4 --games 200 --agents heuristic greedy random random
    python evaluate.py --players 3 --games 120 --agents heuristic --vs random --sweep tolerance=0,0.25,0.5,0.75,1

Give exactly one spec per seat (the same spec may repeat); the seats rotate
so every agent sits in every seat equally often, hence --games must be a
multiple of --players. Game i is dealt with seed --seed + i, and each agent is
seeded from its game's seed and seat, so a run gives the same results with
any --workers. Each spec position is its own row (a repeated spec is numbered
random#1, random#2, ...). The win rate counts a shared victory as a fraction;
its 95% interval is Wilson's. The rating is openskill's Plackett-Luce,
updated in game order.

With --sweep KEY=V1,V2,... the first --agents spec plays with each value of
its option KEY against the --vs spec(s) (one spec fills every other seat, or
give one per other seat), --games games per value; the plot shows score
against corruption, coloured by win rate.

Results go to --out (default results/): evaluate.csv and evaluate.json, or
sweep.csv, sweep.json and sweep.png, with the exact command and seeds.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import shlex
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from agents import make
from agents.registry import parse_spec, with_option
from agents.tournament import AgentSummary, GameRecord, format_table, play_tournament, summarize

MODES = ("original", "memory")


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = _integer(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer >= 0."""
    value = _integer(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def _integer(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def parse_sweep(text: str) -> tuple[str, list[str]]:
    """argparse type for ``--sweep KEY=V1,V2,...``: the key and its values."""
    key, eq, values = (part.strip() for part in text.partition("="))
    settings = [v.strip() for v in values.split(",")]
    if not eq or not key.isidentifier() or not all(settings):
        raise argparse.ArgumentTypeError(f"expected KEY=V1,V2,... (e.g. tolerance=0,0.5,1), got {text!r}")
    return key, settings


def build_parser() -> argparse.ArgumentParser:
    """The command line of this module (its docstring is the help's epilog)."""
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, required=True, choices=(2, 3, 4), help="players per game")
    parser.add_argument("--games", type=positive_int, default=120,
                        help="games to play (per sweep value); a multiple of --players (default 120)")
    parser.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                        help="one spec per seat: random, greedy, heuristic[:tolerance=X], "
                             "ppo:PATH[,deterministic=false]")
    parser.add_argument("--out", type=Path, default=Path("results"), help="directory for results (default results/)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="game i is dealt with seed S + i (default 0)")
    parser.add_argument("--workers", type=positive_int, default=os.cpu_count() or 1,
                        help="processes playing games (default: the number of cores)")
    parser.add_argument("--mode", choices=MODES, default="original", help="observation mode (default original)")
    parser.add_argument("--sweep", type=parse_sweep, metavar="KEY=V1,V2,...",
                        help="vary the first agent's option KEY over these values")
    parser.add_argument("--vs", nargs="+", metavar="SPEC", help="with --sweep: the opponents' spec(s)")
    return parser


def check_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[list[str]]:
    """Validate the arguments together (argparse-style exit 2 on error); return each table's specs."""
    if args.sweep:
        if len(args.agents) != 1 or not args.vs:
            parser.error("--sweep needs one --agents spec (the agent whose option varies) and --vs SPEC(s)")
        if len(args.vs) not in (1, args.players - 1):
            parser.error(f"--vs takes 1 spec or {args.players - 1} (one per other seat), got {len(args.vs)}")
        opponents = args.vs * (args.players - 1) if len(args.vs) == 1 else args.vs
        key, values = args.sweep
        tables = [[_setting(parser, args.agents[0], key, v), *opponents] for v in values]
    else:
        if args.vs:
            parser.error("--vs only goes with --sweep; put every seat's spec in --agents")
        if len(args.agents) != args.players:
            parser.error(f"--agents takes exactly one spec per seat: {args.players} for --players {args.players}, "
                         f"got {len(args.agents)} (a spec may repeat, e.g. heuristic random random)")
        tables = [args.agents]
    if args.games % args.players:
        larger = args.games + args.players - args.games % args.players
        parser.error(f"--games {args.games} is not a multiple of --players {args.players} (seats rotate so every "
                     f"agent sits in every seat equally); use e.g. {larger}")
    for spec in dict.fromkeys(spec for table in tables for spec in table):
        try:
            make(spec, num_players=args.players, observation_mode=args.mode)
        except (ValueError, OSError, ImportError) as exc:
            parser.error(str(exc))
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        probe = args.out / ".write-test"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        parser.error(f"cannot write results to --out {str(args.out)!r} ({exc.strerror or exc}); "
                     "choose another directory")
    return tables


def _setting(parser: argparse.ArgumentParser, spec: str, key: str, value: str) -> str:
    try:
        return with_option(spec, key, value)
    except ValueError as exc:
        parser.error(str(exc))


def progress_bar(description: str):
    """A ``progress`` callback for play_tournament showing a tqdm bar on a terminal."""
    from tqdm import tqdm

    def wrap(results: Iterator[GameRecord], total: int) -> Iterable[GameRecord]:
        return tqdm(results, total=total, desc=description, unit="game", leave=False, disable=None)

    return wrap


def run(
    specs: Sequence[str], args: argparse.Namespace, description: str
) -> tuple[list[GameRecord], list[AgentSummary]]:
    """Play one tournament as the arguments say, with a progress bar; its games and summaries."""
    records = play_tournament(specs, args.games, seed=args.seed, observation_mode=args.mode,
                              workers=args.workers, progress=progress_bar(description))
    return records, summarize(records, specs)


def header(args: argparse.Namespace) -> dict:
    """What reproduces the run: the command, its arguments and the seeds."""
    return {
        "command": args.command, "players": args.players, "games": args.games, "mode": args.mode,
        "workers": args.workers, "seed": args.seed,
        "seeds": f"game i (0..{args.games - 1}) is dealt with seed {args.seed} + i; "
                 "each agent is seeded from its game's seed and seat",
    }


def write_csv(path: Path, rows: list[dict]) -> None:
    """``rows`` (dicts with the same keys) as a CSV file with a header line."""
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def evaluate(specs: list[str], args: argparse.Namespace) -> None:
    """Play the tournament between ``specs``, print its table and save evaluate.csv and evaluate.json."""
    records, summaries = run(specs, args, "games")
    print(f"{args.games} games, {args.players} players, seeds {args.seed}..{args.seed + args.games - 1}, "
          f"{args.mode} observations\n")
    print(format_table(summaries))
    write_csv(args.out / "evaluate.csv", [dataclasses.asdict(s) for s in summaries])
    report = {**header(args), "agents": specs, "summary": [dataclasses.asdict(s) for s in summaries],
              "games_played": [r.to_dict() for r in records]}
    (args.out / "evaluate.json").write_text(json.dumps(report, indent=1))
    print(f"\nwrote {args.out / 'evaluate.csv'} and {args.out / 'evaluate.json'}")


def sweep(tables: list[list[str]], args: argparse.Namespace) -> None:
    """Play one tournament per sweep value; print and save the swept agent's rows and the plot."""
    key, values = args.sweep
    points = []
    for value, specs in zip(values, tables):
        _, summaries = run(specs, args, f"{key}={value}")
        points.append(dataclasses.replace(summaries[0], label=f"{key}={value}"))
    opponents = ", ".join(tables[0][1:])
    print(f"{parse_spec(args.agents[0])[0]} by {key} against {opponents}: {args.games} games per value, "
          f"{args.players} players, seeds {args.seed}..{args.seed + args.games - 1}\n")
    print(format_table(points))
    rows = [{key: value, **dataclasses.asdict(p)} for value, p in zip(values, points)]
    write_csv(args.out / "sweep.csv", rows)
    report = {**header(args), "agent": args.agents[0], "opponents": tables[0][1:], "sweep": {key: values},
              "results": rows}
    (args.out / "sweep.json").write_text(json.dumps(report, indent=1))
    plot_sweep(points, key, values, f"{args.agents[0]} against {opponents}", args.out / "sweep.png")
    print(f"\nwrote {args.out / 'sweep.csv'}, {args.out / 'sweep.json'} and {args.out / 'sweep.png'}")


def plot_sweep(points: Sequence[AgentSummary], key: str, values: Sequence[str], title: str, path: Path) -> None:
    """Two panels: mean final score against corruption per round (one point per value, coloured by
    win rate, labelled with the value), and win rate with its interval and the penalty per game
    against the value."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 5))
    x = [p.corruption_per_round for p in points]
    y = [p.score_mean for p in points]
    ax.plot(x, y, color="0.75", zorder=1)
    dots = ax.scatter(x, y, c=[p.win_rate for p in points], cmap="viridis", vmin=0, vmax=1, s=80, zorder=2)
    for i, (value, p) in enumerate(zip(values, points)):
        below = i % 2  # alternate sides so neighbouring labels do not overlap
        ax.annotate(value, (p.corruption_per_round, p.score_mean), textcoords="offset points",
                    xytext=(0, -14 if below else 8), ha="center", fontsize=8)
    ax.margins(x=0.1, y=0.15)
    fig.colorbar(dots, ax=ax, label="win rate")
    ax.set_xlabel("corruption per round (cards + 2 x curses)")
    ax.set_ylabel("mean final score")
    ax.set_title(f"score against corruption (labels: {key})", fontsize=10)

    try:
        settings = [float(v) for v in values]
    except ValueError:
        settings = list(range(len(values)))
        bx.set_xticks(settings, values)
    rates = [p.win_rate for p in points]
    bx.fill_between(settings, [p.win_low for p in points], [p.win_high for p in points], alpha=0.25, color="C0")
    bx.plot(settings, rates, "o-", color="C0", label="win rate (95% interval)")
    bx.set_ylim(0, 1)
    bx.set_xlabel(key)
    bx.set_ylabel("win rate", color="C0")
    penalty = bx.twinx()
    penalty.plot(settings, [p.penalty_per_game for p in points], "s--", color="C3", label="penalty / game")
    penalty.set_ylabel("points lost to the corruption penalty per game", color="C3")
    bx.set_title(f"win rate and penalty against {key}", fontsize=10)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    """Run the command line (``argv`` defaults to ``sys.argv[1:]``)."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    args.command = shlex.join(["python", "evaluate.py", *argv])
    tables = check_args(parser, args)
    if args.sweep:
        sweep(tables, args)
    else:
        evaluate(tables[0], args)


if __name__ == "__main__":
    main()
