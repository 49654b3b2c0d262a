# cython: language_level=3, wraparound=False, cdivision=True
"""Compiled twin of :meth:`sobek_env.kleopatra.observation.Observer.encode_python` (the reference).

:class:`Encoder` writes one seat's view of a Kleopatra state into the observer's float32 buffer, reading
the state's Python lists directly and following ``view.py`` entry for entry;
``tests/kleopatra/test_observation.py`` checks the two vectors are identical on every seat of many
games. The garden's rows (palms to tile orientations, a contiguous block of the layout) are kept per
seat and copied back until the palace changes (``GameState.palace_version``).

Bounds checks stay on: a state that does not match the layout raises IndexError instead of writing
outside the buffer.
"""

import numpy as np

from .catalogue import NUM_KINDS, NUM_TILES, NUM_WALL_SLOTS, OBELISK_PIECES, SPHINX_PIECES, STALLS
from .palace import ALL_WALLS
from .phases import (
    PHASE_INDEX,
    Ceremony,
    Courtesan,
    EnvoyAccept,
    EnvoyOffer,
    Interrupting,
    MosaicOrient,
    MosaicSquare,
    Quarry,
    Refill,
    Vizier,
)
from .actions import BUILDS

cdef enum:
    K = 17          # card kinds
    FACE_DOWN = 17  # view.FACE_DOWN: the column of a card seen from its back
    EMPTY = 18      # view.EMPTY: the deck's top when it is empty
    CARD_COLUMNS = 18
    SQUARES = 64
assert NUM_KINDS == K

cdef double SCORE_SCALE = 100.0  # observation.SCORE_SCALE
cdef long FIRST_BUILD = BUILDS[0]
from .phases import PHASES as _PHASES

_PHASE_OF_TYPE = {_PHASES[name]: index for name, index in PHASE_INDEX.items()}
cdef int TURN_INDEX = PHASE_INDEX["turn"]
cdef int ANUBIS_INDEX = PHASE_INDEX["anubis"]


cdef inline void put_row(float[::1] b, Py_ssize_t at, list counts):
    cdef Py_ssize_t k
    for k in range(len(counts)):
        b[at + k] = <long>counts[k]


cdef inline void put_squares(float[::1] b, Py_ssize_t at, object mask):
    """1 at ``at + i`` for every square ``i`` of a garden mask (below 2**64)."""
    cdef unsigned long long m = mask
    cdef int i
    while m:
        i = __builtin_ctzll(m)
        b[at + i] = 1
        m &= m - 1


cdef extern from *:
    int __builtin_ctzll(unsigned long long)
    int __builtin_popcountll(unsigned long long)


cdef class Encoder:
    """Writes ``seat``'s view of a state into ``buffer`` (the Observer's), by the offsets of its layout."""

    cdef readonly object buffer
    cdef float[::1] b
    cdef long n
    cdef bint memory
    cdef Py_ssize_t phase, acting, active, turn, over, hand, hand_sizes, talents, amulets, merchants, statues
    cdef Py_ssize_t sanctuary_squares, eliminated, winners, known_hands, known_discard, deck_face_up, shown
    cdef Py_ssize_t shown_hands, stalls, deck_size, deck_top, discard_size, palms, covered, sanctuary
    cdef Py_ssize_t sanctuary_owner, tile_anchor, tile_orient, walls, gate, sphinxes, obelisks, pedestal, throne
    cdef Py_ssize_t complete, cleopatra, in_quarry, top_tile, removed, stack_order, altar, pool, paid, built
    cdef Py_ssize_t refill_cards, refill_filled, tile, orient, offered_sanctuary, envoy_resource, envoy_offers
    cdef Py_ssize_t envoy_accepted, envoy_target, vizier_drawn, vizier_kept, courtesan_discard, ceremony_offer
    cdef Py_ssize_t ceremony_closed, last_offers, last_places
    cdef Py_ssize_t garden_start, garden_stop
    cdef float[:, ::1] garden_rows   # per seat: the garden block as last drawn for him
    cdef long long[::1] garden_stamp  # per seat: the garden stamp it was drawn from (0: never)
    cdef list garden_rules           # per seat: the rules it was drawn with

    def __init__(self, buffer, dict at, int num_players, bint memory):
        self.buffer = buffer
        self.b = buffer
        self.n = num_players
        self.memory = memory
        self.phase, self.acting, self.active, self.turn = at["phase"], at["acting"], at["active"], at["turn"]
        self.over, self.hand, self.hand_sizes, self.talents = at["over"], at["hand"], at["hand_sizes"], at["talents"]
        self.amulets, self.merchants, self.statues = at["amulets"], at["merchants"], at["statues"]
        self.sanctuary_squares, self.eliminated, self.winners = at["sanctuary_squares"], at["eliminated"], at["winners"]
        self.known_hands, self.known_discard, self.deck_face_up = at["known_hands"], at["known_discard"], at["deck_face_up"]
        self.shown, self.shown_hands, self.stalls = at["shown"], at["shown_hands"], at["stalls"]
        self.deck_size, self.deck_top, self.discard_size = at["deck_size"], at["deck_top"], at["discard_size"]
        self.palms, self.covered, self.sanctuary = at["palms"], at["covered"], at["sanctuary"]
        self.sanctuary_owner, self.tile_anchor, self.tile_orient = at["sanctuary_owner"], at["tile_anchor"], at["tile_orient"]
        self.walls, self.gate, self.sphinxes, self.obelisks = at["walls"], at["gate"], at["sphinxes"], at["obelisks"]
        self.pedestal, self.throne, self.complete, self.cleopatra = at["pedestal"], at["throne"], at["complete"], at["cleopatra"]
        self.in_quarry, self.top_tile, self.removed = at["in_quarry"], at["top_tile"], at["removed"]
        self.stack_order, self.altar, self.pool, self.paid, self.built = at["stack_order"], at["altar"], at["pool"], at["paid"], at["built"]
        self.refill_cards, self.refill_filled, self.tile, self.orient = at["refill_cards"], at["refill_filled"], at["tile"], at["orient"]
        self.offered_sanctuary, self.envoy_resource = at["offered_sanctuary"], at["envoy_resource"]
        self.envoy_offers, self.envoy_accepted, self.envoy_target = at["envoy_offers"], at["envoy_accepted"], at["envoy_target"]
        self.vizier_drawn, self.vizier_kept, self.courtesan_discard = at["vizier_drawn"], at["vizier_kept"], at["courtesan_discard"]
        self.ceremony_offer, self.ceremony_closed = at["ceremony_offer"], at["ceremony_closed"]
        self.last_offers, self.last_places = at["last_offers"], at["last_places"]
        self.garden_start = self.palms
        self.garden_stop = self.tile_orient + NUM_TILES
        assert self.covered > self.palms and self.sanctuary_owner > self.sanctuary and self.tile_anchor > self.sanctuary_owner
        self.garden_rows = np.zeros((num_players, self.garden_stop - self.garden_start), dtype=np.float32)
        self.garden_stamp = np.zeros(num_players, dtype=np.int64)
        self.garden_rules = [None] * num_players

    def encode(self, s, long seat):
        """Fill the buffer with ``seat``'s view of ``s`` and return it (not a copy)."""
        cdef float[::1] b = self.b
        cdef long n = self.n, i, p, k, c, total, card, up_count
        cdef list hands = s.hands, talents = s.talents, amulets = s.amulets, row, stall, deck
        cdef bint over = s.over, revealed, acting, shows
        if len(hands) != n:
            raise ValueError(f"the observer is for {n} players, the state has {len(hands)}")
        if not 0 <= seat < n:
            raise IndexError(f"seat {seat} out of range")
        b[:] = 0
        revealed = self.memory or over
        pending = s.pending
        acting = s.current_player == seat and not over
        b[self.phase + (TURN_INDEX if pending is None else <int>_PHASE_OF_TYPE[type(pending)])] = 1
        b[self.acting + (<long>s.current_player - seat + n) % n] = 1
        b[self.active + (<long>s.active_player - seat + n) % n] = 1
        b[self.turn] = <double><long>s.turn / <double><long>s.rules.max_turns
        b[self.over] = over
        put_row(b, self.hand, hands[seat])
        for i in range(n):
            p = (seat + i) % n
            row = hands[p]
            total = 0
            for k in range(K):
                total += <long>row[k]
            b[self.hand_sizes + i] = total
            if i == 0 or revealed:
                b[self.talents + i] = <long>talents[p] / SCORE_SCALE
                b[self.amulets + i] = <long>amulets[p] / SCORE_SCALE
            b[self.merchants + i] = <long>s.merchants[p]
            b[self.statues + i] = <long>s.statues[p]
            if i and self.memory:
                put_row(b, self.known_hands + (i - 1) * K, s.known[seat][p])
        for entry in s.sanctuaries:
            owner = entry[1]
            if owner is not None:
                b[self.sanctuary_squares + (<long>owner - seat + n) % n] += __builtin_popcountll(<unsigned long long>entry[0])
        if over:
            eaten = s.eaten
            winners = s.winners
            for i in range(n):
                p = (seat + i) % n
                b[self.eliminated + i] = p in eaten
                b[self.winners + i] = p in winners
        deck = s.deck
        if self.memory:
            put_row(b, self.known_discard, s.known_discard[seat])
            up_count = 0
            for card in deck:
                up_count += card & 1
            b[self.deck_face_up] = up_count
        shows = s.active_player == seat
        if shows and s.shown:
            for p in s.shown:
                i = (<long>p - seat + n) % n
                b[self.shown + i - 1] = 1
                put_row(b, self.shown_hands + (i - 1) * K, hands[p])
        for i in range(STALLS):
            stall = s.stalls[i]
            for card in stall:
                b[self.stalls + i * CARD_COLUMNS + ((card >> 1) if card & 1 else FACE_DOWN)] += 1
        b[self.deck_size] = len(deck)
        if deck:
            card = deck[len(deck) - 1]
            b[self.deck_top + ((card >> 1) if card & 1 else FACE_DOWN)] = 1
        else:
            b[self.deck_top + EMPTY] = 1
        total = 0
        for c in s.discard:
            total += c
        b[self.discard_size] = total
        self._put_garden(s, seat)
        self._put_palace(s, seat, pending, acting)
        if pending is not None:
            self._put_pending(s, seat, pending, acting)
        if s.last_offers is not None:
            for i in range(n):
                p = (seat + i) % n
                b[self.last_offers + i] = <long>s.last_offers[p] / SCORE_SCALE
                b[self.last_places + i] = <long>s.last_places[p]
        return self.buffer

    cdef int _put_garden(self, s, long seat) except -1:
        """palms, covered, sanctuary, sanctuary_owner, tile_anchor, tile_orient: kept per seat until the palace changes."""
        cdef float[::1] b = self.b
        cdef long n = self.n
        cdef long long stamp = s.palace_version
        rules = s.rules
        if self.garden_stamp[seat] == stamp and self.garden_rules[seat] is rules:
            b[self.garden_start:self.garden_stop] = self.garden_rows[seat]
            return 0
        put_squares(b, self.palms, rules.geometry.palms)
        put_squares(b, self.covered, s.covered)
        put_squares(b, self.sanctuary, s.sanctuary_union)
        for entry in s.sanctuaries:
            owner = entry[1]
            if owner is not None:
                put_squares(b, self.sanctuary_owner + ((<long>owner - seat + n) % n) * SQUARES, entry[0])
        for mosaic in s.mosaics:
            b[self.tile_anchor + <long>mosaic[0]] = <long>mosaic[2] + 1
            b[self.tile_orient + <long>mosaic[0]] = <long>mosaic[1]
        self.garden_rows[seat] = b[self.garden_start:self.garden_stop]
        self.garden_stamp[seat] = stamp
        self.garden_rules[seat] = rules
        return 0

    cdef int _put_palace(self, s, long seat, pending, bint acting) except -1:
        cdef float[::1] b = self.b
        cdef long k, walls = s.walls, gate = s.gate, place
        cdef list stack = s.stack
        cdef bint placing = isinstance(pending, MosaicOrient), sees
        for k in range(NUM_WALL_SLOTS):
            b[self.walls + k] = (walls >> k) & 1
        b[self.gate] = gate & 1
        b[self.gate + 1] = (gate >> 1) & 1
        b[self.sphinxes] = <long>s.sphinxes
        b[self.obelisks] = <long>s.obelisks
        b[self.pedestal] = s.pedestal
        b[self.throne] = s.throne
        # state.complete(), written out: walls, sphinxes, obelisks, gate, throne, mosaics (rules §1.3)
        b[self.complete] = walls == ALL_WALLS
        b[self.complete + 1] = <long>s.sphinxes == SPHINX_PIECES
        b[self.complete + 2] = <long>s.obelisks == OBELISK_PIECES
        b[self.complete + 3] = gate == 3
        b[self.complete + 4] = s.throne
        b[self.complete + 5] = not stack and not placing
        b[self.cleopatra] = <long>s.cleopatra
        for t in stack:
            b[self.in_quarry + <long>t] = 1
        for t in s.removed:
            b[self.removed + <long>t] = 1
        if stack:
            b[self.top_tile + <long>stack[0]] = 1
            sees = (self.memory and s.saw_stack[seat]) or (acting and placing and pending.scribe)
            if sees:
                for place in range(len(stack)):
                    b[self.stack_order + <long>stack[place]] = place + 1
            else:
                b[self.stack_order + <long>stack[0]] = 1
        b[self.altar] = <long>s.altar
        return 0

    cdef int _put_pending(self, s, long seat, pending, bint acting) except -1:
        cdef float[::1] b = self.b
        cdef long n = self.n, i, p, card, row
        visit = pending
        while visit is not None and type(visit) is not Quarry:
            visit = visit.resume if isinstance(visit, Interrupting) else None
        if visit is not None:
            put_row(b, self.pool, visit.pool)
            put_row(b, self.paid, visit.paid)
            for a in visit.built:
                b[self.built + <long>a - FIRST_BUILD] += 1
        kind = type(pending)
        if kind is Refill:
            row = 0
            for card in pending.drawn:
                b[self.refill_cards + row * CARD_COLUMNS + ((card >> 1) if card & 1 else FACE_DOWN)] = 1
                row += 1
            for i in range(STALLS):
                b[self.refill_filled + i] = pending.filled[i]
        elif kind is MosaicOrient or kind is MosaicSquare:
            b[self.tile + <long>pending.tile] = 1
            if kind is MosaicSquare:
                b[self.orient + <long>pending.orient] = 1
        elif _PHASE_OF_TYPE[kind] == ANUBIS_INDEX:
            put_squares(b, self.offered_sanctuary, s.sanctuaries[pending.queue[0]][0])
        elif kind is EnvoyOffer or kind is EnvoyAccept:
            b[self.envoy_resource + <long>pending.resource] = 1
            for i in range(n):
                p = (seat + i) % n
                b[self.envoy_offers + i] = <long>pending.offers[p]
            if kind is EnvoyAccept:
                for i in range(n):
                    p = (seat + i) % n
                    b[self.envoy_accepted + i] = <long>pending.accepted[p]
                b[self.envoy_target + (<long>pending.target - seat + n) % n] = 1
        elif kind is Vizier:
            if acting:
                put_row(b, self.vizier_drawn, pending.drawn)
            b[self.vizier_kept] = <long>pending.kept
        elif kind is Courtesan:
            if acting:
                put_row(b, self.courtesan_discard, s.discard)
        elif kind is Ceremony:
            b[self.ceremony_offer] = <long>pending.offers[seat] / SCORE_SCALE
            closed = pending.closed(s)
            for i in range(n):
                b[self.ceremony_closed + i] = closed[(seat + i) % n]
        return 0


# ---------------------------------------------------------------------- decoding

from libc.math cimport nearbyint, isfinite

from .phases import PHASE_NAMES
from .view import View

cdef object _NEW_VIEW = View.__new__
cdef double DECODABLE = 2147483648.0  # 2**31: beyond it (or not finite) the Python decoder reads the vector

# The View's fields by how the vector holds them (observation.decode_vector reads the same lists).
_COUNTS = ("hand", "hand_sizes", "merchants", "statues", "sanctuary_squares", "known_discard", "stack_order",
           "pool", "paid", "built", "envoy_offers", "envoy_accepted", "vizier_drawn", "courtesan_discard",
           "last_places", "tile_orient")
_FLAGS = ("eliminated", "winners", "shown", "walls", "gate", "complete", "in_quarry", "removed", "refill_filled",
          "ceremony_closed")
_SCALED = ("talents", "amulets", "last_offers")
_COUNT_ROWS = ("known_hands", "shown_hands", "stalls")
_COUNT_SCALARS = ("deck_face_up", "deck_size", "discard_size", "sphinxes", "obelisks", "cleopatra", "altar",
                  "vizier_kept")


cdef inline list counts(const float[::1] x, Py_ssize_t at, Py_ssize_t size):
    return [<long>x[i] for i in range(at, at + size)]


cdef inline list flags(const float[::1] x, Py_ssize_t at, Py_ssize_t size):
    return [x[i] != 0 for i in range(at, at + size)]


cdef inline long scaled(double value, double scale):
    return <long>nearbyint(value * scale)  # Python's round(): to the nearest, halves to even


cdef inline object first(const float[::1] x, Py_ssize_t at, Py_ssize_t size):
    cdef Py_ssize_t i
    for i in range(size):
        if x[at + i] != 0:
            return i
    return None


cdef inline list squares(const float[::1] x, Py_ssize_t at, Py_ssize_t size):
    return [i for i in range(size) if x[at + i] != 0]


cdef class Decoder:
    """Reads an observation vector back into its View: the compiled twin of
    :func:`sobek_env.kleopatra.observation.decode_vector` (the reference), which the tests compare it with
    on every seat of many games. :meth:`decode` returns None for a vector it leaves to the reference (an
    entry not finite, or too large for a C integer), so errors and edge cases stay the reference's."""

    cdef long n
    cdef Py_ssize_t size
    cdef dict at, width, length

    def __init__(self, dict slices, dict shapes, int num_players):
        self.n = num_players
        self.at = {name: sl.start for name, sl in slices.items()}
        self.length = {name: sl.stop - sl.start for name, sl in slices.items()}
        self.width = {name: shape[-1] for name, shape in shapes.items()}
        self.size = max(sl.stop for sl in slices.values())

    def decode(self, const float[::1] x, long max_turns):
        cdef dict at = self.at, length = self.length, width = self.width
        cdef Py_ssize_t i, start, size, w
        cdef str name
        if x.shape[0] != self.size:
            raise ValueError(f"an observation for {self.n} players has {self.size} entries, got {x.shape[0]}")
        for i in range(self.size):
            if not isfinite(x[i]) or not -DECODABLE < x[i] < DECODABLE:
                return None
        v = _NEW_VIEW(View)
        v.num_players = self.n
        index = first(x, at["phase"], length["phase"])
        v.phase = PHASE_NAMES[index or 0]
        v.acting = first(x, at["acting"], length["acting"]) or 0
        v.active = first(x, at["active"], length["active"]) or 0
        v.turn = <long>nearbyint(<double>x[<Py_ssize_t>at["turn"]] * max_turns)
        v.over = x[<Py_ssize_t>at["over"]] != 0
        for name in _COUNTS:
            setattr(v, name, counts(x, at[name], length[name]))
        for name in _FLAGS:
            setattr(v, name, flags(x, at[name], length[name]))
        for name in _SCALED:
            start = at[name]
            setattr(v, name, [scaled(x[i], SCORE_SCALE) for i in range(start, start + <Py_ssize_t>length[name])])
        for name in _COUNT_ROWS:
            start, size, w = at[name], length[name], width[name]
            setattr(v, name, [counts(x, i, w) for i in range(start, start + size, w)])
        for name in _COUNT_SCALARS:
            setattr(v, name, <long>x[<Py_ssize_t>at[name]])
        v.pedestal = x[<Py_ssize_t>at["pedestal"]] != 0
        v.throne = x[<Py_ssize_t>at["throne"]] != 0
        v.ceremony_offer = scaled(x[<Py_ssize_t>at["ceremony_offer"]], SCORE_SCALE)
        top = first(x, at["deck_top"], length["deck_top"])
        v.deck_top = EMPTY if top is None else top
        v.palms = squares(x, at["palms"], length["palms"])
        v.covered = squares(x, at["covered"], length["covered"])
        v.sanctuaries = squares(x, at["sanctuary"], length["sanctuary"])
        start, size, w = at["sanctuary_owner"], length["sanctuary_owner"], width["sanctuary_owner"]
        v.owned = [squares(x, i, w) for i in range(start, start + size, w)]
        start = at["tile_anchor"]
        v.tile_anchor = [None if x[i] == 0 else <long>x[i] - 1 for i in range(start, start + <Py_ssize_t>length["tile_anchor"])]
        v.top_tile = first(x, at["top_tile"], length["top_tile"])
        start, size, w = at["refill_cards"], length["refill_cards"], width["refill_cards"]
        cards = []
        for i in range(start, start + size, w):
            card = first(x, i, w)
            if card is not None:
                cards.append(card)
        v.refill_cards = cards
        v.tile = first(x, at["tile"], length["tile"])
        v.orient = first(x, at["orient"], length["orient"])
        v.offered_sanctuary = squares(x, at["offered_sanctuary"], length["offered_sanctuary"])
        v.envoy_resource = first(x, at["envoy_resource"], length["envoy_resource"])
        v.envoy_target = first(x, at["envoy_target"], length["envoy_target"])
        return v
