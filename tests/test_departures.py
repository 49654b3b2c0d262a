"""agents.analysis.departures: an agent's decisions in replays set beside a baseline's from the same observations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.analysis.departures import departures, main, read_replays
from agents.tournaments.evaluation import main as evaluate


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four 2-player Sobek games of greedy against random, saved as replays."""
    out = tmp_path_factory.mktemp("departures")
    evaluate(["--game", "sobek", "--players", "2", "--games", "4", "--agents", "greedy", "random",
              "--out", str(out / "out"), "--workers", "1", "--save-replays", str(out / "replays")])
    return out / "replays"


def test_an_agent_never_departs_from_itself(replays: Path) -> None:
    found = departures(read_replays([replays]), "greedy", "greedy")
    assert found.games == 4 and found.decisions > 20
    assert found.differ == 0 and all(not p.departures for p in found.phases.values())


def test_random_play_departs_from_the_baseline_and_each_departure_is_named(replays: Path) -> None:
    found = departures(read_replays([replays]), "random", "greedy")
    assert 0 < found.differ < found.decisions
    for phase in found.phases.values():
        assert sum(phase.departures.values()) == phase.differ <= phase.decisions
        for baseline, agent in phase.departures:
            assert baseline != agent
    again = departures(read_replays([replays]), "random", "greedy")
    assert again.phases == found.phases  # the baseline is seeded from the replay


def test_late_keeps_only_the_decisions_from_that_share_of_the_game(replays: Path) -> None:
    every = departures(read_replays([replays]), "random", "greedy")
    late = departures(read_replays([replays]), "random", "greedy", late=0.5)
    assert 0 < late.decisions < every.decisions


def test_the_command_prints_a_table_or_json(replays: Path, capsys: pytest.CaptureFixture) -> None:
    main([str(replays), "--agent", "random", "--baseline", "greedy"])
    out = capsys.readouterr().out
    assert out.startswith("4 games, ") and "differ from greedy's" in out and "phase" in out
    main([str(replays / "game-0000.jsonl"), "--agent", "random", "--baseline", "greedy", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["games"] == 1 and doc["differ"] == sum(p["differ"] for p in doc["phases"].values())


@pytest.mark.parametrize(("args", "message"), [
    (["nowhere", "--agent", "random"], "no such file or directory"),
    (["{replays}", "--agent", "ismcts"], "no seat is played by 'ismcts'"),
    (["{replays}", "--agent", "random", "--late", "1.5"], "must be a number from 0 to 1"),
    (["{replays}", "--agent", "random", "--baseline", "nobody"], "nobody"),
    (["{replays}", "--agent", "random", "--baseline", "ppo:missing.zip"], "missing.zip"),
    (["{empty}", "--agent", "random"], "holds no replay"),
    (["{bad}", "--agent", "random"], "line 2"),
])
def test_bad_arguments_and_files_are_refused_in_one_line(replays: Path, tmp_path: Path, capsys: pytest.CaptureFixture,
                                                         args: list[str], message: str) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    bad = tmp_path / "bad.jsonl"
    lines = (replays / "game-0000.jsonl").read_text().splitlines()
    bad.write_text("\n".join([lines[0], '{"seat": 0, "action": 9999}', *lines[2:]]) + "\n")
    args = [a.format(replays=replays, empty=empty, bad=bad) for a in args]
    with pytest.raises(SystemExit) as exit_:
        main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sobek-env departures: error: ") and message in err and "Traceback" not in err
