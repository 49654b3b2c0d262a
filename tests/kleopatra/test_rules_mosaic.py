"""Rule tests for mosaics and sanctuaries (rules §1.4, §1.5, §6): which tile, orientations and squares,
sanctuaries and the statues of Anubis, tiles removed from the game."""

from __future__ import annotations

import pytest

from sobek_env.kleopatra.catalogue import make_rules

from .scenario import act, build, doc, legal, load

pytestmark = pytest.mark.usefixtures("scenario_engine")  # each rule test on both engines

QUIET = {"priest_faces": 0}
MOSAIC_HAND = ["artisan", "artisan", "stone", "marble", "lapis"]
PAY = [f"card:{k}" for k in MOSAIC_HAND]
I_TOP = "I", 1, 1  # tile I lying along the front row from square 1


def mosaic_visit(stack: list[str], hand: list[str] = (), palace: dict | None = None, rules: dict | None = None,
                 statues: int = 2, **extra) -> object:
    s = build({"rules": QUIET | (rules or {}), "players": [{"hand": [*MOSAIC_HAND, *hand], "statues": statues}],
               "mosaic_stack": stack, "palace": palace or {}, **extra})
    return act(s, "quarry", *PAY, "mosaic")


def test_the_top_tile_is_built_without_a_scribe() -> None:
    s = mosaic_visit(["X", "I", "F"])
    assert doc(s)["pending"]["phase"] == "mosaic_tile" and legal(s) == ["tile:X"]
    act(s, "tile:X")
    assert legal(s) == ["orient:0"]  # the X looks the same every way round (rules §14.2)
    assert doc(s)["mosaic_stack"][:2] == ["I", "F"] and "X" not in doc(s)["mosaic_stack"]


def test_a_scribe_chooses_any_placeable_tile_for_two_amulets() -> None:
    s = mosaic_visit(["X", "I", "F"], hand=["scribe"])
    assert legal(s) == [f"tile:{t}" for t in "FILNPTUVWXYZ"]
    act(s, "tile:X")  # taking the top tile does not play the Scribe
    assert doc(s)["players"][0]["hand"] == ["scribe"] and doc(s)["players"][0]["amulets"] == 0
    s = mosaic_visit(["X", "I", "F"], hand=["scribe"])
    s.log = []
    act(s, "tile:F")
    d = doc(s)
    assert d["players"][0]["amulets"] == 2 and d["set_aside"] == ["scribe"] and d["mosaic_stack"][:3] == ["X", "I", "L"]
    assert d["memory"]["seats"][0]["saw_stack"] and d["pending"]["scribe"]
    assert s.log == ["character:scribe", "mosaic:scribe-choice"]
    assert legal(s) == ["orient:0", "orient:1", "orient:2", "orient:3"]


def test_orientations_and_squares_of_the_i() -> None:
    s = act(mosaic_visit(["I", "X"]), "tile:I")
    assert legal(s) == ["orient:0", "orient:1"]  # two distinct rotations; flips only with the option
    act(s, "orient:0")
    assert legal(s) == [f"square:{i}" for i in range(32)]  # upright: the anchor is its front cell, rows 0-3
    s = act(mosaic_visit(["L", "X"], rules={"mosaic_reflections": True}), "tile:L")
    assert legal(s) == [f"orient:{r}" for r in range(8)]


def test_placement_avoids_covered_squares() -> None:
    palace = {"mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 1}]}
    s = act(mosaic_visit(["L", "X"], palace=palace), "tile:L", "orient:0")
    squares = [int(a.split(":")[1]) for a in legal(s)]
    geo = make_rules(3).geometry
    assert all(not geo.placement_mask(2, 0, sq) & geo.placement_mask(1, 1, 1) for sq in squares)
    assert 0 not in squares and 8 in squares


def test_a_closed_area_no_tile_fits_becomes_a_sanctuary_and_takes_a_statue() -> None:
    s = act(mosaic_visit(["L", "X"], palace={"mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 1}]}),
            "tile:L", "orient:0")
    s.log = []
    act(s, "square:8")  # covers 8, 9, 16, 24, 32: square 0 is closed in
    d = doc(s)
    assert d["palace"]["sanctuaries"] == [{"squares": [0], "owner": None}]
    assert d["pending"]["phase"] == "anubis" and legal(s) == ["yes", "no"]
    act(s, "yes")
    d = doc(s)
    assert d["palace"]["sanctuaries"] == [{"squares": [0], "owner": 0}] and d["players"][0]["statues"] == 1
    assert d["pending"]["phase"] == "quarry" and s.log == ["sanctuary:formed", "sanctuary:claimed"]
    act(s, "done")
    assert doc(s)["players"][0]["talents"] == 5 + 4 + 1  # L covers the palm on square 8


def test_without_statues_no_question_and_the_sanctuary_stays_unclaimed() -> None:
    palace = {"mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 1}]}
    s = act(mosaic_visit(["L", "X"], palace=palace, statues=0), "tile:L", "orient:0", "square:8")
    d = doc(s)
    assert d["pending"]["phase"] == "quarry" and d["palace"]["sanctuaries"] == [{"squares": [0], "owner": None}]


def test_a_sanctuary_larger_than_the_bound_stays_free_garden() -> None:
    palace = {"mosaics": [{"tile": "I", "orient": 1, "square": 2, "by": 1}]}
    s = act(mosaic_visit(["L", "X"], palace=palace, rules={"sanctuary_max_squares": 1}), "tile:L", "orient:0",
            "square:8")
    assert doc(s)["palace"]["sanctuaries"] == []  # squares 0 and 1: two squares, more than 1
    s = act(mosaic_visit(["L", "X"], palace=palace), "tile:L", "orient:0", "square:8", "no")
    assert doc(s)["palace"]["sanctuaries"] == [{"squares": [0, 1], "owner": None}]


def test_an_area_a_stack_tile_fits_is_no_sanctuary_until_that_tile_is_gone() -> None:
    """rules §6.4: "...or because the pieces that would fit have already been played" -- and the area may
    lie far from the new tile. Here the X is a single square (rules option ``tiles``)."""
    rules = {"tiles": {"X": [[0, 0]]}}
    palace = {"mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 1}]}
    s = act(mosaic_visit(["L", "X", "F"], palace=palace, rules=rules), "tile:L", "orient:0", "square:8")
    assert doc(s)["palace"]["sanctuaries"] == [] and doc(s)["pending"]["phase"] == "quarry"
    s = build({**spec_of(s), "players": [{"hand": MOSAIC_HAND}]})
    act(s, "quarry", *PAY, "mosaic", "tile:X", "orient:0")
    s.log = []
    act(s, "square:63")
    assert doc(s)["palace"]["sanctuaries"] == [{"squares": [0], "owner": None}]
    assert s.log[0] == "sanctuary:formed-far"


def spec_of(s: object) -> dict:
    """A finished visit's table as a fresh scenario: the palace and stack, nothing pending."""
    d = doc(s)
    return {"rules": d["rules"] | QUIET, "palace": d["palace"], "mosaic_stack": d["mosaic_stack"]}


def test_a_top_tile_that_fits_nowhere_is_removed_and_the_next_checked() -> None:
    """rules §6.5 (position from a random game)."""
    s = load("tile_removal")
    stack, removed = doc(s)["mosaic_stack"], doc(s)["removed_tiles"]
    s.log = []
    act(s, "square:18")
    d = doc(s)
    gone = len(removed) - len(d["removed_tiles"])
    assert s.log.count("tile:removed") == -gone > 0
    assert d["removed_tiles"][len(removed):] == stack[:-gone]  # from the top, in order
    geo = s.rules.geometry
    blocked = s.covered | s.sanctuary_union
    assert all(not geo.tile_placeable(t, blocked) for t in s.removed)
    assert geo.tile_placeable(s.stack[0], blocked)


def test_removing_the_last_tiles_completes_the_mosaics() -> None:
    s = load("mosaic_complete_by_removal")
    before = s.cleopatra
    act(s, "square:4")
    assert s.stack == [] and "mosaic" not in legal(s) and s.complete()[-1]
    assert s.cleopatra == before == 4  # counted at the end of the visit
    act(s, "done")
    assert s.cleopatra == 5 and s.is_over


def test_several_new_sanctuaries_are_offered_in_order_of_their_lowest_square() -> None:
    s = load("several_sanctuaries")
    first = len(s.sanctuaries)
    act(s, "square:38")
    queue = doc(s)["pending"]["sanctuaries"]
    new = doc(s)["palace"]["sanctuaries"][first:]
    assert len(new) >= 2 and queue == list(range(first, first + len(new)))
    assert [min(x["squares"]) for x in new] == sorted(min(x["squares"]) for x in new)
    p = s.active_player
    statues = s.statues[p]
    act(s, "yes")
    assert doc(s)["palace"]["sanctuaries"][first]["owner"] == p and s.statues[p] == statues - 1
    act(s, "no")
    assert doc(s)["pending"]["phase"] == "quarry"
    assert [x["owner"] for x in doc(s)["palace"]["sanctuaries"][first:]] == [p, None]


def test_an_area_far_from_the_new_tile_can_become_a_sanctuary() -> None:
    s = load("far_sanctuary")
    s.log = []
    act(s, "square:24")
    assert "sanctuary:formed-far" in s.log
