"""Whole games: invariants after every action, masks, JSON round trips, reproducibility. ``SOBEK_LONG=1`` checks
the invariants over more games."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

import sobek_env
from sobek_env import GameState
from sobek_env.game import python_state
from sobek_env.sobek.invariants import check

LONG = os.environ.get("SOBEK_LONG") == "1"
GAMES_PER_COUNT = 200 if LONG else 80


def random_game(num_players: int, seed: int) -> tuple[GameState, list[int]]:
    state = GameState.new(num_players, seed=seed, engine="python")
    rng = random.Random(seed)
    actions = []
    while not state.is_over:
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    return state, actions


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_keep_every_invariant_and_masks_match(num_players: int) -> None:
    env = sobek_env.raw_env(num_players=num_players, observation_mode="memory")
    rng = np.random.default_rng(num_players)
    for seed in range(GAMES_PER_COUNT):
        env.reset(seed=seed)
        game = env.game
        check(python_state(game))
        while not game.is_over:
            agent = env.agent_selection
            assert agent == f"player_{game.current_player}"
            mask = env.observe(agent)["action_mask"]
            assert np.flatnonzero(mask).tolist() == game.legal_actions()
            env.step(int(rng.choice(np.flatnonzero(mask))))
            check(python_state(game))
        assert game.winners and all(s >= 0 for s in game.scores)
        assert len(python_state(game).round_log) in (2, 3)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_json_round_trip_at_every_step_continues_identically(num_players: int) -> None:
    for seed in range(3):
        state = GameState.new(num_players, seed=100 + seed, engine="python")
        policy, picker = random.Random(seed), random.Random(-seed)
        reloaded_at = []
        while not state.is_over:
            copy = GameState.from_json(state.to_json(), engine="python")
            assert copy == state
            assert copy.legal_actions() == state.legal_actions()
            if picker.random() < 0.05:
                reloaded_at.append((copy, policy.getstate()))
            state.apply(policy.choice(state.legal_actions()))
        assert reloaded_at
        for copy, policy_state in reloaded_at:  # play on from the reloaded copy with the same choices
            policy.setstate(policy_state)
            while not copy.is_over:
                copy.apply(policy.choice(copy.legal_actions()))
            assert copy == state


def test_same_seed_same_game_and_different_seed_different_game() -> None:
    a, actions_a = random_game(4, seed=42)
    b, actions_b = random_game(4, seed=42)
    c, _ = random_game(4, seed=43)
    assert actions_a == actions_b and a == b
    assert a != c


def test_clone_is_independent() -> None:
    state = GameState.new(3, seed=9, engine="python")
    for _ in range(20):
        state.apply(state.legal_actions()[-1])
    before = state.to_json()
    twin = state.clone()
    assert twin == state
    while not twin.is_over:
        twin.apply(twin.legal_actions()[0])
    assert state.to_json() == before
    assert twin != state


def test_new_game_deals_as_the_rules_say() -> None:
    for n, deck in ((2, 54 - 9 - 9), (3, 54 - 9), (4, 54 - 9)):
        state = GameState.new(n, seed=n, engine="python")
        assert [sum(h) for h in state.hands] == [2] * n
        assert all(state.hand_backs(p) == [2, 0, 0] for p in range(n))
        assert len(state.nile) == 9 and len(state.deck) == deck
        assert sum(state.tokens) == 5
        assert sum(state.out_of_round) == 9 - 2 * n + (9 if n == 2 else 0)
        assert state.round == 1 and state.pending is None


@pytest.mark.parametrize("bad", [{"num_players": 1}, {"num_players": 5}, {"num_players": 2.0},
                                 {"seed": -1}, {"seed": "x"}, {"scarabs": {"ivory": -1}},
                                 {"green_cards": {"ivory": 3}}, {"families": {"queen": "gold"}},
                                 {"colour": "red"}])
def test_new_rejects_bad_arguments_with_a_clear_message(bad: dict) -> None:
    kwargs = {"num_players": 2, "seed": 0, **bad}
    with pytest.raises(ValueError) as info:
        GameState.new(**kwargs, engine="python")
    assert str(info.value)


def test_max_score_bounds_every_score_and_grows_with_the_scarabs() -> None:
    game = sobek_env.load_game("sobek")
    rng = random.Random(0)
    for seed in range(6):
        n = 2 + seed % 3
        s = GameState.new(n, seed=seed, engine="python")
        while not s.is_over:
            s.apply(rng.choice(s.legal_actions()))
        assert min(s.scores) >= 0 and max(s.scores) <= game.max_score(n)
    rich = {g: 9 for g in ("ivory", "ebony", "marble", "wheat", "fish", "cattle")}
    assert game.max_score(2, scarabs=rich) > game.max_score(2)
    with pytest.raises(ValueError, match="scarabs"):
        game.max_score(2, scarabs={"ivory": 10})
