"""Learning curves of training runs side by side: each run's periodic win rates against the baselines (its
eval.csv, as train.py writes it with either backend), with their 95% intervals.

    sobek-env curves --out docs/rllib_curve.png RLlib=runs/rllib-2p/eval.csv SB3=models/ppo-2p.eval.csv

One panel per baseline (random, heuristic); the x axis is the steps each run had learned from, in thousands.
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


def read_curve(path: Path) -> list[dict[str, float]]:
    """The rows of an eval.csv as numbers (timesteps and each baseline's win rate, low and high); ValueError
    naming the file and what is missing or not a number."""
    with open(path, "rb") as file:
        text = file.read(MAX_CSV_BYTES + 1)
    if len(text) > MAX_CSV_BYTES:
        raise ValueError(f"{str(path)!r} is larger than the {MAX_CSV_BYTES:,} bytes of an eval.csv")
    reader = csv.DictReader(io.StringIO(text.decode(errors="replace")))
    columns = ["timesteps", *(f"{b}_{k}" for b in EVAL_BASELINES for k in ("win_rate", "low", "high"))]
    missing = [column for column in columns if column not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"{str(path)!r} is not an eval.csv of train.py: it has no column {missing[0]!r}")
    rows = []
    for number, row in enumerate(reader, start=2):
        try:
            values = {column: float(row[column]) for column in columns}
        except (TypeError, ValueError):
            raise ValueError(f"{str(path)!r} line {number}: {columns} must be numbers") from None
        if not all(math.isfinite(v) for v in values.values()) or values["timesteps"] < 0:
            raise ValueError(f"{str(path)!r} line {number}: values must be finite, timesteps 0 or more")
        rows.append(values)
    if not rows:
        raise ValueError(f"{str(path)!r} holds no evaluation")
    return rows


def plot_curves(curves: Sequence[tuple[str, list[dict[str, float]]]], path: Path, title: str = "") -> None:
    """One panel per baseline: each curve's win rate against the steps (in thousands), with its 95% interval shaded;
    written as a PNG to ``path`` (aside, then renamed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(EVAL_BASELINES), figsize=(6 * len(EVAL_BASELINES), 4.5), squeeze=False)
    for ax, baseline in zip(axes[0], EVAL_BASELINES):
        for i, (label, rows) in enumerate(curves):
            steps = [row["timesteps"] / 1000 for row in rows]
            colour = f"C{i}"
            ax.fill_between(steps, [r[f"{baseline}_low"] for r in rows], [r[f"{baseline}_high"] for r in rows],
                            color=colour, alpha=0.2)
            ax.plot(steps, [r[f"{baseline}_win_rate"] for r in rows], "o-", color=colour, label=label, markersize=4)
        ax.set_xlim(left=0)
        ax.set_ylim(0, 1)
        ax.axhline(0.5, color="0.6", linestyle=":", linewidth=1)
        ax.set_xlabel("steps learned from (thousands)")
        ax.set_ylabel("win rate (95% interval)")
        ax.set_title(f"against {baseline}", fontsize=10)
        ax.legend(loc="lower right", fontsize=8)
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
    args = parser.parse_args(argv)
    with one_line_errors(parser):
        curves = [(label, read_curve(path)) for label, path in args.curves]
    plot_curves(curves, args.out, args.title)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
