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
