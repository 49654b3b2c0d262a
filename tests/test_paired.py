"""The paired comparison of two tournaments on the same deals: figures on hand-built records, the CLI on
real tournaments, and its errors."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from agents.analysis.paired import compare, main, share
from agents.tournaments.evaluation import main as evaluate
from agents.tournaments.tournament import GameRecord, wilson_interval


def game(index: int, seating: tuple[int, ...], winners: tuple[int, ...], seed: int | None = None) -> GameRecord:
    return GameRecord(index, index if seed is None else seed, seating, (0,) * len(seating), winners,
                      ({},) * len(seating))


def test_share_counts_a_shared_win_as_a_part() -> None:
    record = game(0, (1, 0, 2), winners=(0, 1))  # position 1 sits in seat 0, position 0 in seat 1
    assert share(record, 0) == share(record, 1) == 0.5 and share(record, 2) == 0


def test_compare_on_hand_built_games() -> None:
    seating = (0, 1, 2)
    first = {0: game(0, seating, (0,)), 1: game(1, seating, (0,)), 2: game(2, seating, (1,)),
             3: game(3, seating, (0, 2)), 9: game(9, seating, (0,))}  # game 9: only in the first
    second = {0: game(0, seating, (0,)), 1: game(1, seating, (2,)), 2: game(2, seating, (0,)),
              3: game(3, seating, (1,))}
    result = compare(first, second, 0, "a", "b")
    differences = [0, 1, -1, 0.5]
    mean = sum(differences) / 4
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / 3)
    assert (result.agent, result.baseline, result.games) == ("a", "b", 4)
    assert result.share == pytest.approx(2.5 / 4) and result.baseline_share == pytest.approx(0.5)
    assert (result.low, result.high) == pytest.approx(wilson_interval(2.5, 4))
    assert result.difference == pytest.approx(mean)
    assert result.margin == pytest.approx(1.959964 * sd / 2)
    assert (result.better, result.worse) == (2, 1)


def test_compare_refuses_games_that_are_not_the_same_deal() -> None:
    with pytest.raises(ValueError, match=r"game 0 is dealt with seed 0 .* seed 7"):
        compare({0: game(0, (0, 1), (0,))}, {0: game(0, (0, 1), (0,), seed=7)}, 0)
    with pytest.raises(ValueError, match=r"seating \[0, 1\] .* seating \[1, 0\]"):
        compare({0: game(0, (0, 1), (0,))}, {0: game(0, (1, 0), (0,))}, 0)
    with pytest.raises(ValueError, match="no game in common"):
        compare({0: game(0, (0, 1), (0,))}, {1: game(1, (1, 0), (0,))}, 0)


@pytest.fixture(scope="module")
def tournaments(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small Kleopatra tournaments: greedy against two heuristics, and three heuristics on the same deals
    (one game fewer, to show only the common games count); and a Sobek one."""
    root = tmp_path_factory.mktemp("paired")
    kleopatra = ("--game", "kleopatra", "--players", "3", "--games", "6", "--agents")
    runs = {"greedy": (*kleopatra, "greedy", "heuristic", "heuristic"),
            "heuristics": (*kleopatra, "heuristic", "heuristic", "heuristic"),
            "sobek": ("--players", "2", "--games", "2", "--agents", "heuristic", "random")}
    for name, args in runs.items():
        evaluate([*args, "--workers", "1", "--out", str(root / name)])
    lines = (root / "heuristics" / "games.jsonl").read_text().splitlines(keepends=True)
    (root / "heuristics" / "games.jsonl").write_text("".join(lines[:-1]))
    return {name: root / name for name in runs}


def records(path: Path) -> dict[int, GameRecord]:
    lines = (path / "games.jsonl").read_text().splitlines()[1:]
    docs = [json.loads(line) for line in lines]
    return {doc["index"]: GameRecord.from_dict({k: v for k, v in doc.items() if k != "table"}, 3) for doc in docs}


def test_the_cli_compares_the_games_both_played(tournaments: dict[str, Path],
                                               capsys: pytest.CaptureFixture) -> None:
    main([str(tournaments["greedy"]), str(tournaments["heuristics"]), "--json"])
    result = json.loads(capsys.readouterr().out)
    first, second = records(tournaments["greedy"]), records(tournaments["heuristics"])
    assert result["games"] == 5 == len(second)
    assert result["agent"] == "greedy" and result["baseline"] == "heuristic#1"
    assert result["share"] == pytest.approx(sum(share(first[i], 0) for i in second) / 5)
    assert result["baseline_share"] == pytest.approx(sum(share(second[i], 0) for i in second) / 5)
    main([str(tournaments["greedy"] / "games.jsonl"), str(tournaments["heuristics"]), "--position", "2"])
    out = capsys.readouterr().out
    assert out.startswith("5 games on the same deals") and "heuristic#2: " in out and "heuristic#3 in its seats" in out


@pytest.mark.parametrize(("which", "extra", "message"), [
    (("greedy", "missing"), (), "argument second: .*missing' holds no games.jsonl"),
    (("greedy", "sobek"), (), r"not of the same deals: they differ in game \('kleopatra' and 'sobek'\), players"),
    (("greedy", "heuristics"), ("--position", "3"), "--position: the tournaments have agents at positions 0 to 2"),
    (("greedy", "heuristics"), ("--position", "-1"), "--position: must be 0 or more"),
])
def test_the_cli_names_what_is_wrong(tournaments: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture,
                                     which: tuple[str, str], extra: tuple[str, ...], message: str) -> None:
    paths = [str(tournaments.get(name, tmp_path / name)) for name in which]
    with pytest.raises(SystemExit) as exit_info:
        main([*paths, *extra])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert re.search(message, err), err


def test_the_cli_refuses_a_sweep_and_a_damaged_file(tournaments: dict[str, Path], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture) -> None:
    evaluate(["--game", "kleopatra", "--players", "3", "--games", "3", "--agents", "heuristic", "--vs", "random",
              "--sweep", "tolerance=0,1", "--workers", "1", "--out", str(tmp_path / "sweep")])
    capsys.readouterr()
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    lines = (tournaments["greedy"] / "games.jsonl").read_text().splitlines(keepends=True)
    (damaged / "games.jsonl").write_text(lines[0] + '{"table": 0, "index": "x"}\n' + "".join(lines[1:]))
    for path, message in ((tmp_path / "sweep", "is a sweep: compare tournaments of one table"),
                          (damaged, "line 2")):
        with pytest.raises(SystemExit):
            main([str(path), str(tournaments["heuristics"])])
        err = capsys.readouterr().err
        assert "argument first: " in err and message in err and "Traceback" not in err
