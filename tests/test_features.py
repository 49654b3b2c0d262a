"""What a learned agent reads: the raw observation, or the observation with the heuristic's advice."""

from __future__ import annotations

import numpy as np
import pytest

import sobek_env
from agents import make
from agents.features import Featurizer, check_features, feature_sets, feature_size
from agents.sobek.heuristic import HeuristicAgent
from sobek_env.sobek import GAME
from sobek_env.sobek.actions import NUM_ACTIONS
from sobek_env.sobek.observation import observation_size


def decisions(num_players: int, seed: int, mode: str = "original"):
    """(observation dict, the game's state) at every decision of one game between random players."""
    env = sobek_env.SingleAgentEnv(make("random", seed=seed), num_players=num_players, observation_mode=mode)
    player = make("random", seed=seed + 1)
    observation, _ = env.reset(seed=seed)
    over = False
    while not over:
        step = {"observation": observation, "action_mask": env.action_masks()}
        yield step, env.game
        observation, _, over, _, _ = env.step(player.act(step))
    yield {"observation": observation, "action_mask": env.action_masks()}, env.game


def test_raw_features_are_the_observation_itself() -> None:
    featurize = Featurizer("raw", GAME.table(3))
    for step, _ in decisions(3, seed=1):
        assert np.array_equal(featurize(step), step["observation"])
    assert feature_size("raw", GAME.table(3)) == observation_size(3) == featurize.size


@pytest.mark.parametrize(("num_players", "mode"), [(2, "original"), (3, "memory"), (4, "original")])
def test_advice_is_the_heuristics_choice_after_the_observation(num_players: int, mode: str) -> None:
    table = GAME.table(num_players, mode)
    featurize = Featurizer("advice", table)
    heuristic = HeuristicAgent(table)
    base = observation_size(num_players)
    checked = 0
    for step, _ in decisions(num_players, seed=num_players, mode=mode):
        vector = featurize(step)
        assert vector.shape == (feature_size("advice", table),) and vector.dtype == np.float32
        assert np.array_equal(vector[:base], step["observation"])
        if not step["action_mask"].any():
            continue
        advice = vector[base:base + NUM_ACTIONS]
        assert advice.sum() == 1 and int(advice.argmax()) == heuristic.act(step)
        options = vector[base + NUM_ACTIONS:base + 2 * NUM_ACTIONS]
        assert np.all(options[~step["action_mask"].astype(bool)] == 0)  # only legal choices are estimated
        checked += 1
    assert checked > 20


def test_the_race_block_reads_own_corruption_and_is_empty_at_the_end() -> None:
    featurize = Featurizer("advice", GAME.table(2))
    race = observation_size(2) + 2 * NUM_ACTIONS
    for step, game in decisions(2, seed=7):
        vector = featurize(step)
        if not step["action_mask"].any():  # the game is over: nothing to advise
            assert not vector[observation_size(2):].any()
            continue
        seat = game.current_player
        own = sum(game.piles[seat]) + 2 * game.curses[seat]
        assert vector[race] == pytest.approx(own / 10)


def test_an_unknown_feature_set_is_refused() -> None:
    assert feature_sets("sobek") == ("raw", "advice")
    for bad in ("advise", "", None):
        with pytest.raises(ValueError, match="unknown feature set"):
            check_features(bad)
    with pytest.raises(ValueError, match="unknown feature set 'x'"):
        Featurizer("x", GAME.table(2))


def test_the_feature_wrapper_gives_plain_gymnasium_users_what_a_model_reads() -> None:
    """A shipped model is usable from plain stable-baselines3: the wrapper's observations are the model's vectors."""
    from gymnasium.utils.env_checker import check_env

    from agents.features import FeatureObservation

    table = GAME.table(2)
    env = FeatureObservation(sobek_env.SingleAgentEnv(make("random", seed=1), num_players=2), "advice")
    featurize = Featurizer("advice", table)
    observation, _ = env.reset(seed=3)
    assert observation.shape == env.observation_space.shape == (feature_size("advice", table),)
    raw = env.unwrapped._last
    assert np.array_equal(observation, featurize(raw)) and env.action_masks().any()
    observation, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert np.array_equal(observation, featurize(env.unwrapped._last))
    check_env(FeatureObservation(sobek_env.SingleAgentEnv(make("random", seed=2), num_players=3), "advice"),
              skip_render_check=True)


def test_a_game_without_an_agents_package_reads_the_raw_observation() -> None:
    """Kleopatra has no agents/kleopatra/ package: its models read ``raw`` (this once raised ModuleNotFoundError)."""
    assert feature_sets("kleopatra") == ("raw",)
    table = sobek_env.raw_env(game="kleopatra", num_players=2).table
    assert Featurizer("raw", table).size == table.game.observation_size(2)
