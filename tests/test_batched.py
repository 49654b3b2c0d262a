"""train.py's native batch (agents.training.batched) against the Python environment it replaces: the same games,
rows (observation and advice), masks, rewards and opponents' decisions; the pool's distribution; snapshots."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents import make
from agents.players.features import Featurizer
from agents.players.ppo import load_ppo, save_ppo
from agents.training import batched
from agents.training import sb3 as train
from agents.training.pool import parse_entry
from agents.training.rewards import (
    CAPPED_MARGIN,
    CAPPED_OUTLOOK,
    LEAD_REWARDS,
    OUTLOOK_MARGIN,
    ROUND_MARGIN,
    lead_margins,
    paid_lead,
)
from sobek_env.errors import IllegalActionError
from sobek_env.registry import load_game

pytestmark = pytest.mark.skipif(batched._batch is None, reason="the native training batch was not built (setup.py)")

# opponents whose every decision the test can replay (random ones draw from the batch's own generator)
REPLAYABLE = ["greedy@1", "heuristic@2", "heuristic:tolerance=0.2@1"]


def run_config(game: str, players: int, pool: list[str], **changes: object) -> dict:
    """A run's configuration as train.py completes it."""
    config = {**train.DEFAULTS, **train.game_defaults(game), "game": game, "players": players,
              "pool": [list(parse_entry(entry)) for entry in pool], **changes}
    config["features"] = train.run_features(config)
    return config


def row(featurize: Featurizer, observer, state, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """What the Python environment shows ``seat``: its featurized observation and its mask."""
    mask = np.zeros(state_game(state).num_actions, np.int8)
    if not state.is_over and state.current_player == seat:
        mask[state.legal_actions()] = 1
    return featurize({"observation": observer.encode(state, seat).copy(), "action_mask": mask}), mask.astype(bool)


def state_game(state) -> object:
    return load_game("kleopatra" if "kleopatra" in type(state).__module__ else "sobek")


@pytest.mark.parametrize(("game", "players", "reward", "mode"), [
    ("sobek", 2, ROUND_MARGIN, "original"), ("sobek", 3, "score", "memory"), ("sobek", 4, CAPPED_MARGIN, "original"),
    ("kleopatra", 3, ROUND_MARGIN, "original"), ("kleopatra", 2, "win", "memory"),
    ("kleopatra", 4, OUTLOOK_MARGIN, "original"), ("sobek", 2, OUTLOOK_MARGIN, "memory"),
    ("kleopatra", 3, CAPPED_OUTLOOK, "original")])
def test_every_step_is_the_python_environments_step(game: str, players: int, reward: str, mode: str) -> None:
    config = run_config(game, players, REPLAYABLE, reward=reward, mode=mode, self_play_weight=0.0)
    env = batched.NativeTrainingEnv(config, 3, seed=5)
    g = load_game(game)
    table = g.table(players, mode)
    featurize = Featurizer(config["features"], table)
    observer = g.observer(players, mode)
    agents = [make(spec, table=table) for spec, _ in config["pool"]]
    rng = np.random.default_rng(1)
    obs = env.reset()
    ended = 0
    for _ in range(400 if game == "sobek" else 350):
        before = env.states()
        seats, options = env.batch.seats.copy(), env.batch.options.copy()
        for i, state in enumerate(before):
            expected, mask = row(featurize, observer, state, int(seats[i]))
            assert np.array_equal(obs[i].view(np.uint32), expected.view(np.uint32)), (game, i)
            assert np.array_equal(env.action_masks()[i], mask)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        env.step_async(actions)
        obs, rewards, dones, infos = env.step_wait()
        for i, state in enumerate(before):
            seat = int(seats[i])
            lead = lead_margins(reward, g, state)[seat] / g.score_scale
            score = state.scores[seat]
            state.apply(int(actions[i]))
            while not state.is_over and state.current_player != seat:
                actor = state.current_player
                decided, _ = row(Featurizer("raw", table), observer, state, actor)
                mask = np.zeros(g.num_actions, np.int8)
                mask[state.legal_actions()] = 1
                state.apply(agents[options[i, actor]].act({"observation": decided, "action_mask": mask}))
            assert bool(dones[i]) == state.is_over
            now = lead_margins(reward, g, state)[seat] / g.score_scale
            if reward in LEAD_REWARDS:
                expected = paid_lead(reward, now, state.is_over) - paid_lead(reward, lead, False)
            elif reward == "score":
                expected = (state.scores[seat] - score) / g.score_scale
            else:
                expected = (1.0 if seat in state.winners else -1.0) if state.is_over else 0.0
            assert rewards[i] == pytest.approx(expected, abs=1e-6), (i, reward)
            if state.is_over:
                ended += 1
                final, _ = row(featurize, observer, state, seat)
                assert np.array_equal(infos[i]["terminal_observation"], final)
                assert (infos[i]["seat"], infos[i]["scores"], infos[i]["winners"]) == (seat, state.scores,
                                                                                    state.winners)
                assert infos[i]["lead"] == pytest.approx(now, abs=1e-9)
            else:
                assert env.batch.state(i).to_json() == state.to_json()
    assert ended >= 2 if game == "sobek" else ended >= 1, "too few games ended to compare their ends"
    assert env.batch.refusals == 0


@pytest.mark.parametrize(("game", "players"), [("kleopatra", 3), ("sobek", 2)])
def test_a_state_critic_reads_the_python_engines_state_vector_and_the_learners_seat_after_the_features(
        game: str, players: int) -> None:
    config = run_config(game, players, REPLAYABLE, features="raw", trunk="shared", critic="state",
                        self_play_weight=0.0)
    env = batched.NativeTrainingEnv(config, 3, seed=7)
    g = load_game(game)
    table = g.table(players)
    width = Featurizer("raw", table).size
    assert env.observation_space.shape == (width + g.state_size(players) + players,)
    observer, rng = g.observer(players, "original"), np.random.default_rng(2)
    obs, ended = env.reset(), 0
    for _ in range(300):
        for i in range(3):
            reference = g.from_json(env.batch.state(i).to_json(), engine="python")  # the Python engine's state
            seat = int(env.batch.seats[i])
            expected, _ = row(Featurizer("raw", table), observer, reference, seat)
            assert np.array_equal(obs[i, :width], expected)
            assert np.array_equal(obs[i, width:width + g.state_size(players)], g.state_vector(reference))
            assert obs[i, -players:].tolist() == [float(p == seat) for p in range(players)]
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        obs, _, dones, infos = env.step_wait()
        for i in np.flatnonzero(dones).tolist():
            ended += 1
            assert not infos[i]["terminal_observation"][width:].any()  # a finished game's value is never asked
    assert ended >= 1


def test_opponents_are_drawn_with_the_pool_weights_and_the_seats_uniformly() -> None:
    config = run_config("sobek", 4, ["random@1", "heuristic@3", "greedy@0.5"], self_play_weight=0.0)
    env = batched.NativeTrainingEnv(config, 2000, seed=2)
    env.reset()
    options = env.batch.options[:, :4]
    drawn = Counter(options[options >= 0].tolist())
    total = sum(drawn.values())
    assert total == 3 * 2000
    for option, share in enumerate((1 / 4.5, 3 / 4.5, 0.5 / 4.5)):
        assert abs(drawn[option] / total - share) < 0.025, (option, drawn)
    seats = Counter(env.batch.seats.tolist())
    assert all(abs(seats[s] / 2000 - 0.25) < 0.04 for s in range(4)), seats
    assert all((options[i] == -1).sum() == 1 and options[i, env.batch.seats[i]] == -1 for i in range(2000))


def snapshot(path: Path, config: dict, seed: int) -> Path:
    """A fresh model of the run, saved as a snapshot."""
    model = train.new_model(config, batched.NativeTrainingEnv(config, 1, seed=0), seed)
    save_ppo(model, path, train.model_meta(config, 0), with_optimizer=False)
    return path


@pytest.mark.parametrize(("game", "players"), [("sobek", 2), ("kleopatra", 3)])
def test_snapshots_decide_as_their_agents_and_only_the_latest_play(game: str, players: int, tmp_path: Path) -> None:
    config = run_config(game, players, ["heuristic@1"], self_play_weight=3.0, snapshots=2, net=[16])
    paths = [snapshot(tmp_path / f"s{k}.zip", config, k) for k in range(3)]
    env = batched.NativeTrainingEnv(config, 64, seed=3)
    for path in paths:
        env.add_snapshot(path)
    obs = env.reset()
    drawn = Counter(env.batch.options[env.batch.options >= 0].tolist())
    assert set(drawn) == {0, 2, 3}, drawn  # the first snapshot (option 1) dropped
    assert drawn[2] + drawn[3] > 2 * drawn[0]
    snapshot_two = env._externals[3]
    agent = load_ppo(paths[2], deterministic=False)
    b = env.batch
    for _ in range(30):  # every pending decision on the way is a legal one, drawn from the same distribution
        env.step_async(np.array([np.flatnonzero(m)[0] for m in env.action_masks()]))
        obs, *_ = env.step_wait()
    table = load_game(game).table(players)
    for i in range(4):  # the snapshot's logits are its agent's, on the same rows
        state = b.state(i)
        observation, mask = row(Featurizer("raw", table), load_game(game).observer(players), state, int(b.seats[i]))
        logits = agent.logits({"observation": observation, "action_mask": mask.astype(np.int8)})
        ours = snapshot_two.logits(obs[i:i + 1], mask[None])[0]
        assert np.allclose(ours, logits, atol=1e-5)
    assert 0 not in env._externals  # a fixed opponent is never an external one
    assert 1 not in env._externals or (b.options == 1).any()  # the dropped snapshot goes once no game holds it


def test_an_illegal_learner_action_is_refused_and_changes_nothing() -> None:
    config = run_config("sobek", 2, REPLAYABLE, self_play_weight=0.0)
    env = batched.NativeTrainingEnv(config, 2, seed=0)
    env.reset()
    before = [s.to_json() for s in env.states()]
    illegal = int(np.flatnonzero(~env.action_masks()[1])[0])
    env.step_async(np.array([int(np.flatnonzero(env.action_masks()[0])[0]), illegal]))
    with pytest.raises(IllegalActionError, match=f"game 1: action {illegal} is not legal"):
        env.step_wait()
    assert [s.to_json() for s in env.states()] == before


def test_a_default_run_steps_its_games_natively_and_the_paired_reward_in_python() -> None:
    assert batched.native_possible(run_config("sobek", 2, ["heuristic"]))
    assert batched.native_possible(run_config("kleopatra", 3, ["heuristic"]))
    assert not batched.native_possible(run_config("sobek", 2, ["heuristic"], reward="paired-margin"))
    with pytest.raises(ValueError, match="paired-margin reward plays copies"):
        batched.NativeTrainingEnv(run_config("sobek", 2, ["heuristic"], reward="paired-margin"), 2)


def test_a_run_the_native_batch_cannot_serve_trains_on_the_python_environment_in_the_same_workers(
        tmp_path: Path) -> None:
    out = tmp_path / "paired"
    train.main(["--players", "2", "--envs", "3", "--n-steps", "64", "--batch-size", "64", "--epochs", "1",
                "--net", "16", "--timesteps", "384", "--eval-every", "384", "--eval-games", "3", "--seed", "4",
                "--pool", "random", "--reward", "paired-margin", "--out", str(out)])
    assert load_ppo(out / "model.zip").meta["timesteps"] == 384
    rows = (out / "eval.csv").read_text().splitlines()
    assert rows[1].split(",")[0] == "384"
