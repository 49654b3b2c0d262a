# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True, annotation_typing=False, always_allow_keywords=False
"""Sobek's native engine (``native/engine.hpp``) behind the public protocol of :class:`~.state.GameState`.

:class:`NativeState` plays the same game as the Python engine, bit for bit: the same legal actions,
the same ``to_json()`` after every action (generator state included), the same observations and
``resample`` results (``tests/sobek/test_native.py``). Documents are read by the Python strict reader
and converted (:meth:`NativeState.from_python`); :meth:`NativeState.to_python` gives back an equal Python
state, through which ``to_json`` writes. Every value coming from Python is range-checked here before it
reaches the C++ arrays.
"""

import random
from numbers import Integral

import numpy as np

from ..errors import IllegalActionError
from ..randomness import as_random
from . import actions as A
from .actions import ACTION_NAMES
from .catalogue import MAX_PLAYERS as _MAX_PLAYERS, NUM_KINDS as _NUM_KINDS, make_rules
from .invariants import check
from .observation import observation_layout
from .phases import (
    PHASES,
    BuildSet,
    CourtesanCard,
    Guild,
    Horizontal,
    HorizontalSet,
    PriestCharacters,
    Scribe,
    ThiefBack,
    TurnStart,
    VizierCard,
)
from .scoring import TableSet as PyTableSet
from .state import EVENTS, GameState

from libc.stdint cimport int8_t, uint64_t
from libc.string cimport memset

include "../native/state.pxi"

cdef int K = NUM_KINDS
cdef int MAX_MARKER = 1 << 30  # far above any score; keeps every sum of points inside 32 bits

assert _NUM_KINDS == NUM_KINDS and _MAX_PLAYERS == MAX_PLAYERS and A.NUM_ACTIONS == NUM_ACTIONS
assert len(EVENTS) == NUM_EVENTS and len(PHASES) == NUM_PHASES and PHASES[TURN_START] is TurnStart
cdef dict PHASE_ID = {phase: i for i, phase in enumerate(PHASES)}
cdef tuple PHASE_NAMES = tuple(None if phase is TurnStart else phase.name for phase in PHASES)


def _check_layout() -> None:
    """The C++ layout (observe.hpp) has observation_layout's size for every player count (the differential
    test compares every entry); a mismatch refuses the import, so the Python engine serves."""
    cdef Layout* layout
    for n in range(2, MAX_PLAYERS + 1):
        layout = new Layout(n)
        try:
            size = layout.size
        finally:
            del layout
        slices = observation_layout(n)
        if size != max(sl.stop for sl in slices.values()) or size != observation_size(n):
            raise ImportError(f"the native encoder's layout ({size} entries) differs from observation_layout({n})")


_check_layout()


# ---------------------------------------------------------------------- reading Python values, checked

cdef int _int(object value, long low, long high, str what) except? -1:
    """``value`` as a C int, refused unless it is an int (not a bool) from ``low`` to ``high``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{what} must be an int from {low} to {high}, got {value!r}"[:300])
    return value


cdef int _cards(object counts, int8_t* out, str what) except -1:
    """A list of counts per card kind into ``out``."""
    if not isinstance(counts, (list, tuple)) or len(counts) != K:
        raise ValueError(f"{what} must be {K} counts per card kind")
    for k in range(K):
        out[k] = _int(counts[k], 0, TOTAL_CARDS, what)
    return 0


cdef list _list(const int8_t* cards):
    return [cards[k] for k in range(K)]


cdef int _rules(object rules, RulesTable* out) except -1:
    n = _int(rules.num_players, 2, MAX_PLAYERS, "rules.num_players")
    out.num_players = n
    for k in range(K):
        out.kind_goods[k] = _int(rules.kind_goods[k], -1, 5, "rules.kind_goods")
        out.kind_scarabs[k] = _int(rules.kind_scarabs[k], 0, 9, "rules.kind_scarabs")
        out.catalogue[k] = _int(rules.catalogue[k], 0, TOTAL_CARDS, "rules.catalogue")
    return 0


cdef int _queue(object queue, Pending* q, int n) except -1:
    if not isinstance(queue, list) or len(queue) > MAX_PLAYERS:
        raise ValueError("pending.queue must be a list of at most 4 seats")
    q.queue_len = len(queue)
    for i, seat in enumerate(queue):
        q.queue[i] = _int(seat, 0, n - 1, "pending.queue")
    return 0


cdef int _pending(object pending, Pending* q, int n) except -1:
    """The Python phase object into the C++ pending sub-decision."""
    memset(q, 0, sizeof(Pending))
    if pending is None:
        q.phase = TURN_START
        return 0
    kind = type(pending)
    if kind not in PHASE_ID or kind is TurnStart:
        raise ValueError(f"pending must be a phase of phases.PHASES, got {pending!r}"[:300])
    q.phase = PHASE_ID[kind]
    if kind is BuildSet or kind is HorizontalSet:
        q.goods = _int(pending.goods, 0, 5, "pending.goods")
        _cards(pending.cards, q.cards, "pending.cards")
    if kind is CourtesanCard:
        q.goods = _int(pending.slot, 0, SET_SLOTS - 1, "pending.slot")
        _cards(pending.cards, q.cards, "pending.cards")
    elif kind is PriestCharacters:
        q.goods = _int(pending.goods, 0, 5, "pending.goods")
    elif kind is Guild:
        q.symbol = _int(pending.symbol, 0, 3, "pending.symbol")
    elif kind is VizierCard or kind is ThiefBack:
        q.target = _int(pending.target, 0, n - 1, "pending.target")
    elif kind is Scribe:
        q.actor = _int(pending.actor, 0, n - 1, "pending.actor")
    if kind is Scribe or kind is Horizontal or kind is HorizontalSet:
        _queue(pending.queue, q, n)
    return 0


cdef object _py_pending(const Pending* q):
    """The C++ pending sub-decision as the Python phase object."""
    cdef int phase = q.phase
    kind = PHASES[phase]
    if kind is TurnStart:
        return None
    queue = [q.queue[i] for i in range(q.queue_len)]
    if kind is BuildSet:
        return BuildSet(q.goods, _list(q.cards))
    if kind is HorizontalSet:
        return HorizontalSet(q.goods, _list(q.cards), queue)
    if kind is CourtesanCard:
        return CourtesanCard(q.goods, _list(q.cards))
    if kind is PriestCharacters:
        return PriestCharacters(q.goods)
    if kind is Guild:
        return Guild(q.symbol)
    if kind is VizierCard or kind is ThiefBack:
        return kind(q.target)
    if kind is Scribe:
        return Scribe(q.actor, queue)
    if kind is Horizontal:
        return Horizontal(queue)
    return kind()


cdef dict DEFAULT_RULES = {n: make_rules(n) for n in range(2, MAX_PLAYERS + 1)}
cdef RulesTable DEFAULT_TABLES[MAX_PLAYERS + 1]
for _n, _default in DEFAULT_RULES.items():
    _rules(_default, &DEFAULT_TABLES[_n])


cdef float[::1] _float_vector(object buffer, Py_ssize_t size, str what):
    """``buffer`` as a contiguous float32 vector of ``size`` entries, else ValueError naming what is wrong."""
    cdef float[::1] out
    try:
        out = buffer
    except (TypeError, ValueError, BufferError) as exc:
        raise ValueError(f"the buffer must be a contiguous float32 vector ({exc})") from None
    if out.shape[0] != size:
        raise ValueError(f"the buffer has {out.shape[0]} entries; {what} has {size}")
    return out


# ---------------------------------------------------------------------- the state


cdef class NativeState:
    """A game of Sobek in progress, on the native engine; the protocol of :class:`~.state.GameState`.

    Create one with :meth:`new`, :meth:`from_json` or :meth:`from_python`; drive it with
    :meth:`legal_actions` and :meth:`apply`.
    """

    engine = "native"

    def __cinit__(self) -> None:
        self._legal_len = -1
        self._log = None
        self._gauss = None

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("a NativeState is made with NativeState.new(...), from_json(text) or from_python(state)")

    # ------------------------------------------------------------------ building

    @staticmethod
    def new(num_players: int = 2, seed: int | None = None, **options) -> NativeState:
        """Deal a new game, as :meth:`GameState.new` (the same validation, the same deal for the same seed)."""
        cdef bint default = not options and type(num_players) is int and 2 <= num_players <= MAX_PLAYERS
        if default:  # the default rules, checked and converted once (making them cost as much as the deal)
            rules = DEFAULT_RULES[num_players]
        else:
            unknown = set(options) - {"scarabs", "green_cards", "families"}
            if unknown:
                raise ValueError(f"unknown rules option(s) {', '.join(sorted(unknown))}; "
                                 "the options are scarabs, green_cards, families")
            rules = make_rules(num_players, **options)
        seed = _new_seed(seed)
        if seed >= 2**64:  # CPython seeds from every 32-bit word of a big seed: leave that to it
            return NativeState.from_python(GameState.new(num_players, seed, engine="python", **options))
        cdef NativeState state = NativeState.__new__(NativeState)
        if default:
            state.s.rules = DEFAULT_TABLES[num_players]
        else:
            _rules(rules, &state.s.rules)
        state._rules = rules
        state._seed = seed
        state.s.rng.seed(<uint64_t>seed)
        new_game(state.s)
        return state

    @staticmethod
    def from_python(state: GameState) -> NativeState:
        """A native state equal to the Python ``state`` (every field, the generator included).

        ValueError names what does not fit (a state the engine or the strict reader made always fits)."""
        if not isinstance(state, GameState):
            raise TypeError(f"from_python takes a sobek GameState, got {type(state).__name__}")
        try:
            check(state)
        except Exception as exc:  # a hand-made state may break anything: never reach the C++ arrays with it
            raise ValueError(f"from_python: the state is not sound: {exc}"[:500]) from None
        cdef NativeState out = NativeState.__new__(NativeState)
        cdef State* s = &out.s
        _rules(state.rules, &s.rules)
        cdef int n = s.rules.num_players
        out._rules = state.rules
        seed = state.seed
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        out._seed = seed
        generator = state.rng.getstate()
        _load_generator(&s.rng, generator)
        out._gauss = generator[2]
        s.round = _int(state.round, 1, ROUNDS, "round")
        s.first_player = _int(state.first_player, 0, n - 1, "first_player")
        s.current_player = _int(state.current_player, 0, n - 1, "current_player")
        s.extra_turns = _int(state.extra_turns, 0, 100, "extra_turns")
        s.over = bool(state.over)
        for name, rows in (("markers", state.markers), ("curses", state.curses), ("hands", state.hands),
                           ("piles", state.piles), ("sets", state.sets), ("horizontal", state.horizontal),
                           ("known_hands", state.known_hands), ("known_piles", state.known_piles),
                           ("token_glimpse", state.token_glimpse)):
            if not isinstance(rows, list) or len(rows) != n:
                raise ValueError(f"{name} must be a list of one entry per player")
        for p in range(n):
            s.markers[p] = _int(state.markers[p], 0, MAX_MARKER, "markers")
            s.curses[p] = _int(state.curses[p], 0, 100, "curses")
            _cards(state.hands[p], s.hands[p], "hands")
            _cards(state.piles[p], s.piles[p], "piles")
            own = state.sets[p]
            if not isinstance(own, list) or len(own) != SET_SLOTS:
                raise ValueError("sets must list 7 slots per player")
            for g in range(SET_SLOTS):
                table_set = own[g]
                s.sets[p][g].present = table_set is not None
                if table_set is None:
                    memset(s.sets[p][g].cards, 0, K)
                    s.sets[p][g].prosperity = 0
                else:
                    _cards(table_set.cards, s.sets[p][g].cards, "sets")
                    s.sets[p][g].prosperity = _int(table_set.prosperity, 0, 100, "sets' prosperity")
            laid = state.horizontal[p]
            if not isinstance(laid, list) or len(laid) > SET_SLOTS:
                raise ValueError("horizontal must list at most 7 sets per player")
            s.horizontal_len[p] = len(laid)
            for i, (slot, cards) in enumerate(laid):
                s.horizontal[p][i].slot = _int(slot, 0, SET_SLOTS - 1, "horizontal slot")
                _cards(cards, s.horizontal[p][i].cards, "horizontal")
            for t in range(n):
                _cards(state.known_hands[p][t], s.known_hands[p][t], "known_hands")
                _cards(state.known_piles[p][t], s.known_piles[p][t], "known_piles")
            s.token_glimpse[p] = bool(state.token_glimpse[p])
        nile, deck = state.nile, state.deck
        if len(nile) > NILE_MAX or len(deck) > TOTAL_CARDS:
            raise ValueError("the Nile holds at most 9 cards and the deck at most 63")
        s.nile_len = len(nile)
        for i, kind in enumerate(nile):
            s.nile[i] = _int(kind, 0, K - 1, "nile")
        s.deck_top, s.deck_end = 0, len(deck)
        for i, kind in enumerate(deck):
            s.deck[i] = _int(kind, 0, K - 1, "deck")
        if len(state.tokens) != NUM_TOKEN_KINDS or len(state.used_tokens) != NUM_TOKEN_KINDS:
            raise ValueError("tokens and used_tokens must be 9 counts per token kind")
        for t in range(NUM_TOKEN_KINDS):
            s.tokens[t] = _int(state.tokens[t], 0, 12, "tokens")
            s.used_tokens[t] = _int(state.used_tokens[t], 0, 12, "used_tokens")
        _cards(state.discard, s.discard, "discard")
        _cards(state.out_of_round, s.out_of_round, "out_of_round")
        _pending(state.pending, &s.pending, n)
        log = state.round_log
        if len(log) > state.round:
            raise ValueError("round_log lists more rounds than have been played")
        s.round_log_len = len(log)
        for i, entry in enumerate(log):
            _round_entry(entry, &s.round_log[i], n)
        return out

    @staticmethod
    def from_json(text: str | bytes) -> NativeState:
        """Read a ``sobek-state/1`` document with the strict Python reader (StateFormatError names a bad field)."""
        from .jsonstate import load

        return NativeState.from_python(load(text))

    # ------------------------------------------------------------------ the public protocol

    @property
    def num_players(self) -> int:
        return self.s.rules.num_players

    @property
    def current_player(self) -> int:
        return self.s.current_player

    @property
    def first_player(self) -> int:
        return self.s.first_player

    @property
    def round(self) -> int:
        return self.s.round

    @property
    def deck_size(self) -> int:
        """The cards left in the deck (the Python state's ``len(deck)``)."""
        return self.s.deck_end - self.s.deck_top

    @property
    def rules(self):
        return self._rules

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def is_over(self) -> bool:
        return self.s.over

    @property
    def scores(self) -> list:
        return [self.s.markers[p] for p in range(self.s.rules.num_players)]

    @property
    def winners(self) -> list:
        """rules §9: the seats with the highest score, once the game is over; else []."""
        if not self.s.over:
            return []
        scores = self.scores
        best = max(scores)
        return [p for p, v in enumerate(scores) if v == best]

    @property
    def phase(self) -> str | None:
        """The pending sub-decision's name, or None at the start of a turn."""
        return PHASE_NAMES[self.s.pending.phase]

    @property
    def log(self):
        """None, or the list to which every rules path taken is appended (state.EVENTS' names)."""
        return self._log

    @log.setter
    def log(self, value) -> None:
        if value is not None and not isinstance(value, list):
            raise TypeError(f"log must be None or a list, got {type(value).__name__}")
        self._log = value
        self.s.logging = value is not None

    cdef int _fill_legal(self) noexcept nogil:
        if self._legal_len < 0:
            self._legal_len = legal(self.s, self._legal)
        return self._legal_len

    def legal_actions(self) -> list:
        """The sorted legal action ids for ``current_player`` ([] once the game is over)."""
        return _id_list(self._legal, self._fill_legal())

    def apply(self, action) -> None:
        """Play ``action`` for ``current_player``; IllegalActionError, the state unchanged, for anything but
        a legal integer id (the Python engine's checks and messages)."""
        action = _integer_action(action)
        cdef int i
        cdef long a = _legal_id(action, self._legal, self._fill_legal())
        if a < 0:
            raise IllegalActionError(_illegal_message(self.s.over, action, self.s.current_player,
                                                      self.phase or "turn start", self.legal_actions()))
        self._legal_len = -1
        self.s.events_len = 0
        apply(self.s, a)
        if self._log is not None:
            for i in range(self.s.events_len):
                self._log.append(EVENTS[self.s.events[i]])

    def clone(self) -> NativeState:
        """An independent copy (including the random generator; not the event log)."""
        cdef NativeState other = NativeState.__new__(NativeState)
        other.s = self.s
        other.s.logging = False
        other._rules, other._seed, other._gauss = self._rules, self._seed, self._gauss
        return other

    def to_python(self) -> GameState:
        """An equal Python :class:`GameState` (every field; not the event log)."""
        cdef State* s = &self.s
        cdef int n = s.rules.num_players, p, i
        g = GameState.__new__(GameState)
        g.rules, g.seed = self._rules, self._seed
        g.rng = random.Random()
        g.rng.setstate(_generator_state(&s.rng, self._gauss))
        g.round, g.first_player, g.current_player = s.round, s.first_player, s.current_player
        g.markers = self.scores
        g.hands = [_list(s.hands[p]) for p in range(n)]
        g.piles = [_list(s.piles[p]) for p in range(n)]
        g.curses = [s.curses[p] for p in range(n)]
        g.sets = [[PyTableSet(_list(s.sets[p][slot].cards), s.sets[p][slot].prosperity)
                   if s.sets[p][slot].present else None for slot in range(SET_SLOTS)] for p in range(n)]
        g.horizontal = [[(s.horizontal[p][i].slot, _list(s.horizontal[p][i].cards))
                         for i in range(s.horizontal_len[p])] for p in range(n)]
        g.nile = [s.nile[i] for i in range(s.nile_len)]
        g.deck = [s.deck[i] for i in range(s.deck_top, s.deck_end)]
        g.tokens = [s.tokens[i] for i in range(NUM_TOKEN_KINDS)]
        g.used_tokens = [s.used_tokens[i] for i in range(NUM_TOKEN_KINDS)]
        g.discard = _list(s.discard)
        g.out_of_round = _list(s.out_of_round)
        g.pending = _py_pending(&s.pending)
        g.over = s.over
        g.known_hands = [[_list(s.known_hands[p][i]) for i in range(n)] for p in range(n)]
        g.known_piles = [[_list(s.known_piles[p][i]) for i in range(n)] for p in range(n)]
        g.token_glimpse = [bool(s.token_glimpse[p]) for p in range(n)]
        g.round_log = [_py_round_entry(&s.round_log[i], n) for i in range(s.round_log_len)]
        g.extra_turns = s.extra_turns
        g.log = None
        g._legal = None
        return g

    def to_json(self) -> str:
        """The state as a ``sobek-state/1`` JSON document, the Python engine's very text."""
        return self.to_python().to_json()

    def resample(self, player: int, rng) -> NativeState:
        """A state consistent with everything ``player`` knows in memory mode, the rest re-drawn with ``rng``
        (a random.Random, numpy Generator or seed), which advances exactly as the Python resample advances it."""
        cdef int seat = _player(player, self.s.rules.num_players)
        rng = as_random(rng)
        cdef PyRandom draws
        generator = rng.getstate()
        _load_generator(&draws, generator)
        gauss = generator[2]
        cdef NativeState out = NativeState.__new__(NativeState)
        cdef uint64_t seed = 0
        cdef ResampleResult result
        with nogil:
            result = resample(self.s, seat, draws, out.s, seed)
        rng.setstate(_generator_state(&draws, gauss))
        if result == NO_DEAL:
            raise RuntimeError("no consistent deal found in 100000 attempts")
        if result == UNSOUND_STATE:
            raise RuntimeError("the state's hidden cards do not add up: it cannot be resampled")
        out._rules, out._seed = self._rules, seed
        return out

    # ------------------------------------------------------------------ observations

    def encode(self, buffer, seat, bint memory) -> None:
        """Write ``seat``'s observation (``memory`` mode or ``original``) into ``buffer``, a float32 vector of
        the observation's size: the Python Observer's vector, entry for entry."""
        cdef int n = self.s.rules.num_players, at
        if type(seat) is int and 0 <= seat < n:
            at = seat
        elif isinstance(seat, bool) or not isinstance(seat, Integral) or not 0 <= seat < n:
            raise ValueError(f"seat must be from 0 to {n - 1}, got {seat!r}")
        else:
            at = int(seat)
        if buffer is not self._out_owner:  # the view of the buffer last written is kept: making one costs most
            self._out = _float_vector(buffer, observation_size(n), f"a {n}-player observation")
            self._out_owner = buffer
        elif self._out.shape[0] != observation_size(n):
            raise ValueError(f"the buffer has {self._out.shape[0]} entries; a {n}-player observation has "
                             f"{observation_size(n)}")
        with nogil:
            encode(self.s, at, memory, &self._out[0])

    def observation(self, seat: int, memory: bool = False):
        """``seat``'s observation as a new float32 array (:meth:`encode` into a fresh buffer)."""
        out = np.zeros(observation_size(self.s.rules.num_players), dtype=np.float32)
        self.encode(out, seat, memory)
        return out

    def encode_state(self, buffer) -> None:
        """Write the full-information state vector (observation.encode_state) into ``buffer``."""
        n = self.s.rules.num_players
        cdef float[::1] out = _float_vector(buffer, state_size(n), f"a {n}-player state vector")
        with nogil:
            encode_state(self.s, &out[0])

    def state_vector(self):
        """The full-information state vector as a new float32 array."""
        out = np.zeros(state_size(self.s.rules.num_players), dtype=np.float32)
        self.encode_state(out)
        return out

    # ------------------------------------------------------------------ Python conveniences

    def __eq__(self, other) -> bool:
        from .jsonstate import to_document

        if isinstance(other, NativeState):
            other = other.to_python()
        if not isinstance(other, GameState):
            return NotImplemented
        return to_document(self.to_python()) == to_document(other)

    __hash__ = None  # mutable

    def __reduce__(self):
        return NativeState.from_json, (self.to_json(),)

    def __repr__(self) -> str:
        status = "over" if self.s.over else f"player {self.s.current_player} at {self.phase or 'turn start'}"
        return (f"<NativeState {self.num_players} players, round {self.s.round}, scores {self.scores}, "
                f"{status}>")


cdef int _round_entry(object entry, RoundEntry* out, int n) except -1:
    memset(out, 0, sizeof(RoundEntry))
    out.round = _int(entry["round"], 1, ROUNDS, "round_log round")
    for key in ("points", "corruption", "curses", "penalty"):
        row = entry[key]
        if len(row) != n:
            raise ValueError(f"round_log {key} must list one value per player")
    for p in range(n):
        out.points[p] = _int(entry["points"][p], 0, MAX_MARKER, "round_log points")
        out.corruption[p] = _int(entry["corruption"][p], 0, MAX_MARKER, "round_log corruption")
        out.curses[p] = _int(entry["curses"][p], 0, 100, "round_log curses")
        out.penalty[p] = _int(entry["penalty"][p], 0, MAX_MARKER, "round_log penalty")
    corrupt = entry["most_corrupt"]
    if len(corrupt) > n:
        raise ValueError("round_log most_corrupt lists more seats than play")
    out.most_corrupt_len = len(corrupt)
    for i, seat in enumerate(corrupt):
        out.most_corrupt[i] = _int(seat, 0, n - 1, "round_log most_corrupt")
    laid = entry["horizontal"]
    if len(laid) != n:
        raise ValueError("round_log horizontal must list one row per player")
    for p in range(n):
        _cards(laid[p], out.horizontal[p], "round_log horizontal")
    return 0


cdef dict _py_round_entry(const RoundEntry* e, int n):
    return {
        "round": e.round,
        "points": [e.points[p] for p in range(n)],
        "corruption": [e.corruption[p] for p in range(n)],
        "curses": [e.curses[p] for p in range(n)],
        "most_corrupt": [e.most_corrupt[i] for i in range(e.most_corrupt_len)],
        "penalty": [e.penalty[p] for p in range(n)],
        "horizontal": [_list(e.horizontal[p]) for p in range(n)],
    }


def new(num_players: int = 2, seed: int | None = None, **options) -> NativeState:
    """:meth:`NativeState.new`."""
    return NativeState.new(num_players, seed, **options)


def from_python(state: GameState) -> NativeState:
    """:meth:`NativeState.from_python`."""
    return NativeState.from_python(state)


def from_json(text: str | bytes) -> NativeState:
    """:meth:`NativeState.from_json`."""
    return NativeState.from_json(text)


def random_playouts(int games, int num_players, uint64_t seed) -> int:
    """Play ``games`` whole games of uniformly random legal actions natively (no Python between steps, the GIL
    released), game ``i`` dealt from seed ``seed + i``; returns the actions played. The engine's own speed,
    for benchmarks; the choices come from a generator seeded with ``seed``."""
    if not 2 <= num_players <= MAX_PLAYERS:
        raise ValueError(f"num_players must be from 2 to {MAX_PLAYERS}, got {num_players}")
    if games < 0:
        raise ValueError(f"games must be non-negative, got {games}")
    rules = make_rules(num_players)
    cdef State state
    cdef PyRandom choices
    cdef int actions[76]
    cdef int count, i
    cdef long steps = 0
    _rules(rules, &state.rules)
    choices.seed(seed)
    with nogil:
        for i in range(games):
            state.rng.seed(seed + <uint64_t>i)
            new_game(state)
            while not state.over:
                count = legal(state, actions)
                apply(state, actions[choices.randbelow(count)])
                steps += 1
    return steps


# ---------------------------------------------------------------------- many games in one call

from .catalogue import SCORE_SCALE

cdef extern from *:
    """
    #include "sobek_env/sobek/native/vector.hpp"
    using GameVectorBatch = sobek_native::sobek::VectorBatch;
    """


cdef object _batch_prototype(int num_players, dict rules, State* prototype):
    table = make_rules(num_players, **rules)
    _rules(table, &prototype.rules)
    return table


cdef int _batch_observation_size(int num_players):
    return observation_size(num_players)


cdef NativeState _batch_state(const State& s, object rules):
    cdef NativeState out = NativeState.__new__(NativeState)
    out.s = s
    out._rules = rules
    out._seed = 0
    return out


include "../native/batch.pxi"
