"""agents.training.imitation: a network taught from an agent's decisions in replays, saved as a ppo: model that plays
and starts a train.py --init run."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from agents import make
from agents.analysis.departures import decisions_of, read_replays
from agents.players.features import Featurizer
from agents.players.ppo import read_meta, read_model
from agents.tournaments.evaluation import main as evaluate
from agents.training import sb3 as train
from agents.training.imitation import Examples, examples, main, measure, soft_target, split

NET = ["--net", "32,32"]
FIT = ["--epochs", "15", "--batch-size", "64", "--holdout", "0.25"]


def tournament(out: Path, agents: list[str], games: int, seed: int = 0) -> Path:
    evaluate(["--game", "sobek", "--players", str(len(agents)), "--games", str(games), "--agents", *agents,
              "--out", str(out / "out"), "--workers", "1", "--seed", str(seed), "--save-replays", str(out / "replays")])
    return out / "replays"


@pytest.fixture(scope="module")
def replays(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve 2-player Sobek games of greedy against random."""
    return tournament(tmp_path_factory.mktemp("imitation"), ["greedy", "random"], 12)


SEARCH = "ismcts:settings=none,simulations=6,depth=8,seed=1"


@pytest.fixture(scope="module")
def searched(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Six 2-player Sobek games of a small search, which records its values, against random."""
    return tournament(tmp_path_factory.mktemp("searched"), [SEARCH, "random"], 6)


@pytest.fixture(scope="module")
def taught(replays: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("taught") / "greedy"
    main([str(replays), "--agent", "greedy", "--out", str(out), *FIT, *NET])
    return out


def test_each_decision_with_a_choice_is_one_example_with_the_heuristics_advice(replays: Path) -> None:
    loaded = read_replays([replays])
    table = loaded[0][1].game_object.table(2)
    featurize = Featurizer("advice", table)
    data = examples(loaded, "greedy", featurize)
    heuristic = make("heuristic", table=table)
    assert len(data) > 200 and data.features.shape == (len(data), featurize.size)
    assert data.masks[np.arange(len(data)), data.actions].all()  # every action taken was legal
    assert (data.masks.sum(axis=1) > 1).all()  # decisions with a choice only
    start, stop = featurize.advice_slice
    for i in range(0, len(data), 37):  # the advice is the heuristic's choice from the same observation
        observation = {"observation": data.features[i, :featurize.base], "action_mask": data.masks[i].astype(np.int8)}
        assert data.advised[i] == heuristic.act(observation) == np.argmax(data.features[i, start:stop])
    assert set(data.games) == set(range(12))
    late = examples(loaded, "greedy", featurize, late=0.5)
    assert 0 < len(late) < len(data)


def test_held_out_games_are_whole_and_drawn_with_the_seed(replays: Path) -> None:
    loaded = read_replays([replays])
    data = examples(loaded, "greedy", Featurizer("advice", loaded[0][1].game_object.table(2)))
    fit, held = split(data, 0.25, seed=1)
    assert len(fit) + len(held) == len(data) and len(set(held.games)) == 3
    assert not set(fit.games) & set(held.games)
    again, _ = split(data, 0.25, seed=1)
    assert np.array_equal(again.actions, fit.actions)


def test_the_network_learns_to_choose_as_the_teacher_on_games_it_did_not_see(taught: Path) -> None:
    with open(taught / "imitation.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [int(r["epoch"]) for r in rows] == list(range(16))
    start = rows[0]
    summary = json.loads((taught / "imitation.json").read_text())
    kept = summary["kept"]
    # greedy departs from the heuristic the network starts from; taught, it follows greedy more often
    assert float(kept["held_agreement"]) > float(start["held_agreement"]) + 0.1
    assert float(kept["held_departures_matched"]) > float(start["held_departures_matched"])
    assert float(kept["held_loss"]) == min(float(r["held_loss"]) for r in rows)
    assert summary["agent"] == "greedy" and summary["games"] == 12 and summary["held_out"] > 0


def test_the_taught_model_plays_through_the_registry_and_is_seeded(taught: Path, replays: Path,
                                                                   tmp_path: Path) -> None:
    meta = read_meta(taught / "model.zip")
    assert (meta["game"], meta["num_players"], meta["features"]) == ("sobek", 2, "advice")
    out = tmp_path / "vs"
    evaluate(["--game", "sobek", "--players", "2", "--games", "4", "--agents", f"ppo:{taught / 'model.zip'}",
              "random", "--out", str(out), "--workers", "1"])
    assert json.loads((out / "evaluate.json").read_text())["summary"][0]["games"] == 4
    again = tmp_path / "again"
    main([str(replays), "--agent", "greedy", "--out", str(again), *FIT, *NET])
    first, second = read_model(taught / "model.zip").policy, read_model(again / "model.zip").policy
    assert first.keys() == second.keys() and all((first[k] == second[k]).all() for k in first)


def test_train_init_starts_from_the_taught_weights(taught: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    train.main(["--players", "2", "--envs", "1", "--n-steps", "256", "--batch-size", "256", "--epochs", "1",
                "--eval-every", "100000", "--eval-games", "2", "--seed", "1", "--pool", "random", "--timesteps", "256",
                "--self-play-weight", "0", "--init", str(taught / "model.zip"), "--out", str(out), *NET])
    config = json.loads((out / "config.json").read_text())
    assert config["init"] == str((taught / "model.zip").resolve())
    start, end = read_model(taught / "model.zip").policy, read_model(out / "model.zip").policy
    # one update of 256 steps moves the weights a little from the taught ones, not to a fresh network's
    differences = [float((end[k] - start[k]).abs().max()) for k in start]
    assert 0 < max(differences) < 0.1


def test_resuming_before_the_first_checkpoint_names_a_vanished_init_model(taught: Path, tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    model, out = tmp_path / "init.zip", tmp_path / "run"
    shutil.copyfile(taught / "model.zip", model)
    train.main(["--players", "2", "--envs", "1", "--n-steps", "256", "--batch-size", "256", "--epochs", "1",
                "--eval-every", "100000", "--eval-games", "2", "--seed", "1", "--pool", "random", "--timesteps", "256",
                "--self-play-weight", "0", "--init", str(model), "--out", str(out), *NET])
    shutil.rmtree(out / "checkpoints")  # as if stopped before its first checkpoint
    model.unlink()
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        train.main(["--out", str(out), "--resume"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"the run starts from --init {str(model.resolve())!r}, which cannot be read now" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("extra", "message"), [
    (["--players", "3"], "num_players=2 where this run has num_players=3"),
    (["--players", "2", "--net", "64,64"], "where this run has policy="),
    (["--players", "2", "--init", "nowhere.zip"], "nowhere.zip"),
])
def test_train_init_refuses_a_model_of_another_table_or_network(taught: Path, tmp_path: Path, extra: list[str],
                                                                message: str, capsys: pytest.CaptureFixture) -> None:
    args = ["--init", str(taught / "model.zip"), "--out", str(tmp_path / "run"), "--net", "32,32", *extra]
    with pytest.raises(SystemExit) as exit_:
        train.main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --init" in err and message in err and "Traceback" not in err
    assert not (tmp_path / "run" / "config.json").exists()


def test_bad_replays_and_arguments_are_refused_in_one_line(replays: Path, taught: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture) -> None:
    other = tournament(tmp_path / "three", ["greedy", "random", "random"], 3)
    cases = [
        ([str(replays), "--agent", "ismcts", "--out", str(tmp_path / "a")], "no seat is played by 'ismcts'"),
        ([str(replays), str(other), "--agent", "greedy", "--out", str(tmp_path / "b")], "another table"),
        ([str(replays), "--agent", "greedy", "--out", str(taught)], "already holds a model.zip"),
        ([str(replays), "--agent", "greedy", "--out", str(tmp_path / "c"), "--late", "2"], "from 0 to 1"),
        ([str(tmp_path / "none"), "--agent", "greedy", "--out", str(tmp_path / "d")], "no such file"),
        ([str(replays), "--agent", "greedy", "--out", str(tmp_path / "e"), "--lr", "5"], "argument --lr"),
        ([str(replays), "--agent", "greedy", "--out", str(tmp_path / "f"), "--net", "100000,100000"],
         "argument --net"),
    ]
    for args, message in cases:
        with pytest.raises(SystemExit) as exit_:
            main(args)
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("sobek-env imitate: error: ") and message in err, (args, err)
    assert not (tmp_path / "e").exists() and not (tmp_path / "f").exists()  # refused before anything is written


def test_values_targets_are_the_softmax_of_the_recorded_values(searched: Path) -> None:
    loaded = read_replays([searched])
    table = loaded[0][1].game_object.table(2)
    data = examples(loaded, SEARCH, Featurizer("advice", table), target="values", temperature=0.1)
    recorded = [(replay.values[step], action) for _, replay in loaded
                for _, _, _, action, step in decisions_of(replay, SEARCH)
                if step in replay.values]
    assert len(data) == len(recorded) > 50
    for row, (values, action) in enumerate(recorded):
        assert data.actions[row] == action
        valued = sorted(values)
        assert np.isclose(data.targets[row].sum(), 1.0) and set(np.flatnonzero(data.targets[row])) <= set(valued)
        assert np.allclose(data.values[row, valued], [values[a] for a in valued])
        assert np.isnan(np.delete(data.values[row], valued)).all()
        best = max(values, key=values.get)
        assert data.targets[row, best] == data.targets[row].max()
    # every decision keeps its values with the action target too, and only the valued ones make values examples
    every = examples(loaded, SEARCH, Featurizer("advice", table))
    assert len(every) >= len(data) and np.array_equal(every.targets.argmax(axis=1), every.actions)


def test_soft_target_is_sharper_at_a_lower_temperature() -> None:
    values = {3: 0.2, 7: 0.1, 9: -0.3}
    warm, cold = soft_target(values, 12, 1.0), soft_target(values, 12, 0.01)
    assert np.isclose(warm.sum(), 1) and np.isclose(cold.sum(), 1) and np.flatnonzero(warm).tolist() == [3, 7, 9]
    assert warm[3] > warm[7] > warm[9] > 0 and cold[3] > 0.99
    assert np.isclose(warm[3] / warm[7], np.exp(0.1))


class _Chooses:
    """A stand-in policy whose distribution puts its mass on given actions."""

    def __init__(self, choices: list[int], actions: int) -> None:
        import torch
        logits = torch.full((len(choices), actions), -30.0)
        logits[range(len(choices)), choices] = 0.0
        self.dist = type("D", (), {"distribution": torch.distributions.Categorical(logits=logits)})()

    def get_distribution(self, features: object, action_masks: object) -> object:
        return self.dist


def test_value_gain_is_the_mean_value_of_the_networks_choice_over_the_advised_one() -> None:
    nan = np.nan
    values = np.array([[0.5, 0.1, nan], [0.0, 0.2, 0.9], [nan, nan, nan], [0.3, 0.3, 0.1]], dtype=np.float32)
    data = Examples(np.zeros((4, 2), np.float32), np.ones((4, 3), bool), np.array([0, 2, 1, 0]),
                    np.array([1, 1, 0, 2]), np.zeros(4, np.int64), np.eye(3, dtype=np.float32)[[0, 2, 1, 0]], values)
    figures = measure(_Chooses([0, 0, 2, 1], 3), data)
    # rows 0, 1, 3 have values: network 0.5-0.1, 0.0-0.2, 0.3-0.1; teacher 0.5-0.1, 0.9-0.2, 0.3-0.1
    assert figures["value_gain"] == pytest.approx((0.4 - 0.2 + 0.2) / 3)
    assert figures["teacher_gain"] == pytest.approx((0.4 + 0.7 + 0.2) / 3)
    assert figures["agreement"] == 0.25 and figures["departures_matched"] == 0.25


def test_fitting_the_values_writes_their_figures(searched: Path, tmp_path: Path) -> None:
    out = tmp_path / "values"
    main([str(searched), "--agent", SEARCH, "--target", "values", "--temperature", "0.2", "--out", str(out),
          "--epochs", "3", "--holdout", "0.34", *NET])
    summary = json.loads((out / "imitation.json").read_text())
    assert (summary["target"], summary["temperature"]) == ("values", 0.2)
    with open(out / "imitation.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and all(r["held_value_gain"] and r["held_teacher_gain"] for r in rows)
    assert read_meta(out / "model.zip")["features"] == "advice"


def test_values_are_asked_of_replays_that_hold_none(replays: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    for args, message in [
        (["--target", "values"], "whose values were recorded"),
        (["--target", "value"], "invalid choice: 'value'"),
        (["--temperature", "0"], "--temperature"),
    ]:
        with pytest.raises(SystemExit) as exit_:
            main([str(replays), "--agent", "greedy", "--out", str(tmp_path / "v"), *args])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("sobek-env imitate: error: ") and message in err, (args, err)
        assert not (tmp_path / "v").exists()
