"""Learning curves side by side (sobek-env curves): read from train.py's eval.csv, bad files refused."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agents.analysis.curves import main, read_curve

ROOT = Path(__file__).resolve().parent.parent
SB3_LOG = ROOT / "models" / "ppo-2p.eval.csv"


def test_a_run_log_is_read_as_numbers() -> None:
    rows = read_curve(SB3_LOG)
    assert rows[0]["timesteps"] == 253952 and rows[0]["heuristic_win_rate"] == pytest.approx(0.4775)
    assert all(row["random_low"] <= row["random_win_rate"] <= row["random_high"] for row in rows)


def test_two_runs_are_drawn_side_by_side(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    short = tmp_path / "eval.csv"
    short.write_text("timesteps,random_win_rate,random_low,random_high,heuristic_win_rate,heuristic_low,"
                     "heuristic_high,games\n0,0.2,0.1,0.3,0,0,0.04,100\n20000,0.9,0.8,0.95,0.01,0,0.05,100\n")
    out = tmp_path / "curve.png"
    main(["--out", str(out), f"RLlib={short}", f"SB3={SB3_LOG}", "--title", "Sobek, 2 players"])
    assert out.read_bytes().startswith(b"\x89PNG") and f"wrote {out}" in capsys.readouterr().out


@pytest.mark.parametrize(("text", "message"), [
    ("timesteps,random_win_rate\n0,1\n", "has no column 'random_low'"),
    ("timesteps,random_win_rate,random_low,random_high,heuristic_win_rate,heuristic_low,heuristic_high\n"
     "0,x,0,0,0,0,0\n", "line 2: .* must be numbers"),
    ("timesteps,random_win_rate,random_low,random_high,heuristic_win_rate,heuristic_low,heuristic_high\n",
     "holds no evaluation"),
])
def test_a_file_that_is_not_a_run_log_is_refused_naming_it(tmp_path: Path, text: str, message: str,
                                                           capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text(text)
    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "curve.png"), f"run={bad}"])
    assert exit_info.value.code == 2
    assert re.search(message, capsys.readouterr().err)
    assert not (tmp_path / "curve.png").exists()


EXIT_LOG = ("iteration,expert,decisions,heuristic_share,heuristic_low,heuristic_high,heuristic_baseline,"
            "random_share,random_low,random_high,cpu_hours\n"
            "0,heuristic (warm start),3000000,0.47,0.42,0.52,0.51,1.0,0.99,1.0,0.36\n"
            "1,ismcts,3050000,,,,,,,,0.7\n"
            "2,ismcts,3100000,0.53,0.48,0.58,0.51,1.0,0.99,1.0,1.1\n")


def test_an_expert_iteration_log_is_drawn_over_cpu_hours(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    log = tmp_path / "eval.csv"
    log.write_text(EXIT_LOG)
    rows = read_curve(log)
    assert [row["cpu_hours"] for row in rows] == [0.36, 1.1]  # the iteration not evaluated is left out
    assert rows[1]["heuristic_win_rate"] == 0.53 and rows[1]["heuristic_baseline"] == 0.51
    out = tmp_path / "curve.png"
    main(["--out", str(out), f"2p={log}"])  # no --x: CPU hours, since the log has no steps
    assert out.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "mixed.png"), f"net={log}", f"PPO={SB3_LOG}"])
    assert exit_info.value.code == 2
    assert "the curve 'PPO' has no column 'cpu_hours' for --x cpu-hours" in capsys.readouterr().err
    assert not (tmp_path / "mixed.png").exists()


def test_a_ppo_log_with_cpu_hours_is_drawn_beside_an_expert_iteration_s(tmp_path: Path) -> None:
    exit_log, ppo_log = tmp_path / "exit.csv", tmp_path / "ppo.csv"
    exit_log.write_text(EXIT_LOG)
    ppo_log.write_text("timesteps,random_win_rate,random_low,random_high,heuristic_win_rate,heuristic_low,"
                       "heuristic_high,games,seconds,cpu_hours\n250000,1,0.99,1,0.55,0.5,0.6,400,9.0,0.52\n")
    rows = read_curve(ppo_log)
    assert rows[0]["cpu_hours"] == 0.52 and rows[0]["timesteps"] == 250000
    out = tmp_path / "curve.png"
    main(["--out", str(out), "--x", "cpu-hours", f"net={exit_log}", f"PPO={ppo_log}"])
    assert out.read_bytes().startswith(b"\x89PNG")


def test_the_even_share_line_follows_the_table_and_a_table_out_of_range_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    log = tmp_path / "eval.csv"
    log.write_text(EXIT_LOG)
    out = tmp_path / "curve.png"
    main(["--out", str(out), "--players", "3", f"3p={log}"])
    assert out.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(SystemExit) as exit_info:
        main(["--out", str(tmp_path / "six.png"), "--players", "6", f"3p={log}"])
    assert exit_info.value.code == 2
    assert "--players: invalid choice: 6" in capsys.readouterr().err
    assert not (tmp_path / "six.png").exists()
