"""train.py --imitation (agents.training.kickstart): the learner's rows carry the heuristic's choice after the
observation, natively as in Python; the network never reads it and plays from the observation alone; the update is
MaskablePPO's plus the imitation term, which pulls the policy toward the heuristic's choices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from test_batched import run_config
from test_ppo_from_net import HIDDEN, SMALL_RUN, tiny_net

import agents
import sobek_env
import train
from agents.players.modelfile import PPO_FILE, read_meta_document
from agents.players.net import read_net
from agents.players.ppo import check_meta, load_ppo
from agents.training import batched, sb3
from agents.training.kickstart import ImitatingPPO, Teacher
from agents.training.pool import OpponentPool
from sobek_env.env import ask
from sobek_env.registry import load_game

native = pytest.mark.skipif(batched._batch is None, reason="the native training batch was not built (setup.py)")


def heuristic_choice(game: str, players: int, observation: np.ndarray, mask: np.ndarray) -> int:
    """The Python heuristic's choice for an observation vector and its mask."""
    agent = agents.make("heuristic", game=game, num_players=players)
    return int(ask(agent, {"observation": observation, "action_mask": mask.astype(np.int8)}, None))


@native
@pytest.mark.parametrize(("game", "players"), [("kleopatra", 3), ("sobek", 2)])
def test_the_native_rows_carry_the_heuristics_choice_after_the_observation(game: str, players: int) -> None:
    config = run_config(game, players, ["heuristic"], features="raw", trunk="shared", imitation=1.0,
                        self_play_weight=0.0)
    env = batched.NativeTrainingEnv(config, 3, seed=5)
    g = load_game(game)
    base = g.observation_size(players)
    assert env.observation_space.shape == (base + g.num_actions,)
    observer, rng = g.observer(players, "original"), np.random.default_rng(4)
    rows, ended, departed = env.reset(), 0, 0
    for _ in range(150):
        masks = env.action_masks()
        for i in range(3):
            state, seat = env.batch.state(i), int(env.batch.seats[i])
            assert np.array_equal(rows[i, :base], observer.encode(state, seat))
            choice = heuristic_choice(game, players, rows[i, :base].copy(), masks[i])
            assert rows[i, base:].tolist() == [float(a == choice) for a in range(g.num_actions)]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        departed += int((actions != rows[:, base:].argmax(axis=1)).sum())
        env.step_async(actions)
        rows, _, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones).tolist():
            ended += 1
            final = infos[i]["terminal_observation"]
            assert final.shape == (base + g.num_actions,) and not final[base:].any()  # no choice in a finished game
    assert departed > 50  # the learner's own states, not the heuristic's: it played at random


def test_the_python_environment_writes_the_same_rows() -> None:
    game = load_game("kleopatra")
    env = sb3.TrainingEnv(OpponentPool([("heuristic", 1.0)], num_players=3, game="kleopatra"), "capped-outlook",
                          "raw", imitation=True, seat=2)
    base = game.observation_size(3)
    assert env.observation_space.shape == (base + game.num_actions,)
    row, _ = env.reset(seed=8)
    rng, over = np.random.default_rng(8), False
    while not over:
        mask = env.action_masks()
        assert np.array_equal(row[:base], game.observer(3, "original").encode(env.game, 2))
        assert int(row[base:].argmax()) == heuristic_choice("kleopatra", 3, row[:base].copy(), mask)
        assert row[base:].sum() == 1.0
        row, _, over, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
    assert not row[base:].any()


def test_a_teacher_needs_a_game_whose_features_carry_the_heuristics_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    from agents.training import kickstart

    monkeypatch.setattr(kickstart, "teacher_features", lambda game: None)
    with pytest.raises(ValueError, match="no feature set that carries the heuristic's choice"):
        Teacher(load_game("sobek").table(2))


def filled_model(algorithm: type, seed: int, **kwargs: object) -> MaskablePPO:
    """A small model of Sobek for 2 (raw rows with the heuristic's choice), its rollout buffer filled by one rollout."""
    config = run_config("sobek", 2, ["heuristic"], features="raw", trunk="shared", imitation=1.0,
                        self_play_weight=0.0, net=[32, 32], n_steps=32, envs=8, batch_size=64, epochs=2)
    env = batched.NativeTrainingEnv(config, 8, seed=seed)
    model = sb3.new_model(config, env, seed)
    if algorithm is MaskablePPO:  # the same network, updated by sb3-contrib's own train()
        description = sb3.policy_description(config)
        policy, policy_kwargs = sb3.policy_spec(description, sb3.run_table(config))
        model = MaskablePPO(policy, env, learning_rate=config["lr"], n_steps=32, batch_size=64, n_epochs=2,
                            gamma=config["gamma"], gae_lambda=config["gae_lambda"], clip_range=config["clip"],
                            ent_coef=0.01, policy_kwargs=policy_kwargs, seed=seed, device="cpu")
    else:
        model.imitation = kwargs.get("imitation", model.imitation)
        model.ent_coef = 0.01
    model.learn(256)  # one rollout of 8 x 32 steps and its update
    return model


def test_without_imitation_the_update_is_maskable_ppos() -> None:
    ours, theirs = filled_model(ImitatingPPO, 3, imitation=0.0), filled_model(MaskablePPO, 3)
    for (name, a), b in zip(ours.policy.state_dict().items(), theirs.policy.state_dict().values(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6, msg=name)
    moved = filled_model(ImitatingPPO, 3, imitation=1.0)  # the term moves the weights
    assert any(not torch.allclose(a, b) for a, b in zip(moved.policy.state_dict().values(),
                                                        theirs.policy.state_dict().values(), strict=True))


def agreement(model: ImitatingPPO) -> float:
    """The share of the rollout buffer's decisions whose most probable action is the heuristic's."""
    rows = torch.as_tensor(model.rollout_buffer.observations.reshape(-1, model.rollout_buffer.obs_shape[0]))
    masks = torch.as_tensor(model.rollout_buffer.action_masks.reshape(len(rows), -1))
    with torch.no_grad():
        distribution = model.policy.get_distribution(rows, action_masks=masks.numpy())
    return float(model._imitation(rows[:, model.reads:], distribution.distribution.logits)[1])


def test_the_imitation_term_pulls_the_policy_toward_the_heuristics_choices() -> None:
    shares = {}
    for weight in (0.0, 3.0):
        model = filled_model(ImitatingPPO, 4, imitation=weight)
        model.learning_rate = 3e-3
        model.lr_schedule = lambda _: 3e-3
        model.n_epochs = 10
        before = agreement(model)
        model.train()  # ten more passes over the same rollout
        shares[weight] = agreement(model) - before
    assert shares[3.0] > shares[0.0] + 0.05, shares


def test_the_weight_falls_linearly_to_zero_at_the_decay() -> None:
    model = filled_model(ImitatingPPO, 5, imitation=2.0)
    assert model.imitation_weight(0) == 2.0 and model.imitation_weight(10**9) == 2.0  # no decay: it stays W
    model.imitation_decay = 1000
    assert [model.imitation_weight(s) for s in (0, 250, 1000, 5000)] == [2.0, 1.5, 0.0, 0.0]


def test_a_taught_run_gives_models_that_play_from_the_observation_alone(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "256", "--init", f"net:{init}", "--imitation", "2",
                "--imitation-decay", "1000", "--out", str(out), *SMALL_RUN])
    config = json.loads((out / "config.json").read_text())
    assert (config["imitation"], config["imitation_decay"], config["features"]) == (2.0, 1000, "raw")
    record = read_meta_document(out / "model.zip", PPO_FILE)
    size = load_game("sobek").observation_size(2)
    assert record["observation_size"] == size + load_game("sobek").num_actions
    assert record["policy"]["features_extractor_kwargs"] == {"squashed": size, "reads": size}
    ppo, net = load_ppo(out / "model.zip"), agents.make(f"net:{out / 'net.zip'}", game="sobek", num_players=2)
    assert read_net(out / "net.zip")[0]["hidden"] == HIDDEN
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=2)
    for _ in range(40):  # the observation alone: the model file's row is longer, the network reads its start
        observation, *_ = env.last()
        np.testing.assert_allclose(ppo.logits(observation), net.evaluate(observation)[0], rtol=1e-5, atol=1e-5)
        env.step(net.act(observation))


def test_a_taught_models_record_must_read_the_observation_and_carry_the_choice(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "256", "--init", f"net:{init}", "--imitation", "1",
                "--out", str(out), *SMALL_RUN])
    record = read_meta_document(out / "model.zip", PPO_FILE)
    check_meta(json.loads(json.dumps(record)), "test")
    wrong = json.loads(json.dumps(record))
    wrong["policy"]["features_extractor_kwargs"]["reads"] -= 1
    with pytest.raises(ValueError, match="reads"):
        check_meta(wrong, "test")
    short = json.loads(json.dumps(record))
    short["observation_size"] -= 1
    with pytest.raises(ValueError, match="the teacher's choice its training read"):
        check_meta(short, "test")


@pytest.mark.parametrize(("extra", "message"), [
    (["--imitation", "1"], "--imitation teaches a network that reads the observation alone: use --features raw"),
    (["--imitation", "1", "--features", "raw", "--trunk", "shared", "--critic", "state"],
     "--imitation and --critic state both add entries"),
    (["--imitation", "-1"], "argument --imitation"),
    (["--imitation", "1", "--features", "raw", "--imitation-decay", "x"], "argument --imitation-decay"),
])
def test_imitation_refuses_options_that_do_not_fit_it(tmp_path: Path, extra: list[str], message: str,
                                                      capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--players", "2", "--out", str(tmp_path / "run"), *extra])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_keep_evaluated_keeps_each_evaluations_models_and_a_resume_drops_the_lost_ones(tmp_path: Path) -> None:
    from agents.training.rundir import Run

    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    small = [*SMALL_RUN]
    small[small.index("--eval-every") + 1] = "256"
    train.main(["--players", "2", "--timesteps", "512", "--init", f"net:{init}", "--keep-evaluated",
                "--out", str(out), *small])
    kept = sorted(path.name for path in (out / "evaluated").iterdir())
    assert kept == ["step_0000000256.net.zip", "step_0000000256.zip", "step_0000000512.net.zip",
                    "step_0000000512.zip"]
    final, last = read_net(out / "net.zip")[1], read_net(out / "evaluated" / "step_0000000512.net.zip")[1]
    assert all(torch.equal(final[name], last[name]) for name in final)
    first = agents.make(f"net:{out / 'evaluated' / 'step_0000000256.net.zip'}", game="sobek", num_players=2)
    assert first.name == "net"
    assert read_meta_document(out / "evaluated" / "step_0000000256.zip", PPO_FILE)["timesteps"] == 256
    assert Run(out).drop_evaluations_after(256) == 1  # as a resume from 256 steps does
    assert sorted(path.name for path in (out / "evaluated").iterdir()) == kept[:2]


def test_a_taught_run_resumes_with_its_imitation(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    small = [*SMALL_RUN]
    small[small.index("--eval-every") + 1] = "256"
    train.main(["--players", "2", "--timesteps", "256", "--init", f"net:{init}", "--imitation", "0.5",
                "--checkpoint-every", "256", "--out", str(out), *small])
    train.main(["--out", str(out), "--resume", "--timesteps", "512"])
    config = json.loads((out / "config.json").read_text())
    assert config["imitation"] == 0.5 and [start["timesteps"] for start in config["starts"]] == [0, 256]
    assert read_meta_document(out / "model.zip", PPO_FILE)["timesteps"] == 512
    config["imitation"] = "lots"  # a config.json edited by hand is refused, naming the field
    (out / "config.json").write_text(json.dumps(config))
    with pytest.raises(SystemExit) as exit_:
        train.main(["--out", str(out), "--resume", "--timesteps", "768"])
    assert exit_.value.code == 2
    assert "its field 'imitation'" in capsys.readouterr().err
