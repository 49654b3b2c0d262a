"""The search agent's skill ladder (agents.analysis.ladder): a tiny climb in both games, bad arguments refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.analysis import ladder


@pytest.mark.parametrize(("game", "players"), [("sobek", 2), ("kleopatra", 3)])
def test_a_tiny_ladder_writes_each_rung_with_its_interval_and_time(game: str, players: int, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "ladder"
    ladder.main(["--game", game, "--players", str(players), "--budgets", "2,8", "--games", str(players),
                 "--agent", "ismcts:settings=none,depth=20", "--timing-games", "1", "--out", str(out)])
    report = json.loads((out / "ladder.json").read_text())
    rungs = report["rungs"]
    assert [r["simulations"] for r in rungs] == [2, 8] and [r["spec"] for r in rungs] == \
        ["ismcts:settings=none,depth=20,simulations=2", "ismcts:settings=none,depth=20,simulations=8"]
    for rung in rungs:
        assert 0 <= rung["win_low"] <= rung["win_rate"] <= rung["win_high"] <= 1 and rung["games"] == players
        assert rung["decisions_timed"] > 0 and 0 < rung["seconds_mean"] <= rung["seconds_max"]
    assert rungs[1]["seconds_mean"] > rungs[0]["seconds_mean"]  # four times the simulations
    assert (out / "ladder.png").stat().st_size > 10_000
    assert (out / "ladder.csv").read_text().startswith("simulations,spec,games,win_rate")
    assert "simulations=8: win rate" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["--budgets", "100,25"], "must be rising whole numbers from 1"),
    (["--budgets", "0,5"], "must be rising whole numbers from 1"),
    (["--budgets", "a"], "must be whole numbers separated by commas"),
    (["--games", "3"], "must be a multiple of --players (2)"),
    (["--agent", "heuristic"], "heuristic"),
    (["--agent", "ismcts:bogus=1"], "bogus"),
    (["--vs", "nobody"], "unknown agent 'nobody'"),
    (["--players", "7"], "Sobek is for 2 to 4 players"),
    (["--timing-games", "9"], "--timing-games: must be from 0 to --games (4)"),
])
def test_bad_arguments_are_refused_in_one_line(argv: list[str], message: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture) -> None:
    base = {"--players": "2", "--budgets": "1,2", "--games": "4", "--out": str(tmp_path / "x")}
    for flag, value in zip(argv[::2], argv[1::2]):
        base[flag] = value
    with pytest.raises(SystemExit) as exit_info:
        ladder.main([part for pair in base.items() for part in pair])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_resume_keeps_the_rungs_already_climbed_and_plays_the_others(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "ladder"
    base = ["--players", "2", "--agent", "ismcts:settings=none,depth=20", "--timing-games", "0", "--out", str(out)]
    ladder.main([*base, "--budgets", "2", "--games", "2"])
    first = json.loads((out / "ladder.json").read_text())["rungs"][0]
    played = []
    real = ladder.play_tournament

    def counted(specs: list[str], *args: object, **kwargs: object) -> list:
        played.append(specs[0])
        return real(specs, *args, **kwargs)

    monkeypatch.setattr(ladder, "play_tournament", counted)
    ladder.main([*base, "--budgets", "2,4", "--games", "4", "--resume"])
    rungs = json.loads((out / "ladder.json").read_text())["rungs"]
    assert played == ["ismcts:settings=none,depth=20,simulations=4"]  # the rung of 2 was not played again
    assert rungs[0] == first and rungs[0]["games"] == 2 and rungs[1]["simulations"] == 4 and rungs[1]["games"] == 4
    assert len((out / "ladder.csv").read_text().splitlines()) == 3


def test_resume_with_every_rung_kept_plays_nothing_and_redraws_the_plot(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "ladder"
    argv = ["--players", "2", "--agent", "ismcts:settings=none,depth=20", "--budgets", "2", "--games", "2",
            "--timing-games", "0", "--out", str(out)]
    ladder.main(argv)
    report = (out / "ladder.json").read_text()
    (out / "ladder.png").unlink()

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a kept rung was played again")

    monkeypatch.setattr(ladder, "play_tournament", refuse)
    ladder.main([*argv, "--resume"])
    assert (out / "ladder.png").stat().st_size > 10_000 and (out / "ladder.json").read_text() == report


def test_resume_refuses_a_ladder_climbed_with_other_settings(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "ladder"
    base = ["--players", "2", "--budgets", "2", "--games", "2", "--timing-games", "0", "--out", str(out)]
    ladder.main([*base, "--agent", "ismcts:settings=none,depth=20"])
    before = (out / "ladder.json").read_text()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_info:
        ladder.main([*base, "--agent", "ismcts:settings=none,depth=30", "--vs", "greedy", "--resume"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "other settings" in err and "agent 'ismcts:settings=none,depth=20'" in err
    assert "vs 'heuristic'" in err and "Traceback" not in err
    (out / "ladder.json").write_text("{not json")
    with pytest.raises(SystemExit):
        ladder.main([*base, "--agent", "ismcts:settings=none,depth=20", "--resume"])
    assert "is not a ladder report" in capsys.readouterr().err
    (out / "ladder.json").write_text(before)
