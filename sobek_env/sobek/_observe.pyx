# cython: language_level=3, wraparound=False, cdivision=True
"""Compiled twin of :meth:`sobek_env.observation.Observer.encode` (the Python method stays the reference).

:class:`Encoder` writes one seat's view of a :class:`~sobek_env.state.GameState` into the observer's
float32 buffer, reading the state's public lists and the seat's :class:`~sobek_env.view.SeatView`
(what the seat may see is decided there, never here), entry for entry as the Python path does:
``tests/sobek/test_observation_compiled.py`` checks the two vectors are identical. The layout (the offset
of each named section) comes from ``observation_layout``; the section names below are its names.

Bounds checks stay on: a state that does not match the layout raises IndexError instead of
writing outside the buffer.
"""

from .catalogue import (
    BACKS,
    CURSE,
    CURSE_WEIGHT,
    GOODS,
    KIND_BACK,
    NILE_FACE,
    NUM_KINDS,
    PROSPERITY,
    PROSPERITY_SCARABS,
    SCORE_SCALE as _SCORE_SCALE,
    SET_SLOTS,
    SYMBOLS,
    TRACK_CYCLE,
)
from .phases import (
    PHASE_INDEX,
    BuildSet,
    CourtesanCard,
    Curse,
    Guild,
    HorizontalSet,
    Prosperity,
    Scribe,
    ThiefBack,
    VizierCard,
)

# Sizes of the layout, as C constants checked against the catalogue at import.
cdef enum:
    K = 28       # card kinds
    SLOTS = 7    # set slots: six goods and the amulets-only set
    CYCLE = 20   # spaces after which the scoring track repeats
assert NUM_KINDS == K and len(SET_SLOTS) == SLOTS and len(TRACK_CYCLE) == CYCLE

cdef int N_BACKS = len(BACKS)
cdef int N_SYMBOLS = len(SYMBOLS)
cdef int NILE_COLUMNS = max(NILE_FACE) + 1
cdef int CURSE_TOKEN = CURSE
cdef int PROSPERITY_TOKEN = PROSPERITY
cdef long PROSPERITY_WEIGHT = PROSPERITY_SCARABS
cdef long CURSE_CARDS = CURSE_WEIGHT
cdef double SCORE_SCALE = _SCORE_SCALE

cdef int KIND_BACK_OF[K]     # per kind, its back (green, beige, orange)
cdef int NILE_FACE_OF[K]     # per kind, what it shows on the Nile
cdef int SYMBOL_OF[CYCLE]    # per space of the track cycle, its symbol
for _k in range(K):
    KIND_BACK_OF[_k] = KIND_BACK[_k]
    NILE_FACE_OF[_k] = NILE_FACE[_k]
for _k in range(CYCLE):
    SYMBOL_OF[_k] = TRACK_CYCLE[_k]


cdef inline void put_row(float[::1] b, Py_ssize_t at, list counts):
    """A row of counts (a hand, a pile, tokens per kind) at ``at``."""
    cdef Py_ssize_t k
    for k in range(len(counts)):
        b[at + k] = <long>counts[k]


cdef inline void add_row(float[::1] b, Py_ssize_t at, list counts):
    """A row of counts added to what is at ``at``."""
    cdef Py_ssize_t k
    cdef long c
    for k in range(len(counts)):
        c = counts[k]
        if c:
            b[at + k] += c


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
    cdef Py_ssize_t hand_backs, pile_backs, curses, sets, set_cards, set_points, horizontal
    cdef Py_ssize_t known_hands, known_piles, tokens_left, used_tokens, token_choice, tokens_known
    cdef Py_ssize_t discard, vizier_pile, building, phase, phase_goods, phase_target, guild_symbol
    cdef Py_ssize_t last_points, last_corruption, last_curses, last_most_corrupt, last_penalty, last_horizontal

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
        self.horizontal, self.known_hands, self.known_piles = at["horizontal"], at["known_hands"], at["known_piles"]
        self.tokens_left, self.used_tokens, self.token_choice = at["tokens_left"], at["used_tokens"], at["token_choice"]
        self.tokens_known, self.discard, self.vizier_pile = at["tokens_known"], at["discard"], at["vizier_pile"]
        self.building, self.phase, self.phase_goods = at["building"], at["phase"], at["phase_goods"]
        self.phase_target, self.guild_symbol = at["phase_target"], at["guild_symbol"]
        self.last_points, self.last_corruption, self.last_curses = (
            at["last_points"], at["last_corruption"], at["last_curses"])
        self.last_most_corrupt, self.last_penalty, self.last_horizontal = (
            at["last_most_corrupt"], at["last_penalty"], at["last_horizontal"])

    def encode(self, s, view):
        """Fill the buffer with the view ``view`` (a SeatView) of ``s`` and return it (not a copy)."""
        cdef float[::1] b = self.b
        cdef long n = self.n, seat = view.seat, i, p, pos
        cdef long curses_on_players = 0, prosperity_on_sets = 0, left = 0
        cdef list hands = s.hands, piles = s.piles, markers = s.markers, curses = s.curses
        cdef list nile = s.nile, tokens = s.tokens, horizontal
        cdef bint opponent_piles = view.opponent_piles
        if len(hands) != n:
            raise ValueError(f"the observer is for {n} players, the state has {len(hands)}")
        b[:] = 0
        put_row(b, self.hand, view.hand)
        put_row(b, self.pile, view.pile)
        for pos in range(len(nile)):  # one-hot of what each position shows (characters lie face down)
            b[self.nile + pos * NILE_COLUMNS + NILE_FACE_OF[<long>nile[pos]]] = 1
        b[self.deck_size] = len(s.deck)
        b[self.round + <long>s.round - 1] = 1
        b[self.to_move + relative(s.current_player, seat, n)] = 1
        b[self.first_player + relative(s.first_player, seat, n)] = 1
        known_hands, known_piles = view.known_hands, view.known_piles
        for i in range(n):  # rows per relative seat
            p = (seat + i) % n
            b[self.scores + i] = <long>markers[p] / SCORE_SCALE
            b[self.track_symbol + i * N_SYMBOLS + SYMBOL_OF[<long>markers[p] % CYCLE]] = 1
            add_backs(b, self.hand_backs + i * N_BACKS, hands[p])
            if i == 0 or opponent_piles:
                add_backs(b, self.pile_backs + i * N_BACKS, piles[p])
            b[self.curses + i] = <long>curses[p]
            curses_on_players += <long>curses[p]
            prosperity_on_sets += self._put_sets(i, s.sets[p], s.rules.kind_scarabs)
            horizontal = s.horizontal[p]
            for laid in horizontal:
                add_row(b, self.horizontal + i * K, laid[1])
            if i and known_hands is not None:
                put_row(b, self.known_hands + (i - 1) * K, known_hands[i - 1])
                put_row(b, self.known_piles + (i - 1) * K, known_piles[i - 1])
        for i in range(len(tokens)):
            left += <long>tokens[i]
        b[self.tokens_left] = left
        if view.token_choice is not None:
            put_row(b, self.token_choice, view.token_choice)
        if view.tokens_known is not None:
            put_row(b, self.tokens_known, view.tokens_known)
        if view.vizier_pile is not None:
            put_row(b, self.vizier_pile, view.vizier_pile)
        put_row(b, self.discard, s.discard)
        # revealed tokens: used this round, plus the Curses on players and the Prosperity on sets
        put_row(b, self.used_tokens, s.used_tokens)
        b[self.used_tokens + CURSE_TOKEN] += curses_on_players
        b[self.used_tokens + PROSPERITY_TOKEN] += prosperity_on_sets
        self._put_pending(s, seat)
        if s.round_log:
            self._put_last_round(s.round_log[-1], seat)
        return self.buffer

    cdef long _put_sets(self, long i, list own, tuple kind_scarabs) except -1:
        """Relative seat ``i``'s sets: per slot cards, scarabs and Prosperity tokens (``sets``), cards per
        kind (``set_cards``) and what they score now (``set_points``, scoring.set_value). Returns the
        Prosperity tokens on them."""
        cdef float[::1] b = self.b
        cdef long g, k, c, cards, scarabs, prosperity, points = 0, tokens = 0
        cdef list counts
        cdef Py_ssize_t row
        for g in range(SLOTS):
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
            row = self.sets + (i * SLOTS + g) * 3
            b[row] = cards
            b[row + 1] = scarabs
            b[row + 2] = prosperity
            points += (scarabs + PROSPERITY_WEIGHT * prosperity) * cards
            tokens += prosperity
        b[self.set_points + i] = points / SCORE_SCALE
        return tokens

    cdef int _put_pending(self, s, long seat) except -1:
        """The sub-decision in progress: its one-hot phase and its public facts."""
        cdef float[::1] b = self.b
        cdef long n = self.n
        pending = s.pending
        if pending is None:
            b[self.phase] = 1
            return 0
        kind = type(pending)
        b[self.phase + <long>PHASE_INDEX[kind]] = 1
        if kind is Curse:  # chosen, not yet placed
            b[self.used_tokens + CURSE_TOKEN] += 1
        elif kind is Prosperity:
            b[self.used_tokens + PROSPERITY_TOKEN] += 1
        elif kind is BuildSet or kind is HorizontalSet:
            put_row(b, self.building, pending.cards)
            b[self.phase_goods + <long>pending.goods] = 1
        elif kind is CourtesanCard:
            put_row(b, self.building, pending.cards)
            b[self.phase_goods + <long>pending.slot] = 1
        elif kind is VizierCard or kind is ThiefBack:
            b[self.phase_target + relative(pending.target, seat, n)] = 1
        elif kind is Scribe:
            b[self.phase_target + relative(pending.actor, seat, n)] = 1
        elif kind is Guild:
            b[self.guild_symbol + <long>pending.symbol] = 1
        return 0

    cdef int _put_last_round(self, dict last, long seat) except -1:
        """The public summary of the last scored round (rules §10), per relative seat."""
        cdef float[::1] b = self.b
        cdef long n = self.n, i, p
        cdef list points = last["points"], corruption = last["corruption"], curses = last["curses"]
        cdef list penalty = last["penalty"], horizontal = last["horizontal"]
        for i in range(n):
            p = (seat + i) % n
            b[self.last_points + i] = <long>points[p] / SCORE_SCALE
            b[self.last_corruption + i] = <long>corruption[p] - CURSE_CARDS * <long>curses[p]
            b[self.last_curses + i] = <long>curses[p]
            b[self.last_penalty + i] = <long>penalty[p] / SCORE_SCALE
            put_row(b, self.last_horizontal + i * K, horizontal[p])
        for p in last["most_corrupt"]:
            b[self.last_most_corrupt + relative(p, seat, n)] = 1
        return 0
