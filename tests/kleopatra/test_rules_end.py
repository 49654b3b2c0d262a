"""Rule tests for the hand limit (rules §9), the ceremony (rules §10) and the end of the game (rules §11)."""

from __future__ import annotations

import pytest

from sobek_env.kleopatra import GAME

from .scenario import act, build, doc, legal, observe

pytestmark = pytest.mark.usefixtures("scenario_engine")  # each rule test on both engines

# ---------------------------------------------------------------------- hand limit (rules §9)


def _over_limit(extra: int, **spec) -> object:
    hand = ["artisan"] * (10 + extra)
    return build({"players": [{"hand": hand, "merchants": 0}], "stalls": [[{"kind": "stone", "up": False}], [], []],
                  "rest": "hand:1", **spec})


def test_hand_limit_keep_costs_one_amulet_per_extra_card() -> None:
    s = act(_over_limit(2), "market:0", "end_turn")
    assert legal(s) == ["limit:keep", "limit:discard"]
    act(s, "limit:keep")
    assert doc(s)["players"][0]["amulets"] == 3 and s.active_player == 1  # 13 cards: 3 above 10


def test_hand_limit_discard_down_to_ten_for_one_amulet() -> None:
    s = act(_over_limit(2), "market:0", "end_turn", "limit:discard")
    assert doc(s)["players"][0]["amulets"] == 1
    assert legal(s) == ["card:artisan", "card:stone"]
    act(s, "card:stone", "card:artisan")
    assert s.active_player == 0 and doc(s)["pending"]["phase"] == "limit_discard"
    act(s, "card:artisan")
    d = doc(s)
    assert len(d["players"][0]["hand"]) == 10 and s.active_player == 1 and d["pending"] is None
    assert sorted(d["memory"]["seats"][0]["discard"]) == ["artisan", "artisan", "stone"]
    assert d["memory"]["public"]["discard"] == []  # face down


def test_hand_limit_applies_whatever_the_main_action_and_not_at_ten() -> None:
    s = act(_over_limit(-1), "market:0", "end_turn")
    assert s.active_player == 1  # exactly 10 cards: no limit
    deck = [{"kind": "stone", "up": False}] * 3
    s = build({"players": [{"hand": ["vizier"] + ["artisan"] * 9}], "deck": deck, "rest": "hand:1"})
    act(s, "character:vizier", "card:stone", "card:stone", "done", "market:0", "stall:0", "end_turn")
    assert legal(s) == ["limit:keep", "limit:discard"]  # rules §9 [decision]: a Vizier can swell a hand too


# ---------------------------------------------------------------------- the ceremony (rules §10)


def _ceremony(offers_by_seat: list[list[str]], talents: list[int], amulets: list[int]) -> dict:
    s = build({"num_players": len(talents), "altar": 4, "rules": {"priest_faces": 0},
               "players": [{"hand": ["scribe"] if p == 0 else [], "talents": t, "amulets": a}
                           for p, (t, a) in enumerate(zip(talents, amulets))]})
    act(s, "character:scribe", "die:add")
    assert doc(s)["pending"]["phase"] == "ceremony" and s.current_player == 0
    for p, bids in enumerate(offers_by_seat):
        assert s.current_player == p
        act(s, *bids, "done")
    return s


def test_ceremony_order_bids_and_the_rulebook_tie_example() -> None:
    """rules §10: two tied for first both give back 3; the next is third (+2), the next fourth (+3)."""
    s = _ceremony([["bid:5"], ["bid:2", "bid:2", "bid:1"], ["bid:1"], []], [10, 7, 3, 0], [2, 5, 0, 1])
    d = doc(s)
    assert [p["talents"] for p in d["players"]] == [5, 2, 2, 0]
    assert [p["amulets"] for p in d["players"]] == [0, 2, 2, 4]
    assert d["last_ceremony"] == {"offers": [5, 5, 1, 0], "places": [1, 1, 3, 4]}
    assert d["altar"] == 0 and d["pending"] is None and s.current_player == 0
    assert [p["ceremonies_won"] for p in d["players"]] == [1, 1, 0, 0]


def test_ceremony_everyone_offering_the_same_are_all_first() -> None:
    s = build({"altar": 4, "players": [{"hand": ["scribe"], "amulets": 1}, {"amulets": 4}, {}]})
    s.log = []
    act(s, "character:scribe", "die:add", "done", "done", "done")
    assert [p["amulets"] for p in doc(s)["players"]] == [0, 1, 0]
    assert "ceremony:all-tied" in s.log


def test_bids_are_bounded_by_talents() -> None:
    s = build({"altar": 4, "players": [{"hand": ["scribe"], "talents": 6}]})
    act(s, "character:scribe", "die:add")
    assert legal(s) == ["done", "bid:1", "bid:2", "bid:5"]
    act(s, "bid:5")
    assert legal(s) == ["done", "bid:1"]
    act(s, "bid:1")
    assert legal(s) == ["done"]


def test_other_seats_do_not_see_a_running_offer() -> None:
    s = build({"altar": 4, "players": [{"hand": ["scribe"], "talents": 30}, {"talents": 9}, {}]})
    act(s, "character:scribe", "die:add")
    modes = ("original", "memory")
    before = [[observe(s, seat, mode) for seat in (1, 2)] for mode in modes]
    act(s, "bid:10", "bid:5")
    after = [[observe(s, seat, mode) for seat in (1, 2)] for mode in modes]
    assert all((a == b).all() for x, y in zip(before, after) for a, b in zip(x, y))
    act(s, "done")
    closed = [observe(s, 2, mode) for mode in modes]
    assert all((c != b[1]).any() for c, b in zip(closed, before))  # the closed flag (and who acts) changed


# ---------------------------------------------------------------------- the end (rules §11)

ALMOST = {"walls": list(range(1, 10)), "sphinxes": 6, "obelisks": 2, "gate": ["left", "right"], "pedestal": True}
THRONE_HAND = ["artisan"] * 3 + ["marble"] * 2 + ["lapis"] * 2


def _final(players: list[dict], margin: int | None = None, sanctuaries: list | None = None) -> object:
    rules = {"priest_faces": 0} | ({"crocodile_margin": margin} if margin is not None else {})
    players = [dict(p) for p in players]
    players[0]["hand"] = THRONE_HAND + players[0].get("hand", [])
    palace = dict(ALMOST)
    if sanctuaries:
        palace |= sanctuaries
    s = build({"num_players": len(players), "rules": rules, "players": players, "palace": palace})
    act(s, "quarry", *[f"card:{k}" for k in THRONE_HAND], "throne", "done")
    assert s.is_over
    return s


def test_corrupt_cards_in_hand_cost_an_amulet_each_and_hands_are_discarded() -> None:
    s = _final([{"hand": ["artisan2", "trompe", "beggar", "stone"]}, {"hand": ["vizier"], "amulets": 2}, {}])
    d = doc(s)
    assert [p["amulets"] for p in d["players"]] == [3, 3, 0]
    assert all(p["hand"] == [] for p in d["players"])
    assert d["eliminated"] == [0, 1]  # rules §11.4 [decision]: tied for most, both eaten
    assert s.winners == [2]


def test_crocodile_stays_hungry_when_everyone_has_the_same() -> None:
    s = _final([{"amulets": 2}, {"amulets": 2}, {"amulets": 2}])
    assert s.eliminated == [] and sorted(s.winners) == [0]  # the builder earned the throne's talents


def test_two_players_use_a_margin_of_three() -> None:
    s = _final([{"amulets": 2}, {"amulets": 0}])
    assert s.eliminated == []
    s = _final([{"amulets": 3}, {"amulets": 0, "talents": 50}])
    assert s.eliminated == [0] and s.winners == [1]


CORNER = {"mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 0},
                      {"tile": "L", "orient": 0, "square": 8, "by": 1}],
          "sanctuaries": [{"squares": [0], "owner": 1}]}


def test_sanctuaries_give_back_amulets_never_below_zero() -> None:
    """rules §6.6, §11.3: a sanctuary removes as many of its owner's amulets as it has squares."""
    s = _final([{}, {"amulets": 3, "statues": 1}, {"amulets": 2}], sanctuaries=CORNER)
    assert [p["amulets"] for p in doc(s)["players"]] == [0, 2, 2] and s.eliminated == [1, 2]
    s = _final([{"amulets": 1}, {"amulets": 0, "statues": 1}, {"amulets": 1}], sanctuaries=CORNER)
    assert [p["amulets"] for p in doc(s)["players"]] == [1, 0, 1] and s.eliminated == [0, 2]


def test_winner_tie_broken_by_fewest_amulets_then_shared() -> None:
    s = _final([{"talents": 0, "merchants": 0}, {"talents": 20, "merchants": 0, "amulets": 1},
                {"talents": 11, "merchants": 3, "amulets": 0}, {"amulets": 5}])
    # seat 0 built the throne: 12 talents, and the crocodile eats seat 3
    assert s.scores[:3] == [12, 20, 20] and s.eliminated == [3]
    assert s.winners == [2]
    s = _final([{"talents": 0, "merchants": 0}, {"talents": 20, "merchants": 0}, {"talents": 11, "merchants": 3},
                {"amulets": 5}])
    assert s.winners == [1, 2]


def test_scores_are_talents_plus_three_per_merchant_at_every_moment() -> None:
    s = build({"players": [{"talents": 7, "merchants": 2}, {}, {"merchants": 0}]})
    assert s.scores == [13, 14, 5]


def test_margins_count_an_eaten_player_as_zero() -> None:
    s = _final([{"talents": 0, "merchants": 0}, {"talents": 20, "amulets": 9, "merchants": 0},
                {"talents": 30, "merchants": 0}])
    assert s.eliminated == [1]
    assert GAME.margins(s) == [12 - 30, -30, 30 - 12]


def test_the_game_ends_after_the_last_turn_and_its_hand_limit() -> None:
    s = build({"rules": {"max_turns": 3}, "turn": 3, "players": [{"hand": ["artisan"] * 11, "merchants": 0}],
               "stalls": [[{"kind": "stone", "up": True}], [], []], "rest": "hand:1"})
    s.log = []
    act(s, "market:0", "end_turn")
    assert not s.is_over and legal(s) == ["limit:keep", "limit:discard"]
    act(s, "limit:keep")
    assert s.is_over and s.turn == 3 and "end:max-turns" in s.log
    assert doc(s)["players"][0]["amulets"] == 2


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_statistics(n: int) -> None:
    s = _final([{}] * n)
    stats = GAME.statistics(s)
    assert len(stats) == n and stats[0]["elements_built"] == 1 and stats[0]["score"] == 5 + 12 + 9
    assert set(stats[0]) == {"score", "talents", "amulets", "eliminated", "sanctuaries", "sanctuary_squares",
                             "ceremonies_won", "merchants", "elements_built"}


@pytest.mark.parametrize(("name", "event"), [("several_eaten", "crocodile:several-eaten"),
                                             ("tie_broken_by_amulets", "end:tie-broken-by-amulets"),
                                             ("shared_victory", "end:shared-victory")])
def test_ends_of_random_games(name: str, event: str) -> None:
    """Positions from random games, one action before the end: the rules of §11.4-11.6 on a full table."""
    from .scenario import load

    s = load(name)
    s.log = []
    act(s, "done")
    assert s.is_over and event in s.log
    amulets, scores = s.amulets, s.scores
    high, low = max(amulets), min(amulets)
    assert s.eliminated == ([p for p in range(s.num_players) if amulets[p] == high]
                            if high - low >= s.rules.crocodile_margin else [])
    alive = [p for p in range(s.num_players) if p not in s.eliminated]
    best = max(scores[p] for p in alive)
    tied = [p for p in alive if scores[p] == best]
    assert s.winners == [p for p in tied if amulets[p] == min(amulets[q] for q in tied)]
    if event == "end:shared-victory":
        assert len(s.winners) > 1
    if event == "end:tie-broken-by-amulets":
        assert len(s.winners) == 1 and len(tied) > 1


def test_envoy_amulet_from_the_supply_in_a_random_game() -> None:
    from .scenario import load

    s = load("envoy_supply")
    giver = doc(s)["pending"]["target"]
    assert s.amulets[giver] == 0
    before = s.amulets[s.active_player]
    act(s, "yes")
    assert s.amulets[giver] == 0 and s.amulets[s.active_player] == before + 1


def test_outlook_applies_the_end_of_game_rules_to_the_state_as_it_stands() -> None:
    """What a search values a cut rollout by: corrupt cards in hand count (rules §11.1), sanctuaries deduct
    (§11.3), the most corrupt is eaten (§11.4); the state itself is not touched."""
    players = [{"talents": 30, "hand": ["artisan2", "trompe", "beggar", "stone"]},
               {"talents": 20, "amulets": 3, "statues": 1}, {"talents": 10, "amulets": 2}]
    s = build({"num_players": 3, "players": players, "palace": ALMOST | CORNER})
    before = doc(s)
    a, b, c = s.scores
    assert GAME.outlook(s) == [0 - b, b - c, c - b]  # 3 amulets from the hand; 3 - 1 for the sanctuary's owner
    assert GAME.margins(s) == [a - b, b - a, c - a] and not s.is_over and doc(s) == before
    players[0]["hand"] = ["artisan2", "stone"]  # 1 amulet against 2 and 2: the other two are eaten
    s = build({"num_players": 3, "players": players, "palace": ALMOST | CORNER})
    assert GAME.outlook(s) == [a, -a, -a]
    finished = _final([{}, {"amulets": 3, "statues": 1}, {"amulets": 2}], sanctuaries=CORNER)
    assert GAME.outlook(finished) == GAME.margins(finished)
