"""The data tables, the rules options (rules §13) and the palace geometry (rules §1.4, §1.5)."""

from __future__ import annotations

import pytest

from sobek_env.kleopatra import ACTION_NAMES, NUM_ACTIONS, GameState, action_id
from sobek_env.kleopatra.catalogue import (
    CHARACTERS,
    CORRUPT,
    DEFAULT_CARD_COUNTS,
    KINDS,
    RULES_OPTIONS,
    STANDARD,
    TAINTED,
    make_rules,
)
from sobek_env.kleopatra.palace import bits, gate_run, orient_cells


def test_the_109_cards() -> None:
    """rules §1.1: 75 standard, 23 tainted resources, 11 characters, every non-standard card corrupt."""
    counts = DEFAULT_CARD_COUNTS
    assert sum(counts.values()) == 109
    assert sum(counts[KINDS[k]] for k in STANDARD) == 75
    assert sum(counts[KINDS[k]] for k in TAINTED) == 23
    assert sum(counts[KINDS[k]] for k in CHARACTERS) == 11
    assert [KINDS[k] for k in range(17) if CORRUPT[k]] == list(KINDS[5:])


def test_the_144_action_ids() -> None:
    """rules §14.1 (a contract, INTERFACE.md)."""
    assert NUM_ACTIONS == len(ACTION_NAMES) == 144
    expected = {0: "market:0", 3: "quarry", 4: "character:beggar", 9: "character:vizier", 10: "end_turn",
                11: "stall:0", 14: "merchant", 15: "wall:1", 23: "wall:9", 24: "gate:left", 25: "gate:right",
                26: "sphinx", 27: "obelisk", 28: "pedestal", 29: "throne", 30: "mosaic", 31: "tile:F", 42: "tile:Z",
                43: "orient:0", 50: "orient:7", 51: "square:0", 114: "square:63", 115: "card:artisan",
                125: "card:trompe", 131: "card:vizier", 132: "done", 133: "yes", 134: "no", 135: "talents",
                136: "die:add", 137: "die:remove", 138: "limit:keep", 139: "limit:discard", 140: "bid:1",
                141: "bid:2", 142: "bid:5", 143: "bid:10"}
    for i, name in expected.items():
        assert ACTION_NAMES[i] == name and action_id(name) == i
    with pytest.raises(ValueError, match="unknown Kleopatra action name"):
        action_id("take:0")


@pytest.mark.parametrize(("options", "named"), [
    ({"card_counts": {"gold": 1}}, "card_counts"),
    ({"card_counts": {"stone": -1}}, "card_counts.stone"),
    ({"card_counts": dict.fromkeys(KINDS, 0)}, "card_counts"),
    ({"tainted_amulets": -1}, "tainted_amulets"),
    ({"tainted_amulets": True}, "tainted_amulets"),
    ({"trompe_stands_for": ["gold"]}, "trompe_stands_for"),
    ({"trompe_stands_for": ["stone", "stone"]}, "trompe_stands_for"),
    ({"trompe_stands_for": [["stone"]]}, "trompe_stands_for"),
    ({"priest_faces": 7}, "priest_faces"),
    ({"hand_limit": -1}, "hand_limit"),
    ({"ceremony_table": [1, 2, 3]}, "ceremony_table"),
    ({"crocodile_margin": 0}, "crocodile_margin"),
    ({"mosaic_reflections": 1}, "mosaic_reflections"),
    ({"sanctuary_max_squares": 0}, "sanctuary_max_squares"),
    ({"max_turns": 0}, "max_turns"),
    ({"garden": {"size": 9}}, "garden.size"),
    ({"garden": {"palms": [64]}}, "garden.palms"),
    ({"garden": {"wall_slots": [[0]] * 8}}, "garden.wall_slots"),
    ({"garden": {"colour": "green"}}, "garden"),
    ({"tiles": {"Q": [[0, 0]]}}, "tiles"),
    ({"tiles": {"X": [[0, 0], [2, 0]]}}, "tiles.X"),
    ({"tiles": {"X": [[0, 0], [0, 0]]}}, "tiles.X"),
    ({"garden": {"size": 2, "palms": [], "wall_slots": [[0]] * 9}}, "tiles"),
])
def test_bad_options_are_refused_with_the_option_named(options: dict, named: str) -> None:
    with pytest.raises(ValueError, match=f"rules option '{named}'"):
        make_rules(3, **options)


def test_unknown_options_and_player_counts_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown rules option"):
        GameState.new(3, colour="red", engine="python")
    for n in (1, 6, True, "3"):
        with pytest.raises(ValueError, match="num_players"):
            make_rules(n)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        GameState.new(3, seed=-1, engine="python")


def test_defaults_and_overrides() -> None:
    assert make_rules(2).crocodile_margin == 3 and make_rules(3).crocodile_margin == 1
    assert make_rules(3).overrides() == {} and make_rules(2).overrides() == {}
    options = {"card_counts": {"trompe": 4}, "priest_faces": 2, "ceremony_table": [-2, 1, 1, 2, 2],
               "crocodile_margin": 2, "garden": {"palms": [0, 1]}, "tiles": {"I": [[0, 0], [1, 0]]},
               "trompe_stands_for": ["artisan", "wood"], "max_turns": 50}
    rules = make_rules(3, **options)
    assert make_rules(3, **rules.overrides()) == rules
    assert set(rules.overrides()) == set(options)
    assert set(RULES_OPTIONS) == {"card_counts", "tainted_amulets", "trompe_stands_for", "priest_faces", "hand_limit",
                                  "ceremony_table", "crocodile_margin", "mosaic_reflections",
                                  "sanctuary_max_squares", "max_turns", "garden", "tiles"}


def test_the_garden_and_the_tiles() -> None:
    """rules §1.4-1.5: 1,504 placements on the empty garden, 13 of them on three palms, none on more;
    the distinct rotations of the table; flips only with the option; anchors never on 55 or 60-63."""
    geo = make_rules(3).geometry
    placements = [m for own in geo.placements_of_tile for _, _, m in own]
    assert len(placements) == 1504
    palms = [(m & geo.palms).bit_count() for m in placements]
    assert palms.count(3) == 13 and max(palms) == 3
    assert [sum(o.distinct for o in own) for own in geo.orientations] == [4, 2, 4, 4, 4, 4, 4, 4, 4, 1, 4, 2]
    flips = make_rules(3, mosaic_reflections=True).geometry
    assert [sum(o.distinct for o in own) for own in flips.orientations] == [8, 2, 8, 8, 8, 4, 4, 4, 4, 1, 8, 4]
    anchors = {sq for own in geo.placements_of_tile for _, sq, _ in own}
    assert set(range(64)) - anchors == {55, 60, 61, 62, 63}
    assert bits(geo.palms) == [3, 4, 8, 15, 18, 21, 33, 38, 43, 44, 48, 55, 58, 61]
    assert orient_cells(((0, 0), (0, 1), (0, 2), (0, 3), (0, 4)), 1) == ((0, 0), (1, 0), (2, 0), (3, 0), (4, 0))


@pytest.mark.parametrize(("walls", "left", "right"), [
    ([], 0, 0), ([1, 2, 3, 4], 4, 0), ([1, 2, 3, 4, 5, 6, 7, 8, 9], 9, 9), ([2, 9, 8], 0, 2), ([1, 3], 1, 0),
])
def test_gate_runs(walls: list[int], left: int, right: int) -> None:
    mask = sum(1 << (w - 1) for w in walls)
    assert gate_run(mask, 0) == left and gate_run(mask, 1) == right


def test_free_areas_and_sanctuary_candidates() -> None:
    geo = make_rules(3).geometry
    covered = geo.placement_mask(1, 1, 1) | geo.placement_mask(2, 0, 8)  # I along the front, L up the left
    areas = geo.free_areas(covered)
    assert areas[0] == 1 and sum(a.bit_count() for a in areas) == 64 - 10
    assert geo.new_sanctuaries(covered, [], list(range(12)), 8) == [1]
    assert geo.new_sanctuaries(covered, [1], list(range(12)), 8) == []
