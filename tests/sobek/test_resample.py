"""Determinization (``GameState.resample``): sound, invisible to the seat in both observation modes,
dependent only on what the seat knows and on the generator, and free in everything hidden."""

from __future__ import annotations

import json
import random

import pytest

from sobek_env.sobek import GAME, GameState
from sobek_env.sobek.catalogue import GOODS, GREEN, KIND_BACK, KIND_INDEX, NUM_KINDS, backs_of
from sobek_env.sobek.invariants import check, check_play
from sobek_env.sobek.observation import MODES
from sobek_env.sobek.stress import PROFILES, WEIGHTS, Policy
from sobek_env.sobek.view import View, view

from .scenario import act, build, complete

KIND = KIND_INDEX
KIND_GOODS = {g: i for i, g in enumerate(GOODS)}


def snapshots(n: int, seed: int, every: int) -> list[GameState]:
    """Copies of one game, played by stress policies, taken every ``every`` steps until it ends."""
    rng = random.Random(seed)
    s = GameState.new(n, seed=seed, engine="python")
    seats = [Policy(WEIGHTS[rng.choice(sorted(PROFILES))]) for _ in range(n)]
    out = []
    while not s.is_over:
        legal = s.legal_actions()
        s.apply(rng.choices(legal, seats[s.current_player].weights(s, legal))[0])
        if rng.randrange(every) == 0 and not s.is_over:
            out.append(s.clone())
    return out


def mask(s: GameState, seat: int) -> list[int]:
    return s.legal_actions() if seat == s.current_player else []


def sees(s: GameState, seat: int) -> list[View]:
    """What ``seat`` is shown in each observation mode (what its observations hold)."""
    return [view(s, seat, mode) for mode in MODES]


def same_view(a: GameState, b: GameState, seat: int) -> bool:
    return sees(a, seat) == sees(b, seat) and mask(a, seat) == mask(b, seat)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_resampled_states_are_sound_and_look_the_same_to_the_seat(n: int) -> None:
    checked = 0
    for seed in range(6):
        for s in snapshots(n, 100 * n + seed, 15):
            seat = random.Random(checked).randrange(n)
            r = s.resample(seat, random.Random(checked))
            check_play(r)
            assert GameState.from_json(r.to_json(), engine="python") == r
            assert same_view(r, s, seat)
            if seat == s.current_player:
                assert r.legal_actions() == s.legal_actions()
            checked += 1
    assert checked > 30


def test_resampling_changes_nothing_the_seat_sees_and_keeps_every_public_count() -> None:
    for s in snapshots(4, 7, 15):
        for seat in range(4):
            r = s.resample(seat, random.Random(seat))
            assert r.hands[seat] == s.hands[seat] and r.piles[seat] == s.piles[seat]
            for o in range(4):
                assert backs_of(r.hands[o]) == backs_of(s.hands[o])
                assert backs_of(r.piles[o]) == backs_of(s.piles[o])
            assert (r.discard, r.markers, r.used_tokens, r.curses) == (s.discard, s.markers, s.used_tokens, s.curses)
            assert len(r.deck) == len(s.deck) and sum(r.tokens) == sum(s.tokens)
            assert r.known_hands[seat] == s.known_hands[seat] and r.known_piles[seat] == s.known_piles[seat]
            for other in range(4):  # nobody sees another's memory: the others' becomes the seat's own
                assert r.known_hands[other] == s.known_hands[seat] and r.known_piles[other] == s.known_piles[seat]


def test_same_knowledge_same_rng_same_result() -> None:
    states = snapshots(3, 5, 20)
    assert len(states) > 5
    for i, s in enumerate(states):
        seat = i % 3
        first = s.resample(seat, random.Random(7))
        assert s.resample(seat, random.Random(7)) == first
        other = s.resample(seat, random.Random(99 + i))  # a state the seat cannot tell from s
        assert other.resample(seat, random.Random(7)) == first
        assert GameState.from_json(other.to_json(), engine="python").resample(seat, random.Random(7)) == first


def test_the_hidden_parts_vary_with_the_generator() -> None:
    s = snapshots(3, 11, 40)[0]
    hands, decks, seeds = set(), set(), set()
    for k in range(20):
        r = s.resample(0, random.Random(k))
        hands.add(tuple(r.hands[1]))
        decks.add(tuple(r.deck))
        seeds.add(r.seed)
    assert len(hands) > 1 and len(decks) > 1 and len(seeds) == 20


def test_the_generator_is_new_so_the_future_is_not_leaked() -> None:
    s = snapshots(2, 3, 30)[0]
    draws = {tuple(s.resample(0, random.Random(k)).rng.random() for _ in range(3)) for k in range(5)}
    assert len(draws) == 5 and tuple(s.clone().rng.random() for _ in range(3)) not in draws


@pytest.mark.parametrize("n", [2, 3, 4])
def test_games_play_on_to_the_end_from_a_resampled_state(n: int) -> None:
    rng = random.Random(n)
    for seed in range(3):
        for s in snapshots(n, 50 + seed, 60)[:3]:
            r = s.resample(rng.randrange(n), rng)
            steps = 0
            while not r.is_over:
                r.apply(rng.choice(r.legal_actions()))
                check_play(r)
                steps += 1
            assert steps <= GAME.max_game_length(n)


def with_memory(spec: dict, memory: list[dict]) -> GameState:
    doc = complete(spec)
    doc["memory"] = memory
    return GameState.from_json(json.dumps(doc), engine="python")


def test_remembered_cards_stay_where_they_were_seen_and_hidden_ones_move() -> None:
    """Seat 0 saw seat 1 take an ivory scarab into his hand and skip a fish plain into his pile; the other
    cards of that hand and pile, the face-down Nile character and the deck are drawn among the unseen."""
    s = with_memory({
        "players": [{"hand": ["wheat-plain"]},
                    {"hand": ["ivory-scarab", "ebony-plain", "queen", "cattle-start"],
                     "corruption": ["fish-plain", "marble-plain"]}],
        "nile": ["wheat-scarab", "thief", "amulet"],
        "deck": ["fish-scarab", "courtesan", "ebony-scarab"],
        "tokens": ["flood", "deceit"],
    }, [{"hands": [[], ["ivory-scarab"]], "piles": [[], ["fish-plain"]]}, {}])
    hands, niles, decks, tokens = set(), set(), set(), set()
    rng = random.Random(0)
    for _ in range(200):
        r = s.resample(0, rng)
        hand, pile = r.hands[1], r.piles[1]
        assert hand[KIND["ivory-scarab"]] >= 1 and pile[KIND["fish-plain"]] >= 1
        assert backs_of(hand) == (1, 2, 1) and backs_of(pile) == (0, 2, 0)
        assert r.nile[0] == KIND["wheat-scarab"] and r.nile[2] == KIND["amulet"] and r.nile[1] >= KIND["queen"]
        assert len(r.deck) == 3 and all(KIND_BACK[k] != GREEN for k in r.deck)  # the green cards are out
        assert r.hands[0] == s.hands[0] and sum(r.out_of_round) == sum(s.out_of_round)
        hands.add(tuple(hand))
        niles.add(r.nile[1])
        decks.add(tuple(r.deck))
        tokens.add(tuple(r.tokens))
    assert len(hands) > 20 and len(niles) > 3 and len(decks) > 20 and len(tokens) > 5


def test_a_remembered_card_that_no_longer_fits_the_backs_is_dropped() -> None:
    """Seat 0 remembers two beige cards in seat 1's hand, which now holds one beige card: one of them."""
    s = with_memory({"players": [{}, {"hand": ["ivory-scarab"]}], "nile": ["wheat-scarab"]},
                    [{"hands": [[], ["ivory-scarab", "fish-plain"]]}, {}])
    kept = {tuple(k for k in range(NUM_KINDS) if s.resample(0, random.Random(i)).hands[1][k]) for i in range(40)}
    assert kept == {(KIND["ivory-scarab"],), (KIND["fish-plain"],)}


def test_what_the_seat_sees_now_is_kept_tokens_and_the_searched_pile() -> None:
    s = build({"players": [{"hand": ["vizier"]}, {"corruption": ["ivory-scarab", "queen", "fish-start"]}],
               "nile": ["wheat-scarab"], "tokens": ["flood", "curse", "deceit"]})
    act(s, "character:vizier", "player:1")
    for k in range(30):
        r = s.resample(0, random.Random(k))
        assert r.piles[1] == s.piles[1] and r.legal_actions() == s.legal_actions()
    tokens = {tuple(s.resample(1, random.Random(k)).tokens) for k in range(30)}
    assert len(tokens) > 1  # seat 1 never looked through the tokens

    s = build({"players": [{"hand": ["ivory-scarab", "ivory-plain", "amulet", "fish-plain"]}, {}],
               "nile": ["wheat-scarab"], "tokens": ["flood", "curse", "deceit"]})
    act(s, "set:ivory", "card:ivory-scarab", "card:ivory-plain", "card:amulet", "done")
    for seat in (0, 1):  # seat 0 is looking through them; seat 1 sees nothing
        tokens = {tuple(s.resample(seat, random.Random(k)).tokens) for k in range(30)}
        assert (tokens == {tuple(s.tokens)}) == (seat == 0)
    act(s, "token:flood")  # seat 0 remembers the two left
    assert {tuple(s.resample(0, random.Random(k)).tokens) for k in range(30)} == {tuple(s.tokens)}


def test_another_seats_private_glimpse_does_not_leak_into_the_draw() -> None:
    """Seat 1 searched seat 2's pile with the Vizier: seat 0 does not know what seat 1 saw there."""
    s = build({"num_players": 3, "current_player": 1, "nile": ["wheat-scarab"],
               "players": [{}, {"hand": ["vizier"]}, {"corruption": ["ivory-scarab", "queen", "fish-plain"]}]})
    act(s, "character:vizier", "player:1", "card:queen")
    assert s.known_piles[1][2] == s.piles[2] and not any(s.known_piles[0][2])
    piles = set()
    for k in range(30):
        r = s.resample(0, random.Random(k))
        assert not any(r.known_piles[1][2])
        piles.add(tuple(r.piles[2]))
    assert len(piles) > 1


def test_an_opponent_building_a_set_keeps_enough_fitting_cards_in_every_draw() -> None:
    s = build({"players": [{}, {"hand": ["ivory-scarab", "ivory-plain", "amulet", "fish-plain", "cattle-scarab"]}],
               "current_player": 1, "nile": ["wheat-scarab"]})
    act(s, "set:ivory", "card:ivory-scarab")
    rng = random.Random(3)
    for _ in range(100):
        r = s.resample(0, rng)
        assert r.fitting_in_hand(1, KIND_GOODS["ivory"]) >= 2
        check(r)


def test_bad_arguments_are_refused() -> None:
    s = GameState.new(2, seed=1, engine="python")
    with pytest.raises(ValueError, match="player must be a seat"):
        s.resample(2, random.Random(0))
    with pytest.raises(ValueError, match="player must be a seat"):
        s.resample(True, random.Random(0))
    with pytest.raises(TypeError, match=r"rng must be a random\.Random, a numpy Generator or an integer seed"):
        s.resample(0, "5")
    with pytest.raises(ValueError, match="non-negative"):
        s.resample(0, -1)
