"""The evaluation tool: statistics on known inputs, seat rotation, reproducibility, agent specs, the CLI."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from agents import RandomAgent, make
from agents.registry import with_option
from agents.tournament import (
    GameRecord,
    labels_for,
    play_tournament,
    ratings,
    seating_for,
    summarize,
    wilson_interval,
)

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize(("successes", "trials", "low", "high"), [
    (50, 100, 0.40383, 0.59617),  # centre 0.5, half-width 1.96 / 1.038415 * sqrt(0.0025 + 0.000096)
    (0, 10, 0.0, 0.27753),        # upper = (z²/n) / (1 + z²/n) = 0.38415 / 1.38415
    (10, 10, 0.72247, 1.0),
])
def test_wilson_interval_matches_hand_computed_values(successes: int, trials: int, low: float, high: float) -> None:
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=1e-5)


def test_wilson_interval_rejects_impossible_counts() -> None:
    with pytest.raises(ValueError, match="trials"):
        wilson_interval(1, 0)
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(11, 10)


def record(index: int, seating: tuple[int, ...], scores: tuple[int, ...], rounds: tuple[dict, ...] = ()) -> GameRecord:
    best = max(scores)
    return GameRecord(index, index, seating, scores, tuple(s for s, v in enumerate(scores) if v == best), rounds)


def test_rating_orders_agents_by_their_results() -> None:
    # agent 0 always first, agent 1 second, agent 2 last, whatever the seats
    records = [record(i, seating_for(i, 3), tuple(30 - 10 * a for a in seating_for(i, 3))) for i in range(12)]
    mu = [m for m, _ in ratings(records, 3)]
    assert mu[0] > mu[1] > mu[2]
    tied = [record(i, seating_for(i, 2), (20, 20)) for i in range(4)]
    assert ratings(tied, 2)[0] == pytest.approx(ratings(tied, 2)[1])


def test_summary_counts_shared_wins_and_penalties_per_agent() -> None:
    log = {"round": 1, "points": [12, 4], "corruption": [6, 2], "most_corrupt": [0], "penalty": [5, 0]}
    records = [
        record(0, (0, 1), (30, 10), (log,)),   # agent 0 at seat 0 wins; it was most corrupt and paid 5
        record(1, (1, 0), (20, 20), (log,)),   # a shared win; agent 0 at seat 1
    ]
    first, second = summarize(records, ["heuristic", "random"])
    assert (first.wins, second.wins) == (1.5, 0.5)
    assert first.win_rate == 0.75
    assert (first.score_mean, second.score_mean) == (25.0, 15.0)
    assert first.points_per_round == 8.0      # 12 at seat 0, then 4 at seat 1
    assert first.corruption_per_round == 4.0
    assert first.most_corrupt_rate == second.most_corrupt_rate == 0.5
    assert first.penalty_per_game == second.penalty_per_game == 2.5


def test_repeated_specs_get_numbered_labels() -> None:
    assert labels_for(["heuristic", "random", "random"]) == ["heuristic", "random#1", "random#2"]


# ---------------------------------------------------------------- playing


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_every_agent_sits_in_every_seat_equally(num_players: int) -> None:
    seats = Counter((agent, seat) for game in range(3 * num_players)
                    for seat, agent in enumerate(seating_for(game, num_players)))
    assert set(seats.values()) == {3}
    assert len(seats) == num_players ** 2


def test_same_seeds_give_the_same_games_with_any_number_of_workers() -> None:
    specs = ["heuristic", "random", "greedy"]
    one = play_tournament(specs, 6, seed=11, workers=1)
    two = play_tournament(specs, 6, seed=11, workers=2)
    assert one == two
    assert [r.seed for r in one] == list(range(11, 17))
    assert Counter(r.seat_of(0) for r in one) == {0: 2, 1: 2, 2: 2}
    assert all(r.rounds and r.winners for r in one)
    assert play_tournament(specs, 6, seed=12)[0] != one[0]


def test_tournament_needs_a_multiple_of_the_players() -> None:
    with pytest.raises(ValueError, match="multiple"):
        play_tournament(["random", "random"], 3)


# ---------------------------------------------------------------- agent specs


def test_make_builds_the_baselines() -> None:
    assert isinstance(make("random", seed=1), RandomAgent)
    assert make("greedy").name
    assert make("heuristic:tolerance=0.3").tolerance == 0.3
    assert with_option("heuristic", "tolerance", "0.5") == "heuristic:tolerance=0.5"
    assert with_option("heuristic:tolerance=0.1", "tolerance", "0.5") == "heuristic:tolerance=0.5"


@pytest.mark.parametrize(("spec", "error", "message"), [
    ("alphazero", ValueError, "unknown agent 'alphazero'.*use one of random, greedy, heuristic, ppo"),
    ("heuristic:tolerance=abc", ValueError, "tolerance must be a number"),
    ("heuristic:tolerance=2", ValueError, "tolerance must be from 0 to 1"),
    ("heuristic:tolerance", ValueError, "write key=value"),
    ("heuristic:=0.3", ValueError, "write key=value"),
    ("heuristic:speed=3", ValueError, "unknown argument 'speed'"),
    ("heuristic:tolerance=1,tolerance=0", ValueError, "given twice"),
    ("random:seed=3", ValueError, "takes no arguments"),
    ("ppo", ValueError, "needs a model path"),
    ("ppo:missing/model.zip", FileNotFoundError, "'missing/model.zip'.*not found"),
    ("ppo:missing/model.zip,deterministic=maybe", ValueError, "deterministic must be true or false"),
    ("", ValueError, "empty agent spec"),
])
def test_bad_specs_raise_clear_errors(spec: str, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        make(spec)


# ---------------------------------------------------------------- command line


def evaluate(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "evaluate.py"), *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize(("args", "message"), [
    ("--players 2 --games 4 --agents random wizard", "unknown agent 'wizard'"),
    ("--players 2 --games 0 --agents random random", "--games: must be at least 1"),
    ("--players 5 --games 5 --agents random", "--players: invalid choice: 5"),
    ("--players 3 --games 6 --agents random random", "exactly one spec per seat"),
    ("--players 2 --games 3 --agents random random", "not a multiple of --players 2"),
    ("--players 2 --games 4 --agents random ppo:nowhere.zip", "'nowhere.zip'.*not found"),
    ("--players 2 --games 4 --agents heuristic --vs random --sweep tolerance", "expected KEY=V1,V2"),
    ("--players 2 --games 4 --agents heuristic --vs random --sweep tolerance=0,x", "tolerance must be a number"),
    ("--players 2 --games 4 --agents random random --out /proc/sobek", "cannot write results to --out"),
])
def test_cli_rejects_bad_input_with_exit_2(args: str, message: str) -> None:
    result = evaluate(*args.split())
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("evaluate.py: error: ")
    assert re.search(message, last), last


def test_cli_plays_a_small_tournament_end_to_end(tmp_path: Path) -> None:
    result = evaluate("--players", "2", "--games", "8", "--agents", "random", "random",
                      "--out", str(tmp_path), "--workers", "2", "--seed", "5")
    assert result.returncode == 0, result.stderr
    assert "random#1" in result.stdout and "95% CI" in result.stdout
    rows = list(csv.DictReader((tmp_path / "evaluate.csv").open()))
    assert [row["label"] for row in rows] == ["random#1", "random#2"]
    assert sum(float(row["wins"]) for row in rows) == pytest.approx(8)
    report = json.loads((tmp_path / "evaluate.json").read_text())
    assert report["command"].startswith("python evaluate.py --players 2 --games 8")
    assert [game["seed"] for game in report["games_played"]] == list(range(5, 13))


def test_cli_sweep_writes_a_plot(tmp_path: Path) -> None:
    result = evaluate("--players", "2", "--games", "4", "--agents", "heuristic", "--vs", "random",
                      "--sweep", "tolerance=0,1", "--out", str(tmp_path), "--workers", "1")
    assert result.returncode == 0, result.stderr
    assert "tolerance=0" in result.stdout and "tolerance=1" in result.stdout
    assert (tmp_path / "sweep.png").stat().st_size > 0
    rows = list(csv.DictReader((tmp_path / "sweep.csv").open()))
    assert [row["tolerance"] for row in rows] == ["0", "1"]
