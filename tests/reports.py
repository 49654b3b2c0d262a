"""Comparing evaluate.py's reports between runs of the same tournament (used by tests and tests_ray)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

RUN_KEYS = ("command", "workers", "backend")                     # how the run was made
MEASURED = ("seconds_per_decision", "decisions", "seconds")      # CPU times, and the decisions they were over


def results(out: Path, name: str = "evaluate") -> tuple[dict, list[dict]]:
    """A run's report and CSV rows, less what may differ between runs of the same tournament: how the run
    was made (command, workers, backend) and the CPU times."""
    report = json.loads((out / f"{name}.json").read_text())
    for key in RUN_KEYS:
        report.pop(key, None)
    for row in [*report.get("summary", report.get("results", [])), *report.get("games_played", [])]:
        for key in MEASURED:
            row.pop(key, None)
    rows = [{k: v for k, v in row.items() if k not in MEASURED} for row in csv.DictReader((out / f"{name}.csv").open())]
    return report, rows
