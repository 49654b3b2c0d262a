"""Checks that states must pass; used by the tests and the stress runs.

:func:`check` holds for every state the engine can be in, including any state ``GameState.from_json``
accepts: it runs the document's consistency checks (``jsonstate.check_consistency``: the cards by kind
across all zones, each tile once, legal placements, sanctuaries, Cleopatra, the altar, the memory, the
pending phase, a legal action for the player to move) and adds what the reader guarantees by
construction (zone shapes, counts never negative, the masks agreeing with the lists, the legal actions
sorted and in range). :func:`check_play` adds what holds only for states reached by play from
``GameState.new``. :func:`check_mask` compares an environment's action mask with the legal actions.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from operator import add

from ..errors import InvariantError, StateFormatError
from .actions import NUM_ACTIONS
from .catalogue import CLEOPATRA_END, DICE, NUM_KINDS, NUM_TILES, STALLS, START_MERCHANTS, START_STATUES
from .jsonstate import check_consistency
from .palace import ALL_WALLS
from .phases import MosaicOrient
from .state import GameState

_CARDS = frozenset(range(2 * NUM_KINDS))  # kind * 2 + face up


def _check_shapes(s: GameState) -> None:
    n = s.num_players
    if not (0 <= s.active_player < n and 0 <= s.current_player < n):
        raise InvariantError(f"seat out of range: active {s.active_player}, current {s.current_player}")
    if not 1 <= s.turn <= s.rules.max_turns:
        raise InvariantError(f"turn {s.turn} outside 1..{s.rules.max_turns}")
    if not (0 <= s.cleopatra <= CLEOPATRA_END and 0 <= s.altar <= DICE):
        raise InvariantError(f"cleopatra {s.cleopatra} or altar {s.altar} out of range")
    zones = [*s.hands, s.discard, s.set_aside, *s.known_discard, *chain.from_iterable(s.known)]
    # most zones (the memory above all) are empty, and an empty zone has no negative count
    if set(map(len, zones)) != {NUM_KINDS} or min(map(min, filter(any, zones)), default=0) < 0:
        raise InvariantError("a zone (hand, discard, set-aside, memory) has a negative count or a wrong length")
    for name, values, high in (("talents", s.talents, None), ("amulets", s.amulets, None),
                               ("merchants", s.merchants, START_MERCHANTS), ("statues", s.statues, START_STATUES)):
        if len(values) != n or min(values) < 0 or (high is not None and max(values) > high):
            raise InvariantError(f"{name} out of range: {values}")
    if len(s.stalls) != STALLS or not _CARDS.issuperset(chain(s.deck, *s.stalls)):
        raise InvariantError("a stall or the deck holds something that is not a card")
    if not 0 <= s.walls <= ALL_WALLS or not 0 <= s.gate <= 3 or (s.throne and not s.pedestal):
        raise InvariantError(f"palace out of range: walls {s.walls:b}, gate {s.gate:b}, throne without pedestal")
    union = 0
    for tile, _, _, _, mask in s.mosaics:
        if mask & union:
            raise InvariantError(f"mosaic {tile} overlaps another")
        union |= mask
    if union != s.covered:
        raise InvariantError("the covered squares are not the union of the placed mosaics")
    sanctuaries = 0
    for mask, _ in s.sanctuaries:
        sanctuaries |= mask
    if sanctuaries != s.sanctuary_union or sanctuaries & s.covered:
        raise InvariantError("the sanctuaries' union is wrong or overlaps a mosaic")
    if s.over and s.pending is not None:
        raise InvariantError("a finished game has a pending phase")


def check(s: GameState) -> None:
    """Raise InvariantError if ``s`` breaks an invariant of the rules or of the engine."""
    _check_shapes(s)
    try:
        check_consistency(s)
    except StateFormatError as exc:
        raise InvariantError(str(exc)) from None
    legal = s.legal_actions()
    # sorted and unique, the first and the last id bound the others
    if legal != sorted(set(legal)) or (legal and not (legal[0] >= 0 and legal[-1] < NUM_ACTIONS)):
        raise InvariantError(f"legal actions not sorted, unique ids in range: {legal}")
    if s.over and legal:
        raise InvariantError("a finished game offers actions")
    if not s.over and not legal:
        raise InvariantError(f"player {s.current_player} has no legal action at {s.phase.name}")


def check_play(s: GameState) -> None:
    """:func:`check`, plus what holds only for states reached by play from ``GameState.new``."""
    check(s)
    n = s.num_players
    owned = [0] * n
    for _, owner in s.sanctuaries:
        if owner is not None:
            owned[owner] += 1
    if list(map(add, s.statues, owned)) != [START_STATUES] * n:  # rules §6.4
        raise InvariantError(f"statues left {s.statues} plus sanctuaries owned {owned} is not {START_STATUES} each")
    geo = s.rules.geometry
    stack = list(s.stack)
    if isinstance(s.pending, MosaicOrient):
        stack.append(s.pending.tile)
    blocked = s.covered | s.sanctuary_union
    # rules §6.4: every free area small enough that no tile left fits inside is a sanctuary by now
    qualifying = geo.new_sanctuaries(s.covered, [m for m, _ in s.sanctuaries], stack, s.rules.sanctuary_max_squares)
    if qualifying:
        raise InvariantError(f"free areas {qualifying} should have become sanctuaries")
    for t in s.removed:  # rules §6.5: a tile is removed only when it fits nowhere, and the garden only fills
        if geo.tile_placeable(t, blocked):
            raise InvariantError(f"removed tile {t} still has a legal placement")
    if len(s.mosaics) + len(s.removed) + len(stack) != NUM_TILES:
        raise InvariantError("tiles lost")
    if s.over and s.cleopatra != CLEOPATRA_END and s.turn != s.rules.max_turns:  # rules §11
        raise InvariantError(f"the game ended at turn {s.turn} with Cleopatra on {s.cleopatra}")


def check_mask(s: GameState, seat: int, mask: Sequence[int]) -> None:
    """The environment's action mask for ``seat``: exactly the legal actions if it must act, else none."""
    if len(mask) != NUM_ACTIONS:
        raise InvariantError(f"the mask has {len(mask)} entries, not {NUM_ACTIONS}")
    marked = [a for a in range(NUM_ACTIONS) if mask[a]]
    expected = s.legal_actions() if seat == s.current_player and not s.over else []
    if marked != expected:
        raise InvariantError(f"mask for seat {seat} marks {marked}; legal for it: {expected}")
