"""Rule tests for the nine characters (rules §3, §4)."""

from __future__ import annotations

import pytest

from .scenario import act, build, legal, load, spec, table_set, view

pytestmark = pytest.mark.usefixtures("engine")  # each test on both engines (conftest.py)

ALL_GOODS = ["goods:ivory", "goods:ebony", "goods:marble", "goods:cattle", "goods:fish", "goods:wheat"]


# ---------------------------------------------------------------------- Queen


@pytest.mark.parametrize(("deck", "drawn", "left"), [
    (["ivory-plain", "ebony-plain", "marble-plain", "cattle-plain", "fish-plain"],
     ["ivory-plain", "ebony-plain", "marble-plain"], ["cattle-plain", "fish-plain"]),
    (["ivory-plain", "ebony-plain"], ["ivory-plain", "ebony-plain"], []),
    ([], [], []),
])
def test_queen_draws_three_cards_or_what_the_deck_has(deck: list[str], drawn: list[str], left: list[str]) -> None:
    s = build({"players": [{"hand": ["queen", "wheat-start"]}], "nile": ["fish-scarab"], "deck": deck})
    assert "character:queen" in legal(s)
    act(s, "character:queen")
    doc = view(s)
    assert sorted(doc["players"][0]["hand"]) == sorted([*drawn, "wheat-start"])
    assert doc["deck"] == left
    assert doc["discard"] == ["queen"]
    assert s.current_player == 1 and doc["pending"] is None


# ---------------------------------------------------------------------- High Priest / High Priestess


def test_high_priest_discards_every_goods_card_then_offers_the_family_characters() -> None:
    s = build({"players": [{"hand": ["high-priest"],
                            "corruption": ["cattle-plain", "cattle-scarab", "cattle-start", "thief", "amulet",
                                           "fish-plain", "scribe-fish"]}],
               "nile": ["fish-scarab"]})
    act(s, "character:high-priest")
    assert legal(s) == ALL_GOODS
    act(s, "goods:cattle")
    doc = view(s)
    assert sorted(doc["players"][0]["corruption"]) == ["amulet", "fish-plain", "scribe-fish", "thief"]
    assert sorted(doc["discard"]) == ["cattle-plain", "cattle-scarab", "cattle-start", "high-priest"]
    assert doc["pending"] == {"phase": "priest_characters", "goods": "cattle"} and s.current_player == 0
    assert legal(s) == ["card:thief", "done"]  # rules §4: the family's characters *may* be discarded
    act(s, "card:thief")
    doc = view(s)
    assert sorted(doc["players"][0]["corruption"]) == ["amulet", "fish-plain", "scribe-fish"]
    assert "thief" in doc["discard"]
    assert s.current_player == 1 and doc["pending"] is None  # none left: the power ends by itself


def test_high_priestess_may_keep_the_family_characters() -> None:
    pile = ["fish-plain", "fish-scarab", "fish-start", "scribe-fish", "high-priest", "amulet", "wheat-plain",
            "courtesan"]
    s = build({"players": [{"hand": ["high-priestess"], "corruption": pile}], "nile": ["wheat-scarab"]})
    act(s, "character:high-priestess", "goods:fish")
    assert legal(s) == ["card:scribe-fish", "done"]  # the High Priest belongs to cattle, not fish
    act(s, "done")
    doc = view(s)
    assert sorted(doc["players"][0]["corruption"]) == ["amulet", "courtesan", "high-priest", "scribe-fish",
                                                       "wheat-plain"]
    assert sorted(doc["discard"]) == ["fish-plain", "fish-scarab", "fish-start", "high-priestess"]
    assert s.current_player == 1 and doc["pending"] is None


def test_two_family_characters_are_offered_one_at_a_time() -> None:
    s = build({"players": [{"hand": ["high-priest"], "corruption": ["courtesan", "scribe-wheat", "wheat-plain"]}],
               "nile": ["wheat-scarab"]})
    act(s, "character:high-priest", "goods:wheat")
    assert legal(s) == ["card:scribe-wheat", "card:courtesan", "done"]
    act(s, "card:courtesan")
    assert legal(s) == ["card:scribe-wheat", "done"] and s.current_player == 0
    act(s, "done")
    assert view(s)["players"][0]["corruption"] == ["scribe-wheat"] and s.current_player == 1


def test_the_priests_goods_choice_asks_nothing_more_without_family_characters() -> None:
    s = build({"players": [{"hand": ["high-priest"], "corruption": ["cattle-plain", "fish-plain", "thief"]}],
               "nile": ["wheat-scarab"]})
    act(s, "character:high-priest", "goods:fish")  # the Thief belongs to cattle
    assert view(s)["pending"] is None and s.current_player == 1
    assert view(s)["players"][0]["corruption"] == ["cattle-plain", "thief"]


def test_a_priest_may_name_a_goods_with_nothing_to_discard() -> None:
    s = build({"players": [{"hand": ["high-priest"], "corruption": ["amulet", "fish-plain"]}],
               "nile": ["wheat-scarab"]})
    act(s, "character:high-priest", "goods:ivory")
    doc = view(s)
    assert sorted(doc["players"][0]["corruption"]) == ["amulet", "fish-plain"]
    assert doc["discard"] == ["high-priest"]
    assert s.current_player == 1


# ---------------------------------------------------------------------- Vizier


def _vizier_state() -> dict:
    return {"num_players": 3,
            "players": [{"hand": ["vizier"]}, {}, {"corruption": ["ivory-scarab", "amulet"]}],
            "nile": ["fish-scarab", "wheat-scarab"]}


def test_vizier_may_search_any_opponent_even_one_with_an_empty_pile() -> None:
    s = act(build(_vizier_state()), "character:vizier")
    assert legal(s) == ["player:1", "player:2"]
    act(s, "player:1")  # empty pile: the power ends
    doc = view(s)
    assert doc["players"][0]["hand"] == []
    assert sorted(doc["players"][2]["corruption"]) == ["amulet", "ivory-scarab"]
    assert doc["discard"] == ["vizier"]
    assert s.current_player == 1 and doc["pending"] is None


def test_vizier_takes_the_chosen_card_into_the_hand() -> None:
    s = act(build(_vizier_state()), "character:vizier", "player:2")
    assert legal(s) == ["card:ivory-scarab", "card:amulet"]
    act(s, "card:ivory-scarab")
    doc = view(s)
    assert doc["players"][0]["hand"] == ["ivory-scarab"]
    assert doc["players"][0]["corruption"] == []
    assert doc["players"][2]["corruption"] == ["amulet"]
    assert s.current_player == 1


def test_vizier_with_every_pile_empty_still_offers_every_opponent() -> None:
    s = build({"num_players": 4, "players": [{"hand": ["vizier"]}], "nile": ["fish-scarab"]})
    act(s, "character:vizier")
    assert legal(s) == ["player:1", "player:2", "player:3"]


# ---------------------------------------------------------------------- Scribe


def test_scribe_opponents_discard_to_six_in_seat_order_from_the_scribes_left() -> None:
    s = act(load("scribe_4p"), "character:scribe-wheat")
    # seat 2 played; order 3, 0, 1; seat 0 holds exactly 6 and is skipped
    assert s.current_player == 3
    assert legal(s) == ["card:ivory-plain", "card:ivory-scarab", "card:ebony-plain", "card:ebony-scarab",
                        "card:marble-plain", "card:marble-scarab", "card:cattle-plain"]
    act(s, "card:marble-scarab")
    assert s.current_player == 1
    assert legal(s) == ["card:cattle-scarab", "card:fish-scarab", "card:wheat-scarab", "card:amulet", "card:queen"]
    act(s, "card:queen")
    assert s.current_player == 1  # still 7 cards
    act(s, "card:amulet")
    doc = view(s)
    assert s.current_player == 3  # the turn passes to the Scribe player's left
    assert doc["pending"] is None
    assert doc["players"][3]["corruption"] == ["marble-scarab"]
    assert sorted(doc["players"][1]["corruption"]) == ["amulet", "queen"]
    assert doc["players"][0]["corruption"] == []
    assert [len(p["hand"]) for p in doc["players"]] == [6, 6, 1, 6]
    assert doc["discard"] == ["scribe-wheat"]


def test_scribe_with_no_opponent_over_six_only_ends_the_turn() -> None:
    big = ["ivory-plain", "ivory-scarab", "ebony-plain", "ebony-scarab", "marble-plain", "marble-scarab",
           "cattle-plain", "scribe-fish"]
    s = build({"players": [{"hand": big}, {"hand": ["fish-plain"] * 3 + ["wheat-plain"] * 3}],
               "nile": ["fish-scarab"]})
    act(s, "character:scribe-fish")
    doc = view(s)
    assert s.current_player == 1 and doc["pending"] is None
    assert len(doc["players"][0]["hand"]) == 7  # the Scribe's own hand is not limited
    assert len(doc["players"][1]["hand"]) == 6 and doc["players"][1]["corruption"] == []


# ---------------------------------------------------------------------- Thief


def test_thief_offers_only_the_back_colours_the_victim_holds() -> None:
    s = act(load("thief_3p"), "character:thief")
    assert legal(s) == ["player:1", "player:2"]
    act(s, "player:1")
    assert legal(s) == ["back:green", "back:beige"]
    act(s, "back:green")
    doc = view(s)
    assert doc["players"][0]["hand"] == ["wheat-start"]
    assert sorted(doc["players"][1]["hand"]) == ["fish-scarab", "ivory-plain"]
    assert doc["discard"] == ["thief"]
    assert s.current_player == 1 and doc["pending"] is None


@pytest.mark.parametrize("seed", range(6))
def test_thief_draws_a_card_with_the_named_back(seed: int) -> None:
    s = act(load("thief_3p", seed=seed), "character:thief", "player:1", "back:beige")
    doc = view(s)
    stolen = doc["players"][0]["hand"]
    assert len(stolen) == 1 and stolen[0] in ("ivory-plain", "fish-scarab")
    other = "fish-scarab" if stolen[0] == "ivory-plain" else "ivory-plain"
    assert sorted(doc["players"][1]["hand"]) == sorted(["wheat-start", other])


def test_thief_can_name_the_orange_back() -> None:
    sp = spec("thief_3p")
    sp["players"][1] = {"hand": ["vizier", "amulet"]}
    s = act(build(sp), "character:thief", "player:1")
    assert legal(s) == ["back:beige", "back:orange"]
    act(s, "back:orange")
    assert view(s)["players"][0]["hand"] == ["vizier"]
    assert view(s)["players"][1]["hand"] == ["amulet"]


def test_thief_on_an_empty_hand_has_no_effect() -> None:
    s = act(load("thief_3p"), "character:thief", "player:2")
    doc = view(s)
    assert doc["players"][0]["hand"] == []
    assert len(doc["players"][1]["hand"]) == 3
    assert s.current_player == 1 and doc["pending"] is None


# ---------------------------------------------------------------------- Courtesan


def test_courtesan_offers_only_own_sets_with_a_fitting_card_in_hand() -> None:
    s = act(load("courtesan"), "character:courtesan")
    assert legal(s) == ["goods:fish"]  # ivory set: no fitting card; wheat and marble: no set
    act(s, "goods:fish")
    assert legal(s) == ["card:fish-plain"]  # done only after the first card
    act(s, "card:fish-plain")
    assert legal(s) == ["done"]
    act(s, "done")
    doc = view(s)
    assert table_set(s, 0, "fish")["cards"] == ["fish-plain", "fish-scarab", "fish-scarab", "fish-scarab"]
    assert sorted(doc["players"][0]["hand"]) == ["marble-plain", "wheat-plain"]
    assert sorted(doc["tokens"]) == ["deceit", "flood"]  # no event token
    assert doc["discard"] == ["courtesan"]
    assert s.current_player == 1 and doc["pending"] is None


def test_courtesan_ends_by_itself_after_the_second_card() -> None:
    sp = spec("courtesan")
    sp["players"][0]["hand"] = ["courtesan", "fish-plain", "fish-start", "amulet"]
    s = act(build(sp), "character:courtesan")
    assert legal(s) == ["goods:ivory", "goods:fish"]  # the amulet fits both
    act(s, "goods:fish", "card:fish-plain")
    assert legal(s) == ["card:fish-start", "card:amulet", "done"]
    act(s, "card:amulet")
    doc = view(s)
    assert s.current_player == 1 and doc["pending"] is None
    assert doc["players"][0]["hand"] == ["fish-start"]
    assert table_set(s, 0, "fish")["cards"] == ["amulet", "fish-plain", "fish-scarab", "fish-scarab", "fish-scarab"]
    assert len(table_set(s, 0, "ivory")["cards"]) == 3
    assert sorted(doc["tokens"]) == ["deceit", "flood"]


@pytest.mark.parametrize("sets", [
    [],
    [{"goods": "ivory", "cards": ["ivory-scarab", "ivory-scarab", "ivory-plain"]}],
    [{"goods": "wheat", "cards": ["wheat-plain"] * 3}],  # the Courtesan herself (wheat) is already discarded
])
def test_courtesan_without_a_fitting_set_has_no_effect(sets: list[dict]) -> None:
    s = build({"players": [{"hand": ["courtesan", "fish-plain"], "sets": sets}], "nile": ["wheat-scarab"]})
    act(s, "character:courtesan")
    doc = view(s)
    assert s.current_player == 1 and doc["pending"] is None
    assert doc["players"][0]["hand"] == ["fish-plain"]
    assert doc["discard"] == ["courtesan"]


def test_courtesan_gives_the_amulets_only_set_the_goods_of_its_first_goods_card() -> None:
    s = build({"players": [{"hand": ["courtesan", "wheat-scarab", "wheat-plain", "ivory-plain"],
                            "sets": [{"goods": "amulet", "cards": ["amulet"] * 3},
                                     {"goods": "ivory", "cards": ["ivory-scarab"] * 3}]}],
               "nile": ["fish-plain"]})
    act(s, "character:courtesan")
    assert legal(s) == ["goods:ivory", "goods:amulet"]
    act(s, "goods:amulet")
    # rules §6: an amulet, or a card of a goods he has no set of (not ivory)
    assert legal(s) == ["card:wheat-plain", "card:wheat-scarab"]
    act(s, "card:wheat-scarab")
    assert view(s)["pending"] == {"phase": "courtesan_card", "goods": "wheat", "cards": ["wheat-scarab"]}
    assert legal(s) == ["card:wheat-plain", "done"]  # now a wheat set: only wheat fits
    act(s, "card:wheat-plain")
    assert table_set(s, 0, "wheat")["cards"] == ["amulet"] * 3 + ["wheat-plain", "wheat-scarab"]
    assert table_set(s, 0, "amulet") is None and s.current_player == 1


def test_courtesan_on_an_amulets_only_set_with_prosperity_takes_only_fish_cattle_or_wheat() -> None:
    s = build({"players": [{"hand": ["courtesan", "ivory-plain", "cattle-plain", "amulet"],
                            "sets": [{"goods": "amulet", "cards": ["amulet"] * 3, "prosperity": 1}]}],
               "nile": ["fish-plain"]})
    act(s, "character:courtesan", "goods:amulet")
    assert legal(s) == ["card:cattle-plain", "card:amulet"]
    act(s, "card:amulet")
    assert view(s)["pending"] == {"phase": "courtesan_card", "goods": "amulet", "cards": ["amulet"]}
    act(s, "done")
    assert table_set(s, 0, "amulet") == {"goods": "amulet", "cards": ["amulet"] * 4, "prosperity": 1}


# ---------------------------------------------------------------------- Merchant


def test_merchant_takes_any_position_without_corruption() -> None:
    nile = ["fish-plain", "ivory-scarab", "amulet", "wheat-scarab", "ebony-plain", "cattle-plain"]
    s = build({"players": [{"hand": ["merchant"]}], "nile": nile, "deck": ["marble-plain"]})
    act(s, "character:merchant")
    assert legal(s) == [f"take:{i}" for i in range(6)]
    act(s, "take:5")
    doc = view(s)
    assert doc["players"][0]["hand"] == ["cattle-plain"]
    assert doc["players"][0]["corruption"] == []
    assert doc["nile"] == nile[:5]
    assert doc["discard"] == ["merchant"]
    assert s.current_player == 1


def test_merchant_from_the_middle_leaves_the_others_in_place() -> None:
    nile = ["fish-plain", "ivory-scarab", "amulet", "wheat-scarab"]
    s = build({"players": [{"hand": ["merchant"]}], "nile": nile})
    act(s, "character:merchant", "take:1")
    assert view(s)["nile"] == ["fish-plain", "amulet", "wheat-scarab"]
    assert view(s)["players"][0]["corruption"] == []
