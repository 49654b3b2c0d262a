"""Rule tests for the end of a round, scoring, corruption and the end of the game (rules §2.6, §5, §6, §8, §9).

Most scenarios are in round 3, so the table stays as it was scored and can be inspected.
"""

from __future__ import annotations

import pytest

from sobek_env import GameState
from sobek_env.sobek.scoring import penalised_position

from .scenario import act, build, legal, load, python_state, spec, table_set, view

pytestmark = pytest.mark.usefixtures("engine")  # each test on both engines (conftest.py)

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


ISSUE_HAND = ["ivory-scarab", "fish-plain", "fish-plain", "wheat-plain", "wheat-plain", "amulet", "amulet"]


def test_a_player_who_can_lay_a_horizontal_set_decides_at_the_round_end() -> None:
    s = act(build(_round_end({"hand": ISSUE_HAND})), "take:0")
    assert not s.is_over and s.phase == "horizontal" and s.current_player == 0  # player 1 cannot: skipped
    assert legal(s) == ["set:ivory", "set:fish", "set:wheat", "done"]


def test_laying_ivory_with_two_amulets_scores_what_the_old_automatic_layout_threw_away() -> None:
    """The issue's position: the most cards (fish and wheat with the amulets) score 0; ivory scores 3."""
    s = act(build(_round_end({"hand": ISSUE_HAND})), "take:0")
    act(s, "set:ivory")
    assert legal(s) == ["card:ivory-scarab", "card:amulet"]
    act(s, "card:ivory-scarab", "card:amulet")
    assert "done" not in legal(s)  # three cards at least
    act(s, "card:amulet", "done")
    assert s.is_over  # no amulet left: no other set can be formed, so his decision ended by itself
    assert _horizontals(s, 0) == [("ivory", ["amulet", "amulet", "ivory-scarab"])]
    assert sorted(view(s)["players"][0]["corruption"]) == ["fish-plain", "fish-plain", "wheat-plain", "wheat-plain"]
    assert s.scores == [3, 0]


def test_the_most_cards_can_still_be_laid() -> None:
    s = act(build(_round_end({"hand": ISSUE_HAND})), "take:0")
    act(s, "set:fish", "card:fish-plain", "card:fish-plain", "card:amulet", "done")
    assert s.current_player == 0 and legal(s) == ["set:wheat", "done"]
    act(s, "set:wheat", "card:wheat-plain", "card:wheat-plain", "card:amulet", "done")
    assert _horizontals(s, 0) == [("fish", ["amulet", "fish-plain", "fish-plain"]),
                                  ("wheat", ["amulet", "wheat-plain", "wheat-plain"])]
    assert view(s)["players"][0]["corruption"] == ["ivory-scarab"] and s.scores == [0, 0]


def test_done_lays_no_more() -> None:
    s = act(build(_round_end({"hand": ISSUE_HAND})), "take:0", "done")
    assert s.is_over and _horizontals(s, 0) == []
    assert sorted(view(s)["players"][0]["corruption"]) == sorted(ISSUE_HAND)


def test_a_most_corrupt_player_may_decline_points_that_cost_him_a_lot() -> None:
    """From 3, 18 round points reach 21 (ankh): 1 lot, back to 19. A horizontal set of 2 more makes 20
    round points on 23 (feather): 2 lots, back to 11."""
    p0 = {"hand": ["marble-scarab", "amulet", "amulet"], "corruption": ["wheat-plain"] * 3 + ["fish-plain"] * 2,
          "sets": [{"goods": "ebony", "cards": ["ebony-scarab"] * 3}]}
    declined = act(build(_round_end(p0, scores=[3, 0])), "take:0", "done")
    laid = act(build(_round_end(p0, scores=[3, 0])), "take:0", "set:marble", "card:marble-scarab", "card:amulet",
               "card:amulet", "done")
    assert declined.scores == [19, 0] and laid.scores == [11, 0]
    assert python_state(declined).round_log[-1]["most_corrupt"] == python_state(laid).round_log[-1]["most_corrupt"] \
        == [0]


def test_players_decide_in_turn_from_the_one_who_took_the_last_card() -> None:
    s = build({"num_players": 3, "round": 3, "current_player": 1, "nile": ["ebony-plain"],
               "players": [{"hand": ["cattle-plain"] * 2 + ["cattle-scarab"]}, {"hand": ["fish-plain"] * 3},
                           {"hand": ["wheat-plain", "wheat-plain"]}]})
    act(s, "take:0")
    assert s.phase == "horizontal" and s.current_player == 1
    act(s, "done")
    assert s.phase == "horizontal" and s.current_player == 0  # player 2 cannot form a set: skipped
    assert view(s)["pending"] == {"phase": "horizontal", "queue": []}
    act(s, "set:cattle", "card:cattle-plain", "card:cattle-plain", "card:cattle-scarab", "done")
    assert s.is_over


def test_at_most_one_horizontal_set_per_goods() -> None:
    s = act(build(_round_end({"hand": ["fish-plain"] * 3 + ["fish-scarab"] * 3})), "take:0")
    act(s, "set:fish", "card:fish-plain", "card:fish-plain", "card:fish-plain", "done")
    assert s.is_over  # three fish remain, but fish is laid: his decision ended
    assert _horizontals(s, 0) == [("fish", ["fish-plain"] * 3)]


def test_an_amulets_only_horizontal_set_leaves_its_goods_free() -> None:
    s = act(build(_round_end({"hand": ["amulet"] * 3 + ["fish-scarab"] * 3})), "take:0")
    act(s, "set:fish", "card:amulet", "card:amulet", "card:amulet", "done")
    assert legal(s) == ["set:fish", "done"]  # the amulets-only set took no goods
    act(s, "set:fish", *["card:fish-scarab"] * 3, "done")
    assert _horizontals(s, 0) == [("amulet", ["amulet"] * 3), ("fish", ["fish-scarab"] * 3)]
    assert s.scores == [3, 0]


def test_horizontal_sets_trigger_no_event() -> None:
    sp = {**_round_end({"hand": ["fish-scarab"] * 3}), "tokens": ["flood", "deceit"]}
    s = act(build(sp), "take:0", "set:fish", *["card:fish-scarab"] * 3, "done")
    assert s.is_over and view(s)["tokens"] == ["flood", "deceit"]


def test_a_horizontal_set_lies_beside_a_vertical_set_of_the_same_goods() -> None:
    p0 = {"hand": ["fish-scarab"] * 3,
          "sets": [{"goods": "fish", "cards": ["fish-scarab", "fish-scarab", "fish-plain"]}]}
    s = act(build(_round_end(p0)), "take:0", "set:fish", *["card:fish-scarab"] * 3, "done")
    assert _horizontals(s, 0) == [("fish", ["fish-scarab"] * 3)]
    assert table_set(s, 0, "fish")["cards"] == ["fish-plain", "fish-scarab", "fish-scarab"]
    assert s.scores == [2 * 3 + 3, 0]


@pytest.mark.parametrize("steps", [
    ["take:0"],
    ["take:0", "set:fish"],
    ["take:0", "set:fish", "card:fish-plain"],
    ["take:0", "set:fish", "card:fish-plain", "card:fish-plain", "card:amulet", "done"],
])
def test_a_round_end_decision_round_trips_through_json_and_continues_identically(steps: list[str]) -> None:
    s = act(build(_round_end({"hand": ISSUE_HAND})), *steps)
    copy = GameState.from_json(s.to_json(), engine="python")
    assert copy == s and copy.legal_actions() == s.legal_actions()
    for state in (s, copy):
        while not state.is_over:
            state.apply(state.legal_actions()[0])
    assert copy == s


def test_the_round_summary_is_kept_for_the_next_round() -> None:
    p0 = {"hand": ["fish-scarab"] * 3, "corruption": ["amulet"] * 4, "curses": 1,
          "sets": [{"goods": "ivory", "cards": SCARAB3}]}
    s = act(build({**_round_end(p0), "round": 1}), "take:0", "set:fish", *["card:fish-scarab"] * 3, "done")
    assert s.round == 2
    last = view(s)["round_log"][-1]
    assert last["points"] == [30, 0] and last["corruption"] == [6, 1] and last["curses"] == [1, 0]
    assert last["most_corrupt"] == [0] and last["penalty"] == [15, 0]  # 30 (number), 3 lots: 25, 20, 15
    assert sorted(last["horizontal"][0]) == ["fish-scarab"] * 3 and last["horizontal"][1] == []


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
    act(s, "take:0", "set:fish", "card:fish-plain", "card:fish-plain", "card:fish-scarab", "done")
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
    s = act(load("rulebook_61"), "take:0", "set:wheat", *["card:wheat-scarab"] * 5, "done")
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
