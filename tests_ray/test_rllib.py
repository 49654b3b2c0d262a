"""Training with RLlib (train.py --backend rllib): the environment RLlib checks and steps, one training iteration
for both games, the league's snapshots, the saved policy playing as rllib:PATH, an interrupted run's policy
kept, and a few iterations on Sobek that beat random."""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import session
from processes import wait_for

from agents import make
from agents.players.rllib_policy import read_weights
from agents.tournaments.tournament import play_tournament, summarize
from agents.training.rewards import MARGIN_CAP, ROUND_MARGIN, paid_lead
from agents.training.rllib_env import MAIN, LeagueMapping, RLlibEnv
from agents.training.rllib_train import algorithm_config, main_weights, refresh_snapshot
from agents.training.rllib_train import main as train_with_rllib
from sobek_env import load_game

ROOT = Path(__file__).resolve().parent.parent
TABLES = [("sobek", 2), ("kleopatra", 3)]


def play_out(env: RLlibEnv, seed: int) -> tuple[dict, dict, list]:
    """A whole game of legal random actions, drawn by the env's own action spaces: each agent's rewards summed,
    the last step's infos, and who was given each observation."""
    observations, _ = env.reset(seed=seed)
    for space in env.action_spaces.values():
        space.seed(seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    seen = [list(observations)]
    while True:
        (acting,) = observations
        observations, rewards, terminateds, truncateds, infos = env.step(
            {acting: env.get_action_space(acting).sample()})
        for agent, reward in rewards.items():
            totals[agent] += reward
        seen.append(list(observations))
        assert set(rewards) == set(observations) and not any(truncateds.values())
        if terminateds["__all__"]:
            return totals, infos, seen


@pytest.mark.parametrize(("game", "players"), TABLES)
def test_the_environment_passes_rllibs_check_and_pays_each_agent_its_margin(game: str, players: int) -> None:
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = RLlibEnv({"game": game, "num_players": players})
    check_multiagent_environments(env)  # steps it with action_space.sample(): only legal actions pass
    totals, infos, seen = play_out(env, seed=4)
    assert all(len(agents) == 1 for agents in seen[:-1]) and seen[-1] == env.possible_agents
    state = env.aec.game
    info = load_game(game)
    margins = info.margins(state)
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(margins[seat] / info.score_scale)
        assert infos[agent] == {"score": state.scores[seat], "winner": seat in state.winners}
    space = env.observation_spaces[env.possible_agents[0]]
    assert set(space.spaces) == {"observations", "action_mask"}


def test_capped_margin_pays_the_margin_squashed_at_the_end() -> None:
    env = RLlibEnv({"game": "kleopatra", "num_players": 3, "reward": "capped-margin"})
    totals, _, _ = play_out(env, seed=4)
    info = load_game("kleopatra")
    for seat, margin in enumerate(info.margins(env.aec.game)):
        squashed = MARGIN_CAP * math.tanh(margin / info.score_scale / MARGIN_CAP)
        assert totals[env.possible_agents[seat]] == pytest.approx(squashed)


@pytest.mark.parametrize("reward", ["outlook-margin", "capped-outlook"])
def test_the_outlook_rewards_pay_each_agent_its_margin_less_its_first_outlook(reward: str) -> None:
    env = RLlibEnv({"game": "kleopatra", "num_players": 3, "reward": reward})
    info = load_game("kleopatra")
    env.reset(seed=4)
    start = [lead / info.score_scale for lead in info.outlook(env.aec.game)]  # at the deal, before any action
    totals, _, _ = play_out(env, seed=4)
    assert any(start)  # someone would be eaten were the game to end at the deal
    for seat, margin in enumerate(info.margins(env.aec.game)):
        paid = paid_lead(reward, margin / info.score_scale, True) - paid_lead(reward, start[seat], False)
        assert totals[env.possible_agents[seat]] == pytest.approx(paid)
    if reward == "capped-outlook":  # squashed at every step: no agent's total passes twice the cap
        assert max(abs(total) for total in totals.values()) < 2 * MARGIN_CAP


def test_the_win_reward_is_paid_at_the_end_only() -> None:
    env = RLlibEnv({"game": "sobek", "num_players": 2, "reward": "win"})
    totals, _, _ = play_out(env, seed=9)
    winners = set(env.aec.game.winners)
    assert totals == {agent: 1.0 if seat in winners else -1.0 for seat, agent in enumerate(env.possible_agents)}
    with pytest.raises(ValueError, match="reward must be one of round-margin, capped-margin, outlook-margin, "
                                         "capped-outlook, win, "
                                         "margin, score, got 'points'"):
        RLlibEnv({"reward": "points"})
    with pytest.raises(ValueError, match="unknown RLlibEnv option 'players'"):
        RLlibEnv({"players": 2})


def test_a_league_gives_main_one_seat_per_episode_and_keeps_it_through_the_episode() -> None:
    mapping = LeagueMapping(3, ["snapshot_0", "snapshot_1"], seed=5)
    episodes = []
    for episode in range(50):
        seats = [mapping(f"player_{seat}", episode) for seat in (2, 0, 1, 0)]
        assert seats[1] == seats[3]
        episodes.append(seats[:3])
        assert sum(module == MAIN for module in seats[:3]) == 1
        assert set(seats[:3]) <= {MAIN, "snapshot_0", "snapshot_1"}
    again = LeagueMapping(3, ["snapshot_0", "snapshot_1"], seed=5)
    assert [[again(f"player_{seat}", e) for seat in (2, 0, 1)] for e in range(50)] == episodes
    assert len({tuple(seats) for seats in episodes}) > 3


def run_config(**changes: object) -> dict:
    """A small run's configuration, as train.py --backend rllib completes it."""
    return {"game": "sobek", "players": 2, "mode": "original", "reward": ROUND_MARGIN, "self_play": "league",
            "snapshots": 2, "net": [16], "lr": 3e-4, "gamma": 0.99, "gae_lambda": 0.95, "clip": 0.2,
            "ent_coef": 0.01, "batch_size": 200, "minibatch_size": 100, "epochs": 1, "env_runners": 0, "envs": 2,
            "seed": 3, **changes}


def test_a_snapshot_takes_mains_weights_in_the_learner_and_the_sampler(local_ray) -> None:
    algo = algorithm_config(run_config()).build_algo()
    try:
        algo.train()
        main = main_weights(algo)
        sampler = algo.get_module("snapshot_0").net.state_dict()
        assert any(not torch.equal(main[name], sampler[name]) for name in main)
        refresh_snapshot(algo, "snapshot_0")
        learner = algo.learner_group.get_weights(module_ids=["snapshot_0"])["snapshot_0"]
        sampler = algo.get_module("snapshot_0").net.state_dict()
        for name, tensor in main.items():
            assert np.array_equal(np.asarray(learner[f"net.{name}"]), tensor.numpy())
            assert torch.equal(sampler[name], tensor)
        other = algo.get_module("snapshot_1").net.state_dict()
        assert any(not torch.equal(main[name], other[name]) for name in main)
    finally:
        algo.stop()


def train(out: Path, *args: str) -> None:
    train_with_rllib([*args, "--out", str(out)])


@pytest.mark.parametrize(("game", "players"), TABLES)
@pytest.mark.parametrize("self_play", ["shared", "league"])
def test_one_training_iteration_saves_a_policy_that_plays(local_ray, tmp_path: Path, game: str, players: int,
                                                           self_play: str, capsys: pytest.CaptureFixture) -> None:
    league = ["--snapshots", "2", "--snapshot-every", "1"] if self_play == "league" else []
    out = tmp_path / "run"
    train(out, "--game", game, "--players", str(players), "--timesteps", "1", "--batch-size", "256",
          "--minibatch-size", "128", "--epochs", "1", "--net", "32", "--envs", "2", "--eval-games", str(players),
          "--seed", "1", "--self-play", self_play, *league)
    printed = capsys.readouterr().out
    assert f"play it as rllib:{out / 'policy.zip'}" in printed
    rows = list(csv.DictReader((out / "eval.csv").open()))
    assert rows[0]["timesteps"] == "0" and int(rows[-1]["timesteps"]) >= 256 and len(rows) == 2
    assert all(0 <= float(row["heuristic_win_rate"]) <= 1 for row in rows)
    config = json.loads((out / "config.json").read_text())
    assert config["self_play"] == self_play and config["versions"]["ray"] == local_ray.__version__
    first, last = sorted((out / "policies").glob("step_*.zip"))
    trained, untrained = read_weights(out / "policy.zip"), read_weights(first)
    assert any(not torch.equal(trained[name], untrained[name]) for name in trained)  # it learned
    assert all(torch.equal(trained[name], tensor) for name, tensor in read_weights(last).items())
    agent = make(f"rllib:{out / 'policy.zip'}", game=game, num_players=players)
    assert agent.meta["training"]["self_play"] == self_play
    records = play_tournament([f"rllib:{out / 'policy.zip'}", *["random"] * (players - 1)], players, game=game)
    assert len(records) == players


def test_rllibs_own_masking_module_trains_on_the_environment(local_ray) -> None:
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from agents.training.rllib_env import shared_mapping

    algo = (PPOConfig().environment(RLlibEnv, env_config={"game": "kleopatra", "num_players": 3})
            .multi_agent(policies={MAIN}, policy_mapping_fn=shared_mapping)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MAIN: RLModuleSpec(
                module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": [16]})}))
            .env_runners(num_env_runners=0)
            .training(train_batch_size_per_learner=200, minibatch_size=100, num_epochs=1)
            .debugging(seed=0)
            .build_algo())
    try:
        result = algo.train()
    finally:
        algo.stop()
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 200


def test_a_few_iterations_on_sobek_learn_to_beat_random(local_ray, tmp_path: Path) -> None:
    """The smoke version of the bar (make rllib-bar: a few minutes' run, 80% of 200 games): 10,000 steps, under
    half a minute, already win most games against random (the untrained policy of docs/rllib-2p.eval.csv won
    22% of 200)."""
    out = tmp_path / "run"
    train(out, "--players", "2", "--timesteps", "10000", "--batch-size", "2000", "--minibatch-size", "500",
          "--epochs", "4", "--net", "64,64", "--eval-every", "10000", "--eval-games", "2", "--seed", "2")
    specs = [f"rllib:{out / 'policy.zip'}", "random"]
    records = play_tournament(specs, 30, seed=0, workers=1)
    learner = summarize(records, specs)[0]
    assert learner.win_rate > 0.5, learner


def test_an_interrupted_run_saves_the_last_iterations_policy(no_local_ray: None, tmp_path: Path,
                                                             sessions: list) -> None:
    out = tmp_path / "run"
    process = subprocess.Popen(
        [sys.executable, "train.py", "--backend", "rllib", "--players", "2", "--timesteps", "10000000",
         "--batch-size", "200", "--minibatch-size", "100", "--epochs", "1", "--net", "16", "--eval-every",
         "1000", "--eval-games", "2", "--cpus", "2", "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    sessions.append(process)
    evaluated = out / "eval.csv"
    wait_for(lambda: (evaluated.exists() and len(evaluated.read_text().splitlines()) >= 3)
             or process.poll() is not None, 600, "two evaluations")
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 128 + signal.SIGTERM and "Traceback" not in err, err
    assert "stopped by SIGTERM; the policy of the last iteration" in err
    assert f"is saved to {out / 'policy.zip'}" in err
    agent = make(f"rllib:{out / 'policy.zip'}", num_players=2)
    assert 1000 <= agent.meta["timesteps"] < 10_000_000
    wait_for(lambda: not session(process.pid), 60, "the local Ray to end with its driver")


def test_train_py_with_the_same_seed_trains_the_same_weights(tmp_path: Path) -> None:
    """Whatever the caller's string hashing (RLlib's sets of ids follow it), train.py --backend rllib fixes it, so
    the same --seed gives the same policy; a different seed does not."""
    def run(name: str, seed: int, hash_seed: str) -> dict[str, torch.Tensor]:
        out = tmp_path / name
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run([sys.executable, "train.py", "--backend", "rllib", "--game", "sobek", "--players", "2",
                               "--timesteps", "1500", "--batch-size", "500", "--minibatch-size", "250", "--epochs",
                               "2", "--net", "32", "--envs", "2", "--eval-games", "2", "--seed", str(seed),
                               "--out", str(out)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return read_weights(out / "policy.zip")

    first, second, other = run("a", 5, "1"), run("b", 5, "2"), run("c", 6, "1")
    assert first.keys() == second.keys() and all(torch.equal(first[k], second[k]) for k in first)
    assert any(not torch.equal(first[k], other[k]) for k in first)
