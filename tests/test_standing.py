"""agents.analysis.standing: the table of a tournament over the games played so far, while it runs or
after it stopped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.analysis.standing import main
from agents.tournaments.evaluation import main as evaluate


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("standing") / "out"
    evaluate(["--game", "sobek", "--players", "2", "--games", "6", "--agents", "greedy", "random",
              "--out", str(out), "--workers", "1"])
    return out


def test_a_finished_tournament_stands_as_evaluate_reported_it(finished: Path, capsys: pytest.CaptureFixture) -> None:
    capsys.readouterr()
    main([str(finished), "--json"])
    doc = json.loads(capsys.readouterr().out)
    report = json.loads((finished / "evaluate.json").read_text())["summary"]
    assert doc["played"] == doc["games"] == 6
    assert [row["win_rate"] for row in doc["summary"]] == [row["win_rate"] for row in report]
    main([str(finished)])
    out = capsys.readouterr().out
    assert "6 of 6 games played" in out and "greedy" in out and "95% CI" in out


def test_a_stopped_tournament_stands_on_its_whole_lines(finished: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    lines = (finished / "games.jsonl").read_text().splitlines(keepends=True)
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "games.jsonl").write_text("".join(lines[:4]) + lines[4][:30])  # the header, three games, half a fourth
    main([str(cut), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert (doc["played"], doc["games"]) == (3, 6)
    assert sum(row["games"] for row in doc["summary"]) == 2 * 3


@pytest.mark.parametrize(("setup", "message"), [
    ("missing", "holds no games.jsonl"),
    ("header", "has played no game yet"),
    ("damaged", "line 2"),
])
def test_what_is_not_a_tournament_is_refused_in_one_line(finished: Path, tmp_path: Path, setup: str, message: str,
                                                         capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "t"
    out.mkdir()
    header = (finished / "games.jsonl").read_text().splitlines(keepends=True)[0]
    if setup == "header":
        (out / "games.jsonl").write_text(header)
    elif setup == "damaged":
        (out / "games.jsonl").write_text(header + "{not json\n")
    with pytest.raises(SystemExit) as exit_:
        main([str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sobek-env standing: error: ") and message in err and "Traceback" not in err
