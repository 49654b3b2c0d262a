"""The corruption study across games in one figure: what accepting corruption buys in each game.

    sobek-env study --out docs/corruption_study.png \\
        results/sobek-sweep/sweep.json results/kleopatra-sweep/sweep.json \\
        --learned results/sobek-ppo/evaluate.json results/kleopatra-ppo/evaluate.json

Each ``sweep.json`` is what ``evaluate.py --sweep tolerance=...`` writes; the figure has one row per
sweep (per game) and three panels against the swept value: the win rate with its 95% interval, the
mean final score, and the share of the game's penalty for corruption (the ``penalty_rate`` its agents
package registers, :mod:`agents.games`: in Sobek the rounds in which the agent was the most corrupt and
lost points, in Kleopatra the games in which the crocodile ate it).
Each ``--learned`` report (``evaluate.py`` with a learned agent, ``ppo:`` or ``net:``, against
the sweep's opponents, in the same game at the same table) is drawn on the same axes as a dashed line:
a learned agent has no tolerance, only the place its play puts it.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.common.files import write_figure
from agents.games import tables
from sobek_env.registry import load_game

LEARNED = ("ppo:", "net:")  # the specs of learned agents, drawn as dashed lines
MAX_REPORT_BYTES = 64 * 1024 * 1024  # a 2,000-game evaluate.json with every game is a few MB
NUMBERS = ("win_rate", "win_low", "win_high", "score_mean")


@dataclass(frozen=True)
class Sweep:
    """One game's sweep: its game, table, opponents, the swept key and a row of results per value."""

    path: Path
    game: str
    players: int
    opponents: tuple[str, ...]
    key: str
    values: list[float]
    rows: list[dict[str, float]]


@dataclass(frozen=True)
class Learned:
    """A learned agent's row from an evaluate.json, with the table it was measured at."""

    path: Path
    game: str
    players: int
    label: str
    opponents: tuple[str, ...]
    row: dict[str, float]


def read_report(path: Path) -> dict:
    """An evaluate.py JSON report; ValueError naming the file when it is too large or not JSON."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_REPORT_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"{str(path)!r} cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_REPORT_BYTES:
        raise ValueError(f"{str(path)!r} is larger than the {MAX_REPORT_BYTES:,} bytes of an evaluate.py report")
    try:
        report = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise ValueError(f"{str(path)!r} is not JSON") from None
    if not isinstance(report, dict):
        raise ValueError(f"{str(path)!r} is not an evaluate.py report (not a JSON object)")
    return report


def _field(report: dict, path: Path, name: str, kind: type | tuple[type, ...]) -> object:
    value = report.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ValueError(f"{str(path)!r} is not an evaluate.py report of the right kind: {name!r} is missing or "
                         f"not {getattr(kind, '__name__', 'of the right type')}")
    return value


def _numbers(row: object, path: Path, names: Sequence[str]) -> dict[str, float]:
    if not isinstance(row, dict):
        raise ValueError(f"{str(path)!r}: a result row is not an object")
    out = {}
    for name in names:
        value = row.get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
            raise ValueError(f"{str(path)!r}: a result row has no finite number {name!r}")
        out[name] = float(value)
    return out


def _game(report: dict, path: Path) -> tuple[str, int, str]:
    """The report's game, players, and the game's penalty-rate column (ValueError if the game has none)."""
    game = _field(report, path, "game", str)
    try:
        info = load_game(game)
    except (KeyError, ValueError):
        raise ValueError(f"{str(path)!r}: unknown game {game!r}") from None
    penalty_rate = tables(info).penalty_rate
    if penalty_rate is None:
        raise ValueError(f"{str(path)!r}: {info.title} names no penalty rate to study")
    return info.name, _field(report, path, "players", int), penalty_rate[0]


def read_sweep(path: Path) -> Sweep:
    """A sweep.json of evaluate.py, checked; ValueError naming the file and what is wrong."""
    report = read_report(path)
    game, players, rate = _game(report, path)
    sweep = _field(report, path, "sweep", dict)
    if len(sweep) != 1:
        raise ValueError(f"{str(path)!r} is not a sweep.json: 'sweep' must name one key")
    (key, values), = sweep.items()
    try:
        numbers = [float(v) for v in values]
    except (TypeError, ValueError):
        raise ValueError(f"{str(path)!r}: the swept values of {key!r} must be numbers") from None
    results = _field(report, path, "results", list)
    if len(results) != len(numbers) or not results:
        raise ValueError(f"{str(path)!r}: one result per swept value expected")
    rows = [_numbers(row, path, (*NUMBERS, rate)) for row in results]
    opponents = tuple(str(o) for o in _field(report, path, "opponents", list))
    return Sweep(path, game, players, opponents, key, numbers, rows)


def read_learned(path: Path) -> Learned:
    """The learned agent's row of an evaluate.json (exactly one agent of the table must be learned: a ``ppo:``
    model or a ``net:`` network)."""
    report = read_report(path)
    game, players, rate = _game(report, path)
    agents = [str(a) for a in _field(report, path, "agents", list)]
    summary = _field(report, path, "summary", list)
    learned = [i for i, spec in enumerate(agents) if spec.startswith(LEARNED)]
    if len(learned) != 1 or len(summary) != len(agents):
        raise ValueError(f"{str(path)!r}: expected one learned agent ({' or '.join(LEARNED)}) among {agents}")
    i = learned[0]
    row = _numbers(summary[i], path, (*NUMBERS, rate))
    label = Path(agents[i].split(":", 1)[1].split(",")[0]).stem
    return Learned(path, game, players, label, tuple(agents[:i] + agents[i + 1:]), row)


def check_pairing(sweeps: Sequence[Sweep], learned: Sequence[Learned]) -> dict[int, list[Learned]]:
    """Each learned report matched to the sweep of its game and table; ValueError when one has none or when
    its opponents differ from the sweep's (the lines would not be comparable)."""
    paired: dict[int, list[Learned]] = {i: [] for i in range(len(sweeps))}
    for item in learned:
        matches = [i for i, s in enumerate(sweeps) if (s.game, s.players) == (item.game, item.players)]
        if not matches:
            raise ValueError(f"{str(item.path)!r}: no sweep of {item.game} with {item.players} players to draw it on")
        sweep = sweeps[matches[0]]
        if sorted(item.opponents) != sorted(sweep.opponents):
            raise ValueError(f"{str(item.path)!r}: its opponents {list(item.opponents)} are not the sweep's "
                             f"{list(sweep.opponents)}")
        paired[matches[0]].append(item)
    return paired


def plot_study(sweeps: Sequence[Sweep], learned: Sequence[Learned], path: Path) -> None:
    """One row per sweep: win rate, score and penalty rate against the swept value, learned agents dashed;
    written as a PNG to ``path`` (aside, then renamed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paired = check_pairing(sweeps, learned)
    fig, axes = plt.subplots(len(sweeps), 3, figsize=(15, 4.2 * len(sweeps)), squeeze=False)
    for r, sweep in enumerate(sweeps):
        info = load_game(sweep.game)
        rate, rate_label = tables(info).penalty_rate
        opponents = ", ".join(sweep.opponents)
        panels = (("win_rate", "win rate"), ("score_mean", "mean final score"), (rate, rate_label))
        for c, (column, label) in enumerate(panels):
            ax = axes[r][c]
            if column == "win_rate":
                ax.fill_between(sweep.values, [row["win_low"] for row in sweep.rows],
                                [row["win_high"] for row in sweep.rows], alpha=0.25, color="C0")
                ax.axhline(1 / sweep.players, color="0.6", linestyle=":", linewidth=1)
            ax.plot(sweep.values, [row[column] for row in sweep.rows], "o-", color="C0", label="heuristic")
            for k, item in enumerate(paired[r]):
                ax.axhline(item.row[column], color=f"C{k + 1}", linestyle="--", label=f"learned ({item.label})")
            if column in ("win_rate", rate):
                ax.set_ylim(0, 1)
            ax.set_xlabel(sweep.key)
            ax.set_ylabel(label)
            ax.set_title(f"{info.title if c == 0 else ''}{': ' if c == 0 else ''}{label}"
                         + (f"\n{sweep.players} players, against {opponents}" if c == 0 else ""), fontsize=10)
            ax.legend(loc="best", fontsize=8)
    write_figure(fig, path, 100)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="sobek-env study", description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n".join(__doc__.splitlines()[2:]))
    parser.add_argument("sweeps", nargs="+", type=Path, metavar="SWEEP_JSON", help="evaluate.py --sweep reports")
    parser.add_argument("--learned", nargs="*", type=Path, default=[], metavar="EVALUATE_JSON",
                        help="evaluate.py reports of a learned agent (ppo: or net:) against a sweep's opponents")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    args = parser.parse_args(argv)
    try:
        sweeps = [read_sweep(p) for p in args.sweeps]
        learned = [read_learned(p) for p in args.learned]
        check_pairing(sweeps, learned)
    except ValueError as exc:
        parser.error(str(exc))
    plot_study(sweeps, learned, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
