# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled twins of :meth:`sobek_env.sobek.observation.Observer.encode_python` and of the reading of a vector
back into a :class:`~sobek_env.sobek.view.View` (the Python functions stay the reference).

:class:`Encoder` writes one seat's view of a :class:`~sobek_env.sobek.state.GameState` into the observer's
float32 buffer straight from the state, for speed, entry for entry as the Python path writes the seat's
``view.view`` (where what a seat may see is decided; the few lines below that follow it say so):
``tests/sobek/test_observation_compiled.py`` checks the two vectors are identical on every seat of many
games. The layout (the offset of each named section) comes from ``observation_layout``; the section names
below are its names.

It writes through a raw pointer, without Cython's per-index checks, and checks instead what can make a
write leave its section: the layout's widths once, when the encoder is built; each list copied as a row
for its exact length; each one-hot index read from the state for its range. A state that does not
match the layout raises ValueError or IndexError instead of writing outside the buffer.
"""

from .catalogue import (
    BACKS,
    CURSE,
    CURSE_WEIGHT,
    KIND_BACK,
    NILE_FACE,
    NUM_KINDS,
    NUM_TOKEN_KINDS,
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
    ChooseToken,
    CourtesanCard,
    Curse,
    Guild,
    HorizontalSet,
    Prosperity,
    Scribe,
    ThiefBack,
    VizierCard,
)

from cpython.ref cimport PyObject
from libc.string cimport memset

cdef extern from "Python.h":
    PyObject *item_of "PyList_GET_ITEM" (list, Py_ssize_t)  # a borrowed reference: no count to keep

# Sizes of the layout, as C constants checked against the catalogue at import.
cdef enum:
    K = 28       # card kinds
    T = 9        # token kinds
    SLOTS = 7    # set slots: six goods and the amulets-only set
    CYCLE = 20   # spaces after which the scoring track repeats
assert NUM_KINDS == K and NUM_TOKEN_KINDS == T and len(SET_SLOTS) == SLOTS and len(TRACK_CYCLE) == CYCLE

cdef int N_BACKS = len(BACKS)
cdef int N_SYMBOLS = len(SYMBOLS)
cdef int NILE_COLUMNS = max(NILE_FACE) + 1
cdef int CURSE_TOKEN = CURSE
cdef int PROSPERITY_TOKEN = PROSPERITY
cdef long PROSPERITY_WEIGHT = PROSPERITY_SCARABS
cdef long CURSE_CARDS = CURSE_WEIGHT
cdef double SCORE_SCALE = _SCORE_SCALE
assert 0 <= CURSE_TOKEN < T and 0 <= PROSPERITY_TOKEN < T

cdef int KIND_BACK_OF[K]     # per kind, its back (green, beige, orange)
cdef int NILE_FACE_OF[K]     # per kind, what it shows on the Nile
cdef int SYMBOL_OF[CYCLE]    # per space of the track cycle, its symbol
for _k in range(K):
    KIND_BACK_OF[_k] = KIND_BACK[_k]
    NILE_FACE_OF[_k] = NILE_FACE[_k]
    assert 0 <= KIND_BACK_OF[_k] < N_BACKS and 0 <= NILE_FACE_OF[_k] < NILE_COLUMNS
for _k in range(CYCLE):
    SYMBOL_OF[_k] = TRACK_CYCLE[_k]
    assert 0 <= SYMBOL_OF[_k] < N_SYMBOLS


cdef object _ZERO = 0
cdef PyObject *ZERO = <PyObject *>_ZERO  # CPython's cached 0, which most counts are: skipped unread


cdef inline int check_width(list counts, Py_ssize_t width) except -1:
    if len(counts) != width:
        raise ValueError(f"a row of {len(counts)} counts where the layout has {width}")
    return 0


cdef inline int put_row(float *out, list counts, Py_ssize_t width) except -1:
    """A row of ``width`` counts (a hand, a pile, tokens per kind) at ``out``."""
    cdef Py_ssize_t k
    cdef PyObject *c
    check_width(counts, width)
    for k in range(width):
        c = item_of(counts, k)
        if c != ZERO:
            out[k] = <long><object>c
    return 0


cdef inline int add_row(float *out, list counts) except -1:
    """A row of counts per kind added to what is at ``out``."""
    cdef Py_ssize_t k
    cdef PyObject *c
    check_width(counts, K)
    for k in range(K):
        c = item_of(counts, k)
        if c != ZERO:
            out[k] += <long><object>c
    return 0


cdef inline int add_backs(float *out, list cards) except -1:
    """catalogue.backs_of: the cards of a hand or pile per back, at ``out`` (green, beige, orange)."""
    cdef Py_ssize_t k
    cdef PyObject *c
    check_width(cards, K)
    for k in range(K):
        c = item_of(cards, k)
        if c != ZERO:
            out[KIND_BACK_OF[k]] += <long><object>c
    return 0


cdef inline int put_flag(float *out, long i, long width) except -1:
    """1 at ``out + i``, a one-hot index read from the state: it must lie within its section's ``width``."""
    if i < 0 or i >= width:
        raise IndexError(f"one-hot index {i} outside its section of {width} entries")
    out[i] = 1
    return 0


cdef inline long relative(long p, long seat, long n) except -1:
    """The seat ``p`` as seen from ``seat``: 0 is himself, then the opponents in seat order."""
    if p < 0 or p >= n:
        raise IndexError(f"seat {p} at a table of {n}")
    return (p - seat + n) % n


cdef class Encoder:
    """Writes ``seat``'s view of a state into ``buffer`` (the Observer's), by the offsets of its layout."""

    cdef readonly object buffer
    cdef float[::1] b    # holds the buffer's memory, which ``out`` points into
    cdef float *out
    cdef Py_ssize_t size
    cdef long n
    cdef bint memory
    # the offset of each section of observation_layout
    cdef Py_ssize_t hand, pile, nile, deck_size, round, scores, to_move, first_player, track_symbol
    cdef Py_ssize_t hand_backs, pile_backs, curses, sets, set_cards, set_points, horizontal
    cdef Py_ssize_t known_hands, known_piles, tokens_left, used_tokens, token_choice, tokens_known
    cdef Py_ssize_t discard, vizier_pile, building, phase, phase_goods, phase_target, guild_symbol
    cdef Py_ssize_t last_points, last_corruption, last_curses, last_most_corrupt, last_penalty, last_horizontal
    # the widths of the one-hot sections whose size the catalogue does not fix here
    cdef long nile_slots, rounds, phases, glyphs
    # the rules last seen, and their scarabs per kind
    cdef object rules
    cdef long scarabs[K]

    def __init__(self, buffer, dict at, int num_players, bint memory):
        self.buffer = buffer
        self.b = buffer
        self.size = self.b.shape[0]
        self.out = &self.b[0]
        self.n = num_players
        self.memory = memory
        width = _widths(at, self.size)
        n = num_players
        rows = {
            "hand": K, "pile": K, "deck_size": 1, "scores": n, "to_move": n, "first_player": n,
            "track_symbol": n * N_SYMBOLS, "hand_backs": n * N_BACKS, "pile_backs": n * N_BACKS, "curses": n,
            "sets": n * SLOTS * 3, "set_cards": n * K, "set_points": n, "horizontal": n * K,
            "known_hands": (n - 1) * K, "known_piles": (n - 1) * K, "tokens_left": 1, "used_tokens": T,
            "token_choice": T, "tokens_known": T, "discard": K, "vizier_pile": K, "building": K,
            "phase_goods": SLOTS, "phase_target": n, "last_points": n, "last_corruption": n, "last_curses": n,
            "last_most_corrupt": n, "last_penalty": n, "last_horizontal": n * K,
        }
        for name, want in rows.items():
            if width[name] != want:
                raise ValueError(f"the layout's {name!r} has {width[name]} entries, the encoder writes {want}")
        if width["nile"] % NILE_COLUMNS:
            raise ValueError(f"the layout's 'nile' has {width['nile']} entries, not rows of {NILE_COLUMNS}")
        self.nile_slots = width["nile"] // NILE_COLUMNS
        self.rounds, self.phases, self.glyphs = width["round"], width["phase"], width["guild_symbol"]
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
        self.rules = None

    cdef int _load_rules(self, rules) except -1:
        """Keep the scarabs per kind of ``rules`` (the rules options change them), read once per rules."""
        cdef tuple kind_scarabs = rules.kind_scarabs
        cdef Py_ssize_t k
        if len(kind_scarabs) != K:
            raise ValueError(f"scarabs for {len(kind_scarabs)} kinds, the layout has {K}")
        for k in range(K):
            self.scarabs[k] = kind_scarabs[k]
        self.rules = rules
        return 0

    def encode(self, s, long seat):
        """Fill the buffer with ``seat``'s view of ``s`` and return it (not a copy)."""
        cdef float *out = self.out
        cdef long n = self.n, i, p, pos, kind, marker
        cdef long curses_on_players = 0, prosperity_on_sets = 0, left = 0
        cdef list hands = s.hands, piles = s.piles, markers = s.markers, curses = s.curses
        cdef list nile = s.nile, tokens = s.tokens, sets = s.sets, horizontal = s.horizontal, laid
        cdef list known_hands = None, known_piles = None, row
        cdef bint memory = self.memory, acting
        if len(hands) != n or len(piles) != n or len(markers) != n or len(curses) != n or len(sets) != n \
                or len(horizontal) != n:
            raise ValueError(f"the observer is for {n} players, the state has {len(hands)}")
        if seat < 0 or seat >= n:
            raise IndexError(f"seat {seat} at a table of {n}")
        # what the seat sees beyond the public table, as view.view decides it (rules §10)
        pending = s.pending
        acting = s.current_player == seat and not s.over
        if memory:
            known_hands, known_piles = s.known_hands[seat], s.known_piles[seat]
        rules = s.rules
        if rules is not self.rules:
            self._load_rules(rules)
        memset(out, 0, self.size * sizeof(float))
        put_row(out + self.hand, hands[seat], K)
        put_row(out + self.pile, piles[seat], K)
        if len(nile) > self.nile_slots:
            raise IndexError(f"{len(nile)} cards on the Nile, the layout has {self.nile_slots} positions")
        for pos in range(len(nile)):  # one-hot of what each position shows (characters lie face down)
            kind = nile[pos]
            if kind < 0 or kind >= K:
                raise IndexError(f"card kind {kind} on the Nile")
            out[self.nile + pos * NILE_COLUMNS + NILE_FACE_OF[kind]] = 1
        out[self.deck_size] = len(s.deck)
        put_flag(out + self.round, <long>s.round - 1, self.rounds)
        out[self.to_move + relative(s.current_player, seat, n)] = 1
        out[self.first_player + relative(s.first_player, seat, n)] = 1
        for i in range(n):  # rows per relative seat
            p = (seat + i) % n
            marker = markers[p]
            out[self.scores + i] = marker / SCORE_SCALE
            marker %= CYCLE  # rules' symbol_at, with Python's sign
            out[self.track_symbol + i * N_SYMBOLS + SYMBOL_OF[marker + CYCLE if marker < 0 else marker]] = 1
            add_backs(out + self.hand_backs + i * N_BACKS, hands[p])
            if i == 0 or memory:
                add_backs(out + self.pile_backs + i * N_BACKS, piles[p])
            out[self.curses + i] = <long>curses[p]
            curses_on_players += <long>curses[p]
            prosperity_on_sets += self._put_sets(i, sets[p])
            laid = horizontal[p]
            for group in laid:
                add_row(out + self.horizontal + i * K, group[1])
            if i and known_hands is not None:  # the state's rows are by seat
                check_width(known_hands, n)
                check_width(known_piles, n)
                put_row(out + self.known_hands + (i - 1) * K, known_hands[p], K)
                put_row(out + self.known_piles + (i - 1) * K, known_piles[p], K)
        check_width(tokens, T)
        for i in range(T):
            left += <long>tokens[i]
        out[self.tokens_left] = left
        if acting and type(pending) is ChooseToken:  # view.chooses_token
            put_row(out + self.token_choice, tokens, T)
        if memory and s.token_glimpse[seat]:  # view.knows_tokens
            put_row(out + self.tokens_known, tokens, T)
        if acting and type(pending) is VizierCard:  # view.searched_pile
            put_row(out + self.vizier_pile, piles[pending.target], K)
        put_row(out + self.discard, s.discard, K)
        # revealed tokens: used this round, plus the Curses on players and the Prosperity on sets
        put_row(out + self.used_tokens, s.used_tokens, T)
        out[self.used_tokens + CURSE_TOKEN] += curses_on_players
        out[self.used_tokens + PROSPERITY_TOKEN] += prosperity_on_sets
        self._put_pending(pending, seat)
        row = s.round_log
        if row:
            self._put_last_round(row[len(row) - 1], seat)
        return self.buffer

    cdef long _put_sets(self, long i, list own) except -1:
        """Relative seat ``i``'s sets: per slot cards, scarabs and Prosperity tokens (``sets``), cards per
        kind (``set_cards``) and what they score now (``set_points``, scoring.set_value). Returns the
        Prosperity tokens on them."""
        cdef float *out = self.out
        cdef long g, k, c, cards, scarabs, prosperity, points = 0, tokens = 0
        cdef list counts
        cdef Py_ssize_t row
        check_width(own, SLOTS)
        for g in range(SLOTS):
            table_set = own[g]
            if table_set is None:
                continue
            counts = table_set.cards
            check_width(counts, K)
            prosperity = table_set.prosperity
            cards = scarabs = 0
            for k in range(K):
                c = counts[k]
                if c:
                    cards += c
                    scarabs += c * self.scarabs[k]
                    out[self.set_cards + i * K + k] += c
            row = self.sets + (i * SLOTS + g) * 3
            out[row] = cards
            out[row + 1] = scarabs
            out[row + 2] = prosperity
            points += (scarabs + PROSPERITY_WEIGHT * prosperity) * cards
            tokens += prosperity
        out[self.set_points + i] = points / SCORE_SCALE
        return tokens

    cdef int _put_pending(self, pending, long seat) except -1:
        """The sub-decision in progress: its one-hot phase and its public facts."""
        cdef float *out = self.out
        cdef long n = self.n
        if pending is None:
            out[self.phase] = 1
            return 0
        kind = type(pending)
        put_flag(out + self.phase, PHASE_INDEX[kind], self.phases)
        if kind is Curse:  # chosen, not yet placed
            out[self.used_tokens + CURSE_TOKEN] += 1
        elif kind is Prosperity:
            out[self.used_tokens + PROSPERITY_TOKEN] += 1
        elif kind is BuildSet or kind is HorizontalSet:
            put_row(out + self.building, pending.cards, K)
            put_flag(out + self.phase_goods, pending.goods, SLOTS)
        elif kind is CourtesanCard:
            put_row(out + self.building, pending.cards, K)
            put_flag(out + self.phase_goods, pending.slot, SLOTS)
        elif kind is VizierCard or kind is ThiefBack:
            out[self.phase_target + relative(pending.target, seat, n)] = 1
        elif kind is Scribe:
            out[self.phase_target + relative(pending.actor, seat, n)] = 1
        elif kind is Guild:
            put_flag(out + self.guild_symbol, pending.symbol, self.glyphs)
        return 0

    cdef int _put_last_round(self, dict last, long seat) except -1:
        """The public summary of the last scored round (rules §10), per relative seat."""
        cdef float *out = self.out
        cdef long n = self.n, i, p
        cdef list points = last["points"], corruption = last["corruption"], curses = last["curses"]
        cdef list penalty = last["penalty"], horizontal = last["horizontal"]
        for row in (points, corruption, curses, penalty, horizontal):
            check_width(row, n)
        for i in range(n):
            p = (seat + i) % n
            out[self.last_points + i] = <long>points[p] / SCORE_SCALE
            out[self.last_corruption + i] = <long>corruption[p] - CURSE_CARDS * <long>curses[p]
            out[self.last_curses + i] = <long>curses[p]
            out[self.last_penalty + i] = <long>penalty[p] / SCORE_SCALE
            put_row(out + self.last_horizontal + i * K, horizontal[p], K)
        for p in last["most_corrupt"]:
            out[self.last_most_corrupt + relative(p, seat, n)] = 1
        return 0


def _widths(dict at, Py_ssize_t size) -> dict:
    """The number of entries of each section: from its offset to the next section's (the last to ``size``)."""
    ordered = sorted(at.items(), key=lambda item: item[1])
    ends = [start for _, start in ordered[1:]] + [size]
    return {name: end - start for (name, start), end in zip(ordered, ends)}


# ---------------------------------------------------------------------- decoding

cimport cython
from libc.math cimport isfinite, nearbyint

from .phases import PHASES as _PHASES

cdef list _PHASE_LIST = list(_PHASES)
cdef double DECODABLE = 2147483648.0  # 2**31: beyond it (or not finite) the Python decoder reads the vector
cdef int HIDDEN_COLUMN = NILE_COLUMNS - 1  # decode.HIDDEN: a face-down character on the Nile
cdef int FIRST_CHARACTER_KIND = NILE_COLUMNS - 1


# The readers below take the vector's first entry's address rather than the memoryview: passing a memoryview
# to a function counts a reference on it, and a decode calls them dozens of times. The offsets they are given
# come from the layout, whose size ``Decoder`` checks against the vector's.
cdef inline list ints_of(const float *x, Py_ssize_t at, Py_ssize_t size):
    return [<long>x[i] for i in range(at, at + size)]


cdef inline list rows_of(const float *x, Py_ssize_t at, Py_ssize_t rows, Py_ssize_t width):
    return [ints_of(x, at + r * width, width) for r in range(rows)]


cdef inline list scaled_of(const float *x, Py_ssize_t at, Py_ssize_t size):
    return [<long>nearbyint(<double>x[i] * SCORE_SCALE) for i in range(at, at + size)]  # round(): halves to even


cdef inline long index_of(const float *x, Py_ssize_t at, Py_ssize_t size):
    """The first entry whose whole part is 1, else -1 (``observation.read_python``'s ``index``)."""
    cdef Py_ssize_t i
    for i in range(size):
        if <long>x[at + i] == 1:
            return i
    return -1


cdef inline void add_rows(long *out, const float *x, Py_ssize_t at, Py_ssize_t rows):
    """Add ``rows`` rows of K counts from ``at`` to ``out``."""
    cdef Py_ssize_t r, k
    for r in range(rows):
        for k in range(K):
            out[k] += <long>x[at + r * K + k]


cdef inline long rows_index(const float *x, Py_ssize_t at, Py_ssize_t rows, Py_ssize_t width, list out):
    """Append to ``out`` the index_of of each of ``rows`` rows of ``width`` entries from ``at``."""
    cdef Py_ssize_t r
    for r in range(rows):
        out.append(index_of(x, at + r * width, width))
    return 0


cdef struct Sections:
    # a number per section of observation_layout (its offset, or its width), as C fields: a decode reads
    # dozens of them, and a field costs nothing where a dictionary lookup does
    Py_ssize_t hand, pile, nile, deck_size, round, scores, to_move, first_player, track_symbol
    Py_ssize_t hand_backs, pile_backs, curses, sets, set_cards, set_points, horizontal
    Py_ssize_t known_hands, known_piles, tokens_left, used_tokens, token_choice, tokens_known
    Py_ssize_t discard, vizier_pile, building, phase, phase_goods, phase_target, guild_symbol
    Py_ssize_t last_points, last_corruption, last_curses, last_most_corrupt, last_penalty, last_horizontal


cdef class Decoder:
    """Reads an observation vector into a :class:`~sobek_env.sobek.view.View` (:meth:`read`), or into the
    baselines' :class:`~sobek_env.sobek.decode.View` with what it derives (:meth:`fill`): the compiled twin
    of ``observation.read_python`` and of ``decode.View``'s derivation (the references), which the tests
    compare it with on every seat of many games. Both return a false value for a vector they leave to the
    reference (an entry not finite or too large for a C integer), so errors and edge cases stay the
    reference's."""

    cdef Py_ssize_t n, size
    cdef Sections at, length
    cdef Py_ssize_t nile_rows, nile_width, symbols

    def __init__(self, dict slices, dict shapes, int num_players):
        self.n = num_players
        self.at = {name: sl.start for name, sl in slices.items()}  # (a dict converts to the struct by names)
        self.length = {name: sl.stop - sl.start for name, sl in slices.items()}
        self.size = max(sl.stop for sl in slices.values())
        self.nile_rows, self.nile_width = shapes["nile"]
        self.symbols = shapes["track_symbol"][1]
        for name in ("hand", "pile", "discard", "vizier_pile", "building"):
            assert shapes[name] == (K,), name
        for name in ("set_cards", "horizontal", "known_hands", "known_piles", "last_horizontal"):
            assert shapes[name][len(shapes[name]) - 1] == K, name  # (no negative indices: wraparound is off)
        assert self.nile_width == NILE_COLUMNS

    cdef bint _decodable(self, const float[::1] x):
        cdef Py_ssize_t i
        if x.shape[0] != self.size:
            return False
        for i in range(self.size):
            if not isfinite(x[i]) or not -DECODABLE < x[i] < DECODABLE:
                return False
        return True

    @cython.boundscheck(True)
    cdef list _read(self, view, const float[::1] x):
        """Set ``view``'s fields read from ``x`` (decodable); return its Nile."""
        cdef Sections *at = &self.at
        cdef Sections *length = &self.length
        cdef Py_ssize_t n = self.n, k, r, best, start
        cdef long value, phase, top
        cdef bint occupied
        cdef const float *xs = &x[0]
        view.num_players = n
        view.hand = ints_of(xs, at.hand, K)
        view.pile = ints_of(xs, at.pile, K)
        start = at.nile
        nile = []
        for r in range(self.nile_rows):  # argmax of each row with a nonzero entry: the Nile fills from 0
            best, top, occupied = 0, <long>x[start + r * self.nile_width], False
            for k in range(self.nile_width):
                value = <long>x[start + r * self.nile_width + k]
                occupied = occupied or value != 0
                if value > top:  # the first of the largest, as numpy's argmax
                    best, top = k, value
            if occupied:
                nile.append(best)
        view.nile = nile
        view.deck = <long>x[at.deck_size]
        view.round = index_of(xs, at.round, length.round) + 1
        view.scores = scaled_of(xs, at.scores, n)
        view.to_move = index_of(xs, at.to_move, n)
        view.first_player = index_of(xs, at.first_player, n)
        symbols = []
        rows_index(xs, at.track_symbol, n, self.symbols, symbols)
        view.track_symbol = symbols
        view.hand_backs = rows_of(xs, at.hand_backs, n, 3)
        view.pile_backs = rows_of(xs, at.pile_backs, n, 3)
        view.curses = ints_of(xs, at.curses, n)
        start = at.sets
        view.sets = [rows_of(xs, start + p * SLOTS * 3, SLOTS, 3) for p in range(n)]
        view.set_cards = rows_of(xs, at.set_cards, n, K)
        view.set_points = scaled_of(xs, at.set_points, n)
        view.horizontal = rows_of(xs, at.horizontal, n, K)
        view.known_hands = rows_of(xs, at.known_hands, n - 1, K)
        view.known_piles = rows_of(xs, at.known_piles, n - 1, K)
        view.tokens_left = <long>x[at.tokens_left]
        view.used_tokens = ints_of(xs, at.used_tokens, T)
        view.token_choice = ints_of(xs, at.token_choice, T)
        known_tokens = ints_of(xs, at.tokens_known, T)
        view.tokens_known = known_tokens if any(known_tokens) else None
        view.discard = ints_of(xs, at.discard, K)
        view.vizier_pile = ints_of(xs, at.vizier_pile, K)
        view.building = ints_of(xs, at.building, K)
        phase = index_of(xs, at.phase, length.phase)
        # read_python: PHASES[index].name, where no entry of 1 (-1) names the last phase
        view.phase = None if phase == 0 else _PHASE_LIST[phase if phase >= 0 else len(_PHASE_LIST) - 1].name
        view.phase_goods = index_of(xs, at.phase_goods, length.phase_goods)
        view.phase_target = index_of(xs, at.phase_target, length.phase_target)
        view.guild_symbol = index_of(xs, at.guild_symbol, length.guild_symbol)
        view.last_points = scaled_of(xs, at.last_points, n)
        view.last_corruption = ints_of(xs, at.last_corruption, n)
        view.last_curses = ints_of(xs, at.last_curses, n)
        view.last_most_corrupt = ints_of(xs, at.last_most_corrupt, n)
        view.last_penalty = scaled_of(xs, at.last_penalty, n)
        view.last_horizontal = rows_of(xs, at.last_horizontal, n, K)
        return nile

    def read(self, view, const float[::1] x):
        """Set ``view``'s fields read from ``x``; False to leave ``x`` to the reference."""
        if not self._decodable(x):
            return False
        self._read(view, x)
        return True

    @cython.boundscheck(True)
    def fill(self, view, const float[::1] x, object catalogue):
        """:meth:`read`, then ``view.hand_size``; return (unseen per kind, the observer's own cards off his
        hand, each seat's pile size by its backs), what the rest of ``decode.View`` derives from, or None to
        leave ``x`` to the reference."""
        cdef Sections *at = &self.at
        cdef Py_ssize_t n = self.n, k, r, start
        cdef long own[K]
        cdef long seen[K]
        cdef double unseen[K]
        cdef long total, value, hidden
        cdef double left, factor
        cdef bint building_off
        cdef const float *xs
        if not self._decodable(x):
            return None
        nile = self._read(view, x)
        xs = &x[0]
        start = at.hand_backs  # each hand's cards: the sum of its backs
        view.hand_size = [<long>xs[start + 3 * p] + <long>xs[start + 3 * p + 1] + <long>xs[start + 3 * p + 2]
                          for p in range(n)]

        # what the observer has seen this round, as decode.View counts it
        building_off = view.phase in ("set", "horizontal_set")
        for k in range(K):
            own[k] = 0
        add_rows(own, xs, at.hand, 1)
        add_rows(own, xs, at.pile, 1)
        add_rows(own, xs, at.discard, 1)
        add_rows(own, xs, at.set_cards, n)
        if building_off:
            add_rows(own, xs, at.building, 1)
        add_rows(own, xs, at.horizontal, n)
        total = 0
        for k in range(K):
            total += own[k]
            seen[k] = own[k]
        add_rows(seen, xs, at.known_hands, n - 1)
        add_rows(seen, xs, at.known_piles, n - 1)
        start = at.nile
        for r in range(self.nile_rows):
            for k in range(NILE_COLUMNS - 1):
                seen[k] += <long>x[start + r * self.nile_width + k]
        for k in range(K):
            value = <long>catalogue[k] - seen[k]
            unseen[k] = <double>(value if value > 0 else 0)
        hidden = nile.count(HIDDEN_COLUMN)
        if hidden:  # a face-down character on the Nile is no longer in the deck
            left = 0.0
            for k in range(FIRST_CHARACTER_KIND, K):
                left += unseen[k]  # whole numbers: exact in any order
            factor = (left - hidden if left - hidden > 0.0 else 0.0) / left if left else 0.0
            for k in range(FIRST_CHARACTER_KIND, K):
                unseen[k] *= factor
        start = at.pile_backs
        piles = [<long>x[start + 3 * p] + <long>x[start + 3 * p + 1] + <long>x[start + 3 * p + 2] for p in range(n)]
        return [unseen[k] for k in range(K)], total, piles
