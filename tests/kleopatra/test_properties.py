"""Property tests over whole games: player counts 2-5, both observation modes, rules options, policies.
``SOBEK_LONG=1`` runs each property on many more examples."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sobek_env.kleopatra import GAME, NUM_ACTIONS, GameState, IllegalActionError
from sobek_env.kleopatra.invariants import InvariantError, check, check_mask, check_play

from .policies import PROFILES, Player, play

LONG = os.environ.get("SOBEK_LONG") == "1"


def examples(short: int) -> settings:
    return settings(max_examples=short * 40 if LONG else short, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


profiles = st.lists(st.sampled_from(sorted(PROFILES)), min_size=5, max_size=5)
options = st.sampled_from([{}, {"priest_faces": 3}, {"hand_limit": 4, "max_turns": 60}, {"mosaic_reflections": True},
                           {"sanctuary_max_squares": 20, "tainted_amulets": 2}, {"crocodile_margin": 2},
                           {"card_counts": {"scribe": 6, "courtesan": 5, "beggar": 4}, "max_turns": 120}])


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_seeded_whole_games_keep_every_invariant_and_end_within_the_bound(n: int) -> None:
    bound = GAME.max_game_length(n)
    for seed in range(6 if LONG else 2):
        s = GameState.new(n, seed=seed, engine="python")
        check_play(s)
        player = Player(["uniform", "builder", "characters", "hoarder", "builder"], seed)
        steps = 0
        while not s.is_over:
            scores = s.scores
            s.apply(player.pick(s))
            steps += 1
            assert steps <= bound
            check_play(s)
            assert len(s.scores) == n and all(v >= 0 for v in scores)
        assert s.winners and set(s.winners).isdisjoint(s.eliminated)
        assert s.cleopatra == 5 or s.turn == s.rules.max_turns


@given(seed=st.integers(0, 2**63), n=st.integers(2, 5), seats=profiles, rules=options, policy=st.integers(0, 2**32))
@examples(6)
def test_games_with_options_keep_every_invariant(seed: int, n: int, seats: list[str], rules: dict, policy: int) -> None:
    s = GameState.new(n, seed=seed, **rules, engine="python")
    bound = GAME.max_game_length(n, **rules)
    player = Player(seats, policy)
    steps = 0
    while not s.is_over:
        s.apply(player.pick(s))
        steps += 1
        check_play(s)
    assert steps <= bound


@given(seed=st.integers(0, 2**63), n=st.integers(2, 5), seats=profiles, policy=st.integers(0, 2**32),
       at=st.integers(0, 2000))
@examples(15)
def test_same_seed_same_game_and_json_round_trip_at_any_step_continues_identically(
        seed: int, n: int, seats: list[str], policy: int, at: int) -> None:
    s = GameState.new(n, seed=seed, engine="python")
    first = play(s, Player(seats, policy), at)
    again = GameState.new(n, seed=seed, engine="python")
    assert play(again, Player(seats, policy), at) == first and again == s
    text = s.to_json()
    copy = GameState.from_json(text, engine="python")
    assert copy == s and copy.to_json() == text and copy.legal_actions() == s.legal_actions()
    check(copy)
    rest = play(s, Player(seats, policy + 1))
    assert play(copy, Player(seats, policy + 1)) == rest and copy == s


@given(seed=st.integers(0, 2**63), n=st.integers(2, 5), seats=profiles, policy=st.integers(0, 2**32),
       at=st.integers(0, 1500))
@examples(15)
def test_clones_are_independent(seed: int, n: int, seats: list[str], policy: int, at: int) -> None:
    s = GameState.new(n, seed=seed, engine="python")
    play(s, Player(seats, policy), at)
    before = s.to_json()
    clone = s.clone()
    rest = play(clone, Player(seats, policy + 1))
    assert s.to_json() == before
    assert play(s, Player(seats, policy + 1)) == rest and s == clone


@given(seed=st.integers(0, 2**63), n=st.integers(2, 5), seats=profiles, policy=st.integers(0, 2**32),
       at=st.integers(0, 1500))
@examples(15)
def test_every_legal_action_applies_and_every_other_id_is_refused_without_change(
        seed: int, n: int, seats: list[str], policy: int, at: int) -> None:
    s = GameState.new(n, seed=seed, engine="python")
    play(s, Player(seats, policy), at)
    legal = s.legal_actions()
    assert legal == sorted(set(legal)) and (legal or s.is_over)
    for a in legal:
        after = s.clone()
        after.apply(np.int64(a) if a % 2 else a)
        check(after)
    before = s.to_json()
    for a in [*range(-3, NUM_ACTIONS + 3), np.int64(NUM_ACTIONS), np.int32(-1), 2**70]:
        if a in legal:
            continue
        with pytest.raises(IllegalActionError, match=str(int(a))):
            s.apply(a)
        assert s.to_json() == before
    for bad in (True, False, np.bool_(True), 1.0, "0", None, [0], np.float32(0)):
        with pytest.raises(IllegalActionError):
            s.apply(bad)  # type: ignore[arg-type]
        assert s.to_json() == before
    for seat in range(n):
        mask = [0] * NUM_ACTIONS
        if seat == s.current_player:
            for a in legal:
                mask[a] = 1
        check_mask(s, seat, mask)


def test_illegal_message_names_the_action_the_phase_and_the_legal_ones() -> None:
    s = GameState.new(3, seed=1, engine="python")
    with pytest.raises(IllegalActionError) as info:
        s.apply(143)
    message = str(info.value)
    assert "143 (bid:10)" in message and "at turn" in message and "market:" in message


def test_default_options_never_offer_the_impossible_ids() -> None:
    """rules §14.1: with the default options orient:4-7 and square:55, 60-63 are never legal."""
    never = {47, 48, 49, 50} | {51 + sq for sq in (55, 60, 61, 62, 63)}
    for seed in range(4):
        s = GameState.new(3, seed=seed, engine="python")
        player = Player(["builder"], seed)
        while not s.is_over:
            assert never.isdisjoint(s.legal_actions())
            s.apply(player.pick(s))


def test_invariants_catch_broken_states() -> None:
    s = GameState.new(3, seed=1, engine="python")
    s.hands[0][0] += 1
    with pytest.raises(InvariantError, match="cards"):
        check(s)
    s = GameState.new(3, seed=1, engine="python")
    s.talents[1] = -1
    with pytest.raises(InvariantError, match="talents"):
        check(s)
    s = GameState.new(3, seed=1, engine="python")
    s.stack.append(s.stack[0])
    with pytest.raises(InvariantError, match="tile"):
        check(s)
    s = GameState.new(3, seed=1, engine="python")
    s.known[3][1][0] = 5
    with pytest.raises(InvariantError, match="memory"):
        check(s)
    s = GameState.new(3, seed=1, engine="python")
    s.statues[0] = 1
    check(s)
    with pytest.raises(InvariantError, match="statues"):
        check_play(s)
    with pytest.raises(InvariantError, match="marks"):
        check_mask(s, s.current_player, [0] * NUM_ACTIONS)
