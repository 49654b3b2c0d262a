"""What a learned agent reads: the raw observation, or the observation with the heuristic's advice."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

import sobek_env
from agents import make
from agents.players.features import Featurizer, check_features, feature_sets, feature_size
from agents.sobek.heuristic import HeuristicAgent
from sobek_env.game import python_state
from sobek_env.sobek import GAME
from sobek_env.sobek.actions import NUM_ACTIONS
from sobek_env.sobek.observation import observation_size


def decisions(num_players: int, seed: int, mode: str = "original", game: str = "sobek"):
    """(observation dict, the game's state) at every decision of one game of ``game`` between random players."""
    env = sobek_env.SingleAgentEnv(make("random", seed=seed, game=game, num_players=num_players), game=game,
                                   num_players=num_players, observation_mode=mode)
    player = make("random", seed=seed + 1, game=game, num_players=num_players, observation_mode=mode)
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
        game = python_state(game)
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

    from agents.players.features import FeatureObservation

    table = GAME.table(2)
    env = FeatureObservation(sobek_env.SingleAgentEnv(make("random", seed=1), num_players=2), "advice")
    featurize = Featurizer("advice", table)
    observation, _ = env.reset(seed=3)
    assert observation.shape == env.observation_space.shape == (feature_size("advice", table),)
    raw = env.unwrapped._last
    assert np.array_equal(observation, featurize(raw)) and env.action_masks().any()
    observation, *_ = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert np.array_equal(observation, featurize(env.unwrapped._last))
    check_env(FeatureObservation(sobek_env.SingleAgentEnv(make("random", seed=2, num_players=3), num_players=3),
                                 "advice"),
              skip_render_check=True)


def test_a_game_without_feature_sets_reads_the_raw_observation(monkeypatch: pytest.MonkeyPatch) -> None:
    """A game whose agents package registers no feature sets offers ``raw`` alone; an error importing a game's
    agents package is not hidden."""
    import agents.games as games

    monkeypatch.setattr(games, "_REGISTERED", {"kleopatra": games.GameAgents(game="kleopatra", baselines={})})
    assert feature_sets("kleopatra") == ("raw",)
    table = sobek_env.raw_env(game="kleopatra", num_players=2).table
    assert Featurizer("raw", table).size == table.game.observation_size(2)
    with pytest.raises(ValueError, match="unknown feature set 'advice' for kleopatra"):
        Featurizer("advice", table)

    def broken(name: str):
        raise ModuleNotFoundError("No module named 'numpyy'", name="numpyy")

    monkeypatch.setattr(games, "_REGISTERED", {})
    monkeypatch.setattr(games.importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="numpyy"):
        feature_sets("kleopatra")


# ---------------------------------------------------------------- Kleopatra


@pytest.mark.parametrize(("num_players", "mode"), [(3, "original"), (5, "memory")])
def test_kleopatra_advice_is_the_heuristics_choice_and_its_race(num_players: int, mode: str) -> None:
    from agents.kleopatra.features import AMULETS, race_size
    from agents.kleopatra.heuristic import HeuristicAgent
    from sobek_env.kleopatra.actions import NUM_ACTIONS as KLEOPATRA_ACTIONS
    from sobek_env.kleopatra.catalogue import CORRUPT

    table = sobek_env.raw_env(game="kleopatra", num_players=num_players, observation_mode=mode).table
    assert feature_sets("kleopatra") == ("raw", "advice")
    featurize = Featurizer("advice", table)
    heuristic = HeuristicAgent(table)
    base = table.game.observation_size(num_players)
    offers = 0
    assert featurize.size == base + KLEOPATRA_ACTIONS + race_size(num_players)
    assert featurize.advice_slice == (base, base + KLEOPATRA_ACTIONS)
    checked = 0
    for step, game in decisions(num_players, seed=num_players + 1, mode=mode, game="kleopatra"):
        vector = featurize(step)
        assert vector.shape == (featurize.size,) and vector.dtype == np.float32
        assert np.array_equal(vector[:base], step["observation"])
        if not step["action_mask"].any():  # the game is over: nothing to advise
            assert not vector[base:].any()
            continue
        advice = vector[base:base + KLEOPATRA_ACTIONS]
        assert advice.sum() == 1 and int(advice.argmax()) == heuristic.act(step)
        assert step["action_mask"][int(advice.argmax())]
        game = python_state(game)
        seat = game.current_player
        race = vector[base + KLEOPATRA_ACTIONS:]
        squares = sum(m.bit_count() for m, owner in game.sanctuaries if owner == seat)
        own = game.amulets[seat] + sum(c for k, c in enumerate(game.hands[seat]) if CORRUPT[k]) - squares
        assert race[0] == pytest.approx(own / AMULETS)
        assert race[num_players] == pytest.approx(race[0] - max(race[1:num_players]), abs=1e-5)  # the standing
        offer = game.pending.offers[seat] if game.pending is not None and game.pending.name == "ceremony" else 0
        assert race[num_players + 2] == pytest.approx(offer / 10)
        assert race[num_players + 3] == pytest.approx(offer / max(1, game.talents[seat]))
        offers += offer > 0
        checked += 1
    assert checked > 50 and offers > 0  # ceremonies with offers were checked (a count, not a result)


def test_kleopatra_advice_sees_only_what_the_seat_may_see() -> None:
    """Re-dealing what a seat cannot see (the deck, opponents' hands and pyramids) moves none of its features."""
    rng = random.Random(5)
    env = sobek_env.env(game="kleopatra", num_players=4)
    env.reset(seed=11)
    featurize = Featurizer("advice", env.unwrapped.table)
    compared = 0
    for step, agent in enumerate(env.agent_iter()):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if step % 23 == 4:
            seat = env.possible_agents.index(agent)
            twin = copy.deepcopy(env)
            twin.unwrapped.game = env.unwrapped.game.resample(seat, random.Random(rng.random()))
            assert twin.unwrapped.game.hands != env.unwrapped.game.hands or env.unwrapped.game.deck == []
            assert np.array_equal(featurize(twin.observe(agent)), featurize(observation))
            compared += 1
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert compared > 10
