"""``resample`` takes the generators RL code holds (INTERFACE.md ``resample``): a ``random.Random``, a numpy
``Generator`` or an integer seed, in every game, with the same guarantee: the result depends only on what the
seat knows and on the generator."""

from __future__ import annotations

import random

import numpy as np
import pytest

import sobek_env
from sobek_env.randomness import as_random


def _midgame(game: str, seed: int) -> sobek_env.game.State:
    g = sobek_env.load_game(game)
    s = g.new(g.min_players + 1, seed=seed)
    chooser = random.Random(seed)
    for _ in range(40):
        if s.is_over:
            break
        s.apply(chooser.choice(s.legal_actions()))
    return s


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_a_numpy_generator_resamples_like_its_seed(game: str) -> None:
    s = _midgame(game, 3)
    seat = s.current_player
    by_numpy = s.resample(seat, np.random.default_rng(11)).to_json()
    assert by_numpy == s.resample(seat, np.random.default_rng(11)).to_json()
    seed = int(np.random.default_rng(11).integers(0, 2**63))
    assert by_numpy == s.resample(seat, random.Random(seed)).to_json()
    assert by_numpy != s.resample(seat, np.random.default_rng(12)).to_json()


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_an_integer_seed_resamples_like_a_generator_from_it(game: str) -> None:
    s = _midgame(game, 4)
    seat = s.current_player
    assert s.resample(seat, 9).to_json() == s.resample(seat, random.Random(9)).to_json()
    assert s.resample(seat, np.int64(9)).to_json() == s.resample(seat, 9).to_json()


@pytest.mark.parametrize("game", sobek_env.GAMES)
def test_a_resample_hides_what_the_seat_cannot_know_with_a_numpy_generator(game: str) -> None:
    s = _midgame(game, 5)
    seat = s.current_player
    other = s.resample(seat, random.Random(1))  # a state the seat cannot tell from s
    mine = s.resample(seat, np.random.default_rng(2)).to_json()
    assert mine == other.resample(seat, np.random.default_rng(2)).to_json()


def test_a_numpy_generator_advances() -> None:
    g = np.random.default_rng(0)
    assert as_random(g).random() != as_random(g).random()


@pytest.mark.parametrize("bad", ["5", 1.5, None, True, [1]])
def test_other_things_are_refused_by_name(bad: object) -> None:
    with pytest.raises(TypeError, match=r"rng must be a random\.Random, a numpy Generator or an integer seed"):
        as_random(bad)
