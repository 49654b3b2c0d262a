"""Rule tests for the event tokens triggered by laying a set (rules §1.3, §6, §7)."""

from __future__ import annotations

import pytest

from sobek_env.sobek.catalogue import symbol_at

from .scenario import act, build, legal, load, table_set, view

pytestmark = pytest.mark.usefixtures("engine")  # each test on both engines (conftest.py)

EBONY_SET = ("set:ebony", "card:ebony-plain", "card:ebony-scarab", "card:ebony-scarab", "done")
EBONY_HAND = ["ebony-scarab", "ebony-scarab", "ebony-plain"]


def test_the_track_layout_of_rules_1_3() -> None:
    ankh = [p for p in range(62) if symbol_at(p) == 0]
    assert ankh == [1, 8, 12, 19, 21, 28, 32, 39, 41, 48, 52, 59, 61]
    assert [symbol_at(p) for p in range(5, 10)] == [4, 1, 3, 0, 2]  # number, eye, lotus, ankh, feather
    assert all(symbol_at(p) == symbol_at(p + 20) for p in range(40))


# ---------------------------------------------------------------------- laying a set asks for a token


def test_laying_a_set_asks_for_one_of_the_remaining_tokens() -> None:
    s = act(load("guild_3p"), *EBONY_SET[:-1])
    act(s, "done")
    assert s.current_player == 0
    assert legal(s) == ["token:guild-ankh", "token:guild-eye", "token:guild-lotus", "token:flood"]


def test_with_no_token_left_laying_a_set_ends_the_turn() -> None:
    s = act(load("guild_3p", tokens=[]), *EBONY_SET)
    assert s.current_player == 1 and view(s)["pending"] is None


def test_an_extension_also_asks_for_a_token() -> None:
    s = build({"players": [{"hand": ["fish-plain", "fish-plain", "amulet"],
                            "sets": [{"goods": "fish", "cards": ["fish-scarab"] * 3}]}],
               "nile": ["wheat-plain"], "tokens": ["deceit"]})
    act(s, "set:fish", "card:fish-plain", "card:fish-plain", "card:amulet", "done")
    assert legal(s) == ["token:deceit"]


# ---------------------------------------------------------------------- Guild


def test_guild_moves_own_marker_forward_and_the_only_qualifying_opponent_back() -> None:
    s = act(load("guild_3p", scores=[10, 20, 1]), *EBONY_SET, "token:guild-lotus")
    assert s.scores == [13, 20, 1]  # next lotus after 10 is 13
    assert legal(s) == ["player:1"]  # seat 2 at 1 has no earlier lotus (the first is 4)
    act(s, "player:1")
    assert s.scores == [13, 16, 1]
    assert s.current_player == 1 and view(s)["pending"] is None
    assert view(s)["used_tokens"].count("guild-lotus") == 1
    assert sorted(view(s)["tokens"]) == ["flood", "guild-ankh", "guild-eye"]


def test_guild_spaces_are_strictly_after_and_strictly_before() -> None:
    s = act(load("guild_3p", scores=[8, 12, 0]), *EBONY_SET, "token:guild-ankh")
    assert s.scores[0] == 12  # standing on ankh 8: next ankh 12
    assert legal(s) == ["player:1"]
    act(s, "player:1")
    assert s.scores == [12, 8, 0]  # standing on ankh 12: back to ankh 8


def test_guild_lets_the_player_choose_among_qualifying_opponents() -> None:
    s = act(load("guild_3p", scores=[10, 20, 30]), *EBONY_SET, "token:guild-eye")
    assert legal(s) == ["player:1", "player:2"]
    act(s, "player:2")
    assert s.scores == [14, 20, 26]


def test_guild_player_offsets_count_from_the_acting_seat() -> None:
    sp = {"num_players": 3, "current_player": 2, "scores": [20, 10, 10],
          "players": [{}, {}, {"hand": EBONY_HAND}], "nile": ["fish-plain"], "tokens": ["guild-eye"]}
    s = act(build(sp), *EBONY_SET, "token:guild-eye")
    assert legal(s) == ["player:1", "player:2"]
    act(s, "player:2")  # offset 2 from seat 2 is seat 1
    assert s.scores == [20, 6, 14]
    assert s.current_player == 0


def test_guild_with_no_qualifying_opponent_moves_only_the_own_marker() -> None:
    s = act(load("guild_3p", scores=[0, 1, 0]), *EBONY_SET, "token:guild-ankh")
    assert s.scores == [1, 1, 0]
    assert s.current_player == 1 and view(s)["pending"] is None


# ---------------------------------------------------------------------- Flood


def test_flood_gives_another_turn_and_chains_with_the_second_flood() -> None:
    s = build({"players": [{"hand": [*EBONY_HAND, "marble-plain", "marble-plain", "marble-plain"]}],
               "nile": ["fish-plain", "wheat-plain"], "tokens": ["flood", "flood"]})
    act(s, *EBONY_SET, "token:flood")
    assert s.current_player == 0 and view(s)["pending"] is None
    act(s, "set:marble", "card:marble-plain", "card:marble-plain", "card:marble-plain", "done")
    assert legal(s) == ["token:flood"]
    act(s, "token:flood")
    assert s.current_player == 0 and view(s)["pending"] is None
    act(s, "take:0")
    assert s.current_player == 1
    assert view(s)["used_tokens"].count("flood") == 2


# ---------------------------------------------------------------------- Curse


def test_curse_goes_to_the_chosen_opponent() -> None:
    s = act(load("guild_3p", tokens=["curse"]), *EBONY_SET, "token:curse")
    assert legal(s) == ["player:1", "player:2"]
    act(s, "player:2")
    doc = view(s)
    assert [p["curses"] for p in doc["players"]] == [0, 0, 1]
    assert doc["tokens"] == [] and "curse" not in doc["used_tokens"]
    assert s.current_player == 1


# ---------------------------------------------------------------------- Prosperity


def _prosperity_state(tokens: list[str]) -> dict:
    return {"players": [{"hand": ["wheat-plain"] * 3 + ["marble-plain"] * 3,
                         "sets": [{"goods": "fish", "cards": ["fish-plain"] * 3},
                                  {"goods": "ivory", "cards": ["ivory-plain", "ivory-plain", "ivory-start"]}]}],
            "nile": ["cattle-plain", "cattle-scarab", "amulet"], "tokens": tokens}


def test_prosperity_goes_on_an_own_wheat_fish_or_cattle_set_and_both_may_share_one() -> None:
    s = build(_prosperity_state(["prosperity", "prosperity"]))
    act(s, "set:wheat", "card:wheat-plain", "card:wheat-plain", "card:wheat-plain", "done", "token:prosperity")
    assert legal(s) == ["goods:fish", "goods:wheat"]  # not ivory
    act(s, "goods:fish")
    assert table_set(s, 0, "fish")["prosperity"] == 1
    assert s.current_player == 1
    act(s, "take:0")
    act(s, "set:marble", "card:marble-plain", "card:marble-plain", "card:marble-plain", "done", "token:prosperity")
    assert legal(s) == ["goods:fish", "goods:wheat"]
    act(s, "goods:fish")
    assert table_set(s, 0, "fish")["prosperity"] == 2
    assert table_set(s, 0, "wheat")["prosperity"] == 0
    assert view(s)["tokens"] == [] and "prosperity" not in view(s)["used_tokens"]


def test_prosperity_without_a_wheat_fish_or_cattle_set_is_just_discarded() -> None:
    s = build({"players": [{"hand": ["marble-plain"] * 3,
                            "sets": [{"goods": "ivory", "cards": ["ivory-plain", "ivory-plain", "ivory-start"]}]}],
               "nile": ["cattle-plain"], "tokens": ["prosperity", "deceit"],
               "used_tokens": ["curse", "curse", "flood"]})
    act(s, "set:marble", "card:marble-plain", "card:marble-plain", "card:marble-plain", "done", "token:prosperity")
    doc = view(s)
    assert s.current_player == 1 and doc["pending"] is None
    assert doc["tokens"] == ["deceit"]
    assert doc["used_tokens"].count("prosperity") == 1
    assert all(t["prosperity"] == 0 for t in doc["players"][0]["sets"])


# ---------------------------------------------------------------------- Embalming, Deceit


def test_embalming_moves_the_corruption_pile_into_the_hand() -> None:
    s = build({"players": [{"hand": [*EBONY_HAND, "wheat-start"], "corruption": ["fish-plain", "amulet", "queen"]}],
               "nile": ["cattle-plain"], "tokens": ["embalming"]})
    act(s, *EBONY_SET, "token:embalming")
    doc = view(s)
    assert sorted(doc["players"][0]["hand"]) == ["amulet", "fish-plain", "queen", "wheat-start"]
    assert doc["players"][0]["corruption"] == []
    assert s.current_player == 1


@pytest.mark.parametrize("curses", [0, 1])
def test_deceit_scores_the_cards_of_the_pile_not_the_curses(curses: int) -> None:
    s = build({"scores": [5, 0],
               "players": [{"hand": EBONY_HAND, "corruption": ["fish-plain", "amulet", "queen", "wheat-scarab"],
                            "curses": curses}],
               "nile": ["cattle-plain"], "tokens": ["deceit"]})
    act(s, *EBONY_SET, "token:deceit")
    assert s.scores == [9, 0]
    assert len(view(s)["players"][0]["corruption"]) == 4
