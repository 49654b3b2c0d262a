"""Determinization (``GameState.resample``): consistent with what the seat knows, uniform over the rest,
dependent only on that knowledge and on the generator."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from sobek_env.kleopatra import GameState
from sobek_env.kleopatra.invariants import check
from sobek_env.kleopatra.view import view

from .policies import Player
from .scenario import act, build, doc


def midgame(n: int, seed: int, steps: int) -> GameState:
    s = GameState.new(n, seed=seed, engine="python")
    player = Player(["builder", "characters", "uniform", "hoarder"], seed)
    for _ in range(steps):
        if s.is_over:
            break
        s.apply(player.pick(s))
    return s


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_resampled_states_are_sound_and_look_the_same_to_the_seat(n: int) -> None:
    for seed in range(4):
        s = midgame(n, seed, 150 + 97 * seed)
        for seat in range(n):
            r = s.resample(seat, random.Random(seed))
            check(r)
            for mode in ("original", "memory"):
                assert view(r, seat, mode) == view(s, seat, mode)
            assert r.to_json() != s.to_json()  # a new generator, at least


def test_same_knowledge_same_rng_same_result() -> None:
    s = midgame(4, 3, 400)
    for seat in range(4):
        first = s.resample(seat, random.Random(7))
        assert s.resample(seat, random.Random(7)) == first
        other = s.resample(seat, random.Random(99))  # a state the seat cannot tell from s
        assert other.resample(seat, random.Random(7)) == first
        assert GameState.from_json(other.to_json(), engine="python").resample(seat, random.Random(7)) == first


def test_the_generator_is_new_so_the_future_is_not_leaked() -> None:
    s = midgame(3, 1, 200)
    draws = {tuple(s.resample(0, random.Random(k)).rng.random() for _ in range(3)) for k in range(5)}
    assert len(draws) == 5 and tuple(s.clone().rng.random() for _ in range(3)) not in draws


def test_hidden_cards_go_only_where_they_could_be() -> None:
    """Seat 0 knows seat 1 holds a lapis (it was taken face up); the rest of seat 1's hand, the face-down
    stall card and the deck are drawn from the cards seat 0 cannot place."""
    s = build({"players": [{"hand": ["beggar"], "merchants": 0}, {"hand": ["lapis", "vizier"]}, {"hand": ["wood"]}],
               "stalls": [[{"kind": "stone", "up": True}, {"kind": "marble", "up": False}], [], []],
               "deck": [{"kind": "trompe", "up": True}, {"kind": "scribe", "up": False}],
               "memory": {"public": {"hands": [[], ["lapis"], []]},
                          "seats": [{"hands": [[], ["lapis"], []]}, {}, {"hands": [[], ["lapis"], []]}]},
               "rules": {"card_counts": {k: 0 for k in ("artisan", "stone", "marble", "wood", "lapis", "artisan2",
                                                         "stone2", "marble2", "wood2", "lapis2", "trompe", "beggar",
                                                         "courtesan", "envoy", "scribe", "smuggler", "vizier")}
                         | {"beggar": 1, "lapis": 1, "vizier": 1, "wood": 1, "stone": 1, "marble": 1, "trompe": 1,
                            "scribe": 1, "artisan": 1}},
               "rest": "hand:2"})
    hidden = Counter()
    rng = random.Random(0)
    for _ in range(600):
        r = doc(s.resample(0, rng))
        assert "lapis" in r["players"][1]["hand"] and r["players"][0]["hand"] == ["beggar"]
        assert r["stalls"][0][0] == {"kind": "stone", "up": True} and not r["stalls"][0][1]["up"]
        assert r["deck"][0] == {"kind": "trompe", "up": True}
        hidden[(r["players"][1]["hand"][-1] if r["players"][1]["hand"][0] == "lapis" else r["players"][1]["hand"][0],
                r["stalls"][0][1]["kind"])] += 1
        for card in ("stone", "lapis", "beggar", "trompe"):
            assert card not in r["players"][2]["hand"]
    # seat 1's unknown card and the face-down stall card are drawn from {marble, vizier, wood, scribe, artisan}
    cards = {"marble", "vizier", "wood", "scribe", "artisan"}
    assert {c for pair in hidden for c in pair} <= cards
    assert len(hidden) == 20  # every ordered pair of distinct hidden cards occurs


def test_the_true_state_is_among_the_draws() -> None:
    """On a tiny deal (12 cards) the draws cover the few consistent deals, the true one included."""
    counts = dict.fromkeys(("artisan2", "stone2", "marble2", "wood2", "lapis2", "trompe", "beggar", "courtesan",
                            "envoy", "scribe", "smuggler", "vizier", "marble", "wood"), 0)
    s = GameState.new(3, seed=2, card_counts=counts | {"artisan": 6, "stone": 4, "lapis": 2}, engine="python")

    def deal(state: GameState) -> tuple:
        d = doc(state)
        return (tuple(tuple(p["hand"]) for p in d["players"][1:]), json.dumps(d["deck"]), json.dumps(d["stalls"]))

    truth = deal(s)
    rng = random.Random(3)
    draws = Counter(deal(s.resample(0, rng)) for _ in range(3000))
    assert truth in draws and len(draws) > 1


def test_a_victim_who_showed_his_hand_holds_no_standard_card_in_any_draw() -> None:
    s = build({"num_players": 4, "players": [{"hand": ["beggar"]}, {"hand": ["vizier", "wood2"], "talents": 0},
                                             {"talents": 9}, {"talents": 9}]})
    act(s, "character:beggar", "talents", "talents")
    rng = random.Random(1)
    for seat in (2, 3):
        for _ in range(200):
            hand = s.resample(seat, rng).hands[1]
            assert sum(hand) == 2 and not any(hand[k] for k in range(5))


def test_a_quarry_visit_in_progress_stays_affordable_in_every_draw() -> None:
    s = build({"rules": {"priest_faces": 0}, "players": [{"hand": ["artisan", "stone", "wood", "beggar"],
                                                          "merchants": 0}, {"talents": 9}, {"talents": 9}]})
    act(s, "quarry", "card:artisan")
    rng = random.Random(2)
    for _ in range(100):
        r = s.resample(1, rng)
        check(r)


def test_ceremony_offers_of_others_are_redrawn_own_kept() -> None:
    s = build({"altar": 4, "players": [{"hand": ["scribe"], "talents": 20}, {"talents": 9}, {"talents": 3}]})
    act(s, "character:scribe", "die:add", "bid:10", "bid:5", "done", "bid:2")
    offers = Counter()
    rng = random.Random(4)
    for _ in range(400):
        r = s.resample(2, rng)
        assert r.pending.offers[2] == 0
        offers[(r.pending.offers[0], r.pending.offers[1])] += 1
        assert 0 <= r.pending.offers[0] <= 20 and 0 <= r.pending.offers[1] <= 9
    assert len(offers) > 50
    assert all(s.resample(1, rng).pending.offers[1] == 2 for _ in range(20))
