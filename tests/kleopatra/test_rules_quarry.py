"""Rule tests for the quarry visit (rules §1.3, §5, §7): paying, covering a cost, building, valuing,
the visit's bonus, Cleopatra and the dice, including the rulebook's worked examples."""

from __future__ import annotations

import pytest

from sobek_env.kleopatra import IllegalActionError, action_id

from .scenario import act, build, doc, legal

pytestmark = pytest.mark.usefixtures("scenario_engine")  # each rule test on both engines

QUIET = {"priest_faces": 0}  # no die ever shows the priest: no ceremony gets in the way
WALL_HAND = ["artisan", "stone", "wood"]
MOSAIC_HAND = ["artisan", "artisan", "stone", "marble", "lapis"]
GATE_HAND = ["artisan", "artisan", "wood", "marble", "lapis"]


def quarry(hand: list[str], merchants: int = 0, **extra) -> object:
    return build({"rules": QUIET, "players": [{"hand": hand, "merchants": merchants}], **extra})


def test_a_visit_is_legal_only_if_some_element_is_affordable() -> None:
    assert "quarry" in legal(quarry(WALL_HAND))
    assert "quarry" not in legal(quarry(["artisan", "stone"]))
    assert "quarry" in legal(quarry(["artisan", "stone"], merchants=1))  # a merchant is any resource
    # a Trompe-l'oeil stands for a material, never an artisan (rules §1.1 [decision])
    assert "quarry" in legal(quarry(["artisan", "stone", "trompe"]))
    assert "quarry" not in legal(quarry(["stone", "wood", "trompe"]))


def test_paying_moves_cards_to_the_payment_row_and_units_to_the_pool() -> None:
    s = act(quarry(["artisan2", "stone", "trompe", "wood"]), "quarry", "card:artisan2", "card:trompe")
    pending = doc(s)["pending"]
    assert pending["pool"] == {"artisan": 2, "trompe": 1}
    assert pending["paid"] == ["artisan2", "trompe"]
    assert doc(s)["players"][0]["amulets"] == 2  # rules §5.1: each tainted card costs its amulet when paid
    assert doc(s)["players"][0]["hand"] == ["stone", "wood"]


def test_done_is_legal_only_after_a_build_and_surplus_is_lost() -> None:
    s = act(quarry(["artisan2", "stone2", "wood2", "marble"]), "quarry", "card:artisan2", "card:stone2", "card:wood2")
    assert "done" not in legal(s)
    act(s, "wall:1")
    assert "done" in legal(s)
    assert doc(s)["pending"]["pool"] == {"artisan": 1, "stone": 1, "wood": 1}
    act(s, "done")
    d = doc(s)
    assert d["pending"] == {"phase": "after"}
    assert sorted(d["discard"]).count("wood2") == 3  # the payment row went to the discard
    assert d["players"][0]["talents"] == 5 + 3


@pytest.mark.parametrize(("paid", "can_build"), [
    (["artisan", "stone", "wood"], True),
    (["artisan", "stone", "trompe"], True),        # trompe for the wood
    (["artisan", "trompe", "trompe"], True),       # trompes for stone and wood
    (["trompe", "stone", "wood"], False),          # a trompe is no artisan
    (["artisan", "stone"], False),
])
def test_covering_a_wall(paid: list[str], can_build: bool) -> None:
    s = act(quarry(["artisan", "stone", "wood", "trompe", "trompe", "marble"]), "quarry",
            *[f"card:{k}" for k in paid])
    assert ("wall:1" in legal(s)) is can_build


def test_a_merchant_covers_any_missing_unit_and_leaves_the_game() -> None:
    s = act(quarry(["stone", "wood"], merchants=2), "quarry", "card:stone", "card:wood")
    assert "wall:1" not in legal(s)
    act(s, "merchant")
    assert doc(s)["players"][0]["merchants"] == 1
    act(s, "wall:5", "done")
    assert doc(s)["players"][0]["merchants"] == 1 and doc(s)["palace"]["walls"] == [5]


def test_least_flexible_units_are_used_first() -> None:
    """rules §5: the wall takes the real stone, leaving the trompe for the sphinx's marble."""
    s = act(quarry(["artisan2", "stone", "wood", "trompe"]), "quarry", "card:artisan2", "card:stone", "card:wood",
            "card:trompe", "wall:1")
    assert doc(s)["pending"]["pool"] == {"artisan": 1, "trompe": 1}
    s = act(quarry(["artisan2", "stone2", "wood", "trompe"]), "quarry", "card:artisan2", "card:stone2", "card:wood",
            "card:trompe", "wall:1")
    assert "sphinx" in legal(s)  # artisan + stone + the trompe as marble


def test_one_doubled_card_pays_two_elements() -> None:
    """rules §5 (the rulebook's example): a doubled wood pays the wood of a wall and of a gate part."""
    hand = ["artisan", "artisan", "artisan", "stone", "wood2", "marble", "lapis"]
    s = act(quarry(hand), "quarry", *[f"card:{k}" for k in hand], "wall:1", "gate:left", "done")
    assert doc(s)["palace"]["walls"] == [1] and doc(s)["palace"]["gate"] == ["left"]


def test_wall_example_3_plus_2() -> None:
    """rules §1.3: a wall beside two mosaic squares earns 3 + 2 = 5."""
    s = quarry(WALL_HAND, palace={"mosaics": [{"tile": "I", "orient": 0, "square": 16, "by": 1}]})
    act(s, "quarry", "card:artisan", "card:stone", "card:wood", "wall:2", "done")
    assert doc(s)["players"][0]["talents"] == 5 + 5


def test_gate_example_4_plus_4() -> None:
    """rules §1.3-1.4: a gate part joined to four walls earns 4 + 4 = 8; the run may turn the corner."""
    s = quarry(GATE_HAND, palace={"walls": [1, 2, 3, 4, 6]})
    act(s, "quarry", *[f"card:{k}" for k in GATE_HAND], "gate:left", "done")
    assert doc(s)["players"][0]["talents"] == 5 + 8
    s = quarry(GATE_HAND, palace={"walls": [1, 2, 3, 4, 6]})
    act(s, "quarry", *[f"card:{k}" for k in GATE_HAND], "gate:right", "done")
    assert doc(s)["players"][0]["talents"] == 5 + 4  # W9 is not built: the right part's run is empty


def test_mosaic_example_4_plus_3() -> None:
    """rules §6.3: a mosaic covering three palms earns 4 + 3 = 7."""
    s = quarry(MOSAIC_HAND, mosaic_stack=["V", "F", "I", "L", "N", "P", "T", "U", "W", "X", "Y", "Z"])
    act(s, "quarry", *[f"card:{k}" for k in MOSAIC_HAND], "mosaic", "tile:V", "orient:0", "square:42")
    act(s, "done")
    assert doc(s)["players"][0]["talents"] == 5 + 7
    assert doc(s)["palace"]["mosaics"] == [{"tile": "V", "orient": 0, "square": 42, "by": 0}]


def test_elements_are_valued_on_the_palace_at_the_end_of_the_visit() -> None:
    """rules §5.3 [decision]: a wall built before the mosaic beside it still counts the mosaic's squares;
    two builds earn the +2 bonus."""
    hand = [*WALL_HAND, *MOSAIC_HAND]
    s = quarry(hand, mosaic_stack=["I", "F", "L", "N", "P", "T", "U", "V", "W", "X", "Y", "Z"])
    act(s, "quarry", *[f"card:{k}" for k in hand], "wall:2", "mosaic", "tile:I", "orient:0", "square:16", "done")
    # the wall: 3 + 2 covered squares beside W2; the mosaic: 4 + 1 palm (square 48); two builds: + 2
    assert doc(s)["players"][0]["talents"] == 5 + (3 + 2) + (4 + 1) + 2


def test_three_builds_earn_five_and_sphinxes_alternate_two_and_five() -> None:
    hand = ["artisan"] * 3 + ["stone"] * 3 + ["marble"] * 3
    s = quarry(hand, palace={"sphinxes": 1})
    act(s, "quarry", *[f"card:{k}" for k in hand], "sphinx", "sphinx", "sphinx", "done")
    assert doc(s)["palace"]["sphinxes"] == 4
    assert doc(s)["players"][0]["talents"] == 5 + (5 + 2 + 5) + 5


def test_obelisks_pedestal_then_throne() -> None:
    hand = ["artisan"] * 6 + ["marble"] * 4 + ["lapis"] * 4
    s = act(quarry(hand), "quarry", *[f"card:{k}" for k in hand])
    assert "pedestal" in legal(s) and "throne" not in legal(s)
    act(s, "pedestal")
    assert "throne" in legal(s) and "pedestal" not in legal(s)
    act(s, "throne", "done")
    assert doc(s)["players"][0]["talents"] == 5 + 12 + 12 + 2
    hand = ["artisan"] * 3 + ["wood"] * 2 + ["stone"] * 2
    s = act(quarry(hand), "quarry", *[f"card:{k}" for k in hand], "obelisk", "done")
    assert doc(s)["players"][0]["talents"] == 5 + 12 and doc(s)["palace"]["obelisks"] == 1


def test_cleopatra_advances_per_category_completed_in_the_visit() -> None:
    hand = [*WALL_HAND, "artisan", "stone", "marble"]
    s = quarry(hand, palace={"walls": [1, 2, 3, 4, 5, 6, 7, 8], "sphinxes": 5})
    assert s.cleopatra == 0
    act(s, "quarry", *[f"card:{k}" for k in hand], "wall:9")
    assert s.cleopatra == 0  # counted at the end of the visit (rules §5.4)
    act(s, "sphinx", "done")
    assert s.cleopatra == 2 and not s.is_over


def test_the_fifth_category_ends_the_game_without_dice_or_more_turn() -> None:
    palace = {"walls": list(range(1, 10)), "sphinxes": 6, "obelisks": 2, "gate": ["left", "right"],
              "pedestal": True}
    hand = ["artisan"] * 3 + ["marble"] * 2 + ["lapis"] * 2 + ["beggar"]
    s = build({"rules": {"priest_faces": 6}, "players": [{"hand": hand}], "palace": palace})
    assert s.cleopatra == 4
    s.log = []
    act(s, "quarry", *[f"card:{k}" for k in hand if k != "beggar"], "throne", "done")
    assert s.is_over and s.cleopatra == 5 and s.legal_actions() == []
    assert s.altar == 0 and "end:cleopatra" in s.log and "dice:rolled" not in s.log
    assert doc(s)["players"][0]["amulets"] >= 1  # the Beggar left in hand costs its amulet (rules §11.1)


def test_dice_roll_after_a_visit_and_five_on_the_altar_start_the_ceremony() -> None:
    s = build({"rules": {"priest_faces": 6}, "players": [{"hand": WALL_HAND}]})
    act(s, "quarry", "card:artisan", "card:stone", "card:wood", "wall:1", "done")
    assert s.altar == 5 and doc(s)["pending"]["phase"] == "ceremony"
    assert doc(s)["pending"]["resume"] == {"phase": "after"}
    s = build({"rules": QUIET, "players": [{"hand": WALL_HAND}]})
    act(s, "quarry", "card:artisan", "card:stone", "card:wood", "wall:1", "done")
    assert s.altar == 0 and doc(s)["pending"] == {"phase": "after"}


def test_only_elements_still_in_the_quarry_can_be_built() -> None:
    hand = ["artisan"] * 4 + ["stone"] * 4 + ["wood"] * 4 + ["marble"] * 4 + ["lapis"] * 4
    s = act(quarry(hand, palace={"walls": [1, 2, 3, 4, 5, 6, 7, 8], "gate": ["right"], "sphinxes": 6,
                                 "obelisks": 2}),
            "quarry", *[f"card:{k}" for k in hand])
    assert [a for a in legal(s) if a.split(":")[0] in ("wall", "gate", "sphinx", "obelisk")] == ["wall:9", "gate:left"]
    with pytest.raises(IllegalActionError, match="wall:1"):
        s.apply(action_id("wall:1"))


def test_characters_can_be_played_between_payments() -> None:
    s = build({"rules": QUIET, "players": [{"hand": [*WALL_HAND, "scribe"]}]})
    act(s, "quarry", "card:artisan", "character:scribe", "die:add")
    assert doc(s)["pending"]["phase"] == "quarry" and doc(s)["pending"]["paid"] == ["artisan"] and s.altar == 1


def test_paid_cards_wait_in_the_payment_row_out_of_a_courtesans_reach() -> None:
    """rules §5.2 [decision]: a Courtesan played during the visit cannot bring back a card paid in it."""
    s = build({"rules": QUIET, "players": [{"hand": [*WALL_HAND, "courtesan"]}], "discard": ["marble"],
               "rest": "hand:1"})
    act(s, "quarry", "card:artisan", "card:stone", "character:courtesan")
    assert legal(s) == ["card:marble"]
    act(s, "card:marble", "card:wood", "wall:3", "done")
    assert sorted(doc(s)["discard"]) == ["artisan", "stone", "wood"]


def test_exactly_one_main_action_per_turn() -> None:
    s = act(quarry(WALL_HAND), "quarry", "card:artisan", "card:stone", "card:wood", "wall:1", "done")
    assert legal(s) == ["end_turn"]
