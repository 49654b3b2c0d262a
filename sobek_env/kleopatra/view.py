"""What one seat sees (rules §12, §15): decided here, once, for both information modes.

:func:`view` reads a state into a :class:`View` of named Python values, as the observing seat is
entitled to see it: seats are relative (0 is the observer, then the opponents in seat order after
him) and what he may not see is absent (zeros, None or False). The observation encoder
(``observation.py``) only copies a View into numbers and its decoder reads them back into the same
View; the text rendering (``render.py``) prints one. Nothing else decides visibility.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..game import OBSERVATION_MODES as MODES  # noqa: F401 (the compiled baselines read it here)
from ..game import check_observation_mode
from .actions import BUILDS
from .catalogue import NUM_KINDS, NUM_TILES, NUM_WALL_SLOTS, STALLS, UNITS
from .phases import (
    Ceremony,
    Courtesan,
    EnvoyAccept,
    EnvoyOffer,
    MosaicOrient,
    MosaicSquare,
    Refill,
    Vizier,
    quarry_visit,
)
from .state import GameState

FACE_DOWN = NUM_KINDS        # a card seen from its back
EMPTY = NUM_KINDS + 1        # no card (the deck's top when it is empty)


def squares(mask: int) -> list[int]:
    return [i for i in range(64) if (mask >> i) & 1]


@dataclass
class View:
    """One seat's view of the table. Per-seat lists are in relative order (0 = the observer); per-opponent
    lists (``known_hands``, ``shown``, ``shown_hands``) start with the opponent after him."""

    num_players: int
    phase: str = "turn"
    acting: int = 0                 # the relative seat that must act now
    active: int = 0                 # the relative seat whose turn it is
    turn: int = 1
    over: bool = False
    hand: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    hand_sizes: list[int] = field(default_factory=list)
    talents: list[int] = field(default_factory=list)     # own; opponents' in memory mode or at the end
    amulets: list[int] = field(default_factory=list)     # likewise
    merchants: list[int] = field(default_factory=list)
    statues: list[int] = field(default_factory=list)
    sanctuary_squares: list[int] = field(default_factory=list)
    eliminated: list[bool] = field(default_factory=list)
    winners: list[bool] = field(default_factory=list)
    known_hands: list[list[int]] = field(default_factory=list)  # memory: cards known to be in each hand
    known_discard: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # memory
    deck_face_up: int = 0           # memory: face-up cards in the deck (public events add up to it)
    shown: list[bool] = field(default_factory=list)     # hands shown to him by his Beggar's victims
    shown_hands: list[list[int]] = field(default_factory=list)
    stalls: list[list[int]] = field(default_factory=list)  # per stall: face-up cards per kind, then face-down
    deck_size: int = 0
    deck_top: int = EMPTY           # a kind, FACE_DOWN or EMPTY
    discard_size: int = 0
    palms: list[int] = field(default_factory=list)
    covered: list[int] = field(default_factory=list)
    sanctuaries: list[int] = field(default_factory=list)  # sanctuary squares
    owned: list[list[int]] = field(default_factory=list)  # per relative seat, his sanctuary squares
    tile_anchor: list[int | None] = field(default_factory=lambda: [None] * NUM_TILES)  # placed tiles
    tile_orient: list[int] = field(default_factory=lambda: [0] * NUM_TILES)
    walls: list[bool] = field(default_factory=lambda: [False] * NUM_WALL_SLOTS)
    gate: list[bool] = field(default_factory=lambda: [False, False])
    sphinxes: int = 0
    obelisks: int = 0
    pedestal: bool = False
    throne: bool = False
    complete: list[bool] = field(default_factory=lambda: [False] * 6)
    cleopatra: int = 0
    in_quarry: list[bool] = field(default_factory=lambda: [False] * NUM_TILES)
    top_tile: int | None = None
    removed: list[bool] = field(default_factory=lambda: [False] * NUM_TILES)
    stack_order: list[int] = field(default_factory=lambda: [0] * NUM_TILES)  # 1-based place in the stack, 0 unknown
    altar: int = 0
    pool: list[int] = field(default_factory=lambda: [0] * len(UNITS))
    paid: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)
    built: list[int] = field(default_factory=lambda: [0] * len(BUILDS))
    refill_cards: list[int] = field(default_factory=list)  # visible sides still to place (kind or FACE_DOWN)
    refill_filled: list[bool] = field(default_factory=lambda: [False] * STALLS)
    tile: int | None = None
    orient: int | None = None
    offered_sanctuary: list[int] = field(default_factory=list)
    envoy_resource: int | None = None
    envoy_offers: list[int] = field(default_factory=list)
    envoy_accepted: list[int] = field(default_factory=list)
    envoy_target: int | None = None
    vizier_drawn: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # the Vizier's player only
    vizier_kept: int = 0
    courtesan_discard: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # the Courtesan's player only
    ceremony_offer: int = 0         # his own running offer
    ceremony_closed: list[bool] = field(default_factory=list)
    last_offers: list[int] = field(default_factory=list)
    last_places: list[int] = field(default_factory=list)  # 0: no ceremony yet


def view(s: GameState, seat: int, mode: str = "original") -> View:
    """What ``seat`` sees of ``s`` in ``mode`` (rules §12, §15)."""
    check_observation_mode(mode)
    n = s.num_players
    memory = mode == "memory"
    order = [(seat + i) % n for i in range(n)]
    opponents = order[1:]
    revealed = memory or s.over
    pending = s.pending
    acting = s.current_player == seat and not s.over
    v = View(n)
    v.envoy_offers, v.envoy_accepted, v.last_offers, v.last_places = [0] * n, [0] * n, [0] * n, [0] * n
    v.ceremony_closed = [False] * n
    v.phase = "turn" if pending is None else pending.name
    v.acting = (s.current_player - seat) % n
    v.active = (s.active_player - seat) % n
    v.turn = s.turn
    v.over = s.over
    v.hand = list(s.hands[seat])
    v.hand_sizes = [sum(s.hands[p]) for p in order]
    v.talents = [s.talents[p] if p == seat or revealed else 0 for p in order]
    v.amulets = [s.amulets[p] if p == seat or revealed else 0 for p in order]
    v.merchants = [s.merchants[p] for p in order]
    v.statues = [s.statues[p] for p in order]
    v.sanctuary_squares = [sum(m.bit_count() for m, o in s.sanctuaries if o == p) for p in order]
    winners = s.winners
    v.eliminated = [p in s.eaten for p in order]
    v.winners = [p in winners for p in order]
    v.known_hands = [list(s.known[seat][p]) if memory else [0] * NUM_KINDS for p in opponents]
    if memory:
        v.known_discard = list(s.known_discard[seat])
        v.deck_face_up = sum(c & 1 for c in s.deck)
    shows = seat == s.active_player
    v.shown = [shows and p in s.shown for p in opponents]
    v.shown_hands = [list(s.hands[p]) if shows and p in s.shown else [0] * NUM_KINDS for p in opponents]
    v.stalls = []
    for stall in s.stalls:
        row = [0] * (NUM_KINDS + 1)
        for card in stall:
            row[card >> 1 if card & 1 else FACE_DOWN] += 1
        v.stalls.append(row)
    v.deck_size = len(s.deck)
    v.deck_top = EMPTY if not s.deck else (s.deck[-1] >> 1 if s.deck[-1] & 1 else FACE_DOWN)
    v.discard_size = sum(s.discard)
    geo = s.rules.geometry
    v.palms = squares(geo.palms)
    v.covered = squares(s.covered)
    v.sanctuaries = squares(s.sanctuary_union)
    v.owned = [squares(sum(m for m, o in s.sanctuaries if o == p)) for p in order]
    for tile, orient, square, _, _ in s.mosaics:
        v.tile_anchor[tile] = square
        v.tile_orient[tile] = orient
    v.walls = [bool((s.walls >> k) & 1) for k in range(NUM_WALL_SLOTS)]
    v.gate = [bool(s.gate & 1), bool(s.gate & 2)]
    v.sphinxes, v.obelisks, v.pedestal, v.throne = s.sphinxes, s.obelisks, s.pedestal, s.throne
    v.complete = s.complete()
    if isinstance(pending, MosaicOrient):
        v.complete[-1] = False  # the chosen tile is still to be placed
    v.cleopatra = s.cleopatra
    for t in s.stack:
        v.in_quarry[t] = True
    for t in s.removed:
        v.removed[t] = True
    if s.stack:
        v.top_tile = s.stack[0]
        sees_stack = (memory and s.saw_stack[seat]) or (acting and isinstance(pending, MosaicOrient) and pending.scribe)
        for place, t in enumerate(s.stack if sees_stack else s.stack[:1]):
            v.stack_order[t] = place + 1
    v.altar = s.altar

    visit = quarry_visit(s.pending)
    if visit is not None:
        v.pool = list(visit.pool)
        v.paid = list(visit.paid)
        for a in visit.built:
            v.built[a - BUILDS[0]] += 1
    if isinstance(pending, Refill):
        v.refill_cards = [c >> 1 if c & 1 else FACE_DOWN for c in pending.drawn]
        v.refill_filled = list(pending.filled)
    if isinstance(pending, MosaicOrient):
        v.tile = pending.tile
        if isinstance(pending, MosaicSquare):
            v.orient = pending.orient
    if pending is not None and pending.name == "anubis":
        v.offered_sanctuary = squares(s.sanctuaries[pending.queue[0]][0])
    if isinstance(pending, EnvoyOffer):
        v.envoy_resource = pending.resource
        v.envoy_offers = [pending.offers[p] for p in order]
        if isinstance(pending, EnvoyAccept):
            v.envoy_accepted = [pending.accepted[p] for p in order]
            v.envoy_target = (pending.target - seat) % n
    if isinstance(pending, Vizier):
        if acting:
            v.vizier_drawn = list(pending.drawn)
        v.vizier_kept = pending.kept
    if isinstance(pending, Courtesan) and acting:
        v.courtesan_discard = list(s.discard)
    if isinstance(pending, Ceremony):
        v.ceremony_offer = pending.offers[seat]
        closed = pending.closed(s)
        v.ceremony_closed = [closed[p] for p in order]
    if s.last_offers is not None:
        v.last_offers = [s.last_offers[p] for p in order]
        v.last_places = [s.last_places[p] for p in order]
    return v
