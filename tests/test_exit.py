"""Expert iteration (agents/training/exit.py): labels, data files, training, evaluation, resuming, refusals."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from processes import children, group, wait_for

import agents
import sobek_env
from agents.players.net import new_net, read_net
from agents.sobek import PYTHON_BASELINES
from agents.training import exit as exit_module
from agents.training.exit import (
    DEFAULTS,
    Examples,
    ExitRun,
    Labeller,
    WarmExamples,
    chunk_lr,
    example_weights,
    guided_by_net,
    run_net_meta,
    soft_target,
    training_data,
)
from agents.training.sb3 import main as train_main
from agents.training.warmstart import heuristic_examples

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--game", "sobek", "--players", "2", "--games", "2", "--net", "16", "--eval-games", "4", "--seed", "7",
        "--expert", "ismcts:simulations=2", "--epochs", "2", "--batch-size", "64"]


def run(*args: str) -> None:
    train_main(["--algo", "exit", *args])


def data_of(out: Path, iteration: int) -> Examples:
    return Examples.load(out / "data" / f"iter_{iteration:04d}.npz")


def test_soft_targets_are_a_softmax_of_the_means_over_the_searched_actions() -> None:
    target = soft_target({3: 0.1, 5: 0.0, 9: -0.2}, 12, 0.1)
    weights = np.exp(np.array([0.1, 0.0, -0.2]) / 0.1)
    assert np.allclose(target[[3, 5, 9]], weights / weights.sum())
    assert target.sum() == pytest.approx(1) and np.count_nonzero(target) == 3


def test_kleopatra_games_are_labelled_where_the_search_ran_and_by_the_heuristic_before() -> None:
    config = {**DEFAULTS, "game": "kleopatra", "players": 3, "seed": 1, "opponents": ["heuristic"],
              "expert": "ismcts:simulations=2"}
    examples = Labeller(config).play(1, 0, config["expert"])
    searched = ~np.isnan(examples.searched)
    assert len(examples) > 20 and searched.any() and not searched.all()
    assert examples.observations.dtype == np.float16 and examples.observations.shape[1] == 949
    targets = examples.targets.astype(np.float32)
    assert np.allclose(targets.sum(axis=1), 1, atol=1e-2)  # each decision has a target: the search's or the heuristic's
    assert not (targets > 0)[~examples.masks].any()  # only legal actions are targets
    one_hot = np.isclose(targets.max(axis=1), 1, atol=1e-3)
    assert one_hot[~searched].all()  # before the late game: the heuristic's choice
    assert (np.abs(examples.outcomes) <= 1).all() and len(set(examples.outcomes.tolist())) == 1  # one seat's outcome


class Searched:
    """What a search leaves after a decision (``last_means``, ``last_visits``), for labelling by hand."""

    def __init__(self, means: dict[int, float]) -> None:
        self.last_means, self.last_visits = means, {a: 8 for a in means}


def test_the_played_target_is_the_action_the_search_played_not_its_best_mean() -> None:
    """``--target played``: the paired search keeps its guide's choice unless another action beats it
    significantly, so the action it played, not the noisiest best mean, is the lesson; unsearched decisions
    keep the heuristic's choice."""
    config = {**DEFAULTS, "players": 2, "seed": 1, "target": "played"}
    labeller = Labeller(config)
    env = sobek_env.env(num_players=2)
    env.reset(seed=3)
    observation = env.last()[0]
    legal = np.flatnonzero(observation["action_mask"]).tolist()
    assert len(legal) > 2
    means = {a: 0.1 * i for i, a in enumerate(legal)}  # the last legal action has the best mean
    _, _, target, weight, value = labeller.label(Searched(means), observation, legal[0])
    assert weight == 1 and target[legal[0]] == 1 and target.sum() == 1 and value == means[legal[0]]
    _, _, target, weight, value = labeller.label(Searched({}), observation, legal[1])
    heuristic = agents.make("heuristic", game="sobek", num_players=2)
    assert weight == 1 and target[heuristic.act(observation)] == 1 and target.sum() == 1 and np.isnan(value)
    means_config = Labeller({**config, "target": "means"})
    _, _, target, _, _ = means_config.label(Searched(means), observation, legal[0])
    assert target.argmax() == legal[-1]


def test_a_warm_share_mixes_a_seeded_sample_of_the_warm_start_into_each_iteration(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "1", "--warm-start", "2000", "--warm-epochs", "1", "--warm-share", "0.75",
        "--warm-lr", "0.003", "--lr", "0.0001", "--out", str(out))
    config = json.loads((out / "config.json").read_text())
    assert config["warm_share"] == 0.75 and config["warm_lr"] == 0.003
    window, warm = data_of(out, 1), data_of(out, 0)
    mixed = training_data(ExitRun(out), config, 1, WarmExamples(config))
    assert len(mixed) == 4 * len(window)  # the warm start's examples make three quarters of the whole
    assert np.array_equal(mixed.observations[:len(window)], window.observations)
    drawn = {row.tobytes() for row in mixed.observations[len(window):]}
    assert len(drawn) > len(window) and drawn <= {row.tobytes() for row in warm.observations}
    again = training_data(ExitRun(out), config, 1, WarmExamples(config))
    assert np.array_equal(again.targets, mixed.targets)  # seeded
    other = training_data(ExitRun(out), {**config, "seed": 8}, 1, WarmExamples(config))
    assert not np.array_equal(other.observations, mixed.observations)  # another seed, another sample
    checkpoint = read_net(out / "checkpoints" / "iter_0001" / "model.zip", with_optimizer=True)[2]
    assert checkpoint["param_groups"][0]["lr"] == 0.0001  # the search's iterations train at --lr
    unmixed = training_data(ExitRun(out), {**config, "warm_share": 0.0}, 1, WarmExamples(config))
    assert len(unmixed) == len(window)
    (out / "data" / "iter_0000.npz").unlink()  # a run directory kept without its largest file
    played_again = WarmExamples(config).get(ExitRun(out))
    for field in Examples.__dataclass_fields__:
        assert np.array_equal(getattr(played_again, field), getattr(warm, field), equal_nan=True), field
    assert (out / "data" / "iter_0000.npz").is_file()


def test_skipped_early_decisions_carry_no_policy_target() -> None:
    config = {**DEFAULTS, "players": 2, "seed": 1, "opponents": ["heuristic"], "expert": "ismcts:simulations=2",
              "early": "skip"}
    examples = Labeller(config).play(1, 1, config["expert"])
    searched = ~np.isnan(examples.searched)
    assert (examples.weights == searched).all()
    assert (examples.targets[~searched] == 0).all()


def test_a_run_labels_trains_evaluates_and_guides_the_next_iteration(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "2", "--guide", "always", "--out", str(out))
    for iteration in (1, 2):
        data = data_of(out, iteration)
        assert len(data) > 50 and data.observations.dtype == np.float16
    with (out / "eval.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2
    for column in ("heuristic_share", "heuristic_baseline", "paired_difference", "random_share", "fresh_agreement",
                   "cpu_hours"):
        assert all(0 <= abs(float(row[column])) <= 1 for row in rows)
    experts = [row["expert"] for row in rows]
    assert experts[0] == "ismcts:simulations=2" and f"net={out.resolve() / 'nets' / 'iter_0001.zip'}" in experts[1]
    config = json.loads((out / "config.json").read_text())
    assert config["algo"] == "exit" and config["cpu_hours"] > 0 and config["command"].startswith("python train.py")
    meta, _, _ = read_net(out / "model.zip")
    assert meta["features"] == "raw" and meta["training"]["seed"] == 7
    assert agents.make(f"net:{out / 'model.zip'}", game="sobek", num_players=2).name == "net"
    assert list((out / "tb").iterdir())


def test_by_default_a_network_guides_only_once_it_has_beaten_the_heuristic(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "2", "--out", str(out))
    with (out / "eval.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert float(rows[0]["paired_difference"]) <= 0  # a tiny network: the heuristic's guidance stays
    assert [row["expert"] for row in rows] == ["ismcts:simulations=2"] * 2


def test_auto_guidance_reads_the_previous_iteration_s_paired_difference(tmp_path: Path) -> None:
    run_dir = ExitRun(tmp_path)
    config = {**DEFAULTS, "guide": "auto"}
    for difference, guided in (("0.02", True), ("0.0", False), ("-0.1", False), ("", False)):
        run_dir.write_evaluations(["iteration", "paired_difference"],
                                  [{"iteration": "1", "paired_difference": difference}])
        assert guided_by_net(config, run_dir, 2) is guided
        assert guided_by_net({**config, "guide": "never"}, run_dir, 2) is False
        assert guided_by_net({**config, "guide": "always"}, run_dir, 2) is True
    assert guided_by_net({**config, "guide": "always"}, run_dir, 1) is False  # no network yet


def weights(path: Path) -> dict[str, torch.Tensor]:
    return read_net(path)[1]


def test_the_same_seed_gives_the_same_run_on_more_workers_and_across_a_resume(tmp_path: Path) -> None:
    straight, resumed = tmp_path / "straight", tmp_path / "resumed"
    run(*TINY, "--iterations", "2", "--eval-games", "0", "--out", str(straight))
    run(*TINY, "--iterations", "1", "--eval-games", "0", "--workers", "2", "--out", str(resumed))
    run("--out", str(resumed), "--resume", "--iterations", "2")
    for iteration in (1, 2):
        a, b = data_of(straight, iteration), data_of(resumed, iteration)
        for field in Examples.__dataclass_fields__:
            assert np.array_equal(getattr(a, field), getattr(b, field), equal_nan=True), field
    first, second = weights(straight / "model.zip"), weights(resumed / "model.zip")
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
    starts = json.loads((resumed / "config.json").read_text())["starts"]
    assert [s["iteration"] for s in starts] == [0, 1]


def test_resuming_passes_over_a_damaged_checkpoint_to_the_one_before(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "2", "--eval-games", "0", "--out", str(out))
    (out / "checkpoints" / "iter_0002" / "model.zip").write_bytes(b"not a zip")
    capsys.readouterr()
    run("--out", str(out), "--resume")
    captured = capsys.readouterr()
    assert "iter_0002' cannot be used" in captured.err and "resuming after iteration 1" in captured.out
    assert "iteration 2:" in captured.out  # made again, from its data file
    assert (out / "checkpoints" / "iter_0002" / "model.zip").read_bytes()[:2] == b"PK"


@pytest.mark.parametrize(("args", "message"), [
    (["--expert", "heuristic"], "--expert 'heuristic' is not a search"),
    (["--opponents", "nobody"], "unknown agent 'nobody'"),
    (["--net", "0"], "must be comma-separated positive layer sizes"),
    (["--players", "5"], "Sobek is for 2 to 4 players, got 5"),
    (["--warm-share", "1"], "must be a number from 0 to 0.99, got 1"),
    (["--warm-lr", "0"], "--warm-lr: "),
    (["--target", "best"], "invalid choice: 'best'"),
    (["--iterations", "0"], "--iterations 0 trains the warm start alone: give --warm-start N too"),
    (["--warm-rounds", "0"], "--warm-rounds: "),
    (["--warm-chunk", "500"], "--warm-chunk streams the heuristic's own games through the warm start"),
    (["--warm-start", "1000", "--warm-chunk", "500", "--warm-rounds", "2"], "no --warm-rounds or --warm-share"),
    (["--warm-start", "1000", "--warm-chunk", "500", "--warm-share", "0.5"], "no --warm-rounds or --warm-share"),
    (["--warm-chunk", "-1"], "--warm-chunk: "),
    (["--warm-start", "1000", "--warm-lr-end", "0.0001"], "--warm-lr-end lowers the learning rate from chunk to chunk"),
    (["--warm-start", "1000", "--warm-chunk", "500", "--warm-lr-end", "0"], "--warm-lr-end: "),
    (["--warm-start", "1000", "--warm-dagger", "0.5"], "--warm-dagger lets the network play in the chunks"),
    (["--warm-start", "1000", "--warm-chunk", "500", "--warm-dagger", "1.5"], "--warm-dagger: "),
    (["--phase-weights", "mosaic_square=2"], "Sobek has no phase 'mosaic_square'; its phases are turn, set,"),
    (["--phase-weights", "turn=101"], "the weight of turn must be a number from 0 to 100, got 101"),
    (["--phase-weights", "turn=2,turn=3"], "phase 'turn' is given twice"),
    (["--phase-weights", "turn"], "expected PHASE=W pairs"),
    (["--heads", "hands"], "--heads has 'hands', which is not a head of sobek's networks (none: it has no heads)"),
    (["--game", "kleopatra", "--players", "3", "--net", "4096,4096,4096,3496,4096", "--heads", "hands,board"],
     "--net makes 67,111,637 parameters, more than the 67,108,864 a model file may hold"),
])
def test_bad_options_stop_with_one_line_and_write_nothing(tmp_path: Path, capsys, args: list[str],
                                                           message: str) -> None:
    assert_refused(tmp_path / "run", capsys, args, message)


def assert_refused(out: Path, capsys: pytest.CaptureFixture, args: list[str], message: str) -> None:
    """A new run in ``out`` with ``args`` beside TINY stops with status 2 and one line holding ``message``, having
    written nothing."""
    with pytest.raises(SystemExit) as stop:
        run(*TINY, *args, "--out", str(out))
    assert stop.value.code == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1 and message in error
    assert not (out / "config.json").exists()


def test_resuming_refuses_a_changed_option_and_a_missing_run(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "1", "--eval-games", "0", "--out", str(out))
    capsys.readouterr()
    for args, message in ((["--out", str(out), "--resume", "--lr", "0.1"], "drop --lr"),
                          (["--out", str(tmp_path / "none"), "--resume"], "no run to resume")):
        with pytest.raises(SystemExit):
            run(*args)
        error = capsys.readouterr().err.strip()
        assert len(error.splitlines()) == 1 and message in error


def test_sigterm_stops_the_run_leaving_no_worker_and_nothing_half_written(tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen([sys.executable, "train.py", "--algo", "exit", *TINY, "--games", "400", "--workers", "2",
                                "--iterations", "2", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        wait_for(lambda: len(children(process.pid)) == 2 or process.poll() is not None, 120, "the labelling workers")
        time.sleep(1)
        os.kill(process.pid, signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    finally:
        for pid in group(process.pid):
            os.kill(pid, signal.SIGKILL)
    assert process.returncode == 143, stderr
    assert "stopped by SIGTERM" in stderr and "--resume continues after the start" in stderr
    wait_for(lambda: not group(process.pid), 10, "the workers to end")
    assert not (out / "data").exists()  # an iteration's games are kept whole or not at all
    assert json.loads((out / "config.json").read_text())["starts"][0]["iteration"] == 0


def test_the_warm_start_teaches_the_heuristic_s_own_choices_on_the_raw_observation() -> None:
    """Each example's target is the choice the Python heuristic makes on the example's observation (read back
    from float16), its outcome the learner's squashed margin; the same seed gives the same examples."""
    fields = heuristic_examples("sobek", 2, "original", 3000, seed=5)
    data = Examples(**fields)
    assert len(data) >= 3000 and data.observations.shape[1] == sobek_env.load_game("sobek").observation_size(2)
    again = Examples(**heuristic_examples("sobek", 2, "original", 3000, seed=5))
    for field in Examples.__dataclass_fields__:
        assert np.array_equal(getattr(data, field), getattr(again, field), equal_nan=True), field
    heuristic = PYTHON_BASELINES["heuristic"](sobek_env.load_game("sobek").table(2))  # the reference
    rows = np.random.default_rng(0).choice(len(data), 300, replace=False)
    for i in rows.tolist():
        observation = {"observation": data.observations[i].astype(np.float32), "action_mask": data.masks[i]}
        assert heuristic.act(observation) == int(data.targets[i].argmax()), i
    assert set(np.unique(data.targets.sum(axis=1))) == {1.0} and data.masks.sum(axis=1).min() > 1
    assert (np.abs(data.outcomes) <= 1).all() and len(np.unique(data.games)) > 20


def test_with_a_player_the_heuristic_labels_the_states_the_player_reaches() -> None:
    """DAgger's examples: the player's moves are played (so the games differ from the heuristic's own), and
    each target is still the Python heuristic's choice on the example's observation."""
    def lowest_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        assert observations.shape[1] == sobek_env.load_game("sobek").observation_size(2)
        return masks.argmax(axis=1)

    own = Examples(**heuristic_examples("sobek", 2, "original", 2000, seed=5))
    led = Examples(**heuristic_examples("sobek", 2, "original", 2000, seed=5, player=lowest_legal))
    assert len(led) >= 2000 and not np.array_equal(led.observations[:500], own.observations[:500])
    heuristic = PYTHON_BASELINES["heuristic"](sobek_env.load_game("sobek").table(2))
    departures = 0
    for i in np.random.default_rng(1).choice(len(led), 200, replace=False).tolist():
        observation = {"observation": led.observations[i].astype(np.float32), "action_mask": led.masks[i]}
        target = int(led.targets[i].argmax())
        assert heuristic.act(observation) == target, i
        departures += target != int(led.masks[i].argmax())
    assert departures > 20  # the heuristic's labels are not the player's moves


def test_a_player_s_share_of_the_decisions_mixes_its_play_with_the_heuristic_s() -> None:
    """With ``share``, the player makes that share of the learner's decisions: none at 0 (the heuristic's own
    games, the same examples), and at a half games that are neither the heuristic's nor the player's alone."""
    def lowest_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masks.argmax(axis=1)

    def examples(**kwargs: Any) -> Examples:
        return Examples(**heuristic_examples("sobek", 2, "original", 1000, seed=5, **kwargs))

    own, half, whole = examples(), examples(player=lowest_legal, share=0.5), examples(player=lowest_legal)
    assert np.array_equal(examples(player=lowest_legal, share=0.0).observations, own.observations)
    assert np.array_equal(examples(player=lowest_legal, share=0.5).observations, half.observations)  # seeded
    for other in (own, whole):
        assert not np.array_equal(half.observations[:300], other.observations[:300])


def test_warm_rounds_add_the_network_s_own_games_labelled_by_the_heuristic(tmp_path: Path, capsys) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "0", "--warm-start", "1000", "--warm-epochs", "1", "--warm-rounds", "2",
        "--out", str(out))
    first, second = data_of(out, 0), Examples.load(out / "data" / "iter_0000_round_2.npz")
    assert len(second) >= 1000 and not np.array_equal(second.observations[:200], first.observations[:200])
    with (out / "eval.csv").open() as f:
        (row,) = list(csv.DictReader(f))
    assert int(row["examples"]) == len(first) + len(second)
    assert "warm start, round 2:" in capsys.readouterr().out
    assert json.loads((out / "config.json").read_text())["warm_rounds"] == 2


def test_a_streamed_warm_start_learns_fresh_chunks_keeps_none_and_repeats_itself(tmp_path: Path, capsys) -> None:
    """--warm-chunk: the decisions come chunk by chunk from fresh games, each measured before it is learnt (a
    held-out figure), none kept on disk; the same seed makes the same network."""
    nets = []
    for name in ("a", "b"):
        out = tmp_path / name
        run(*TINY, "--iterations", "0", "--warm-start", "1500", "--warm-chunk", "500", "--warm-epochs", "1",
            "--out", str(out))
        with (out / "eval.csv").open() as f:
            (row,) = list(csv.DictReader(f))
        assert int(row["examples"]) >= 1500 and row["expert"] == "heuristic (warm start)"
        assert not (out / "data").exists() or not any((out / "data").iterdir())
        nets.append(read_net(out / "model.zip")[1])
    printed = capsys.readouterr().out
    assert "warm start, chunk 3:" in printed and "warm start, chunk 4:" not in printed
    assert all(torch.equal(nets[0][key], nets[1][key]) for key in nets[0])
    # the chunks are different games: the first chunk alone is not the whole start's first 500 decisions again
    first, second = list(WarmExamples(json.loads((tmp_path / "a" / "config.json").read_text())).chunks())[:2]
    assert not np.array_equal(first.observations[:200], second.observations[:200])


def test_a_streamed_dagger_lets_the_network_play_from_the_second_chunk_and_repeats_itself(tmp_path: Path,
                                                                                           capsys) -> None:
    nets = []
    for name in ("a", "b"):
        run(*TINY, "--iterations", "0", "--warm-start", "1000", "--warm-chunk", "500", "--warm-epochs", "1",
            "--warm-dagger", "0.5", "--eval-games", "0", "--out", str(tmp_path / name))
        nets.append(read_net(tmp_path / name / "model.zip")[1])
    printed = capsys.readouterr().out
    assert "(it made 50% of the learner's decisions)" in printed.split("chunk 2:")[1]
    assert "(it made" not in printed.split("chunk 2:")[0]
    assert all(torch.equal(nets[0][key], nets[1][key]) for key in nets[0])
    config = json.loads((tmp_path / "a" / "config.json").read_text())
    assert config["warm_dagger"] == 0.5
    plain = list(WarmExamples({**config, "warm_dagger": 0.0}).chunks())
    net = new_net(run_net_meta(config))
    led = list(WarmExamples(config).chunks(net))
    assert np.array_equal(led[0].observations, plain[0].observations)  # the first chunk: the heuristic's own
    assert not np.array_equal(led[1].observations[:200], plain[1].observations[:200])


def test_a_streamed_warm_starts_learning_rate_falls_geometrically_to_its_end(tmp_path: Path, monkeypatch) -> None:
    config = {**DEFAULTS, "warm_start": 1500, "warm_chunk": 500, "warm_lr": 1e-3, "warm_lr_end": 1e-5}
    assert [chunk_lr(config, n) for n in range(3)] == pytest.approx([1e-3, 1e-4, 1e-5])
    assert chunk_lr({**config, "warm_start": 1400}, 2) == pytest.approx(1e-5)  # the last chunk, shorter
    assert chunk_lr({**config, "warm_lr_end": None}, 2) == 1e-3
    assert chunk_lr({**config, "warm_lr": None, "warm_lr_end": None, "lr": 3e-4}, 1) == 3e-4
    rates = []  # the run trains each chunk at its rate
    real = exit_module.train_net
    monkeypatch.setattr(exit_module, "train_net",
                        lambda *args, **kwargs: rates.append(args[6]) or real(*args, **kwargs))
    run(*TINY, "--iterations", "0", "--warm-start", "1500", "--warm-chunk", "500", "--warm-epochs", "1",
        "--warm-lr", "0.001", "--warm-lr-end", "0.00001", "--eval-games", "0", "--out", str(tmp_path / "run"))
    assert rates == pytest.approx([1e-3, 1e-4, 1e-5])


def test_phase_weights_weigh_each_decision_by_the_phase_its_observation_shows() -> None:
    examples = Examples(**heuristic_examples("kleopatra", 3, "original", 600, seed=4))
    game = sobek_env.load_game("kleopatra")
    phases = [game.phase_names[i] for i in game.observation_phases(examples.observations, 3)]
    assert {"turn", "refill", "quarry"} <= set(phases)
    examples.weights[:5] = 0  # rows without a policy target stay out of the loss whatever their phase
    config = {**DEFAULTS, "game": "kleopatra", "players": 3}
    assert np.array_equal(example_weights(examples, config), examples.weights)  # none given: all 1
    weights = example_weights(examples, {**config, "phase_weights": {"turn": 4.0, "refill": 0.0}})
    expected = [0.0 if row < 5 else {"turn": 4.0, "refill": 0.0}.get(phase, 1.0) for row, phase in enumerate(phases)]
    assert weights.tolist() == expected


def test_a_run_trains_with_its_phase_weights_and_records_them(tmp_path: Path) -> None:
    """Weight 0 on every phase but the turn's: the policy head learns only from the turn's decisions, so the
    logits of actions never legal at a turn's start keep their initial weights (those of a run that weighs
    every phase 0), while the turn's actions and, in an unweighted run, the others move."""
    phases = sobek_env.load_game("sobek").phase_names
    runs = {"all": {}, "turn": {p: 0 for p in phases if p != "turn"}, "none": {p: 0 for p in phases}}
    heads = {}
    for name, weights in runs.items():
        out = tmp_path / name
        option = ",".join(f"{p}={w}" for p, w in weights.items())
        run(*TINY, "--iterations", "0", "--warm-start", "1500", "--warm-epochs", "2", "--eval-games", "0",
            *(["--phase-weights", option] if option else []), "--out", str(out))
        heads[name] = read_net(out / "model.zip")[1]["policy.weight"]
        assert json.loads((out / "config.json").read_text())["phase_weights"] == weights
    data = data_of(tmp_path / "turn", 0)
    at_turn = sobek_env.load_game("sobek").observation_phases(data.observations, 2) == 0
    turn_actions = data.masks[at_turn].any(axis=0)
    assert 0 < turn_actions.sum() < len(turn_actions)
    assert torch.equal(heads["turn"][~turn_actions], heads["none"][~turn_actions])
    assert not torch.equal(heads["turn"][turn_actions], heads["none"][turn_actions])
    assert not torch.equal(heads["all"][~turn_actions], heads["none"][~turn_actions])


def test_iterations_0_trains_the_warm_start_alone_and_ships_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "0", "--warm-start", "1000", "--warm-epochs", "1", "--out", str(out))
    with (out / "eval.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [row["expert"] for row in rows] == ["heuristic (warm start)"]
    assert sorted(path.name for path in (out / "nets").iterdir()) == ["iter_0000.zip"]
    assert (out / "model.zip").read_bytes() == (out / "nets" / "iter_0000.zip").read_bytes()
    assert not (out / "data" / "iter_0001.npz").exists()  # no search played


def test_a_warm_start_is_iteration_0_and_a_resume_does_not_repeat_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    run(*TINY, "--iterations", "1", "--warm-start", "2000", "--warm-epochs", "1", "--out", str(out))
    with (out / "eval.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["iteration"] for row in rows] == ["0", "1"] and rows[0]["expert"] == "heuristic (warm start)"
    assert len(data_of(out, 0)) >= 2000 and (out / "nets" / "iter_0000.zip").is_file()
    before = (out / "data" / "iter_0000.npz").stat().st_mtime_ns
    run("--out", str(out), "--resume", "--iterations", "2")
    with (out / "eval.csv").open(newline="") as handle:
        assert [row["iteration"] for row in csv.DictReader(handle)] == ["0", "1", "2"]
    assert (out / "data" / "iter_0000.npz").stat().st_mtime_ns == before


@pytest.fixture(scope="module")
def start(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run's network (Sobek, 2 players, one layer of 16) for --init."""
    out = tmp_path_factory.mktemp("start")
    run(*TINY, "--iterations", "1", "--eval-games", "0", "--out", str(out))
    return out / "model.zip"


def test_a_run_started_from_a_network_takes_its_weights_layers_and_cost_and_measures_it_first(
        tmp_path: Path, start: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    meta, tensors, _ = read_net(start)
    out = tmp_path / "run"
    tiny = [a for i, a in enumerate(TINY) if a != "--net" and (i == 0 or TINY[i - 1] != "--net")]
    monkeypatch.chdir(start.parent)  # a relative path is recorded absolute, as train.py's --init records it
    run(*tiny, "--iterations", "1", "--init", f"net:{start.name}", "--out", str(out))
    with (out / "eval.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [(row["iteration"], row["expert"]) for row in rows] == [("0", "the --init network"),
                                                                   ("1", "ismcts:simulations=2")]
    assert float(rows[0]["cpu_hours"]) >= meta["training"]["cpu_hours"]  # the network's own cost counts
    first, tensors0, _ = read_net(out / "nets" / "iter_0000.zip")
    assert first["hidden"] == meta["hidden"] == [16]
    assert all(torch.equal(tensors[name], tensors0[name]) for name in tensors)  # iteration 0 is the network itself
    _, tensors1, _ = read_net(out / "nets" / "iter_0001.zip")
    assert not all(torch.equal(tensors[name], tensors1[name]) for name in tensors)  # then it learns
    assert json.loads((out / "config.json").read_text())["init"] == f"net:{start}"


@pytest.mark.parametrize(("args", "message"), [
    (["--init", "model.zip"], "--init takes net:PATH, a network file"),
    (["--init", "net:"], "--init takes net:PATH, a network file"),
    (["--init", "net:NOWHERE/model.zip"], "NOWHERE/model.zip' not found"),
    (["--init", "net:START", "--warm-start", "1000"], "--init starts from a network and --warm-start teaches"),
    (["--init", "net:START", "--net", "32"], "is a network with --net 16; leave --net out or give that"),
    (["--init", "net:START", "--players", "3"], "was trained for num_players=2 but this table has num_players=3"),
])
def test_a_bad_init_network_stops_with_one_line_and_writes_nothing(tmp_path: Path, capsys, start: Path,
                                                                   args: list[str], message: str) -> None:
    capsys.readouterr()
    assert_refused(tmp_path / "run", capsys, [a.replace("START", str(start)) for a in args], message)


def test_kleopatra_s_warm_start_targets_are_the_python_heuristic_s_choice_on_the_stored_observation() -> None:
    """What a Kleopatra network is taught is a function of what it reads: the Python heuristic (the reference),
    asked on each stored float16 observation alone, makes the stored choice."""
    from agents.kleopatra import PYTHON_BASELINES as KLEOPATRA_BASELINES

    data = Examples(**heuristic_examples("kleopatra", 3, "original", 1500, seed=3))
    heuristic = KLEOPATRA_BASELINES["heuristic"](sobek_env.load_game("kleopatra").table(3))
    rows = np.random.default_rng(2).choice(len(data), 150, replace=False)
    for i in rows.tolist():
        observation = {"observation": data.observations[i].astype(np.float32), "action_mask": data.masks[i]}
        assert heuristic.act(observation) == int(data.targets[i].argmax()), i
