"""The corruption study across games (agents.analysis.study): reading sweep and evaluation reports, the figure,
refusals."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.analysis.study import check_pairing, main, read_learned, read_sweep
from agents.tournaments.evaluation import main as evaluate

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Tiny sweeps of both games and a learned Sobek model's evaluation against the Sobek sweep's opponent."""
    out = tmp_path_factory.mktemp("study")
    evaluate(["--players", "2", "--games", "4", "--agents", "heuristic", "--vs", "heuristic",
              "--sweep", "tolerance=0,1", "--out", str(out / "sobek"), "--workers", "1"])
    evaluate(["--game", "kleopatra", "--players", "3", "--games", "3", "--agents", "heuristic", "--vs", "random",
              "--sweep", "tolerance=0,0.5,1", "--out", str(out / "kleopatra"), "--workers", "1"])
    evaluate(["--players", "2", "--games", "4", "--agents", f"ppo:{ROOT / 'models' / 'ppo-2p.zip'}", "heuristic",
              "--out", str(out / "learned"), "--workers", "1"])
    evaluate(["--players", "2", "--games", "4", "--agents", f"net:{ROOT / 'models' / 'sobek-net-2p.zip'}",
              "heuristic", "--out", str(out / "net"), "--workers", "1"])
    return {"sobek": out / "sobek" / "sweep.json", "kleopatra": out / "kleopatra" / "sweep.json",
            "learned": out / "learned" / "evaluate.json", "net": out / "net" / "evaluate.json"}


def test_the_study_draws_both_games_with_the_learned_agent(reports: dict[str, Path], tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    sobek, kleopatra = read_sweep(reports["sobek"]), read_sweep(reports["kleopatra"])
    assert (sobek.game, sobek.players, sobek.opponents, sobek.values) == ("sobek", 2, ("heuristic",), [0.0, 1.0])
    assert (kleopatra.game, kleopatra.values) == ("kleopatra", [0.0, 0.5, 1.0])
    assert all(0 <= row["eliminated_rate"] <= 1 for row in kleopatra.rows)
    learned = read_learned(reports["learned"])
    assert (learned.label, learned.opponents) == ("ppo-2p", ("heuristic",))
    assert check_pairing([sobek, kleopatra], [learned]) == {0: [learned], 1: []}
    net = read_learned(reports["net"])
    assert (net.label, net.opponents) == ("sobek-net-2p", ("heuristic",))
    figure = tmp_path / "study.png"
    main([str(reports["sobek"]), str(reports["kleopatra"]), "--learned", str(reports["learned"]),
          str(reports["net"]), "--out", str(figure)])
    assert figure.read_bytes().startswith(b"\x89PNG") and f"wrote {figure}" in capsys.readouterr().out


def damaged(source: Path, target: Path, change) -> Path:
    report = json.loads(source.read_text())
    change(report)
    target.write_text(json.dumps(report))
    return target


@pytest.mark.parametrize(("change", "message"), [
    (lambda r: r.pop("sweep"), "'sweep' is missing"),
    (lambda r: r.update(game="chess"), "unknown game 'chess'"),
    (lambda r: r.update(sweep={"tolerance": ["0", "x"]}), "must be numbers"),
    (lambda r: r["results"].pop(), "one result per swept value"),
    (lambda r: r["results"][0].update(win_rate=float("nan")), "no finite number 'win_rate'"),
    (lambda r: r["results"][1].pop("most_corrupt_rate"), "no finite number 'most_corrupt_rate'"),
])
def test_a_damaged_sweep_is_refused_naming_the_file_and_the_fault(reports: dict[str, Path], tmp_path: Path,
                                                                   change, message: str,
                                                                   capsys: pytest.CaptureFixture) -> None:
    bad = damaged(reports["sobek"], tmp_path / "bad.json", change)
    out = tmp_path / "study.png"
    with pytest.raises(SystemExit) as stop:
        main([str(bad), "--out", str(out)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "bad.json" in err and "Traceback" not in err
    assert not out.exists()


def test_files_that_are_not_reports_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    for name, data in (("text.json", b"not json"), ("list.json", b"[1, 2]"), ("binary.json", b"\xff\xfe\x00")):
        (tmp_path / name).write_bytes(data)
        with pytest.raises(SystemExit):
            main([str(tmp_path / name), "--out", str(tmp_path / "x.png")])
        assert name in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "missing.json"), "--out", str(tmp_path / "x.png")])
    assert "cannot be read" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()


def test_a_learned_agent_against_other_opponents_or_tables_is_refused(reports: dict[str, Path], tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture) -> None:
    other = damaged(reports["learned"], tmp_path / "other.json",
                    lambda r: r.update(agents=[r["agents"][0], "random"]))
    for bad, message in ((other, "are not the sweep's"), (reports["learned"], "no sweep of sobek with 2 players")):
        sweeps = [str(reports["kleopatra"])] if bad == reports["learned"] else [str(reports["sobek"])]
        with pytest.raises(SystemExit):
            main([*sweeps, "--learned", str(bad), "--out", str(tmp_path / "x.png")])
        assert message in capsys.readouterr().err
    no_model = damaged(reports["learned"], tmp_path / "none.json", lambda r: r.update(agents=["heuristic"] * 2))
    with pytest.raises(SystemExit):
        main([str(reports["sobek"]), "--learned", str(no_model), "--out", str(tmp_path / "x.png")])
    assert "expected one learned agent (ppo: or net:)" in capsys.readouterr().err
