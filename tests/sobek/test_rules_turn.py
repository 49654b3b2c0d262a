"""Rule tests for a turn: taking from the Nile, deliveries, setup, sets (rules §2, §3, §5, §6)."""

from __future__ import annotations

import random

import pytest

from sobek_env import GameState
from sobek_env.sobek.actions import SET
from sobek_env.sobek.catalogue import GOODS, NUM_KINDS, SET_MIN_CARDS
from sobek_env.sobek.invariants import check
from sobek_env.sobek.stress import random_rules

from .scenario import act, build, legal, load, python_state, view

pytestmark = pytest.mark.usefixtures("engine")  # each test on both engines (conftest.py)

TAKES = [f"take:{i}" for i in range(9)]


# ---------------------------------------------------------------------- rules §3: take


def test_take_position_0_puts_no_card_into_the_corruption_pile() -> None:
    s = act(load("take_row"), "take:0")
    doc = view(s)
    assert sorted(doc["players"][0]["hand"]) == ["fish-plain", "fish-start"]
    assert doc["players"][0]["corruption"] == []
    assert doc["nile"] == ["ivory-scarab", "amulet", "wheat-scarab", "ebony-plain", "cattle-plain"]
    assert s.current_player == 1
    assert doc["pending"] is None


def test_take_i_puts_the_cards_before_it_into_the_takers_corruption_pile() -> None:
    s = act(load("take_row"), "take:3")
    doc = view(s)
    assert sorted(doc["players"][0]["hand"]) == ["fish-start", "wheat-scarab"]
    assert sorted(doc["players"][0]["corruption"]) == ["amulet", "fish-plain", "ivory-scarab"]
    assert doc["players"][1]["corruption"] == []
    assert doc["nile"] == ["ebony-plain", "cattle-plain"]
    assert s.current_player == 1


def test_only_positions_0_to_3_can_be_taken() -> None:
    s = load("take_row")
    assert legal(s) == ["take:0", "take:1", "take:2", "take:3"]
    act(s, "take:3")  # two cards remain for player 1
    assert legal(s) == ["take:0", "take:1"]


@pytest.mark.parametrize("length", range(1, 10))
def test_take_window_shrinks_with_the_nile(length: int) -> None:
    row = ["fish-plain", "fish-scarab", "wheat-plain", "wheat-scarab", "cattle-scarab",
           "marble-plain", "marble-scarab", "ebony-plain", "ebony-scarab"]
    s = build({"nile": row[:length], "deck": ["amulet"]})
    assert legal(s) == TAKES[:min(4, length)]


# ---------------------------------------------------------------------- rules §5: deliveries, round end


def test_taking_the_last_nile_card_delivers_nine_cards_in_reverse_draw_order() -> None:
    s = act(load("delivery"), "take:0")
    doc = view(s)
    # the first card drawn (the old deck[0]) lies farthest from the 0 space
    assert doc["nile"] == ["ivory-scarab", "queen", "amulet", "wheat-scarab", "fish-plain",
                           "cattle-plain", "marble-plain", "ebony-plain", "ivory-plain"]
    assert doc["deck"] == ["ebony-scarab", "marble-scarab", "cattle-scarab"]
    assert doc["players"][0]["hand"] == ["wheat-plain"]
    assert s.current_player == 1 and s.round == 1


def test_a_short_last_delivery_brings_what_is_left_then_the_round_ends_on_its_last_card() -> None:
    s = load("delivery", deck=["marble-plain", "cattle-scarab", "amulet"], round=3)
    act(s, "take:0")
    assert view(s)["nile"] == ["amulet", "cattle-scarab", "marble-plain"]
    assert view(s)["deck"] == []
    act(s, "take:0")  # player 1 takes the amulet; two cards remain
    assert not s.is_over
    act(s, "take:1")  # player 0 takes the last card: the round (here the game) ends at once
    doc = view(s)
    assert s.is_over and doc["over"] is True
    # p0 skipped cattle-scarab; the leftover hands went to the piles (rules §5.2)
    assert sorted(doc["players"][0]["corruption"]) == ["cattle-scarab", "marble-plain", "wheat-plain"]
    assert doc["players"][1]["corruption"] == ["amulet"]


def test_the_end_of_the_last_delivery_starts_the_next_round() -> None:
    s = act(build({"nile": ["fish-plain"], "scores": [5, 3], "discard": ["queen"],
                   "players": [{"curses": 1, "sets": [{"goods": "wheat", "cards": ["wheat-scarab"] * 3}]}]}), "take:0")
    doc = view(s)
    assert s.round == 2 and not s.is_over
    assert len(doc["nile"]) == 9
    assert doc["pending"] == {"phase": "first_player"}
    assert len(doc["tokens"]) == 5 and doc["used_tokens"] == [] and doc["discard"] == []
    for p in doc["players"]:
        assert len(p["hand"]) == 2 and all(k.endswith("-start") for k in p["hand"])
        assert p["corruption"] == [] and p["sets"] == [] and p["curses"] == 0 and p["horizontal_sets"] == []


def test_the_merchant_emptying_the_nile_brings_a_delivery() -> None:
    s = build({"players": [{"hand": ["merchant"]}], "nile": ["fish-plain"], "deck": ["ivory-plain", "amulet"]})
    act(s, "character:merchant", "take:0")
    doc = view(s)
    assert doc["nile"] == ["amulet", "ivory-plain"]
    assert doc["deck"] == []
    assert doc["players"][0]["hand"] == ["fish-plain"]
    assert s.current_player == 1


def test_the_merchant_taking_the_last_card_of_the_last_delivery_ends_the_round() -> None:
    s = build({"round": 3, "players": [{"hand": ["merchant"]}], "nile": ["fish-plain"]})
    act(s, "character:merchant", "take:0")
    doc = view(s)
    assert s.is_over
    assert doc["discard"] == ["merchant"]
    assert doc["players"][0]["corruption"] == ["fish-plain"]


# ---------------------------------------------------------------------- rules §2: setup


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize(("players", "deck", "green_out", "beige_out"), [(2, 36, 5, 9), (3, 45, 3, 0), (4, 45, 1, 0)])
def test_new_game_setup(players: int, deck: int, green_out: int, beige_out: int, seed: int) -> None:
    s = GameState.new(num_players=players, seed=seed, engine="python")
    check(s)
    doc = view(s)
    assert len(doc["nile"]) == 9
    assert len(doc["deck"]) == deck
    out = doc["out_of_round"]
    assert sum(k.endswith("-start") for k in out) == green_out
    assert sum(not k.endswith("-start") for k in out) == beige_out
    for p in doc["players"]:
        assert len(p["hand"]) == 2 and all(k.endswith("-start") for k in p["hand"])
        assert p["corruption"] == [] and p["sets"] == [] and p["curses"] == 0
    assert len(doc["tokens"]) == 5 and doc["used_tokens"] == []
    assert doc["discard"] == []
    assert s.round == 1 and s.scores == [0] * players and s.winners == []
    assert s.current_player == s.first_player and doc["pending"] is None


@pytest.mark.parametrize(("players", "deliveries"), [(2, 5), (3, 6), (4, 6)])
def test_deliveries_per_round(players: int, deliveries: int) -> None:
    s = GameState.new(num_players=players, seed=11, engine="python")
    seen = 1
    while s.round == 1 and s.nile:  # the round ends when its last card is taken
        before = len(s.nile)
        s.apply(0)  # take:0 keeps every delivery at 9 cards
        if s.round == 1 and before == 1 and s.nile:
            seen += 1
            assert len(s.nile) == 9
    assert seen == deliveries


# ---------------------------------------------------------------------- rules §6: sets


def test_a_set_can_be_started_only_with_three_fitting_cards_in_hand() -> None:
    s = load("set_hand")
    # fish: fish-plain, fish-scarab, high-priestess (fish family), amulet; ivory and wheat: 2 each
    assert legal(s) == ["take:0", "take:1", "character:high-priestess", "set:fish"]


@pytest.mark.parametrize("seed", range(6))
def test_a_set_can_be_started_exactly_for_the_goods_with_three_fitting_cards(seed: int) -> None:
    # the turn start counts fitting cards its own way (one pass over the hand): it must agree with
    # fitting_in_hand, under random rules options (families move characters between goods) and hands
    rng = random.Random(seed)
    s = GameState.new(2 + seed % 3, seed=seed, **random_rules(rng), engine="python")
    while not s.is_over:
        if s.pending is None:
            for hand in (s.hands[s.current_player], [rng.choice((0, 0, 1, 2)) for _ in range(NUM_KINDS)]):
                t = s.clone()
                t.hands[t.current_player] = list(hand)
                goods = [g for g in range(len(GOODS)) if t.fitting_in_hand(t.current_player, g) >= SET_MIN_CARDS]
                assert [a for a in t.legal_actions() if SET <= a < SET + len(GOODS)] == [SET + g for g in goods]
        s.apply(rng.choice(s.legal_actions()))


def test_only_fitting_kinds_can_be_laid_and_done_needs_three_cards() -> None:
    s = act(load("set_hand"), "set:fish")
    assert legal(s) == ["card:fish-plain", "card:fish-scarab", "card:amulet", "card:high-priestess"]
    act(s, "card:high-priestess", "card:amulet")
    assert legal(s) == ["card:fish-plain", "card:fish-scarab"]
    act(s, "card:fish-plain")
    assert legal(s) == ["card:fish-scarab", "done"]
    act(s, "done")  # no token left: the turn ends
    doc = view(s)
    assert doc["players"][0]["sets"] == [
        {"goods": "fish", "cards": ["fish-plain", "amulet", "high-priestess"], "prosperity": 0}]
    assert sorted(doc["players"][0]["hand"]) == ["fish-scarab", "ivory-plain", "wheat-plain"]
    # the High Priestess inside a set has no power: the pile and the discard are untouched
    assert sorted(doc["players"][0]["corruption"]) == ["cattle-plain", "fish-plain"]
    assert doc["discard"] == []
    assert s.current_player == 1 and doc["pending"] is None


def test_a_queen_inside_a_set_draws_nothing() -> None:
    s = build({"players": [{"hand": ["queen", "ivory-plain", "ivory-scarab"]}],
               "nile": ["fish-plain"], "deck": ["wheat-plain", "cattle-plain", "marble-plain"]})
    act(s, "set:ivory", "card:queen", "card:ivory-plain", "card:ivory-scarab", "done")
    doc = view(s)
    assert doc["players"][0]["hand"] == []
    assert doc["deck"] == ["wheat-plain", "cattle-plain", "marble-plain"]
    assert doc["discard"] == []
    assert sorted(doc["players"][0]["sets"][0]["cards"]) == ["ivory-plain", "ivory-scarab", "queen"]


def test_an_extension_adds_three_or_more_cards_to_the_existing_set() -> None:
    s = build({
        "players": [
            {"hand": ["fish-scarab", "fish-scarab", "scribe-fish", "amulet", "wheat-plain"],
             "sets": [{"goods": "fish", "cards": ["fish-plain", "fish-plain", "fish-plain"]}]},
            {"hand": ["ivory-plain", "ivory-scarab", "ebony-plain", "ebony-scarab", "marble-plain",
                      "marble-scarab", "cattle-plain", "cattle-scarab"]},
        ],
        "nile": ["wheat-scarab"],
    })
    act(s, "set:fish", "card:fish-scarab", "card:scribe-fish")
    assert "done" not in legal(s)
    act(s, "card:amulet", "done")
    doc = view(s)
    sets = doc["players"][0]["sets"]
    assert len(sets) == 1 and sets[0]["goods"] == "fish"
    assert sorted(sets[0]["cards"]) == sorted(
        ["fish-plain", "fish-plain", "fish-plain", "fish-scarab", "scribe-fish", "amulet"])
    assert doc["players"][0]["hand"] == ["fish-scarab", "wheat-plain"]
    # the Scribe inside a set has no power: player 1 keeps his 8 cards
    assert len(doc["players"][1]["hand"]) == 8 and doc["players"][1]["corruption"] == []


def test_an_amulets_only_set_belongs_to_no_goods() -> None:
    s = build({"players": [{"hand": ["amulet", "amulet", "amulet"]}], "nile": ["fish-plain"]})
    assert legal(s) == ["take:0"] + [f"set:{g}" for g in ("ivory", "ebony", "marble", "cattle", "fish", "wheat")]
    act(s, "set:marble", "card:amulet", "card:amulet", "card:amulet", "done")  # rules §6: the goods is forgotten
    assert view(s)["players"][0]["sets"] == [
        {"goods": "amulet", "cards": ["amulet", "amulet", "amulet"], "prosperity": 0}]


def test_the_first_extension_gives_the_amulets_only_set_its_goods() -> None:
    """The issue's position: three amulets laid as 'fish' used to block a later ivory extension (27 points
    instead of 54)."""
    s = build({"players": [{"hand": ["ivory-scarab"] * 3, "sets": [{"goods": "amulet", "cards": ["amulet"] * 3}]},
                           {}],
               "nile": ["fish-plain", "fish-plain"], "tokens": ["flood"]})
    act(s, "set:ivory", "card:ivory-scarab", "card:ivory-scarab", "card:ivory-scarab", "done")
    assert view(s)["players"][0]["sets"] == [
        {"goods": "ivory", "cards": ["ivory-scarab"] * 3 + ["amulet"] * 3, "prosperity": 0}]
    assert s.phase == "token"  # an extension triggers an event like any set
    act(s, "token:flood", "take:0", "take:0")  # the round ends; nobody can lay a horizontal set
    assert python_state(s).round_log[-1]["points"][0] == 54  # 9 scarabs x 6 cards


def test_prosperity_on_the_amulets_only_set_limits_its_extension_to_fish_cattle_or_wheat() -> None:
    hand = ["ivory-scarab"] * 3 + ["fish-plain"] * 3
    s = build({"players": [{"hand": hand, "sets": [{"goods": "amulet", "cards": ["amulet"] * 3, "prosperity": 1}]},
                           {}],
               "nile": ["wheat-plain", "wheat-plain", "wheat-plain"], "tokens": ["flood", "deceit"]})
    act(s, "set:ivory", "card:ivory-scarab", "card:ivory-scarab", "card:ivory-scarab", "done", "token:flood")
    sets = {t["goods"]: t for t in view(s)["players"][0]["sets"]}
    assert sorted(sets) == ["amulet", "ivory"]  # ivory may not extend it: a new set
    act(s, "set:fish", "card:fish-plain", "card:fish-plain", "card:fish-plain", "done", "token:deceit")
    sets = {t["goods"]: t for t in view(s)["players"][0]["sets"]}
    assert sorted(sets) == ["fish", "ivory"]
    assert sets["fish"] == {"goods": "fish", "cards": ["fish-plain"] * 3 + ["amulet"] * 3, "prosperity": 1}


def test_prosperity_may_go_on_the_amulets_only_set() -> None:
    s = build({"players": [{"hand": ["amulet"] * 3}, {}], "nile": ["fish-plain", "fish-plain"],
               "tokens": ["prosperity"]})
    act(s, "set:ivory", "card:amulet", "card:amulet", "card:amulet", "done", "token:prosperity")
    assert legal(s) == ["goods:amulet"]
    act(s, "goods:amulet")
    assert view(s)["players"][0]["sets"] == [{"goods": "amulet", "cards": ["amulet"] * 3, "prosperity": 1}]


def test_amulets_laid_on_a_goods_set_extend_it() -> None:
    s = build({"players": [{"hand": ["amulet"] * 3, "sets": [{"goods": "fish", "cards": ["fish-scarab"] * 3}]}, {}],
               "nile": ["fish-plain"]})
    act(s, "set:fish", "card:amulet", "card:amulet", "card:amulet", "done")
    assert view(s)["players"][0]["sets"] == [
        {"goods": "fish", "cards": ["fish-scarab"] * 3 + ["amulet"] * 3, "prosperity": 0}]
