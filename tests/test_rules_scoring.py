"""Rule tests for the end of a round, scoring, corruption and the end of the game (rules §2.6, §5, §6, §8, §9).

Most scenarios are in round 3, so the table stays as it was scored and can be inspected.
"""

from __future__ import annotations

import pytest
from scenario import act, build, legal, load, spec, table_set, view

from sobek_env.scoring import penalised_position

SCARAB3 = ["ivory-scarab"] * 3


def _round_end(p0: dict, scores: list[int] | None = None) -> dict:
    """Player 1 takes the last card (ebony-plain, into his pile); player 0 holds ``p0``."""
    sp = spec("round_end_2p")
    sp["players"] = [p0, {}]
    if scores is not None:
        sp["scores"] = scores
    return sp


def _horizontals(state, player: int) -> list[tuple[str, list[str]]]:
    return [(h["goods"], sorted(h["cards"])) for h in view(state)["players"][player]["horizontal_sets"]]


# ---------------------------------------------------------------------- rules §5: horizontal sets


@pytest.mark.parametrize(("hand", "sets", "pile", "points"), [
    pytest.param(["ivory-scarab", "ivory-scarab", "fish-plain", "fish-plain", "amulet"],
                 [("ivory", ["amulet", "ivory-scarab", "ivory-scarab"])], ["fish-plain", "fish-plain"], 6,
                 id="equal-cards-most-scarabs"),
    pytest.param(["ivory-plain", "ivory-plain", "fish-scarab", "fish-scarab", "amulet"],
                 [("fish", ["amulet", "fish-scarab", "fish-scarab"])], ["ivory-plain", "ivory-plain"], 2,
                 id="scarabs-before-goods-order"),
    pytest.param(["ivory-scarab", "fish-plain", "fish-plain", "wheat-plain", "wheat-plain", "amulet", "amulet"],
                 [("fish", ["amulet", "fish-plain", "fish-plain"]),
                  ("wheat", ["amulet", "wheat-plain", "wheat-plain"])],
                 ["ivory-scarab"], 0, id="most-cards-before-scarabs"),
    pytest.param(["ivory-scarab", "ivory-scarab", "wheat-plain", "wheat-plain", "cattle-plain", "cattle-plain",
                  "amulet", "amulet"],
                 [("ivory", ["amulet", "ivory-scarab", "ivory-scarab"]),
                  ("cattle", ["amulet", "cattle-plain", "cattle-plain"])],
                 ["wheat-plain", "wheat-plain"], 6, id="remaining-tie-to-first-goods"),
    pytest.param(["fish-plain", "fish-plain", "ivory-plain", "ivory-plain", "ivory-start", "amulet", "amulet"],
                 [("ivory", ["amulet", "ivory-plain", "ivory-plain", "ivory-start"]),
                  ("fish", ["amulet", "fish-plain", "fish-plain"])],
                 [], 0, id="spare-amulet-to-first-set"),
    pytest.param(["wheat-scarab"] * 3 + ["marble-scarab"] * 3 + ["amulet"] * 2,
                 [("marble", ["amulet", "amulet", "marble-scarab", "marble-scarab", "marble-scarab"]),
                  ("wheat", ["wheat-scarab"] * 3)],
                 [], 9, id="spare-amulets-to-first-set"),
    pytest.param(["amulet"] * 3, [("ivory", ["amulet"] * 3)], [], 0, id="amulets-only-to-first-goods"),
    pytest.param(["thief", "high-priest", "cattle-plain"], [("cattle", ["cattle-plain", "high-priest", "thief"])],
                 [], 0, id="family-characters"),
    pytest.param(["ivory-plain", "fish-plain", "amulet"], [], ["amulet", "fish-plain", "ivory-plain"], 0,
                 id="no-set"),
    pytest.param(SCARAB3, [("ivory", SCARAB3)], [], 9, id="scarabs-not-multiplied"),
])
def test_horizontal_sets_at_the_round_end(hand: list[str], sets: list, pile: list[str], points: int) -> None:
    s = act(build(_round_end({"hand": hand})), "take:0")
    assert s.is_over
    doc = view(s)
    assert _horizontals(s, 0) == sets
    assert doc["players"][0]["hand"] == []
    assert sorted(doc["players"][0]["corruption"]) == pile
    assert doc["players"][0]["sets"] == []
    assert s.scores == [points, 0]


def test_a_horizontal_set_lies_beside_a_vertical_set_of_the_same_goods() -> None:
    p0 = {"hand": ["fish-scarab"] * 3,
          "sets": [{"goods": "fish", "cards": ["fish-scarab", "fish-scarab", "fish-plain"]}]}
    s = act(build(_round_end(p0)), "take:0")
    assert _horizontals(s, 0) == [("fish", ["fish-scarab"] * 3)]
    assert table_set(s, 0, "fish")["cards"] == ["fish-plain", "fish-scarab", "fish-scarab"]
    assert s.scores == [2 * 3 + 3, 0]


# ---------------------------------------------------------------------- rules §6: vertical sets


def test_vertical_sets_score_scarabs_plus_prosperity_times_cards() -> None:
    p0 = {"sets": [
        {"goods": "wheat", "cards": ["wheat-scarab", "wheat-scarab", "wheat-plain", "amulet"], "prosperity": 1},
        {"goods": "ivory", "cards": [*SCARAB3, "queen"]},
        {"goods": "fish", "cards": ["fish-plain"] * 3},
        {"goods": "cattle", "cards": ["cattle-plain", "cattle-plain", "cattle-start"], "prosperity": 1},
    ]}
    s = act(build(_round_end(p0, scores=[10, 0])), "take:0")
    # wheat (2 + 2) * 4 = 16, ivory 9 * 4 = 36, fish 0, cattle (0 + 2) * 3 = 6
    assert s.scores == [10 + 16 + 36 + 0 + 6, 0]


def test_both_prosperity_tokens_on_one_set() -> None:
    p0 = {"sets": [{"goods": "wheat", "cards": ["wheat-scarab", "wheat-scarab", "wheat-plain", "amulet"],
                    "prosperity": 2}]}
    s = act(build(_round_end(p0)), "take:0")
    assert s.scores == [(2 + 4) * 4, 0]


# ---------------------------------------------------------------------- rules §8: corruption


def test_curses_count_two_corruption_cards_each() -> None:
    sp = spec("corruption_3p")
    sp["players"][0]["corruption"] = ["amulet"] * 3          # 3 + the taken card = 4
    sp["players"][1]["corruption"] = ["fish-plain"] * 2       # 2 + 2 curses x 2 = 6
    sp["players"][1]["curses"] = 2
    sp["players"][2]["corruption"] = ["wheat-scarab"] * 2 + ["wheat-plain"] * 3  # 5
    s = act(build(sp), "take:0")
    # seat 1: 20 + 12 = 32 (ankh), 1 lot -> 28; seat 2: 20 + 18 = 38, not penalised
    assert s.scores == [0, 28, 38]


def test_a_corruption_tie_is_broken_by_scarabs_in_the_pile() -> None:
    s = act(load("corruption_3p"), "take:0")
    # both piles 4 cards; seat 1 has 3 scarabs, seat 2 has 2: only seat 1 loses 32 -> 28
    assert s.scores == [0, 28, 38]


def test_players_still_tied_are_all_penalised() -> None:
    sp = spec("corruption_3p")
    sp["players"][2]["corruption"] = ["marble-scarab", "cattle-scarab", "wheat-plain", "wheat-plain"]  # 3 scarabs
    s = act(build(sp), "take:0")
    # seat 1: 32 (ankh) -> 28; seat 2: 38 (eye) -> 34
    assert s.scores == [0, 28, 34]


def test_nobody_is_penalised_when_the_highest_corruption_is_zero() -> None:
    s = build({"round": 3,
               "players": [{"hand": ["fish-plain", "fish-plain"], "sets": [{"goods": "ivory", "cards": SCARAB3}]},
                           {"sets": [{"goods": "marble", "cards": ["marble-scarab"] * 3}]}],
               "nile": ["fish-scarab"]})
    act(s, "take:0")
    assert [p["corruption"] for p in view(s)["players"]] == [[], []]
    assert s.scores == [27 + 1, 18]


def test_fewer_than_ten_round_points_cost_nothing() -> None:
    p0 = {"corruption": ["fish-plain", "fish-plain"],
          "sets": [{"goods": "ivory", "cards": ["ivory-scarab", "ivory-plain", "ivory-plain"]}]}
    s = act(build(_round_end(p0, scores=[1, 0])), "take:0")
    assert s.scores == [10, 0]  # 9 round points: 0 lots


def test_deceit_points_are_not_round_points() -> None:
    p0 = {"hand": ["ebony-scarab", "ebony-scarab", "ebony-plain"],
          "corruption": ["wheat-plain"] * 3 + ["wheat-scarab"] * 3 + ["cattle-plain"] * 2 + ["amulet"]}
    sp = {**_round_end(p0), "current_player": 0, "nile": ["fish-plain"], "tokens": ["deceit"]}
    s = act(build(sp), "set:ebony", "card:ebony-scarab", "card:ebony-scarab", "card:ebony-plain", "done",
            "token:deceit")
    assert s.scores == [9, 0]
    act(s, "take:0")  # player 1 ends the round
    # 9 + 12 = 21 (ankh); lots = 12 // 10 = 1 -> 19 (2 lots would give 12)
    assert s.scores == [19, 0]


def test_guild_points_are_not_round_points() -> None:
    p0 = {"hand": ["cattle-scarab"] * 4, "corruption": ["wheat-plain"] * 3}
    sp = {**_round_end(p0, scores=[17, 0]), "current_player": 0, "nile": ["fish-plain"], "tokens": ["guild-feather"]}
    s = act(build(sp), "set:cattle", *["card:cattle-scarab"] * 4, "done", "token:guild-feather")
    assert s.scores == [23, 0]
    assert s.current_player == 1  # the opponent at 0 has no earlier feather
    act(s, "take:0")
    # 23 + 16 = 39 (ankh); lots = 16 // 10 = 1 -> 32 (2 lots would give 28)
    assert s.scores == [32, 0]


def test_rulebook_example_38_plus_23_is_61_then_two_lots_give_52() -> None:
    s = act(load("rulebook_61"), "take:0")
    assert _horizontals(s, 0) == [("wheat", ["wheat-scarab"] * 5)]
    assert s.scores == [52, 0]


def test_french_rulebook_example_landing_on_50_with_three_lots_gives_35() -> None:
    s = act(load("rulebook_50"), "take:0")
    assert s.scores == [35, 0]


@pytest.mark.parametrize(("position", "points", "after"), [
    (61, 23, 52),   # ankh 61 -> 59 -> 52
    (50, 35, 35),   # number: 5 spaces each time
    (7, 10, 4),     # lotus 7 -> 4
    (4, 10, 0),     # lotus 4: no earlier lotus, stop at 0
    (1, 20, 0),     # ankh 1: stop at 0
    (10, 30, 0),    # number 10 -> 5 -> 0, then stays
    (38, 9, 38),    # no lot
])
def test_penalty_moves_back_along_the_symbol_the_marker_stands_on(position: int, points: int, after: int) -> None:
    assert penalised_position(position, points) == after


# ---------------------------------------------------------------------- rules §2.6: first player of rounds 2 and 3


def _first_player_state(scores: list[int], seed: int = 0) -> dict:
    return {"num_players": 3, "seed": seed, "scores": scores, "nile": ["ebony-plain"]}


def test_the_lowest_scorer_chooses_the_first_player() -> None:
    s = act(build(_first_player_state([30, 10, 20])), "take:0")
    assert s.round == 2
    assert s.current_player == 1 and s.first_player == 1
    assert view(s)["pending"] == {"phase": "first_player"}
    assert legal(s) == ["player:0", "player:1", "player:2"]
    act(s, "player:2")
    assert s.current_player == 0 and s.first_player == 0
    assert view(s)["pending"] is None
    assert legal(s) == ["take:0", "take:1", "take:2", "take:3"]


def test_the_chooser_may_name_himself() -> None:
    s = act(build(_first_player_state([30, 10, 20])), "take:0", "player:0")
    assert s.current_player == 1 and s.first_player == 1


def test_a_tie_for_lowest_is_drawn_among_the_tied() -> None:
    choosers = set()
    for seed in range(30):
        s = act(build(_first_player_state([10, 10, 30], seed)), "take:0")
        assert view(s)["pending"] == {"phase": "first_player"}
        choosers.add(s.current_player)
    assert choosers == {0, 1}


# ---------------------------------------------------------------------- rules §9: end of the game


def _round_two(score: int) -> dict:
    p0 = {"sets": [{"goods": "ebony", "cards": ["ebony-scarab", "ebony-scarab", "ebony-scarab"]}]}  # 18 points
    return {**_round_end(p0, scores=[score, 0]), "round": 2}


def test_the_game_ends_after_round_two_when_someone_has_more_than_100() -> None:
    s = act(build(_round_two(83)), "take:0")
    assert s.scores == [101, 0]
    assert s.is_over and s.winners == [0] and s.legal_actions() == []


def test_exactly_100_after_round_two_plays_on() -> None:
    s = act(build(_round_two(82)), "take:0")
    assert s.scores == [100, 0]
    assert not s.is_over and s.round == 3 and s.winners == []
    assert s.current_player == 1 and view(s)["pending"] == {"phase": "first_player"}


def test_the_game_ends_after_round_three() -> None:
    s = act(build(_round_end({}, scores=[40, 50])), "take:0")
    assert s.is_over and s.round == 3 and view(s)["over"] is True
    assert s.winners == [1]
    assert s.legal_actions() == []


def test_tied_players_share_the_victory() -> None:
    p0 = {"sets": [{"goods": "marble", "cards": ["marble-scarab", "marble-scarab", "marble-plain"]}]}  # 12
    s = act(build(_round_end(p0, scores=[40, 52])), "take:0")
    assert s.scores == [52, 52]
    assert s.winners == [0, 1]


def test_winners_is_empty_until_the_game_is_over() -> None:
    s = build(_round_end({}, scores=[40, 50]))
    assert s.winners == []
    act(s, "take:0")
    assert s.winners == [1]
