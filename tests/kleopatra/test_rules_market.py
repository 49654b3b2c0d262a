"""Rule tests for setup and the market visit (rules §2, §4): taking a stall, the refill, the empty deck."""

from __future__ import annotations

import pytest

from sobek_env.kleopatra import GameState
from sobek_env.kleopatra.catalogue import DEFAULT_CARD_COUNTS, NUM_TILES

from .scenario import act, build, doc, down, legal, python, up

pytestmark = pytest.mark.usefixtures("scenario_engine")  # each rule test on both engines


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup(n: int) -> None:
    """rules §2: 3 cards each, 3 stalls of one card, half the rest face up, 5 talents, 3 merchants, 2 statues."""
    s = GameState.new(n, seed=11, engine="python")
    d = doc(s)
    assert [len(p["hand"]) for p in d["players"]] == [3] * n
    assert [len(st) for st in d["stalls"]] == [1, 1, 1]
    rest = 109 - 3 * n
    assert len(d["deck"]) == rest - 3
    face_up = sum(c["up"] for c in d["deck"]) + sum(c["up"] for st in d["stalls"] for c in st)
    assert face_up == rest // 2  # rules §2.3 [decision]: the face-down part has the odd card
    assert all(p["talents"] == 5 and p["amulets"] == 0 and p["merchants"] == 3 and p["statues"] == 2
               for p in d["players"])
    assert sorted(d["mosaic_stack"]) == sorted("FILNPTUVWXYZ") and len(d["mosaic_stack"]) == NUM_TILES
    assert d["cleopatra"] == 0 and d["altar"] == 0 and d["turn"] == 1 and d["pending"] is None
    assert d["active_player"] == d["current_player"]


def test_setup_is_random_but_seeded() -> None:
    firsts = {GameState.new(4, seed=k, engine="python").active_player for k in range(40)}
    assert firsts == {0, 1, 2, 3}  # rules §2.8 [decision]: a random first player
    assert GameState.new(3, seed=5, engine="python") == GameState.new(3, seed=5, engine="python")
    assert GameState.new(3, seed=5, engine="python") != GameState.new(3, seed=6, engine="python")
    s = GameState.new(3, engine="python")
    assert isinstance(s.seed, int) and GameState.new(3, seed=s.seed, engine="python") == s


def test_taking_a_stall_takes_every_card_face_up_and_down() -> None:
    s = build({"players": [{"merchants": 0}], "stalls": [[up("stone"), down("beggar"), up("wood")], [up("lapis")], []],
               "deck": [up("marble"), down("artisan"), up("stone2"), down("vizier")]})
    assert legal(s) == ["market:0", "market:1"]  # rules §4.1: a stall holding cards
    act(s, "market:0")
    assert sorted(doc(s)["players"][0]["hand"]) == ["beggar", "stone", "wood"]
    assert doc(s)["stalls"][0] == []
    # the top three are drawn, keeping their orientation; the first goes where he says
    assert doc(s)["pending"] == {"phase": "refill", "drawn": [up("marble"), down("artisan"), up("stone2")],
                                 "filled": []}
    assert legal(s) == ["stall:0", "stall:1", "stall:2"]
    act(s, "stall:1")
    assert legal(s) == ["stall:0", "stall:2"]
    act(s, "stall:2")  # the last card goes to the last stall by itself
    d = doc(s)
    assert d["stalls"] == [[up("stone2")], [up("lapis"), up("marble")], [down("artisan")]]
    assert d["deck"][0] == down("vizier") and d["pending"] == {"phase": "after"}
    assert legal(s) == ["character:beggar", "end_turn"]  # characters may be played after the main action


def test_refill_with_fewer_than_three_cards_still_chooses_each_stall() -> None:
    s = build({"stalls": [[up("stone")], [], []], "deck": [up("marble")], "rest": "hand:1"})
    act(s, "market:0")
    assert legal(s) == ["stall:0", "stall:1", "stall:2"]
    act(s, "stall:2")
    assert doc(s)["stalls"] == [[], [], [up("marble")]] and doc(s)["pending"] == {"phase": "after"}
    s = build({"stalls": [[up("stone")], [], []], "deck": [up("marble"), down("lapis")]})
    act(s, "market:0", "stall:1")
    assert legal(s) == ["stall:0", "stall:2"]  # two stalls left: still his choice


def test_empty_deck_reshuffles_the_discard_when_a_draw_needs_it() -> None:
    s = build({"stalls": [[up("stone")], [], []], "deck": [up("marble")], "seed": 3})
    discard_before = len(doc(s)["discard"])
    s.log = []
    act(s, "market:0")
    assert s.log.count("reshuffle") == 1
    d = doc(s)
    assert d["discard"] == [] and len(d["deck"]) == discard_before - 2
    drawn = d["pending"]["drawn"]
    assert drawn[0] == up("marble")  # the old deck's card came first
    deck = [*drawn[1:], *d["deck"]]
    assert sum(c["up"] for c in deck) == discard_before // 2  # rules §4.1: made as in setup


def test_no_card_anywhere_means_no_refill() -> None:
    spec = {"stalls": [[up(k) for k in DEFAULT_CARD_COUNTS for _ in range(DEFAULT_CARD_COUNTS[k])], [], []]}
    s = build(spec)
    act(s, "market:0")
    assert doc(s)["pending"] == {"phase": "after"} and len(doc(s)["players"][0]["hand"]) == 109


def test_all_stalls_empty_any_stall_takes_nothing() -> None:
    s = build({"rules": {"card_counts": {k: 0 for k in DEFAULT_CARD_COUNTS} | {"artisan": 9}},
               "players": [{"hand": ["artisan"] * 3, "merchants": 0}, {"hand": ["artisan"] * 3},
                           {"hand": ["artisan"] * 3}]})
    assert legal(s) == ["market:0", "market:1", "market:2"]
    s.log = []
    act(s, "market:1")
    assert s.log == ["market:empty", "refill:nothing"] and legal(s) == ["end_turn"]


def test_the_face_up_top_of_the_deck_is_public() -> None:
    from sobek_env.kleopatra.view import FACE_DOWN, view

    s = build({"deck": [up("lapis"), down("stone")]})
    assert view(python(s), 1).deck_top == 4  # lapis
    s = build({"deck": [down("lapis"), up("stone")]})
    assert view(python(s), 1).deck_top == FACE_DOWN

