# cython: language_level=3, wraparound=False, cdivision=True
"""Compiled twin of :meth:`sobek_env.observation.Observer.encode` (the Python method stays the reference).

:class:`Encoder` writes one seat's view of a :class:`~sobek_env.state.GameState` into the observer's
float32 buffer, reading the state's Python lists directly, entry for entry as the Python path does:
``tests/test_observation_compiled.py`` checks the two vectors are identical. The layout (the offset
of each named section) comes from ``observation_layout``; the section names below are its names.

Bounds checks stay on: a state that does not match the layout raises IndexError instead of
writing outside the buffer.
"""

from .catalogue import (
    BACKS,
    CURSE,
    FIRST_CHARACTER,
    GOODS,
    KIND_BACK,
    NUM_KINDS,
    PROSPERITY,
    PROSPERITY_SCARABS,
    SYMBOLS,
    TRACK_CYCLE,
)
from .phases import PHASES

# Sizes of the layout, as C constants checked against the catalogue at import.
cdef enum:
    K = 28       # card kinds
    G = 6        # goods
    CYCLE = 20   # spaces after which the scoring track repeats
assert NUM_KINDS == K and len(GOODS) == G and len(TRACK_CYCLE) == CYCLE

cdef int N_BACKS = len(BACKS)
cdef int N_SYMBOLS = len(SYMBOLS)
cdef int NILE_COLUMNS = FIRST_CHARACTER + 1  # the 19 face-up kinds, then "a character, face down"
cdef int CHARACTER_COLUMN = FIRST_CHARACTER
cdef int CURSE_TOKEN = CURSE
cdef int PROSPERITY_TOKEN = PROSPERITY
cdef long PROSPERITY_WEIGHT = PROSPERITY_SCARABS
cdef double SCORE_SCALE = 100.0  # observation.SCORE_SCALE: scores are given in hundreds of points

cdef int KIND_BACK_OF[K]     # per kind, its back (green, beige, orange)
cdef int SYMBOL_OF[CYCLE]    # per space of the track cycle, its symbol
for _k in range(K):
    KIND_BACK_OF[_k] = KIND_BACK[_k]
for _k in range(CYCLE):
    SYMBOL_OF[_k] = TRACK_CYCLE[_k]

PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}  # observation.PHASE_INDEX
cdef int P_SET = PHASE_INDEX["set"]
cdef int P_TOKEN = PHASE_INDEX["token"]
cdef int P_GUILD = PHASE_INDEX["guild"]
cdef int P_CURSE = PHASE_INDEX["curse"]
cdef int P_PROSPERITY = PHASE_INDEX["prosperity"]
cdef int P_VIZIER_CARD = PHASE_INDEX["vizier_card"]
cdef int P_SCRIBE = PHASE_INDEX["scribe"]
cdef int P_THIEF_BACK = PHASE_INDEX["thief_back"]
cdef int P_COURTESAN_CARD = PHASE_INDEX["courtesan_card"]


cdef inline void put_row(float[::1] b, Py_ssize_t at, list counts):
    """A row of counts (a hand, a pile, tokens per kind) at ``at``."""
    cdef Py_ssize_t k
    for k in range(len(counts)):
        b[at + k] = <long>counts[k]


cdef inline void add_backs(float[::1] b, Py_ssize_t at, list cards):
    """catalogue.backs_of: the cards of a hand or pile per back, at ``at`` (green, beige, orange)."""
    cdef Py_ssize_t k
    cdef long c
    for k in range(K):
        c = cards[k]
        if c:
            b[at + KIND_BACK_OF[k]] += c


cdef inline long relative(long p, long seat, long n):
    """The seat ``p`` as seen from ``seat``: 0 is himself, then the opponents in seat order."""
    return (p - seat + n) % n


cdef class Encoder:
    """Writes ``seat``'s view of a state into ``buffer`` (the Observer's), by the offsets of its layout."""

    cdef readonly object buffer
    cdef float[::1] b
    cdef long n
    cdef bint memory
    # the offset of each section of observation_layout
    cdef Py_ssize_t hand, pile, nile, deck_size, round, scores, to_move, first_player, track_symbol
    cdef Py_ssize_t hand_backs, pile_backs, curses, sets, set_cards, set_points, known_hands, known_piles
    cdef Py_ssize_t tokens_left, used_tokens, token_choice, discard, vizier_pile, building, phase
    cdef Py_ssize_t phase_goods, phase_target, guild_symbol

    def __init__(self, buffer, dict at, int num_players, bint memory):
        self.buffer = buffer
        self.b = buffer
        self.n = num_players
        self.memory = memory
        self.hand, self.pile, self.nile = at["hand"], at["pile"], at["nile"]
        self.deck_size, self.round, self.scores = at["deck_size"], at["round"], at["scores"]
        self.to_move, self.first_player, self.track_symbol = at["to_move"], at["first_player"], at["track_symbol"]
        self.hand_backs, self.pile_backs, self.curses = at["hand_backs"], at["pile_backs"], at["curses"]
        self.sets, self.set_cards, self.set_points = at["sets"], at["set_cards"], at["set_points"]
        self.known_hands, self.known_piles = at["known_hands"], at["known_piles"]
        self.tokens_left, self.used_tokens, self.token_choice = at["tokens_left"], at["used_tokens"], at["token_choice"]
        self.discard, self.vizier_pile, self.building = at["discard"], at["vizier_pile"], at["building"]
        self.phase, self.phase_goods = at["phase"], at["phase_goods"]
        self.phase_target, self.guild_symbol = at["phase_target"], at["guild_symbol"]

    def encode(self, s, int seat):
        """Fill the buffer with ``seat``'s view of ``s`` and return it (not a copy)."""
        cdef float[::1] b = self.b
        cdef long n = self.n, i, p, pos, kind
        cdef long curses_on_players = 0, prosperity_on_sets = 0, left = 0
        cdef list hands = s.hands, piles = s.piles, markers = s.markers, curses = s.curses
        cdef list nile = s.nile, tokens = s.tokens
        if len(hands) != n:
            raise ValueError(f"the observer is for {n} players, the state has {len(hands)}")
        b[:] = 0
        put_row(b, self.hand, hands[seat])
        put_row(b, self.pile, piles[seat])
        for pos in range(len(nile)):  # one-hot kind per position; characters lie face down
            kind = nile[pos]
            b[self.nile + pos * NILE_COLUMNS + min(kind, CHARACTER_COLUMN)] = 1
        b[self.deck_size] = len(s.deck)
        b[self.round + <long>s.round - 1] = 1
        b[self.to_move + relative(s.current_player, seat, n)] = 1
        b[self.first_player + relative(s.first_player, seat, n)] = 1
        for i in range(n):  # rows per relative seat
            p = (seat + i) % n
            b[self.scores + i] = <long>markers[p] / SCORE_SCALE
            b[self.track_symbol + i * N_SYMBOLS + SYMBOL_OF[<long>markers[p] % CYCLE]] = 1
            add_backs(b, self.hand_backs + i * N_BACKS, hands[p])
            if i == 0 or self.memory:
                add_backs(b, self.pile_backs + i * N_BACKS, piles[p])
            b[self.curses + i] = <long>curses[p]
            curses_on_players += <long>curses[p]
            prosperity_on_sets += self._put_sets(i, s.sets[p], s.rules.kind_scarabs)
            if i and self.memory:
                put_row(b, self.known_hands + (i - 1) * K, s.known_hands[p])
                put_row(b, self.known_piles + (i - 1) * K, s.known_piles[p])
        for kind in range(len(tokens)):
            left += <long>tokens[kind]
        b[self.tokens_left] = left
        put_row(b, self.discard, s.discard)
        # revealed tokens: used this round, plus the Curses on players and the Prosperity on sets
        put_row(b, self.used_tokens, s.used_tokens)
        b[self.used_tokens + CURSE_TOKEN] += curses_on_players
        b[self.used_tokens + PROSPERITY_TOKEN] += prosperity_on_sets
        self._put_pending(s, seat)
        return self.buffer

    cdef long _put_sets(self, long i, list own, tuple kind_scarabs) except -1:
        """Relative seat ``i``'s sets: per goods cards, scarabs and Prosperity tokens (``sets``), cards per
        kind (``set_cards``) and what they score now (``set_points``, scoring.set_value). Returns the
        Prosperity tokens on them."""
        cdef float[::1] b = self.b
        cdef long g, k, c, cards, scarabs, prosperity, points = 0, tokens = 0
        cdef list counts
        cdef Py_ssize_t row
        for g in range(G):
            table_set = own[g]
            if table_set is None:
                continue
            counts = table_set.cards
            prosperity = table_set.prosperity
            cards = scarabs = 0
            for k in range(K):
                c = counts[k]
                if c:
                    cards += c
                    scarabs += c * <long>kind_scarabs[k]
                    b[self.set_cards + i * K + k] += c
            row = self.sets + (i * G + g) * 3
            b[row] = cards
            b[row + 1] = scarabs
            b[row + 2] = prosperity
            points += (scarabs + PROSPERITY_WEIGHT * prosperity) * cards
            tokens += prosperity
        b[self.set_points + i] = points / SCORE_SCALE
        return tokens

    cdef int _put_pending(self, s, long seat) except -1:
        """The sub-decision in progress: its one-hot phase and what it shows this seat."""
        cdef float[::1] b = self.b
        cdef long n = self.n
        cdef int phase
        cdef bint acting = s.current_player == seat
        pending = s.pending
        phase = PHASE_INDEX[None if pending is None else pending.phase]
        b[self.phase + phase] = 1
        if pending is None:
            return 0
        if phase == P_TOKEN and acting:  # the face-down tokens, to the chooser only
            put_row(b, self.token_choice, s.tokens)
        elif phase == P_CURSE:  # chosen, not yet placed
            b[self.used_tokens + CURSE_TOKEN] += 1
        elif phase == P_PROSPERITY:
            b[self.used_tokens + PROSPERITY_TOKEN] += 1
        if phase == P_SET or phase == P_COURTESAN_CARD:
            put_row(b, self.building, pending.cards)
            b[self.phase_goods + <long>pending.goods] = 1
        if phase == P_VIZIER_CARD or phase == P_THIEF_BACK:
            b[self.phase_target + relative(pending.target, seat, n)] = 1
            if phase == P_VIZIER_CARD and acting:  # the searched pile, to its searcher only
                put_row(b, self.vizier_pile, s.piles[pending.target])
        elif phase == P_SCRIBE:
            b[self.phase_target + relative(pending.actor, seat, n)] = 1
        elif phase == P_GUILD:
            b[self.guild_symbol + <long>pending.symbol] = 1
        return 0
