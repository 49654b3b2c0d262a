"""Learning curves of training runs side by side: each run's periodic win rates against the baselines (its
eval.csv, as train.py writes it with either backend or with ``--algo exit``), with their 95% intervals.

    sobek-env curves --out docs/rllib_curve.png RLlib=runs/rllib-2p/eval.csv SB3=models/ppo-2p.eval.csv
    sobek-env curves --x cpu-hours --out docs/exit_sobek.png 2p=models/sobek-net-2p.eval.csv

One panel per baseline (random, heuristic). The x axis is the steps each run had learned from, in thousands
(``--x steps``, PPO's logs), or the CPU hours the run had spent (``--x cpu-hours``: expert iteration's logs,
and PPO's since it records them; a PPO run started from a network counts that network's hours too). Expert
iteration's logs also give the heuristic's share of the wins on the same deals in its seats: a dashed line of the
curve's colour). By default it is the steps if every log has them, else the CPU hours. A dotted line marks the
even share of the wins at the table, ``1 / --players`` (default 2 players: one half).
"""

from __future__ import annotations

import argparse
import csv
import io
import math
from collections.abc import Sequence
from pathlib import Path

from agents.common.arguments import EVAL_BASELINES, one_line_errors
from agents.common.files import write_figure

MAX_CSV_BYTES = 4 * 1024 * 1024


X_AXES = {"steps": ("timesteps", "steps learned from (thousands)", 1000),
          "cpu-hours": ("cpu_hours", "CPU hours", 1)}  # --x: the column, the axis's label, its unit
# PPO's columns as expert iteration names them: each baseline's win rate is its share of the wins
EXIT_COLUMNS = {f"{b}_win_rate": f"{b}_share" for b in EVAL_BASELINES}


def read_curve(path: Path) -> list[dict[str, float]]:
    """The rows of an eval.csv as numbers: each baseline's win rate, low and high, and the timesteps (PPO) or
    the CPU hours and the heuristic's own share on the same deals (expert iteration: its rows without an
    evaluation are skipped); ValueError naming the file and what is missing or not a number."""
    with open(path, "rb") as file:
        text = file.read(MAX_CSV_BYTES + 1)
    if len(text) > MAX_CSV_BYTES:
        raise ValueError(f"{str(path)!r} is larger than the {MAX_CSV_BYTES:,} bytes of an eval.csv")
    reader = csv.DictReader(io.StringIO(text.decode(errors="replace")))
    fields = reader.fieldnames or []
    exit_log = "iteration" in fields
    rates = [f"{b}_{k}" for b in EVAL_BASELINES for k in ("win_rate", "low", "high")]
    if exit_log:
        names = {**{rate: EXIT_COLUMNS.get(rate, rate) for rate in rates},
                 "cpu_hours": "cpu_hours", "heuristic_baseline": "heuristic_baseline"}
    else:  # PPO's: the steps, and the CPU hours where it recorded them
        names = {"timesteps": "timesteps", **{rate: rate for rate in rates}}
        if "cpu_hours" in fields:
            names["cpu_hours"] = "cpu_hours"
    missing = [column for column in names.values() if column not in fields]
    if missing:
        raise ValueError(f"{str(path)!r} is not an eval.csv of train.py: it has no column {missing[0]!r}")
    rows = []
    for number, row in enumerate(reader, start=2):
        if exit_log and not row.get(names["heuristic_win_rate"]):
            continue  # an iteration not evaluated (--eval-games 0)
        try:
            values = {key: float(row[column]) for key, column in names.items()}
        except (TypeError, ValueError):
            raise ValueError(f"{str(path)!r} line {number}: {list(names.values())} must be numbers") from None
        if not all(math.isfinite(v) for v in values.values()) or values.get("timesteps", 0) < 0:
            raise ValueError(f"{str(path)!r} line {number}: values must be finite, timesteps 0 or more")
        rows.append(values)
    if not rows:
        raise ValueError(f"{str(path)!r} holds no evaluation")
    return rows


def x_axis(curves: Sequence[tuple[str, list[dict[str, float]]]], wanted: str | None) -> str:
    """The x axis (a key of :data:`X_AXES`) for ``curves``: ``wanted``, else the steps if every curve has them;
    ValueError naming a curve that lacks it."""
    axis = wanted or ("steps" if all("timesteps" in rows[0] for _, rows in curves) else "cpu-hours")
    column = X_AXES[axis][0]
    for label, rows in curves:
        if column not in rows[0]:
            raise ValueError(f"the curve {label!r} has no column {column!r} for --x {axis} (a PPO log has "
                             "timesteps, and CPU hours if written since they are recorded; an expert iteration's "
                             "log, CPU hours)")
    return axis


def plot_curves(curves: Sequence[tuple[str, list[dict[str, float]]]], path: Path, title: str = "",
                axis: str = "steps", players: int = 2) -> None:
    """One panel per baseline: each curve's win rate against ``axis`` (:data:`X_AXES`), with its 95% interval
    shaded, the heuristic's share on the same deals where the log gives it, and the even share ``1 / players``;
    written as a PNG to ``path`` (aside, then renamed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(EVAL_BASELINES), figsize=(6 * len(EVAL_BASELINES), 4.5), squeeze=False)
    for ax, baseline in zip(axes[0], EVAL_BASELINES):
        column, xlabel, unit = X_AXES[axis]
        for i, (label, rows) in enumerate(curves):
            xs = [row[column] / unit for row in rows]
            colour = f"C{i}"
            ax.fill_between(xs, [r[f"{baseline}_low"] for r in rows], [r[f"{baseline}_high"] for r in rows],
                            color=colour, alpha=0.2)
            ax.plot(xs, [r[f"{baseline}_win_rate"] for r in rows], "o-", color=colour, label=label, markersize=4)
            if baseline == "heuristic" and "heuristic_baseline" in rows[0]:
                ax.plot(xs, [r["heuristic_baseline"] for r in rows], "x--", color=colour, linewidth=1,
                        label=f"{label}: the heuristic in its seats")  # a mark: a one-row log draws no line
        ax.set_xlim(left=0)
        ax.set_ylim(0, 1)
        ax.axhline(1 / players, color="0.6", linestyle=":", linewidth=1, label=f"even share (1/{players})")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("win rate (95% interval)")
        ax.set_title(f"against {baseline}", fontsize=10)
        ax.legend(loc="best", fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    write_figure(fig, path, 110)


def curve_argument(text: str) -> tuple[str, Path]:
    """argparse type: ``LABEL=PATH``."""
    label, eq, path = text.partition("=")
    if not eq or not label.strip() or not path.strip():
        raise argparse.ArgumentTypeError(f"expected LABEL=PATH (e.g. RLlib=runs/r/eval.csv), got {text!r}")
    return label.strip(), Path(path.strip())


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="sobek-env curves", description=__doc__.split("\n\n")[0])
    parser.add_argument("curves", nargs="+", type=curve_argument, metavar="LABEL=PATH", help="a run's eval.csv")
    parser.add_argument("--out", type=Path, required=True, help="the PNG to write")
    parser.add_argument("--title", default="", help="the figure's title")
    parser.add_argument("--x", choices=X_AXES, help="the x axis (default: steps if every log has them, else "
                                                   "CPU hours)")
    parser.add_argument("--players", type=int, choices=range(2, 6), default=2, metavar="N",
                        help="players at the table: the dotted line is the even share 1/N (2 to 5; default 2)")
    args = parser.parse_args(argv)
    with one_line_errors(parser):
        curves = [(label, read_curve(path)) for label, path in args.curves]
        axis = x_axis(curves, args.x)
    plot_curves(curves, args.out, args.title, axis, args.players)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
