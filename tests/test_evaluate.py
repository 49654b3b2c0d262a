"""The evaluation tool: statistics on known inputs, seat rotation, reproducibility, agent specs, the CLI."""

from __future__ import annotations

import csv
import errno
import json
import os
import re
import signal
import subprocess
import sys
import tracemalloc
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from processes import group, pool_workers, wait_for
from reports import results

from agents import RandomAgent, make
from agents.common.files import DirectoryLock
from agents.common.workers import Interrupted, signals_held, sigterm_as_interrupt
from agents.players.registry import with_option
from agents.tournaments.evaluation import GamesFile, main
from agents.tournaments.tournament import (
    GameRecord,
    format_table,
    labels_for,
    play_tournament,
    ratings,
    seating_for,
    summarize,
    wilson_interval,
)
from sobek_env import load_game

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
    """A game's record, its per-seat statistics those Sobek's game object derives from a round log."""
    best = max(scores)
    state = SimpleNamespace(round_log=list(rounds), num_players=len(scores))
    return GameRecord(index, index, seating, scores, tuple(s for s, v in enumerate(scores) if v == best),
                      tuple(load_game("sobek").statistics(state)))


def test_every_game_times_each_agents_decisions_and_the_table_shows_it(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    """The records keep each seat's decisions with a choice and their CPU seconds; a search spends far
    more on a decision than chance does, and records of older runs, without times, load and are left out."""
    evaluate("--players", "2", "--games", "2", "--agents", "ismcts:settings=none,simulations=50", "random",
             "--out", str(tmp_path), "--workers", "1")
    table = capsys.readouterr().out
    assert "CPU ms/decision" in table.splitlines()[2]
    games = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()[1:]]
    assert all(len(g["decisions"]) == 2 and min(g["decisions"]) > 10 for g in games)
    search, chance = json.loads((tmp_path / "evaluate.json").read_text())["summary"]
    assert search["seconds_per_decision"] > 20 * chance["seconds_per_decision"] > 0
    assert (search["timed_games"], chance["timed_games"]) == (2, 2)
    old = {k: v for k, v in games[0].items() if k not in ("decisions", "seconds", "table")}
    new = {k: v for k, v in games[1].items() if k != "table"}
    loaded = [GameRecord.from_dict(old, 2), GameRecord.from_dict(new, 2)]
    assert loaded[0].decisions == () and loaded[1].decisions == tuple(games[1]["decisions"])
    summary = summarize(loaded, ["ismcts:settings=none,simulations=50", "random"])[0]
    assert summary.timed_games == 1 and summary.seconds_per_decision == games[1]["seconds"][loaded[1].seat_of(0)] / \
        games[1]["decisions"][loaded[1].seat_of(0)]
    assert "(1 timed game)" in format_table([summary])
    for bad, message in [({"decisions": [1, -1]}, "decisions: must be a list of 2 integers from 0"),
                         ({"seconds": [0.1]}, "seconds: must be a list of 2 numbers from 0"),
                         ({"decisions": [1, 2], "seconds": None, "extra": 1}, "and decisions, seconds, or neither")]:
        with pytest.raises(ValueError, match=message):
            GameRecord.from_dict({**old, "decisions": [1, 2], "seconds": [0.1, 0.2], **bad}, 2)


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
    assert all(r.stats[0]["rounds"] and r.winners for r in one)
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


def test_a_model_path_may_hold_commas_and_a_directory_is_named_as_such(tmp_path: Path) -> None:
    model = tmp_path / "lr=3e-4,seed=2" / "a,b.zip"
    model.parent.mkdir()
    model.write_bytes((ROOT / "models" / "ppo-2p.zip").read_bytes())
    assert make(f"ppo:{model}", num_players=2).deterministic
    assert not make(f"ppo:{model},deterministic=false", num_players=2).deterministic
    assert with_option(f"ppo:{model}", "deterministic", "false") == f"ppo:{model},deterministic=false"
    with pytest.raises(IsADirectoryError, match=rf"'{re.escape(str(model.parent))}' .* is a directory; give the "
                                                "model file in it"):
        make(f"ppo:{model.parent}")
    (model.parent / "model.zip").write_bytes(model.read_bytes())
    with pytest.raises(IsADirectoryError, match=re.escape(f"e.g. ppo:{model.parent / 'model.zip'}")):
        make(f"ppo:{model.parent}")
    with pytest.raises(FileNotFoundError, match="options follow the path as key=value"):
        make(f"ppo:{model},deterministic")


# ---------------------------------------------------------------- command line


def evaluate(*args: str) -> None:
    """evaluate.py with these arguments, in this process."""
    main(list(args))


@pytest.mark.parametrize(("args", "message"), [
    ("--players 2 --games 4 --agents random wizard", "unknown agent 'wizard'"),
    ("--players 2 --games 0 --agents random random", "--games: must be at least 1"),
    ("--players 5 --games 5 --agents random", "--players: Sobek is for 2 to 4 players, got 5"),
    ("--game kleo --players 3 --agents random random random", "--game: invalid choice: 'kleo'"),
    ("--players 3 --games 6 --agents random random", "exactly one spec per seat"),
    ("--players 2 --games 3 --agents random random", "not a multiple of --players 2"),
    ("--players 2 --games 4 --agents random ppo:nowhere.zip", "'nowhere.zip'.*not found"),
    ("--players 2 --games 4 --agents heuristic --vs random --sweep tolerance", "expected KEY=V1,V2"),
    ("--players 2 --games 4 --agents heuristic --vs random --sweep tolerance=0,x", "tolerance must be a number"),
    ("--players 2 --games 4 --agents random random --out /proc/sobek", "cannot write results to --out"),
])
def test_cli_rejects_bad_input_with_exit_2(args: str, message: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        evaluate(*args.split())
    assert exit_info.value.code == 2
    stderr = capsys.readouterr().err
    assert "Traceback" not in stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("sobek-env evaluate: error: ")
    assert re.search(message, last), last


def test_cli_plays_a_small_tournament_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    evaluate("--players", "2", "--games", "8", "--agents", "random", "random",
             "--out", str(tmp_path), "--workers", "2", "--seed", "5")
    stdout = capsys.readouterr().out
    assert "random#1" in stdout and "95% CI" in stdout
    rows = list(csv.DictReader((tmp_path / "evaluate.csv").open()))
    assert [row["label"] for row in rows] == ["random#1", "random#2"]
    assert sum(float(row["wins"]) for row in rows) == pytest.approx(8)
    report = json.loads((tmp_path / "evaluate.json").read_text())
    assert report["command"].startswith("sobek-env evaluate --players 2 --games 8")
    assert [game["seed"] for game in report["games_played"]] == list(range(5, 13))


def test_cli_sweep_writes_a_plot(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    evaluate("--players", "2", "--games", "4", "--agents", "heuristic", "--vs", "random",
             "--sweep", "tolerance=0,1", "--out", str(tmp_path), "--workers", "1")
    stdout = capsys.readouterr().out
    assert "tolerance=0" in stdout and "tolerance=1" in stdout
    assert (tmp_path / "sweep.png").stat().st_size > 0
    rows = list(csv.DictReader((tmp_path / "sweep.csv").open()))
    assert [row["tolerance"] for row in rows] == ["0", "1"]


def test_cli_sweep_of_kleopatra_plots_amulets_and_the_crocodile(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    """Kleopatra's corruption study: the swept heuristic's amulets and how often it was eaten (this once
    crashed after the games: Kleopatra named no corruption axes)."""
    evaluate("--game", "kleopatra", "--players", "3", "--games", "3", "--agents", "heuristic", "--vs", "random",
             "--sweep", "tolerance=0,1", "--out", str(tmp_path), "--workers", "1")
    stdout = capsys.readouterr().out
    assert "tolerance=0" in stdout and "eaten" in stdout
    assert (tmp_path / "sweep.png").read_bytes().startswith(b"\x89PNG")
    rows = list(csv.DictReader((tmp_path / "sweep.csv").open()))
    assert [row["tolerance"] for row in rows] == ["0", "1"]
    assert all(0 <= float(row["eliminated_rate"]) <= 1 and float(row["amulets"]) >= 0 for row in rows)


# ---------------------------------------------------------------- interrupted, resumed and concurrent runs




def interrupt(out: Path, whole_lines: int) -> None:
    """Make ``out`` as a run killed after ``whole_lines`` games, in the middle of writing the next one."""
    lines = (out / "games.jsonl").read_bytes().splitlines(keepends=True)
    (out / "games.jsonl").write_bytes(b"".join(lines[:1 + whole_lines]) + lines[1 + whole_lines][:40])
    for result in out.glob("*.json"):
        result.unlink()


@pytest.mark.parametrize("workers", [1, 2])
def test_a_resumed_tournament_gives_the_results_of_an_uninterrupted_one(tmp_path: Path, workers: int,
                                                                          capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "3", "--games", "12", "--agents", "heuristic", "greedy", "random", "--seed", "4"]
    evaluate(*arguments, "--out", str(tmp_path / "whole"), "--workers", "2")
    evaluate(*arguments, "--out", str(tmp_path / "cut"), "--workers", "1")
    interrupt(tmp_path / "cut", 5)
    capsys.readouterr()
    evaluate(*arguments, "--out", str(tmp_path / "cut"), "--workers", str(workers), "--resume")
    assert "resuming: 5 of 12 games already played" in capsys.readouterr().out
    assert results(tmp_path / "cut") == results(tmp_path / "whole")
    assert len((tmp_path / "cut" / "games.jsonl").read_text().splitlines()) == 1 + 12


def test_a_resumed_sweep_gives_the_results_of_an_uninterrupted_one(tmp_path: Path) -> None:
    arguments = ["--players", "2", "--games", "4", "--agents", "heuristic", "--vs", "random",
                 "--sweep", "tolerance=0,0.5,1"]
    evaluate(*arguments, "--out", str(tmp_path / "whole"), "--workers", "1")
    evaluate(*arguments, "--out", str(tmp_path / "cut"), "--workers", "1")
    interrupt(tmp_path / "cut", 6)  # in the middle of the second value's games
    evaluate(*arguments, "--out", str(tmp_path / "cut"), "--workers", "2", "--resume")
    assert results(tmp_path / "cut", "sweep") == results(tmp_path / "whole", "sweep")


def test_resume_refuses_other_arguments_and_a_new_run_refuses_an_unfinished_tournament(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "2", "--agents", "random", "greedy", "--out", str(tmp_path), "--workers", "1"]
    evaluate(*arguments, "--games", "8")
    interrupt(tmp_path, 3)
    for extra, message in [
        (["--games", "10", "--resume"], "--resume continues the tournament in --out with its own arguments: "
                                        "--games 10 differs from its 8; give them as they were"),
        (["--games", "8"], "holds an unfinished tournament (3 of 8 games); continue it with --resume"),
        (["--games", "8", "--agents", "random", "random", "--resume"], "--agents random random differs from its "
                                                                       "random greedy"),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            evaluate(*arguments, *extra)
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        evaluate("--players", "2", "--games", "2", "--agents", "random", "random", "--out", str(tmp_path / "new"),
                 "--resume")
    assert "no tournament to resume" in capsys.readouterr().err


def test_a_second_run_on_the_same_out_is_refused_at_once(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    with DirectoryLock(tmp_path):  # another run holding --out
        with pytest.raises(SystemExit) as exit_info:
            evaluate("--players", "2", "--games", "2", "--agents", "random", "random", "--out", str(tmp_path),
                     "--workers", "1")
        assert exit_info.value.code == 2
        assert f"--out {str(tmp_path)!r} is in use by another run (process {os.getpid()})" in capsys.readouterr().err
        assert not (tmp_path / "games.jsonl").exists()
    evaluate("--players", "2", "--games", "2", "--agents", "random", "random", "--out", str(tmp_path),
             "--workers", "1")
    assert not list(tmp_path.glob(".*.tmp")) and not (tmp_path / ".write-test").exists()


def start_evaluation(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "evaluate.py", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def game_lines(out: Path) -> int:
    path = out / "games.jsonl"
    return path.read_bytes().count(b"\n") - 1 if path.exists() else 0


@pytest.fixture
def sessions() -> list[subprocess.Popen]:
    started: list[subprocess.Popen] = []
    yield started
    for process in started:
        for pid in group(process.pid):
            os.kill(pid, signal.SIGKILL)
        process.wait(10)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")
def test_a_killed_worker_ends_the_run_clearly_keeping_its_games(tmp_path: Path, sessions: list,
                                                               capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "2", "--games", "400", "--agents", "random", "random", "--workers", "2"]
    out = tmp_path / "cut"
    process = start_evaluation(*arguments, "--out", str(out))
    sessions.append(process)
    wait_for(lambda: game_lines(out) >= 20 or process.poll() is not None, 120, "the first games")
    with pytest.raises(SystemExit):  # meanwhile, a second run on the same --out
        evaluate(*arguments, "--out", str(out))
    assert "is in use by another run" in capsys.readouterr().err
    workers = pool_workers(process.pid)
    assert len(workers) == 2, process.communicate()
    os.kill(workers[0], signal.SIGKILL)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 1 and "Traceback" not in err, err
    kept = game_lines(out)
    assert err.strip().splitlines()[-1] == (
        "sobek-env evaluate: error: a worker process of the tournament died while playing (killed, or out of memory); "
        f"the {kept:,} games played are kept in {out / 'games.jsonl'}; continue with: sobek-env evaluate "
        f"{' '.join(arguments)} --out {out} --resume")
    assert 20 <= kept < 400
    wait_for(lambda: not group(process.pid), 10, "the other worker to end")
    evaluate(*arguments, "--out", str(out), "--resume")
    evaluate(*arguments, "--out", str(tmp_path / "whole"))
    assert results(out) == results(tmp_path / "whole")


def test_signals_held_delays_a_stop_to_the_end_of_the_block() -> None:
    reached = []
    with sigterm_as_interrupt():
        handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
        with pytest.raises(Interrupted) as stop:
            with signals_held():
                os.kill(os.getpid(), signal.SIGTERM)
                os.kill(os.getpid(), signal.SIGINT)  # the first to arrive is the one raised
                reached.append("after the kills")
            reached.append("after the block")
        assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == handlers  # given back
    assert reached == ["after the kills"] and stop.value.signum == signal.SIGTERM


def test_a_stop_after_a_game_is_written_lands_after_its_count_and_replay(tmp_path: Path, monkeypatch,
                                                                         capsys: pytest.CaptureFixture) -> None:
    # SIGTERM arriving the moment the third game's line is written: the message counts what the file holds
    # and that game's replay is saved too (the stop waits for the bookkeeping to finish)
    append = GamesFile.append

    def append_then_stop(self: GamesFile, table: int, record) -> None:
        append(self, table, record)
        if self.played == 3:
            os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(GamesFile, "append", append_then_stop)
    out, replays = tmp_path / "out", tmp_path / "replays"
    with pytest.raises(SystemExit) as stop:
        evaluate("--players", "2", "--games", "10", "--agents", "random", "random", "--workers", "1",
                 "--out", str(out), "--save-replays", str(replays))
    assert stop.value.code == 128 + signal.SIGTERM
    assert capsys.readouterr().err.startswith("stopped by SIGTERM; the 3 games played are kept in")
    assert game_lines(out) == 3 and len(list(replays.glob("game-*.jsonl"))) == 3


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")
def test_sigterm_stops_a_tournament_keeping_its_games(tmp_path: Path, sessions: list) -> None:
    process = start_evaluation("--players", "2", "--games", "1000", "--agents", "random", "random",
                               "--workers", "2", "--out", str(tmp_path))
    sessions.append(process)
    wait_for(lambda: game_lines(tmp_path) >= 20 or process.poll() is not None, 120, "the first games")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith(f"stopped by SIGTERM; the {game_lines(tmp_path):,} games played "
                                                   "are kept in")
    wait_for(lambda: not group(process.pid), 10, "the workers to end")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds processes in /proc")
def test_a_stopped_tournament_does_not_wait_for_the_games_in_play(tmp_path: Path, sessions: list) -> None:
    # a decision of this search takes minutes: the run must end without its workers finishing their games
    process = start_evaluation("--players", "2", "--games", "4", "--agents",
                               "ismcts:settings=none,simulations=1000000", "random",
                               "--workers", "2", "--out", str(tmp_path))
    sessions.append(process)
    wait_for(lambda: len(pool_workers(process.pid)) == 2 or process.poll() is not None, 120, "the workers to start")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert err.strip().splitlines()[-1].startswith("stopped by SIGTERM; the 0 games played are kept in")
    wait_for(lambda: not group(process.pid), 10, "the workers to end")


def test_counting_the_games_of_a_huge_games_file_reads_it_a_block_at_a_time(tmp_path: Path) -> None:
    """A new run over an --out holding a games file counts its lines (is it unfinished?) without holding it."""
    games = GamesFile(tmp_path, 1)
    games.path.write_bytes(b'{"format":"sobek-games/1","arguments":{}}\n' + b"\n" * 3 + b"0" * 30_000_000)
    tracemalloc.start()
    try:
        assert games.lines() == 3
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000


# ---------------------------------------------------------------- outputs: replays, pipes, a person leaving, full disks


def test_a_replay_directory_that_cannot_be_written_is_refused_before_any_game(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "afile").write_text("")
    with pytest.raises(SystemExit) as exit_info:
        evaluate("--players", "2", "--games", "2", "--agents", "random", "random", "--workers", "1",
                 "--out", str(tmp_path / "out"), "--save-replays", str(tmp_path / "afile" / "replays"))
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: cannot write replays to --save-replays {str(tmp_path / 'afile' / 'replays')!r} "
        "(Not a directory); choose another directory")
    assert not (tmp_path / "out" / "games.jsonl").exists()


def test_a_replay_that_could_not_be_written_is_written_by_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    """A full disk while the second replay is written: one line saying so, the games kept, and --resume plays
    that game again for its replay; the same files and results as a run that never failed."""
    from sobek_env.replay import Replay

    arguments = ["--players", "2", "--games", "4", "--agents", "greedy", "random", "--workers", "1"]
    save, saves = Replay.save, []

    def fills_the_disk(self: Replay, path: Path, final: object = None) -> None:
        saves.append(path)
        if len(saves) == 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        save(self, path, final)

    monkeypatch.setattr(Replay, "save", fills_the_disk)
    out, replays = tmp_path / "out", tmp_path / "replays"
    with pytest.raises(SystemExit) as exit_info:
        evaluate(*arguments, "--out", str(out), "--save-replays", str(replays))
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: No space left on device: {str(replays / 'game-0001.jsonl')!r}; the 2 games played "
        f"are kept in {out / 'games.jsonl'}; continue with: sobek-env evaluate {' '.join(arguments)} --out {out} "
        f"--save-replays {replays} --resume")
    assert sorted(p.name for p in replays.glob("*.jsonl")) == ["game-0000.jsonl"]
    monkeypatch.setattr(Replay, "save", save)
    evaluate(*arguments, "--out", str(out), "--save-replays", str(replays), "--resume")
    evaluate(*arguments, "--out", str(tmp_path / "whole"), "--save-replays", str(tmp_path / "all"))
    assert results(out) == results(tmp_path / "whole")
    names = sorted(p.name for p in (tmp_path / "all").glob("*.jsonl"))
    assert names == [f"game-{i:04d}.jsonl" for i in range(4)] == sorted(p.name for p in replays.glob("*.jsonl"))
    for name in names:
        assert (replays / name).read_text() == (tmp_path / "all" / name).read_text()


def test_a_replay_directory_in_use_or_holding_another_tournament_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "2", "--games", "2", "--agents", "random", "random", "--workers", "1"]
    replays = tmp_path / "replays"
    with DirectoryLock(replays):  # another tournament saving its replays there
        with pytest.raises(SystemExit) as exit_info:
            evaluate(*arguments, "--out", str(tmp_path / "one"), "--save-replays", str(replays))
        assert exit_info.value.code == 2
        assert f"--save-replays {str(replays)!r} is in use by another run" in capsys.readouterr().err
    evaluate(*arguments, "--out", str(tmp_path / "one"), "--save-replays", str(replays))
    first = {p.name: p.read_text() for p in replays.glob("*.jsonl")}
    evaluate(*arguments, "--out", str(tmp_path / "two"), "--save-replays", str(replays))  # the same games: allowed
    with pytest.raises(SystemExit) as exit_info:  # other games under the same names: refused
        evaluate(*arguments, "--seed", "100", "--out", str(tmp_path / "three"), "--save-replays", str(replays))
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: --save-replays {str(replays)!r} holds game-0000.jsonl, which is not this "
        "tournament's game there (another tournament's replay?); choose another directory")
    assert {p.name: p.read_text() for p in replays.glob("*.jsonl")} == first
    assert not (tmp_path / "three" / "games.jsonl").exists()


def test_results_are_written_when_the_output_is_no_longer_read(tmp_path: Path) -> None:
    process = subprocess.Popen([sys.executable, "evaluate.py", "--players", "2", "--games", "4", "--agents",
                                "random", "random", "--workers", "1", "--out", str(tmp_path)], cwd=ROOT,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()  # as | head -1 does once it has its line: every later write is a broken pipe
    err = process.stderr.read()
    assert process.wait(120) == 0 and err == ""
    assert len(json.loads((tmp_path / "evaluate.json").read_text())["games_played"]) == 4


def test_a_person_leaving_the_tournament_ends_it_in_one_line(tmp_path: Path) -> None:
    arguments = ["--players", "2", "--games", "2", "--agents", "human", "random", "--out", str(tmp_path)]
    result = subprocess.run([sys.executable, "evaluate.py", *arguments], cwd=ROOT, input="quit\n",
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"you left the tournament; the 0 games played are kept in {tmp_path / 'games.jsonl'}; continue with: "
        f"sobek-env evaluate {' '.join(arguments)} --resume")
    assert "player_" in result.stdout  # the person saw the table: the game was played here, not in a worker


def test_a_human_seat_needs_one_worker(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        evaluate("--players", "2", "--games", "2", "--agents", "human", "random", "--workers", "2")
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "sobek-env evaluate: error: human plays at this terminal, so in this process: --workers must be 1, got 2")


def test_a_full_disk_keeps_the_games_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line the disk has room for only part of is taken back, so --resume reads every line before it."""
    games = GamesFile(tmp_path, 1)
    games.start({"games": 4})
    first = GameRecord(0, 0, (0, 1), (3, 1), (0,), ({}, {}))
    games.append(0, first)
    whole = games.path.read_bytes()
    write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: write(fd, data[:10]))
    with pytest.raises(OSError) as error:
        games.append(0, GameRecord(1, 1, (1, 0), (2, 2), (0, 1), ({}, {})))
    monkeypatch.setattr(os, "write", write)
    games.close()
    assert (error.value.errno, error.value.filename) == (errno.ENOSPC, str(games.path))
    assert games.path.read_bytes() == whole and games.played == 1


def test_a_full_disk_while_training_is_said_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture) -> None:
    from agents.training import sb3 as training

    def full(config: dict, out: Path, resume: bool) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out / "progress.csv"))

    monkeypatch.setattr(training, "train", full)
    with pytest.raises(SystemExit) as exit_info:
        training.main(["--out", str(tmp_path), "--players", "2"])
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.splitlines() == [
        f"sobek-env train: error: No space left on device: {str(tmp_path / 'progress.csv')!r}; free some space: "
        "the run had not started (nothing was written); the same command starts it"]


def test_a_full_disk_while_writing_the_results_names_them_and_resume_writes_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "2", "--games", "2", "--agents", "random", "random", "--workers", "1",
                 "--out", str(tmp_path)]
    fsync, synced = os.fsync, []

    def full_after_the_games_file(fd: int) -> None:  # files are written aside and synced: the first is games.jsonl
        synced.append(fd)
        if len(synced) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        fsync(fd)

    with monkeypatch.context() as patch:
        patch.setattr(os, "fsync", full_after_the_games_file)
        with pytest.raises(SystemExit) as exit_info:
            evaluate(*arguments)
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: No space left on device: {str(tmp_path / 'evaluate.csv')!r}; the 2 games played "
        f"are kept in {tmp_path / 'games.jsonl'}; continue with: sobek-env evaluate {' '.join(arguments)} --resume")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", "games.jsonl"]  # nothing left aside
    evaluate(*arguments, "--resume")
    assert len(json.loads((tmp_path / "evaluate.json").read_text())["games_played"]) == 2


def test_a_full_disk_before_any_game_says_nothing_was_played(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(SystemExit) as exit_info:
        evaluate("--players", "2", "--games", "2", "--agents", "random", "random", "--out", str(tmp_path))
    assert exit_info.value.code == 1
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: No space left on device: {str(tmp_path / 'games.jsonl')!r}; no game was played")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock"]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full, a device that is always full")
def test_results_are_written_before_an_output_on_a_full_disk_fails(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "evaluate.py", "--players", "2", "--games", "2", "--agents", "random",
                                 "random", "--workers", "1", "--out", str(tmp_path)], cwd=ROOT, stdout=full,
                                stderr=subprocess.PIPE, text=True, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("sobek-env evaluate: error: No space left on device: "
                                                     "'<standard output>'; the 2 games played are kept in")
    assert len(json.loads((tmp_path / "evaluate.json").read_text())["games_played"]) == 2


@pytest.mark.parametrize(("line", "problem"), [
    (b'{"table":0,"index":' + b"9" * 5000 + b"}", "a number of 5,000 characters, more than the 4,300 allowed"),
    (b'{"table":0,"index":0,"stats":' + b"[" * 3000 + b"]" * 3000 + b"}", "nested more than 8 levels deep"),
    (b'{"table":0,"index":"\xff"}', "not UTF-8 text (byte 21 is 0xff)"),
])
def test_a_games_file_line_beyond_the_readers_limits_is_named(tmp_path: Path, line: bytes, problem: str,
                                                               capsys: pytest.CaptureFixture) -> None:
    arguments = ["--players", "2", "--games", "4", "--agents", "random", "random", "--workers", "1",
                 "--out", str(tmp_path)]
    evaluate(*arguments)
    games = (tmp_path / "games.jsonl").read_bytes().splitlines(keepends=True)
    (tmp_path / "games.jsonl").write_bytes(b"".join([games[0], line + b"\n", *games[2:]]))
    with pytest.raises(SystemExit):
        evaluate(*arguments, "--resume")
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: cannot resume: {tmp_path / 'games.jsonl'} line 2: {problem}")


def test_a_games_file_header_beyond_the_readers_limits_is_named(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "games.jsonl").write_bytes(b'{"format":"sobek-games/1","arguments":{"games":' + b"9" * 5000 + b"}}\n")
    with pytest.raises(SystemExit):
        evaluate("--players", "2", "--games", "2", "--agents", "random", "random", "--out", str(tmp_path), "--resume")
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"sobek-env evaluate: error: cannot resume: {tmp_path / 'games.jsonl'} line 1: a number of 5,000 characters, "
        "more than the 4,300 allowed")
