"""The invariant checks refuse a state broken in each of their ways, with the message naming what broke.

Each case breaks one fact of a sound mid-game state (seed 7 after 605 builder steps: sanctuaries with and
without owners, a removed tile, memory of hands and of the discard pile) and expects the exact message, so
a faster check provably still checks the same thing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import pytest

from sobek_env.kleopatra import NUM_ACTIONS, GameState
from sobek_env.kleopatra.catalogue import DICE, KINDS, START_MERCHANTS, START_STATUES, TILE_NAMES
from sobek_env.kleopatra.invariants import InvariantError, check, check_play

from .policies import Player, play
from .scenario import build

ZONE = "a zone (hand, discard, set-aside, memory) has a negative count or a wrong length"
NOT_A_CARD = "a stall or the deck holds something that is not a card"
TILE_COUNT = "mosaic_stack: tile {} appears {} times across mosaic_stack, palace.mosaics, removed_tiles and pending " \
             "(must be 1)"


@cache
def _mid_game() -> GameState:
    s = GameState.new(3, seed=7, engine="python")
    play(s, Player(["builder"], 7), 605)
    return s


def mid_game() -> GameState:
    """A sound 3-player state at the start of player 2's turn (see the module docstring)."""
    s = _mid_game().clone()
    assert s.pending is None and s.active_player == 2 and s.stack == [5, 2, 7, 9] and s.removed == [1]
    assert s.sanctuaries == [[128, None], [259, 1], [8388608, 1]] and s.statues == [2, 0, 2]
    assert s.known[3][2] == s.known[0][2] == [0, 0, 1, 1, 0, 0, 1] + [0] * 10 and s.known_discard[0] == s.discard
    return s


def cards_message(s: GameState, kind: int, held: int) -> str:
    return (f"cards: the zones hold {held} {KINDS[kind]!r} card(s) but the game has {s.rules.card_counts[kind]} "
            f"(hands, stalls, deck, discard, set_aside and pending together must hold the {s.rules.total_cards} "
            f"cards)")


def _two_kinds(s: GameState) -> None:
    s.hands[2][1] -= 1
    s.hands[0][3] += 1


def _sanctuary_cut(s: GameState) -> None:
    s.sanctuaries[1][0] = 3  # squares 0 and 1 of the free area 0, 1, 8
    s.sanctuary_union ^= 256


def _sanctuary_lost(s: GameState) -> None:
    mask, _ = s.sanctuaries.pop(0)
    s.sanctuary_union ^= mask


BROKEN: dict[str, tuple[Callable[[GameState], object], str]] = {
    # zone shapes
    "hand too long": (lambda s: s.hands[0].append(0), ZONE),
    "negative public memory": (lambda s: s.known[3][1].__setitem__(0, -1), ZONE),
    "short discard memory": (lambda s: s.known_discard[2].pop(), ZONE),
    "negative set-aside": (lambda s: s.set_aside.__setitem__(16, -1), ZONE),
    "negative discard": (lambda s: s.discard.__setitem__(0, -1), ZONE),
    "deck card out of range": (lambda s: s.deck.append(2 * len(KINDS)), NOT_A_CARD),
    "negative stall card": (lambda s: s.stalls[1].append(-1), NOT_A_CARD),
    "a stall too many": (lambda s: s.stalls.append([]), NOT_A_CARD),
    "merchants": (lambda s: s.merchants.__setitem__(0, START_MERCHANTS + 1),
                  f"merchants out of range: [{START_MERCHANTS + 1}, 0, 0]"),
    # the legal actions
    "legal unsorted": (lambda s: setattr(s, "_legal", [2, 1]), "legal actions not sorted, unique ids in range: [2, 1]"),
    "legal repeated": (lambda s: setattr(s, "_legal", [1, 1]), "legal actions not sorted, unique ids in range: [1, 1]"),
    "legal negative": (lambda s: setattr(s, "_legal", [-1, 0]),
                       "legal actions not sorted, unique ids in range: [-1, 0]"),
    "legal too high": (lambda s: setattr(s, "_legal", [0, NUM_ACTIONS]),
                       f"legal actions not sorted, unique ids in range: [0, {NUM_ACTIONS}]"),
    # the tiles
    "a tile twice": (lambda s: s.stack.append(5), TILE_COUNT.format(TILE_NAMES[5], 2)),
    "a tile lost": (lambda s: s.removed.pop(), TILE_COUNT.format(TILE_NAMES[1], 0)),
    "an unplaceable top tile": (lambda s: s.stack.insert(0, s.removed.pop()),
                                f"mosaic_stack[0]: the top tile {TILE_NAMES[1]} has no legal placement (it would "
                                f"have been removed, rules §6.5)"),
    # the palace
    "a sanctuary that is not a free area": (_sanctuary_cut, "palace.sanctuaries[1]: must be exactly one free area of "
                                                           "the garden (uncovered, edge-connected)"),
    "a sanctuary twice": (lambda s: s.sanctuaries.append([128, None]),
                          "palace.sanctuaries[3]: the same sanctuary is listed twice"),
    "a statue too many": (lambda s: s.statues.__setitem__(1, 1),
                          f"players[1].statues: 1 statues left plus 2 on sanctuaries is more than the "
                          f"{START_STATUES} he has"),
    "cleopatra behind": (lambda s: setattr(s, "cleopatra", 2),
                         "cleopatra: must be 3, the number of complete categories (at most 5), got 2"),
    "dice without a ceremony": (lambda s: setattr(s, "altar", DICE),
                                f"altar: all {DICE} dice on the altar with no ceremony pending"),
    # the memory
    "own hand remembered": (lambda s: s.known[1][1].__setitem__(4, 1),
                            "memory.seats[1].hands[1]: a seat's own hand is not kept in its memory"),
    "a card not in the hand": (lambda s: s.known[0][1].__setitem__(0, 1),
                               "memory.seats[0].hands[1]: lists cards not in player 1's hand"),
    "less than the public": (lambda s: s.known[0][2].__setitem__(2, 0),
                             "memory.seats[0].hands[2]: must include what the public knows of that hand"),
    "public more than a seat": (lambda s: s.known[3][0].__setitem__(0, 1),
                                "memory.seats[2].hands[0]: must include what the public knows of that hand"),
    "a card not in the discard pile": (lambda s: s.known_discard[1].__setitem__(0, 1),
                                       "memory.seats[1].discard: lists cards not in the discard pile"),
    "discard less than the public": (lambda s: s.known_discard[0].__setitem__(2, 1),
                                     "memory.seats[0].discard: must include what the public knows of the discard "
                                     "pile"),
    "shown to himself": (lambda s: s.shown.append(2), "shown[0]: the active player does not show his hand to himself"),
    "shown but could give": (lambda s: s.shown.append(0),
                             "shown[0]: player 0 could have given something to the Beggar"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_check_refuses_each_broken_fact_with_its_message(name: str) -> None:
    s = mid_game()
    check(s)
    breaking, expected = BROKEN[name]
    breaking(s)
    with pytest.raises(InvariantError) as info:
        check(s)
    assert str(info.value) == expected


@pytest.mark.parametrize(("breaking", "kind", "change"), [
    (lambda s: s.hands[0].__setitem__(0, 9), 0, +1),
    (_two_kinds, 1, -1),  # the first kind that is wrong is named
    (lambda s: s.deck.append(s.deck[-1]), 0, +1),
    (lambda s: s.stalls[2].pop(), 0, -1),
    (lambda s: s.discard.__setitem__(2, 1), 2, -1),
    (lambda s: s.set_aside.__setitem__(16, 1), 16, +1),
])
def test_check_refuses_cards_gained_or_lost(breaking: Callable[[GameState], None], kind: int, change: int) -> None:
    s = mid_game()
    breaking(s)
    with pytest.raises(InvariantError) as info:
        check(s)
    assert str(info.value) == cards_message(s, kind, s.rules.card_counts[kind] + change)


def test_a_stack_tile_that_fits_inside_a_sanctuary_is_refused() -> None:
    corner = {"mosaics": [{"tile": "I", "orient": 1, "square": 1, "by": 0},
                          {"tile": "L", "orient": 0, "square": 8, "by": 1}]}
    s = build({"palace": corner, "rules": {"tiles": {"X": [[0, 0]]}}})  # X is one square: no sanctuary forms
    s.sanctuaries.append([1, None])
    s.sanctuary_union = 1
    with pytest.raises(InvariantError) as info:
        check(s)
    assert str(info.value) == "palace.sanctuaries[0]: tile X of the stack fits inside it, so it is no sanctuary"


@pytest.mark.parametrize(("breaking", "expected"), [
    (lambda s: s.removed.append(s.stack.pop()), "removed tile 9 still has a legal placement"),
    (lambda s: s.removed.append(s.stack.pop(0)), "removed tile 5 still has a legal placement"),
    (_sanctuary_lost, "free areas [128] should have become sanctuaries"),
    (lambda s: s.statues.__setitem__(0, 1), f"statues left [1, 0, 2] plus sanctuaries owned [0, 2, 0] is not "
                                            f"{START_STATUES} each"),
])
def test_check_play_refuses_what_play_never_reaches(breaking: Callable[[GameState], None], expected: str) -> None:
    s = mid_game()
    check_play(s)
    breaking(s)
    check(s)
    with pytest.raises(InvariantError) as info:
        check_play(s)
    assert str(info.value) == expected
