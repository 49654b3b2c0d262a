"""The skill ladder of a search agent: its win rate against a baseline as its simulation budget grows,
with the CPU time each decision takes (the TAG framework reports search agents this way).

    sobek-env ladder --players 2 --agent ismcts:settings=none --budgets 25,100,400 --games 90 \
        --out results/tree
    sobek-env ladder --game kleopatra --players 3 --budgets 25,100 --games 60 \
        --out results/ladder-kleopatra

For each budget B, ``--agent`` (default ``ismcts``, at the game's settings; ``ismcts:settings=none`` is the
plain tree) with ``simulations=B`` plays ``--games`` games against
``--vs`` (default ``heuristic``) in every other seat, seats rotating, as ``evaluate.py`` plays them (the
same seeds, workers and statistics). Its time per decision is measured apart, in this process, over the
first ``--timing-games`` of those games: CPU seconds of each decision that had a choice (one legal action
is not searched). Writes ``ladder.csv``, ``ladder.json`` and ``ladder.png`` (win rate with its 95%
interval against the budget, and the time per decision) in ``--out``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from agents.common.arguments import TrainingParser, positive_int
from agents.common.files import write_atomic, write_figure
from agents.players.registry import make, parse_spec
from agents.tournaments.tournament import agent_seed, play_tournament, seating_for, summarize
from sobek_env.registry import GAMES, load_game


def parse_budgets(text: str) -> list[int]:
    """argparse type: comma-separated simulation counts, each from 1, rising."""
    try:
        budgets = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be whole numbers separated by commas, got {text!r}") from None
    if any(b < 1 for b in budgets) or budgets != sorted(set(budgets)):
        raise argparse.ArgumentTypeError(f"must be rising whole numbers from 1, got {text!r}")
    return budgets


def with_budget(spec: str, budget: int) -> str:
    """``spec`` with ``simulations=budget`` (replacing any simulation count it had)."""
    name, options = parse_spec(spec)
    kept = [option for option in options if option.partition("=")[0] != "simulations"]
    return f"{name}:{','.join([*kept, f'simulations={budget}'])}"


def decision_seconds(spec: str, vs: str, game: str, players: int, seeds: Sequence[int]) -> list[float]:
    """CPU seconds of each decision with a choice that ``spec`` makes in games dealt with ``seeds`` against
    ``vs`` (game i seated as tournament game i), played here, one process."""
    info = load_game(game)
    times = []
    for index, seed in enumerate(seeds):
        seating = seating_for(index, players)  # seat -> agent position: position 0 is the searcher
        agents = {seat: make(spec if position == 0 else vs, game=game, num_players=players)
                  for seat, position in enumerate(seating)}
        for seat, agent in agents.items():
            if hasattr(agent, "seed"):
                agent.seed(agent_seed(seed, seat))
        observer = info.observer(players, "original")
        state = info.new(players, seed=seed)
        while not state.is_over:
            seat = state.current_player
            legal = state.legal_actions()
            mask = np.zeros(info.num_actions, dtype=np.int8)
            mask[legal] = 1
            observation = {"observation": observer.encode(state, seat), "action_mask": mask}
            agent = agents[seat]
            if seating[seat] == 0:
                start = time.process_time()
                action = agent.act(observation, state=state)
                if len(legal) > 1:
                    times.append(time.process_time() - start)
            else:
                action = agent.act(observation)
            state.apply(action)
    return times


SETTINGS = ("game", "players", "agent", "vs", "seed")  # what rungs kept by --resume must share


def climb(args: argparse.Namespace, kept: dict[int, dict], save: Callable[[list[dict]], None]) -> list[dict]:
    """Play every rung not in ``kept`` (budget -> row); one row per budget, all saved after each rung."""
    rows = []
    for budget in args.budgets:
        if budget in kept:
            rows.append(kept[budget])
            print(f"simulations={budget}: kept from {args.out / 'ladder.json'} ({kept[budget]['games']} games)")
            continue
        spec = with_budget(args.agent, budget)
        specs = [spec] + [args.vs] * (args.players - 1)
        records = play_tournament(specs, args.games, game=args.game, seed=args.seed, workers=args.workers)
        summary = summarize(records, specs, args.game)[0]
        seconds = decision_seconds(spec, args.vs, args.game, args.players,
                                   [args.seed + i for i in range(args.timing_games)])
        rows.append({"simulations": budget, "spec": spec, "games": args.games, "win_rate": summary.win_rate,
                     "win_low": summary.win_low, "win_high": summary.win_high, "score_mean": summary.score_mean,
                     "decisions_timed": len(seconds),
                     "seconds_mean": statistics.fmean(seconds) if seconds else 0.0,
                     "seconds_max": max(seconds, default=0.0)})
        print(f"simulations={budget}: win rate {summary.win_rate:.3f} [{summary.win_low:.3f}, "
              f"{summary.win_high:.3f}] over {args.games} games; {rows[-1]['seconds_mean']:.3f} CPU s per "
              f"decision ({len(seconds)} timed)", flush=True)
        save(rows)
    return rows


def kept_rungs(args: argparse.Namespace) -> dict[int, dict]:
    """--resume: the rungs of ``--out``'s ladder.json, if it was climbed with the same settings."""
    path = args.out / "ladder.json"
    if not args.resume or not path.exists():
        return {}
    try:
        report = json.loads(path.read_text())
        rungs = {int(row["simulations"]): row for row in report["rungs"]}
        differing = [key for key in SETTINGS if report[key] != getattr(args, key)]
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not a ladder report ({exc}); remove it or drop --resume") from None
    if differing:
        found = ", ".join(f"{key} {report[key]!r}" for key in differing)
        raise ValueError(f"{path} was climbed with other settings ({found}); use another --out or drop --resume")
    return rungs


def plot(rows: Sequence[dict], title: str, share: float, path: Path) -> None:
    """Win rate with its interval against the budget (log scale), the fair share, and the time per decision."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    budgets = [row["simulations"] for row in rows]
    rates = [row["win_rate"] for row in rows]
    errors = [[r - row["win_low"] for r, row in zip(rates, rows)], [row["win_high"] - r for r, row in zip(rates, rows)]]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.errorbar(budgets, rates, yerr=errors, marker="o", capsize=4)
    for budget, row in zip(budgets, rows):  # rungs kept by --resume may have other game counts
        left.annotate(f"{row['games']} games", (budget, row["win_high"]), textcoords="offset points",
                      xytext=(0, 6), ha="center", fontsize=8)
    left.axhline(share, color="grey", linestyle="--", label=f"fair share ({share:.0%})")
    left.set(xscale="log", xlabel="simulations per decision", ylabel="win rate (95% interval)", ylim=(0, 1))
    left.legend(loc="upper left")
    right.plot(budgets, [row["seconds_mean"] for row in rows], marker="o")
    right.axhline(1.0, color="grey", linestyle="--", label="1 s")
    right.set(xscale="log", yscale="log", xlabel="simulations per decision", ylabel="CPU seconds per decision")
    right.legend()
    pad = max(1.3, (budgets[-1] / budgets[0]) ** 0.1)
    for ax in (left, right):  # the budgets themselves as ticks, not a log scale's minor labels
        ax.set_xticks(budgets, [str(b) for b in budgets])
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlim(budgets[0] / pad, budgets[-1] * pad)  # room for the end rungs' labels inside the axes
    fig.suptitle(title)
    write_figure(fig, path, 110)


def build_parser() -> TrainingParser:
    parser = TrainingParser(prog="sobek-env ladder", description=__doc__.split("\n\n")[0],
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=GAMES, default="sobek", help="the game (default sobek)")
    parser.add_argument("--players", type=positive_int, required=True, help="players per game")
    parser.add_argument("--budgets", type=parse_budgets, required=True, metavar="B1,B2,...",
                        help="simulations per decision, rising (e.g. 25,100,400,1600)")
    parser.add_argument("--games", type=positive_int, required=True, help="games per budget (a multiple of --players)")
    parser.add_argument("--agent", default="ismcts",
                        help="the search agent's spec, without simulations (default ismcts)")
    parser.add_argument("--vs", default="heuristic", help="the opponent in every other seat (default heuristic)")
    parser.add_argument("--seed", type=int, default=0, help="game i is dealt with seed + i (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1, help="processes playing the games (default 1)")
    parser.add_argument("--timing-games", type=int, default=2, metavar="N",
                        help="games of each budget replayed here to time the decisions (default 2)")
    parser.add_argument("--out", type=Path, required=True, help="directory for ladder.csv, ladder.json, ladder.png")
    parser.add_argument("--resume", action="store_true",
                        help="keep the rungs already in --out (climbed with the same game, players, agent, vs "
                             "and seed) and play only the others; the report is saved after every rung")
    return parser


def main(argv: list[str] | None = None) -> None:
    parser = build_parser()
    args = parser.parse_args(argv)
    game = load_game(args.game)
    if args.players not in game.player_counts:
        parser.error(f"argument --players: {game.title} is for {game.min_players} to {game.max_players} players, "
                     f"got {args.players}")
    if args.games % args.players:
        parser.error(f"argument --games: must be a multiple of --players ({args.players}) so seats rotate evenly, "
                     f"got {args.games}")
    if not 0 <= args.timing_games <= args.games:
        parser.error(f"argument --timing-games: must be from 0 to --games ({args.games}), got {args.timing_games}")
    try:
        for spec in (with_budget(args.agent, args.budgets[0]), args.vs):
            make(spec, game=args.game, num_players=args.players)
    except (ValueError, FileNotFoundError) as exc:
        parser.error(str(exc))
    if not getattr(make(with_budget(args.agent, 1), game=args.game, num_players=args.players), "wants_state", False):
        parser.error(f"argument --agent: {args.agent!r} is not a search agent (it takes no simulation budget)")
    try:
        kept = kept_rungs(args)
    except ValueError as exc:
        parser.error(f"argument --resume: {exc}")
    args.out.mkdir(parents=True, exist_ok=True)
    title = f"{game.title}, {args.players} players: {args.agent} against {args.vs}"

    def save(rows: list[dict]) -> None:
        everything = sorted({**kept, **{row["simulations"]: row for row in rows}}.items())
        rungs = [row for _, row in everything]
        lines = [",".join(rungs[0])] + [",".join(str(row[key]) for key in rungs[0]) for row in rungs]
        write_atomic(args.out / "ladder.csv", "\n".join(lines) + "\n")
        report = {key: getattr(args, key) for key in SETTINGS} | {"rungs": rungs}
        write_atomic(args.out / "ladder.json", json.dumps(report, indent=1))
        plot(rungs, title, 1 / args.players, args.out / "ladder.png")

    rows = climb(args, kept, save)  # saved after each rung it plays
    if set(args.budgets) <= set(kept):  # a --resume with every rung kept played none: redraw all the same
        save(rows)
    print(f"wrote {args.out / 'ladder.csv'}, {args.out / 'ladder.json'} and {args.out / 'ladder.png'}")


if __name__ == "__main__":
    main()
