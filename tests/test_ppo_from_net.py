"""PPO from a network of expert iteration (train.py --init net:PATH, --trunk shared): the shared-trunk policy
plays exactly as the network it starts from, and the run writes its network back as net.zip."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import torch
from test_heads import kleopatra_observations
from test_net import NEAR_THE_LIMIT

import agents
import sobek_env
import train
from agents.players.modelfile import PPO_FILE, read_meta_document
from agents.players.net import net_meta, new_net, read_net, save_net
from agents.players.ppo import PPOAgent, build_policy, check_meta, net_from_policy, policy_from_net
from agents.training import sb3
from agents.training.pool import OpponentPool
from sobek_env.registry import load_game

HIDDEN = [16, 8]
SMALL_RUN = ["--envs", "1", "--n-steps", "256", "--batch-size", "256", "--epochs", "1", "--eval-every", "100000",
             "--eval-games", "2", "--seed", "1", "--pool", "random", "--self-play-weight", "0"]


def tiny_net(path: Path, game: str = "sobek", players: int = 2) -> Path:
    torch.manual_seed(0)
    meta = net_meta(load_game(game).table(players), HIDDEN)
    save_net(new_net(meta), path, meta)
    return path


def trunk_policy_meta(players: int = 2) -> dict:
    """The sobek.json record of a shared-trunk policy over Sobek's raw observation (as train.py writes it)."""
    game = load_game("sobek")
    size = game.observation_size(players)
    return {"format": "sobek-ppo/2", "game": "sobek", "num_players": players, "observation_mode": "original",
            "reward_mode": "round-margin", "features": "raw", "timesteps": 0, "observation_size": size,
            "action_count": game.num_actions,
            "policy": {"class": "TrunkPolicy", "net_arch": {"pi": HIDDEN, "vf": HIDDEN}, "activation": "ReLU",
                       "features_extractor": "Log1pFeatures", "features_extractor_kwargs": {"squashed": size}}}


def test_a_shared_trunk_policy_started_from_a_network_gives_its_logits_and_value(tmp_path: Path) -> None:
    path = tiny_net(tmp_path / "net.zip")
    net = agents.make(f"net:{path}", game="sobek", num_players=2)
    meta = trunk_policy_meta()
    policy = build_policy(check_meta(meta, "test"))
    policy.load_state_dict(policy_from_net(read_net(path)[1]))
    ppo = PPOAgent(policy, meta)
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=3)
    for _ in range(30):
        observation, *_ = env.last()
        logits, value = net.evaluate(observation)
        np.testing.assert_allclose(ppo.logits(observation), logits, rtol=1e-5, atol=1e-5)
        with torch.no_grad():
            critic = policy.predict_values(torch.as_tensor(observation["observation"]).reshape(1, -1))
        assert float(torch.tanh(critic)) == pytest.approx(value, abs=1e-5)  # the critic reads the unit untanhed
        env.step(net.act(observation))
    back = net_from_policy(policy.state_dict())
    original = read_net(path)[1]
    assert back.keys() == original.keys() and all(torch.equal(back[k], original[k]) for k in original)


def test_a_shared_trunk_record_must_give_one_trunk() -> None:
    meta = trunk_policy_meta()
    meta["policy"]["net_arch"]["vf"] = [16, 16]
    with pytest.raises(ValueError, match="TrunkPolicy's one trunk as equal pi and vf"):
        check_meta(meta, "test")


def test_a_run_from_a_network_keeps_its_play_through_the_critic_warmup_and_writes_it_back(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "512", "--critic-warmup", "1024", "--init", f"net:{init}",
                "--out", str(out), *SMALL_RUN])
    config = json.loads((out / "config.json").read_text())
    assert (config["trunk"], config["features"], config["net"]) == ("shared", "raw", HIDDEN)
    assert config["init"] == f"net:{init.resolve()}"
    assert read_meta_document(out / "model.zip", PPO_FILE)["policy"]["class"] == "TrunkPolicy"
    meta, after, _ = read_net(out / "net.zip")
    assert meta["training"]["algo"] == "ppo" and meta["training"]["init"] == config["init"]
    with (out / "eval.csv").open(newline="") as handle:  # its cost so far, which a run from it counts
        assert meta["training"]["cpu_hours"] >= float(list(csv.DictReader(handle))[-1]["cpu_hours"]) > 0
    before = read_net(init)[1]
    # two updates in the critic's warm-up: only the value head learnt, so the network plays as it did
    for name in before:
        assert torch.equal(after[name], before[name]) == (not name.startswith("value.")), name


def test_a_run_from_a_network_learns_its_policy_after_the_warmup(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "256", "--init", f"net:{init}", "--out", str(out), *SMALL_RUN])
    before, after = read_net(init)[1], read_net(out / "net.zip")[1]
    differences = [float((after[k] - before[k]).abs().max()) for k in before]
    assert 0 < max(differences) < 0.1  # one update moves the network a little


@pytest.mark.parametrize(("extra", "message"), [
    (["--features", "advice"], "argument --features: --init net:"),
    (["--net", "32,32"], "argument --net: --init net:"),
    (["--trunk", "separate"], "argument --trunk: --init net:"),
    (["--players", "3"], "num_players=2 where this run has num_players=3"),
])
def test_a_run_from_a_network_refuses_options_that_do_not_fit_it(tmp_path: Path, extra: list[str], message: str,
                                                                 capsys: pytest.CaptureFixture) -> None:
    init = tiny_net(tmp_path / "init.zip")
    args = ["--init", f"net:{init}", "--out", str(tmp_path / "run"), *extra]
    with pytest.raises(SystemExit) as exit_:
        train.main(["--players", "2", *args] if "--players" not in extra else args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(("extra", "message"), [
    (["--init", "net:nowhere.zip"], "argument --init"),
    (["--trunk", "shared", "--features", "advice"], "--trunk shared builds a net: model's layout"),
])
def test_a_missing_network_or_a_shared_trunk_over_advice_is_refused(tmp_path: Path, extra: list[str], message: str,
                                                                   capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--players", "2", "--out", str(tmp_path / "run"), *extra])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err and not (tmp_path / "run").exists()


def heads_net(path: Path) -> Path:
    """A small untrained Kleopatra network (3 players) with both structured heads."""
    torch.manual_seed(0)
    meta = net_meta(load_game("kleopatra").table(3), HIDDEN, heads=["hands", "board"])
    save_net(new_net(meta), path, meta)
    return path


def test_a_policy_started_from_a_network_with_heads_gives_its_logits_and_value(tmp_path: Path) -> None:
    path = heads_net(tmp_path / "net.zip")
    net = agents.make(f"net:{path}", game="kleopatra", num_players=3)
    game = load_game("kleopatra")
    size = game.observation_size(3)
    meta = {"format": "sobek-ppo/2", "game": "kleopatra", "num_players": 3, "observation_mode": "original",
            "reward_mode": "round-margin", "features": "raw", "timesteps": 0, "observation_size": size,
            "action_count": game.num_actions,
            "policy": {"class": "HeadsPolicy", "net_arch": {"pi": HIDDEN, "vf": HIDDEN}, "activation": "ReLU",
                       "features_extractor": "Log1pFeatures", "features_extractor_kwargs": {"squashed": size},
                       "heads": ["hands", "board"]}}
    policy = build_policy(check_meta(meta, "test"))
    policy.load_state_dict(policy_from_net(read_net(path)[1], heads=True))
    ppo = PPOAgent(policy, meta)
    placing = kleopatra_observations(10, seed=7, placing=True)  # the board head's observations
    for row in [*kleopatra_observations(60, seed=6), *placing]:
        observation = {"observation": row, "action_mask": np.ones(game.num_actions, dtype=np.int8)}
        logits, value = net.evaluate(observation)
        np.testing.assert_allclose(ppo.logits(observation), logits, rtol=1e-4, atol=1e-4)
        with torch.no_grad():
            critic = policy.predict_values(torch.as_tensor(row).reshape(1, -1))
        assert float(torch.tanh(critic)) == pytest.approx(value, abs=1e-5)
    back = net_from_policy(policy.state_dict(), heads=True)
    original = read_net(path)[1]
    assert back.keys() == original.keys() and all(torch.equal(back[k], original[k]) for k in original)
    meta["policy"]["heads"] = ["wings"]
    with pytest.raises(ValueError, match=r"field 'policy\.heads' has 'wings'"):
        check_meta(meta, "test")
    # a trunk a file may hold alone, which the heads take past the limit
    meta["policy"]["net_arch"] = {"pi": NEAR_THE_LIMIT, "vf": NEAR_THE_LIMIT}
    meta["policy"]["class"] = "TrunkPolicy"
    del meta["policy"]["heads"]
    check_meta(meta, "test")
    meta["policy"].update({"class": "HeadsPolicy", "heads": ["hands", "board"]})
    with pytest.raises(ValueError, match=r"field 'policy\.net_arch' describes .* parameters, more than the"):
        check_meta(meta, "test")


def test_a_run_from_a_network_with_heads_keeps_them_and_writes_them_back(tmp_path: Path) -> None:
    init, out = heads_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--game", "kleopatra", "--players", "3", "--timesteps", "512", "--critic-warmup", "1024",
                "--init", f"net:{init}", "--out", str(out), *SMALL_RUN])
    assert json.loads((out / "config.json").read_text())["heads"] == ["hands", "board"]
    assert read_meta_document(out / "model.zip", PPO_FILE)["policy"]["class"] == "HeadsPolicy"
    meta, after, _ = read_net(out / "net.zip")
    assert meta["heads"] == ["hands", "board"]
    before = read_net(init)[1]
    assert any(name.startswith("heads.board.") for name in before)
    for name in before:  # the critic's warm-up: the value head alone learnt
        assert torch.equal(after[name], before[name]) == (not name.startswith("value.")), name
    played = agents.make(f"net:{out / 'net.zip'}", game="kleopatra", num_players=3)
    assert played.meta["heads"] == ["hands", "board"]


def test_a_network_with_heads_refuses_a_state_critic(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    init = heads_net(tmp_path / "init.zip")
    with pytest.raises(SystemExit) as exit_:
        train.main(["--game", "kleopatra", "--players", "3", "--init", f"net:{init}", "--critic", "state",
                    "--out", str(tmp_path / "run")])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "a network with structured heads (hands, board) trains on its own trunk" in err
    assert "Traceback" not in err and not (tmp_path / "run").exists()


def test_the_run_counts_the_cpu_hours_of_the_network_it_starts_from(tmp_path: Path) -> None:
    torch.manual_seed(0)
    meta = net_meta(load_game("sobek").table(2), HIDDEN, {"cpu_hours": 0.5})
    init, out = tmp_path / "init.zip", tmp_path / "run"
    save_net(new_net(meta), init, meta)
    train.main(["--players", "2", "--timesteps", "256", "--init", f"net:{init}", "--out", str(out), *SMALL_RUN])
    with (out / "eval.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert 0.5 <= float(rows[-1]["cpu_hours"]) < 0.6  # the network's half hour, and the (few) seconds of this run
    (checkpoint,) = (out / "checkpoints").iterdir()
    state = json.loads((checkpoint / "state.json").read_text())
    assert 1800 <= state["cpu_seconds"] < 0.6 * 3600


# ---------------------------------------------------------------- a critic that reads the state (--critic state)


def test_a_state_critic_run_keeps_the_networks_play_and_value_head_through_the_warmup(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "512", "--critic-warmup", "1024", "--critic", "state",
                "--init", f"net:{init}", "--out", str(out), *SMALL_RUN])
    meta = read_meta_document(out / "model.zip", PPO_FILE)
    game = load_game("sobek")
    assert meta["policy"]["class"] == "StateCriticPolicy"
    assert meta["policy"]["actor_size"] == game.observation_size(2)
    assert meta["observation_size"] == game.observation_size(2) + game.state_size(2) + 2
    before, after = read_net(init)[1], read_net(out / "net.zip")[1]
    assert after.keys() == before.keys() and all(torch.equal(after[k], before[k]) for k in before)


def test_a_state_critic_run_moves_the_policy_but_keeps_the_networks_value_head(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "256", "--critic", "state", "--init", f"net:{init}",
                "--out", str(out), *SMALL_RUN])
    before, after = read_net(init)[1], read_net(out / "net.zip")[1]
    for name in before:
        assert torch.equal(after[name], before[name]) == name.startswith("value."), name
    # the model file plays from the observation alone, as the network it wrote
    ppo = agents.make(f"ppo:{out / 'model.zip'}", game="sobek", num_players=2)
    net = agents.make(f"net:{out / 'net.zip'}", game="sobek", num_players=2)
    env = sobek_env.env(game="sobek", num_players=2)
    env.reset(seed=4)
    for _ in range(30):
        observation, *_ = env.last()
        np.testing.assert_allclose(ppo.logits(observation), net.evaluate(observation)[0], rtol=1e-5, atol=1e-5)
        env.step(ppo.act(observation))


def test_a_state_critics_policy_never_reads_the_state_and_its_value_does(tmp_path: Path) -> None:
    init, out = tiny_net(tmp_path / "init.zip"), tmp_path / "run"
    train.main(["--players", "2", "--timesteps", "256", "--critic", "state", "--init", f"net:{init}",
                "--out", str(out), *SMALL_RUN])
    policy = agents.make(f"ppo:{out / 'model.zip'}", game="sobek", num_players=2).policy
    game = load_game("sobek")
    width = game.observation_size(2)
    rows = torch.as_tensor(np.random.default_rng(0).random((8, policy.observation_space.shape[0]), np.float32))
    other = rows.clone()
    other[:, width:] = torch.as_tensor(np.random.default_rng(1).random((8, other.shape[1] - width), np.float32))
    with torch.no_grad():
        logits = [policy.get_distribution(r).distribution.logits for r in (rows, other)]
        values = [policy.predict_values(r) for r in (rows, other)]
    assert torch.equal(logits[0], logits[1])
    assert not torch.equal(values[0], values[1])


@pytest.mark.parametrize(("extra", "message"), [
    (["--critic", "state"], "--critic state gives a net: model's trunk a value network of its own"),
    (["--critic", "hidden"], "argument --critic: invalid choice"),
])
def test_a_state_critic_needs_a_shared_trunk(tmp_path: Path, extra: list[str], message: str,
                                            capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_:
        train.main(["--players", "2", "--features", "raw", "--out", str(tmp_path / "run"), *extra])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()


def test_the_critic_warmup_lets_the_whole_state_critic_learn_and_never_the_kept_value_head() -> None:
    meta = trunk_policy_meta()
    game = load_game("sobek")
    size = meta["observation_size"]
    meta["observation_size"] = size + game.state_size(2) + 2
    meta["policy"].update({"class": "StateCriticPolicy", "actor_size": size,
                           "features_extractor_kwargs": {"squashed": meta["observation_size"]}})
    policy = build_policy(check_meta(meta, "test"))
    sb3.critic_only(policy, True)
    learning = {name.split(".")[0] + "." + name.split(".")[1] for name, p in policy.named_parameters()
                if p.requires_grad}
    assert learning == {"mlp_extractor.critic", "value_net.weight", "value_net.bias"}
    sb3.critic_only(policy, False)
    assert {name for name, p in policy.named_parameters() if not p.requires_grad} == {"public_value.weight",
                                                                                     "public_value.bias"}


def test_the_python_environment_writes_the_state_after_the_features_and_zeros_once_over() -> None:
    game = load_game("kleopatra")
    env = sb3.TrainingEnv(OpponentPool([("random", 1.0)], num_players=3, game="kleopatra"), "round-margin", "raw",
                          critic_state=True, seat=1)
    width, state = game.observation_size(3), game.state_size(3)
    assert env.observation_space.shape == (width + state + 3,)
    observer = game.observer(3, "original")
    row, _ = env.reset(seed=3)
    rng, over = np.random.default_rng(3), False
    while not over:
        assert np.array_equal(row[:width], observer.encode(env.game, 1))
        assert np.array_equal(row[width:width + state], game.state_vector(env.game))
        assert row[-3:].tolist() == [0.0, 1.0, 0.0]
        row, _, over, _, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    assert not row[width:].any()


def test_a_run_s_parameters_count_its_heads() -> None:
    from agents.players.heads import heads_parameters
    config = {**sb3.DEFAULTS, "game": "kleopatra", "players": 3, "mode": "original", "trunk": "shared",
              "features": "raw", "net": [64, 32]}
    plain = sb3.network_parameters(config)
    with_heads = sb3.network_parameters({**config, "heads": ["hands", "board"]})
    assert with_heads - plain == heads_parameters("kleopatra", ["hands", "board"], 3, [64, 32]) > 0
    assert sb3.network_parameters({**config, "heads": ["nothing"]}) == plain  # refused elsewhere, counted as none
