"""Property tests over whole games: seeds, player counts, rules options, policies and action choices.

Policies are those of the stress run (``sobek_env.sobek.stress``): uniform, and ones that favour
characters, sets, events, hoarding or collecting one goods, so rare corners are reached.
``SOBEK_LONG=1`` runs each property on many more examples.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sobek_env
from sobek_env import GameState, IllegalActionError
from sobek_env.sobek import GAME
from sobek_env.sobek.actions import ACTION_NAMES, NUM_ACTIONS
from sobek_env.sobek.catalogue import EARLY_END_SCORE, ROUNDS, TOKENS_PER_ROUND
from sobek_env.sobek.invariants import InvariantError, check, check_mask, check_play
from sobek_env.sobek.stress import PROFILES, WEIGHTS, Collector, Policy, random_rules

from .scenario import build

LONG = os.environ.get("SOBEK_LONG") == "1"


def examples(short: int) -> settings:
    """Hypothesis settings: ``short`` examples, or 40 times more with SOBEK_LONG=1."""
    return settings(
        max_examples=short * 40 if LONG else short, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


policies = st.one_of(
    st.sampled_from(sorted(PROFILES)).map(lambda name: Policy(WEIGHTS[name])),
    st.builds(Collector, st.integers(0, 5), st.integers(3, 9)),
)
seats = st.lists(policies, min_size=4, max_size=4)
options = st.one_of(st.just({}), st.integers(0, 2**32).map(lambda k: random_rules(random.Random(k))))
# Choices hypothesis makes itself (index into the legal actions) for the first steps of a game.
choices = st.lists(st.integers(0, 2**16), max_size=80)


class Player:
    """Picks actions: the given choices first, then the seats' policies with a seeded generator."""

    def __init__(self, seats: list[Policy], seed: int, forced: list[int] = ()) -> None:
        self.seats = seats
        self.rng = random.Random(seed)
        self.forced = list(forced)

    def pick(self, s: GameState) -> int:
        legal = s.legal_actions()
        if self.forced:
            return legal[self.forced.pop(0) % len(legal)]
        return self.rng.choices(legal, self.seats[s.current_player].weights(s, legal))[0]


def play(s: GameState, player: Player, steps: int | None = None) -> list[int]:
    """Play ``steps`` actions (or to the end) with ``player``; the actions played."""
    done = []
    while not s.is_over and (steps is None or len(done) < steps):
        a = player.pick(s)
        s.apply(a)
        done.append(a)
    return done


@given(
    seed=st.integers(0, 2**63), n=st.integers(2, 4), seats=seats, rules=options,
    policy_seed=st.integers(0, 2**32), forced=choices,
)
@examples(40)
def test_games_keep_every_invariant_and_end_within_the_bound(
    seed: int, n: int, seats: list[Policy], rules: dict, policy_seed: int, forced: list[int]
) -> None:
    s = GameState.new(n, seed=seed, **rules, engine="python")
    check_play(s)
    player = Player(seats, policy_seed, forced)
    round_, tokens, steps = s.round, s.token_counts(), 0
    while not s.is_over:
        scores, phase, a = s.scores, s.phase, player.pick(s)
        s.apply(a)
        steps += 1
        assert steps <= GAME.max_game_length(n), "the game outlasted its derived bound"
        check_play(s)  # 63 cards, the round's 5 tokens, scores >= 0, a legal action, ...
        if s.scores != scores:  # rules §7-§8: only a Guild, Deceit or a round's scoring moves a marker
            moved_by_token = ACTION_NAMES[a].startswith(("token:guild", "token:deceit")) or phase == "guild"
            assert moved_by_token or s.round != round_ or s.is_over
        if s.round == round_:
            assert s.token_counts() == tokens, "the round's 5 tokens changed within the round"
        else:
            assert s.round == round_ + 1
            assert not (round_ == 2 and max(s.scores) > EARLY_END_SCORE), "round 3 after a score over 100"
            round_, tokens = s.round, s.token_counts()
    assert sum(tokens) == TOKENS_PER_ROUND
    assert len(s.round_log) == s.round
    assert s.round == ROUNDS or max(s.scores) > EARLY_END_SCORE
    assert s.winners == [p for p, v in enumerate(s.scores) if v == max(s.scores)]


@given(
    seed=st.integers(0, 2**32), n=st.integers(2, 4), mode=st.sampled_from(["original", "memory"]),
    reward_mode=st.sampled_from(["win", "margin", "score"]), seats=seats, policy_seed=st.integers(0, 2**32),
)
@examples(12)
def test_env_masks_equal_legal_actions_and_rewards_add_up_to_the_mode(
    seed: int, n: int, mode: str, reward_mode: str, seats: list[Policy], policy_seed: int
) -> None:
    env = sobek_env.env(num_players=n, observation_mode=mode, reward_mode=reward_mode)
    env.reset(seed=seed)
    game, space = env.unwrapped.game, env.observation_space("player_0")
    player = Player(seats, policy_seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        assert agent == f"player_{game.current_player}"
        before = game.to_json()
        for seat, other in enumerate(env.possible_agents):
            seen = env.observe(other)
            check_mask(game, seat, seen["action_mask"])
            assert space.contains(seen), f"{other}'s observation is outside the observation space"
        assert game.to_json() == before, "observing changed the game"
        env.step(player.pick(game))
    scores = game.scores
    for p, agent in enumerate(env.possible_agents):
        best_other = max(v for q, v in enumerate(scores) if q != p)
        expected = {
            "win": 1.0 if p in game.winners else -1.0,
            "margin": (scores[p] - best_other) / 100,
            "score": scores[p] / 100,
        }[reward_mode]
        assert totals[agent] == pytest.approx(expected, abs=1e-9)


@given(
    seed=st.integers(0, 2**80), n=st.integers(2, 4), seats=seats, rules=options,
    policy_seed=st.integers(0, 2**32), at=st.integers(0, 400),
)
@examples(30)
def test_json_round_trip_at_any_step_continues_identically(
    seed: int, n: int, seats: list[Policy], rules: dict, policy_seed: int, at: int
) -> None:
    s = GameState.new(n, seed=seed, **rules, engine="python")
    play(s, Player(seats, policy_seed), at)
    text = s.to_json()
    copy = GameState.from_json(text, engine="python")
    assert copy == s and copy.to_json() == text and copy.legal_actions() == s.legal_actions()
    check(copy)
    actions = play(s, Player(seats, policy_seed + 1))
    assert play(copy, Player(seats, policy_seed + 1)) == actions
    assert copy == s


@given(
    seed=st.integers(0, 2**63), n=st.integers(2, 4), seats=seats, policy_seed=st.integers(0, 2**32),
    at=st.integers(0, 300),
)
@examples(30)
def test_clone_is_independent_and_continues_identically(
    seed: int, n: int, seats: list[Policy], policy_seed: int, at: int
) -> None:
    s = GameState.new(n, seed=seed, engine="python")
    play(s, Player(seats, policy_seed), at)
    before = s.to_json()
    clone = s.clone()
    actions = play(clone, Player(seats, policy_seed + 1))
    assert s.to_json() == before, "playing the clone changed the original"
    frozen = clone.to_json()
    assert play(s, Player(seats, policy_seed + 1)) == actions
    assert s == clone and clone.to_json() == frozen


@given(
    seed=st.integers(0, 2**63), n=st.integers(2, 4), seats=seats, policy_seed=st.integers(0, 2**32),
    at=st.integers(0, 300),
)
@examples(30)
def test_every_legal_action_applies_and_every_other_id_is_refused_without_change(
    seed: int, n: int, seats: list[Policy], policy_seed: int, at: int
) -> None:
    s = GameState.new(n, seed=seed, engine="python")
    play(s, Player(seats, policy_seed), at)
    legal = s.legal_actions()
    for a in legal:
        after = s.clone()
        after.apply(a)
        check(after)
    before = s.to_json()
    for a in [*range(-3, NUM_ACTIONS + 3), np.int64(NUM_ACTIONS), 2**70]:
        if a in legal:
            continue
        with pytest.raises(IllegalActionError, match=str(int(a))):
            s.apply(a)
        assert s.to_json() == before


def test_invariants_catch_broken_states() -> None:
    """The checks the properties rely on do fail on a broken state."""
    s = GameState.new(3, seed=1, engine="python")
    s.hands[0][0] += 1
    with pytest.raises(InvariantError, match="cards not conserved"):
        check(s)
    s = GameState.new(3, seed=1, engine="python")
    s.tokens[s.tokens.index(0)] += 1
    with pytest.raises(InvariantError, match="6 tokens"):
        check(s)
    s = GameState.new(2, seed=1, engine="python")
    s.markers[1] = -1
    with pytest.raises(InvariantError, match="negative score"):
        check(s)
    s = GameState.new(2, seed=1, engine="python")
    s.known_hands[0][1][0] = s.rules.catalogue[0] + 1
    with pytest.raises(InvariantError, match="memory lists more cards than exist"):
        check(s)
    s = GameState.new(2, seed=1, engine="python")
    with pytest.raises(InvariantError, match="marks"):
        check_mask(s, s.current_player, [0] * NUM_ACTIONS)


def test_observation_of_the_biggest_fish_set_lies_in_the_observation_space() -> None:
    """Regression: 13 fish cards with 2 Prosperity score (5 + 4) x 13 = 117, once written unscaled above the bound."""
    fish = ["fish-scarab"] * 5 + ["fish-plain"] * 3 + ["amulet"] * 5
    env = sobek_env.raw_env(num_players=3)
    env.reset(seed=0)
    env.game = build({"num_players": 3, "players": [{"sets": [{"goods": "fish", "cards": fish, "prosperity": 2}]}],
                      "nile": ["wheat-plain"]})
    check(env.game)
    assert env.observation_space("player_0").contains(env.observe("player_0"))
