# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Kleopatra's native engine: :class:`NativeState`, the C++ rules of ``native/engine.hpp`` behind the protocol of
the Python :class:`~sobek_env.kleopatra.state.GameState` (the reference, which stays).

The same game bit for bit: the same legal actions, ``to_json()`` after every action (the generator's state
included), observations, scores and winners, and ``resample`` results; ``tests/kleopatra/test_native.py`` plays
both engines side by side. Documents are read by the Python strict reader, then copied in (:func:`from_json`);
:meth:`NativeState.to_python` gives the equal Python state. Build a game with :func:`new`.

The methods keep the GIL (a state shared between Python threads is never read while another thread changes
it); a Cython module that steps many states at once cimports ``_native.pxd`` and calls the C++ ``legal``,
``apply`` and ``encode`` on ``NativeState.st`` without it.
"""

import json
import random
from numbers import Integral

import numpy as np

from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t

from ..errors import IllegalActionError, InvariantError
from ..randomness import as_random
from .actions import ACTION_NAMES
from .catalogue import GATE_SIDES, KINDS, MAX_PLAYERS as _MAX_PLAYERS, RESOURCES, TILE_NAMES, UNITS as _UNITS, make_rules
from .phases import PHASE_NAMES, PHASES, Interrupting, Quarry
from .state import EVENTS

ENGINE = "native"
_FORMAT = "kleopatra-state/1"
_PHASE_INDEX = {name: i for i, name in enumerate(PHASE_NAMES)}
_BUILD_NAMES = {i: ACTION_NAMES[i] for i in range(15, 31)}
_INTERRUPTING = frozenset(name for name, cls in PHASES.items() if issubclass(cls, Interrupting))
_LAYOUTS = {}
assert len(EVENTS) == NUM_EVENTS and len(PHASE_NAMES) == NUM_PHASES and len(ACTION_NAMES) == NUM_ACTIONS

include "../native/state.pxi"


def observation_size(int num_players) -> int:
    """The length of the observation vector for ``num_players`` (``observation.observation_size``)."""
    return make_layout(num_players).size


# ---------------------------------------------------------------------- rules


cdef class NativeRules:
    """The C++ copy of one :class:`~sobek_env.kleopatra.catalogue.Rules` and its palace geometry."""

    def __cinit__(self, rules):
        self.rules = rules
        self.ptr = new Rules()
        cdef Rules* r = self.ptr
        cdef int k, t, o, i
        r.num_players = rules.num_players
        r.total_cards = 0
        for k in range(NUM_KINDS):
            r.card_counts[k] = rules.card_counts[k]
            r.total_cards += rules.card_counts[k]
        r.tainted_amulets = rules.tainted_amulets
        for k in range(5):
            r.trompe_ok[k] = k in rules.trompe_stands_for
        r.priest_faces = rules.priest_faces
        r.hand_limit = rules.hand_limit
        for k in range(5):
            r.ceremony_table[k] = rules.ceremony_table[k]
        r.crocodile_margin = rules.crocodile_margin
        r.sanctuary_max_squares = rules.sanctuary_max_squares
        r.max_turns = rules.max_turns
        geo = rules.geometry
        r.garden = geo.garden
        r.palms = geo.palms
        for k in range(NUM_WALL_SLOTS):
            r.wall_masks[k] = geo.wall_masks[k]
        for t in range(NUM_TILES):
            for o in range(ORIENTATIONS):
                orientation = geo.orientations[t][o]
                r.distinct[t][o] = orientation.distinct
                r.num_placements[t][o] = len(orientation.placements)
                for i, (square, mask) in enumerate(orientation.placements):
                    r.placements[t][o][i].square = square
                    r.placements[t][o][i].mask = mask
            r.num_all[t] = len(geo.placements_of_tile[t])
            for i, (_, _, mask) in enumerate(geo.placements_of_tile[t]):
                r.all_masks[t][i] = mask

    def __dealloc__(self):
        del self.ptr


_RULES = {}
_DEFAULT_RULES = {}  # per player count, the default rules (make_rules validates the whole catalogue each call)


cdef NativeRules _native_rules(rules):
    # keyed by the rules' parameters (an unpickled Rules is a new object with the same ones)
    native = _RULES.get(rules)
    if native is None:
        native = _RULES[rules] = NativeRules(rules)
    return native


_MAKE = object()  # NativeState's private constructor key: a state always holds a dealt or copied State


cdef NativeState _empty():
    return NativeState.__new__(NativeState, _MAKE)


# ---------------------------------------------------------------------- documents


cdef list _names(const int32_t* counts):
    cdef int k, c
    return [KINDS[k] for k in range(NUM_KINDS) for c in range(counts[k])]


cdef list _ints(const int32_t* values, int n):
    cdef int i
    return [values[i] for i in range(n)]


cdef dict _card(uint8_t card):
    return {"kind": KINDS[card >> 1], "up": bool(card & 1)}


cdef list _squares(uint64_t mask):
    cdef int i
    return [i for i in range(64) if (mask >> i) & 1]


cdef class NativeState:
    """A game of Kleopatra in progress, played by the C++ engine; the protocol of the Python GameState."""

    engine = ENGINE

    def __cinit__(self, *args):
        if len(args) != 1 or args[0] is not _MAKE:
            raise TypeError("a NativeState is made by new(), from_json() or from_python()")
        self.st = NULL

    def __dealloc__(self):
        del self.st

    # ------------------------------------------------------------------ the protocol

    @property
    def num_players(self) -> int:
        return self.st.n

    @property
    def current_player(self) -> int:
        return self.st.current

    @property
    def active_player(self) -> int:
        return self.st.active

    @property
    def turn(self) -> int:
        return self.st.turn

    @property
    def cleopatra(self) -> int:
        return self.st.cleopatra

    @property
    def altar(self) -> int:
        return self.st.altar

    @property
    def rules(self):
        return self._native_rules.rules

    @property
    def seed(self) -> int:
        return self._seed

    @property
    def is_over(self) -> bool:
        return self.st.over

    @property
    def over(self) -> bool:
        return self.st.over

    @property
    def scores(self) -> list:
        """rules §11.5: talents + 3 per Nile merchant, for every seat at every moment (a copy)."""
        cdef int p
        return [self.st.score(p) for p in range(self.st.n)]

    @property
    def talents(self) -> list:
        return _ints(self.st.talents, self.st.n)

    @property
    def amulets(self) -> list:
        return _ints(self.st.amulets, self.st.n)

    @property
    def merchants(self) -> list:
        return _ints(self.st.merchants, self.st.n)

    @property
    def statues(self) -> list:
        return _ints(self.st.statues, self.st.n)

    @property
    def built_by(self) -> list:
        return _ints(self.st.built_by, self.st.n)

    @property
    def ceremonies_won(self) -> list:
        return _ints(self.st.ceremonies_won, self.st.n)

    @property
    def hands(self) -> list:
        cdef int p
        return [_ints(self.st.hands[p], NUM_KINDS) for p in range(self.st.n)]

    @property
    def stack(self) -> list:
        """The mosaic stack, top first (a copy)."""
        cdef int i
        return [self.st.stack[i] for i in range(self.st.stack_len)]

    @property
    def removed(self) -> list:
        cdef int i
        return [self.st.removed[i] for i in range(self.st.removed_len)]

    @property
    def covered(self) -> int:
        return self.st.covered

    @property
    def sanctuary_union(self) -> int:
        return self.st.sanctuary_union

    @property
    def sanctuaries(self) -> list:
        """[mask, owner or None] per sanctuary, in order of creation (a copy)."""
        cdef int i
        return [[self.st.sanctuaries[i].mask, None if self.st.sanctuaries[i].owner < 0 else self.st.sanctuaries[i].owner]
                for i in range(self.st.num_sanctuaries)]

    def complete(self) -> list:
        """rules §1.3: per category, whether all its pieces are built (mosaics: none left in the quarry)."""
        return [self.st.walls == 511, self.st.sphinxes == 6, self.st.obelisks == 2, self.st.gate == 3,
                bool(self.st.throne), self.st.stack_len == 0]

    @property
    def eliminated(self) -> list:
        cdef int i
        return [self.st.eaten[i] for i in range(self.st.eaten_len)]

    @property
    def winners(self) -> list:
        """rules §11.6: the best survivors, ties going to the fewest amulets; [] until the game is over."""
        cdef int out[5]
        cdef int i, count = winners(self.st[0], out)
        return [out[i] for i in range(count)]

    @property
    def phase(self):
        """The pending phase's type (``phases.Turn`` at the start of a turn)."""
        return PHASES[PHASE_NAMES[self.st.phase]]

    @property
    def log(self):
        """The list the engine appends event names to (``state.EVENTS``), or None (no log)."""
        return self._log

    @log.setter
    def log(self, value):
        if value is not None and not isinstance(value, list):
            raise TypeError(f"log must be a list or None, got {type(value).__name__}")
        self._log = value
        self._events.clear()
        self.st.log = &self._events if value is not None else NULL

    cdef int _flush_log(self) except -1:
        cdef uint8_t e
        for e in self._events:
            self._log.append(EVENTS[e])
        self._events.clear()
        return 0

    cdef int _fill_legal(self) except -1:
        if not self._legal_known:
            self._num_legal = legal(self.st[0], self._legal)
            self._legal_known = True
        return 0

    def legal_actions(self) -> list:
        """The sorted legal action ids of ``current_player`` ([] once the game is over)."""
        self._fill_legal()
        return _id_list(self._legal, self._num_legal)

    def apply(self, action) -> None:
        """Play ``action`` for ``current_player``; IllegalActionError, changing nothing, for anything but a
        legal integer id."""
        action = _integer_action(action)
        self._fill_legal()
        cdef long a = _legal_id(action, self._legal, self._num_legal)
        if a < 0:
            raise IllegalActionError(_illegal_message(self.st.over, action, self.st.current,
                                                      PHASE_NAMES[self.st.phase], self.legal_actions()))
        self._legal_known = False
        apply(self.st[0], a)
        if self._log is not None:
            self._flush_log()

    def clone(self) -> NativeState:
        """An independent copy (the random generator included; the log is not carried over)."""
        cdef NativeState o = _empty()
        o.st = new State(self.st[0])
        o.st.log = NULL
        o._native_rules = self._native_rules
        o._seed = self._seed
        o._gauss = self._gauss
        o._log = None
        return o

    def __copy__(self) -> NativeState:
        return self.clone()

    def __reduce__(self):
        return (from_json, (self.to_json(),))

    def to_json(self) -> str:
        """The state as a ``kleopatra-state/1`` document (the Python engine's, key for key)."""
        return json.dumps(self.document(), separators=(",", ":"))

    def to_python(self):
        """The equal Python :class:`~sobek_env.kleopatra.state.GameState` (read from the document)."""
        from .jsonstate import from_document

        return from_document(self.document())

    def __eq__(self, other):
        if not hasattr(other, "to_json") or getattr(other, "num_players", None) is None:
            return NotImplemented
        return json.loads(self.to_json()) == json.loads(other.to_json())

    __hash__ = None  # mutable

    def __repr__(self) -> str:
        status = "over" if self.st.over else f"player {self.st.current} at {PHASE_NAMES[self.st.phase]}"
        return f"<Kleopatra (native) {self.st.n} players, turn {self.st.turn}, scores {self.scores}, {status}>"

    def resample(self, player, rng) -> NativeState:
        """A state consistent with everything ``player`` knows in memory mode, the rest re-drawn from ``rng``
        (a random.Random, a numpy Generator or a seed) exactly as the Python engine draws it."""
        cdef int seat = _player(player, self.st.n)
        rng = as_random(rng)
        cdef PyRandom generator
        state = rng.getstate()
        _load_generator(&generator, state)
        cdef NativeState o = _empty()
        o.st = new State(self.st[0])
        cdef bint found
        cdef uint64_t seed
        found = resample(self.st[0], seat, generator, o.st[0], &seed)
        rng.setstate(_generator_state(&generator, state[2]))
        if not found:
            raise RuntimeError("no consistent deal found in 100000 attempts")
        o.st.log = NULL
        o._native_rules = self._native_rules
        o._seed = seed
        o._gauss = None
        o._log = None
        return o

    # ------------------------------------------------------------------ observations

    def encode(self, buffer, seat, bint memory) -> None:
        """Write ``seat``'s view (rules §15) into ``buffer`` (float32, the layout of ``observation_layout``):
        the Python Observer's vector, in the ``memory`` or the ``original`` mode."""
        cdef Layout* l = _cached_layout(self.st.n)
        cdef float[::1] view
        if buffer is None or buffer is not self._buffer:  # the last buffer's view is kept: making one costs more than encoding
            try:
                view = buffer
            except (TypeError, ValueError, BufferError) as exc:
                raise ValueError(f"encode needs a writable, contiguous float32 vector of {l.size} entries, got "
                                 f"{type(buffer).__name__} ({exc})") from None
            if view is None:
                raise ValueError(f"encode needs a writable, contiguous float32 vector of {l.size} entries, got None")
            if view.shape[0] != l.size:
                raise ValueError(f"the observation for {self.st.n} players has {l.size} entries, "
                                 f"the buffer {view.shape[0]}")
            self._buffer, self._view = buffer, view
        cdef long s
        cdef int overflow = 0
        if type(seat) is not int and (isinstance(seat, bool) or not isinstance(seat, Integral)):
            raise ValueError(f"seat must be a seat from 0 to {self.st.n - 1}, got {seat!r:.40}")
        s = PyLong_AsLongAndOverflow(int(seat), &overflow)
        if overflow or not 0 <= s < self.st.n:
            raise ValueError(f"seat must be a seat from 0 to {self.st.n - 1}, got {seat!r:.40}")
        encode(self.st[0], l[0], s, memory, &self._view[0])

    def observe(self, seat, bint memory=False):
        """A new float32 vector of ``seat``'s view."""
        out = np.empty(_cached_layout(self.st.n).size, dtype=np.float32)
        self.encode(out, seat, memory)
        return out

    def state_vector(self):
        """The full-information vector of ``observation.state_vector`` (for centralised critics)."""
        cdef Layout* l = _cached_layout(self.st.n)
        out = np.empty(state_size(l[0], self.st.n), dtype=np.float32)
        cdef float[::1] b = out
        encode_state(self.st[0], l[0], &b[0])
        return out

    # ------------------------------------------------------------------ the document

    def document(self) -> dict:
        """The ``kleopatra-state/1`` document as a dict (``jsonstate.to_document`` of the equal Python state)."""
        cdef State* s = self.st
        cdef int n = s.n, p, k, i, v
        cdef uint32_t words[624]
        cdef int index
        rules = self._native_rules.rules
        s.rng.get_state(words, &index)
        internal = [words[i] for i in range(624)]
        internal.append(index)
        stalls = []
        for i in range(3):
            begin = s.stall_begin(i)
            stalls.append([_card(s.cards[begin + k]) for k in range(s.stall_len[i])])
        return {
            "format": _FORMAT,
            "num_players": n,
            "rules": rules.overrides(),
            "seed": self._seed,
            "active_player": s.active,
            "current_player": s.current,
            "turn": s.turn,
            "cleopatra": s.cleopatra,
            "altar": s.altar,
            "players": [
                {"hand": _names(s.hands[p]), "talents": s.talents[p], "amulets": s.amulets[p],
                 "merchants": s.merchants[p], "statues": s.statues[p], "built": s.built_by[p],
                 "ceremonies_won": s.ceremonies_won[p]}
                for p in range(n)
            ],
            "stalls": stalls,
            "deck": [_card(s.cards[i]) for i in range(s.deck_len - 1, -1, -1)],
            "discard": _names(s.discard),
            "set_aside": _names(s.set_aside),
            "palace": {
                "walls": [k + 1 for k in range(NUM_WALL_SLOTS) if (s.walls >> k) & 1],
                "gate": [side for k, side in enumerate(GATE_SIDES) if (s.gate >> k) & 1],
                "sphinxes": s.sphinxes,
                "obelisks": s.obelisks,
                "pedestal": s.pedestal,
                "throne": s.throne,
                "mosaics": [{"tile": TILE_NAMES[s.mosaics[i].tile], "orient": s.mosaics[i].orient,
                             "square": s.mosaics[i].anchor, "by": s.mosaics[i].by} for i in range(s.num_mosaics)],
                "sanctuaries": [{"squares": _squares(s.sanctuaries[i].mask),
                                 "owner": None if s.sanctuaries[i].owner < 0 else s.sanctuaries[i].owner}
                                for i in range(s.num_sanctuaries)],
            },
            "mosaic_stack": [TILE_NAMES[s.stack[i]] for i in range(s.stack_len)],
            "removed_tiles": [TILE_NAMES[s.removed[i]] for i in range(s.removed_len)],
            "pending": None if s.over or s.phase == TURN else self._phase_document(s.phase),
            "over": s.over,
            "eliminated": [s.eaten[i] for i in range(s.eaten_len)],
            "memory": {
                "public": {"hands": [_names(s.known[n][p]) for p in range(n)], "discard": _names(s.known_discard[n])},
                "seats": [{"hands": [_names(s.known[v][p]) for p in range(n)], "discard": _names(s.known_discard[v]),
                           "saw_stack": s.saw_stack[v]} for v in range(n)],
            },
            "shown": [s.shown[i] for i in range(s.shown_len)],
            "last_ceremony": None if not s.has_last_ceremony else {"offers": _ints(s.last_offers, n),
                                                                   "places": _ints(s.last_places, n)},
            "rng": [3, internal, self._gauss],
        }

    def _phase_document(self, int phase) -> dict:
        cdef State* s = self.st
        cdef int i, n = s.n
        out = {"phase": PHASE_NAMES[phase]}
        name = out["phase"]
        if name == "refill":
            out["drawn"] = [_card(s.drawn[i]) for i in range(s.drawn_len)]
            out["filled"] = [i for i in range(3) if s.filled[i]]
        elif name == "quarry":
            out["pool"] = {_UNITS[i]: s.pool[i] for i in range(UNITS) if s.pool[i]}
            out["paid"] = _names(s.paid)
            out["built"] = [_BUILD_NAMES[s.built[i]] for i in range(s.built_len)]
        elif name == "mosaic_orient":
            out["tile"] = TILE_NAMES[s.tile]
            out["scribe"] = s.scribe
        elif name == "mosaic_square":
            out["orient"] = s.orient
            out["tile"] = TILE_NAMES[s.tile]
            out["scribe"] = s.scribe
        elif name == "anubis":
            out["sanctuaries"] = [s.anubis_queue[i] for i in range(s.anubis_len)]
        elif name == "beggar":
            out["queue"] = [s.beggar_queue[i] for i in range(s.beggar_len)]
        elif name == "envoy_offer":
            out["resource"] = KINDS[s.resource]
            out["offers"] = _ints(s.offers, n)
        elif name == "envoy_accept":
            out["accepted"] = _ints(s.accepted, n)
            out["target"] = s.target
            out["resource"] = KINDS[s.resource]
            out["offers"] = _ints(s.offers, n)
        elif name == "vizier":
            out["drawn"] = _names(s.vizier_drawn)
            out["kept"] = s.vizier_kept
        elif name == "ceremony":
            out["offers"] = _ints(s.offers, n)
        if name in _INTERRUPTING:
            out["resume"] = None if s.resume == TURN else self._phase_document(s.resume)
        return out


cdef Layout _LAYOUT_CACHE[6]
cdef bint _LAYOUT_READY[6]


cdef Layout* _cached_layout(int n):
    if not _LAYOUT_READY[n]:
        _LAYOUT_CACHE[n] = make_layout(n)
        _LAYOUT_READY[n] = True
    return &_LAYOUT_CACHE[n]


# ---------------------------------------------------------------------- making states


def new(num_players=3, seed=None, **rules) -> NativeState:
    """Deal a new game (rules §2), as ``GameState.new`` deals it for the same seed and options."""
    cdef NativeRules native = _DEFAULT_RULES.get(num_players) if not rules and type(num_players) is int else None
    if native is None:
        native = _native_rules(make_rules(num_players, **rules))
        if not rules:
            _DEFAULT_RULES[num_players] = native
    seed = _new_seed(seed)
    cdef NativeState s = _empty()
    s.st = new State()
    s._native_rules = native
    s._seed = seed
    s._gauss = None
    s._log = None
    if seed < 2**64:
        s.st.rng.seed(<uint64_t>seed)
    else:
        _load_generator(&s.st.rng, random.Random(seed).getstate())
    deal(s.st[0], s._native_rules.ptr)
    return s


def from_json(text) -> NativeState:
    """Read a ``kleopatra-state/1`` document with the Python strict reader (StateFormatError naming a bad
    field), then copy it into a native state."""
    from .jsonstate import load

    return _copy_in(load(text))


def from_python(state) -> NativeState:
    """The native state equal to a Python GameState (checked by ``invariants.check`` first: a state no play or
    document could reach is refused with ValueError naming the problem)."""
    from .invariants import check
    from .state import GameState

    if not isinstance(state, GameState):
        raise TypeError(f"from_python takes a Kleopatra GameState, got {type(state).__name__}")
    try:
        check(state)
    except InvariantError as exc:
        raise ValueError(f"not a sound Kleopatra state: {exc}") from None
    return _copy_in(state)


cdef int _need(bint ok, str what) except -1:
    if not ok:
        raise ValueError(f"not a sound Kleopatra state: {what}")
    return 0


cdef int _row(int32_t* out, values, int size, long high, str what) except -1:
    cdef int i
    _need(len(values) == size, f"{what} must have {size} entries")
    for i in range(size):
        _need(0 <= values[i] <= high, f"{what} out of range")
        out[i] = values[i]
    return 0


cdef NativeState _copy_in(py):
    """Copy a sound Python state in (every index checked, so no state can make the engine write out of bounds)."""
    cdef NativeState o = _empty()
    o.st = new State()
    cdef State* s = o.st
    cdef int n, p, v, i, at
    cdef long big = 2**31 - 1
    rules = py.rules
    o._native_rules = _native_rules(rules)
    s.rules = o._native_rules.ptr
    n = s.n = rules.num_players
    _need(2 <= n <= _MAX_PLAYERS, "num_players")
    o._seed = py.seed
    o._log = None
    state = py.rng.getstate()
    _load_generator(&s.rng, state)
    o._gauss = state[2]
    s.turn = py.turn
    _need(0 <= py.active_player < n and 0 <= py.current_player < n, "active_player or current_player")
    s.active, s.current = py.active_player, py.current_player
    s.cleopatra, s.altar, s.over = py.cleopatra, py.altar, py.over
    _need(0 <= s.altar <= 5, "altar")
    _need(len(py.hands) == n, "hands")
    for p in range(n):
        _row(s.hands[p], py.hands[p], NUM_KINDS, MAX_CARDS, "a hand")
    for name, values in (("talents", py.talents), ("amulets", py.amulets), ("merchants", py.merchants),
                         ("statues", py.statues), ("built_by", py.built_by), ("ceremonies_won", py.ceremonies_won)):
        _need(len(values) == n and all(0 <= x <= big for x in values), name)
    _row(s.talents, py.talents, n, big, "talents")
    _row(s.amulets, py.amulets, n, big, "amulets")
    _row(s.merchants, py.merchants, n, 3, "merchants")
    _row(s.statues, py.statues, n, 2, "statues")
    _row(s.built_by, py.built_by, n, big, "built_by")
    _row(s.ceremonies_won, py.ceremonies_won, n, big, "ceremonies_won")
    _need(len(py.stalls) == 3, "stalls")
    piles = [py.deck, *py.stalls]
    _need(sum(map(len, piles)) <= MAX_CARDS, "too many cards in the deck and the stalls")
    at = 0
    for pile in piles:
        for card in pile:
            _need(0 <= card < 2 * NUM_KINDS, "a card of the deck or a stall")
            s.cards[at] = card
            at += 1
    s.deck_len = len(py.deck)
    for i in range(3):
        s.stall_len[i] = len(py.stalls[i])
    _row(s.discard, py.discard, NUM_KINDS, MAX_CARDS, "discard")
    _row(s.set_aside, py.set_aside, NUM_KINDS, MAX_CARDS, "set_aside")
    _need(0 <= py.walls < 512 and 0 <= py.gate < 4 and 0 <= py.sphinxes <= 6 and 0 <= py.obelisks <= 2, "palace")
    s.walls, s.gate, s.sphinxes, s.obelisks = py.walls, py.gate, py.sphinxes, py.obelisks
    s.pedestal, s.throne = py.pedestal, py.throne
    _need(len(py.mosaics) <= NUM_TILES, "mosaics")
    s.num_mosaics = len(py.mosaics)
    for i, (tile, orient, anchor, by, mask) in enumerate(py.mosaics):
        _need(0 <= tile < NUM_TILES and 0 <= orient < 8 and 0 <= anchor < 64 and 0 <= by < n, "a mosaic")
        s.mosaics[i].tile, s.mosaics[i].orient, s.mosaics[i].anchor, s.mosaics[i].by = tile, orient, anchor, by
        s.mosaics[i].mask = mask
    s.covered = py.covered
    _need(len(py.sanctuaries) <= 64, "sanctuaries")
    s.num_sanctuaries = len(py.sanctuaries)
    for i, (mask, owner) in enumerate(py.sanctuaries):
        _need(owner is None or 0 <= owner < n, "a sanctuary's owner")
        s.sanctuaries[i].mask = mask
        s.sanctuaries[i].owner = -1 if owner is None else owner
    s.sanctuary_union = py.sanctuary_union
    _need(len(py.stack) <= NUM_TILES and len(py.removed) <= NUM_TILES, "the mosaic tiles")
    _need(all(0 <= t < NUM_TILES for t in py.stack) and all(0 <= t < NUM_TILES for t in py.removed), "a tile")
    s.stack_len = len(py.stack)
    for i, t in enumerate(py.stack):
        s.stack[i] = t
    s.removed_len = len(py.removed)
    for i, t in enumerate(py.removed):
        s.removed[i] = t
    _need(len(py.eaten) <= n and all(0 <= p < n for p in py.eaten), "eliminated")
    s.eaten_len = len(py.eaten)
    for i, p in enumerate(py.eaten):
        s.eaten[i] = p
    _need(len(py.known) == n + 1 and len(py.known_discard) == n + 1, "memory")
    for v in range(n + 1):
        _need(len(py.known[v]) == n, "memory")
        for p in range(n):
            _row(s.known[v][p], py.known[v][p], NUM_KINDS, MAX_CARDS, "memory")
        _row(s.known_discard[v], py.known_discard[v], NUM_KINDS, MAX_CARDS, "memory")
    for p in range(n):
        s.saw_stack[p] = py.saw_stack[p]
    _need(len(py.shown) <= n and all(0 <= p < n for p in py.shown), "shown")
    s.shown_len = len(py.shown)
    for i, p in enumerate(py.shown):
        s.shown[i] = p
    s.has_last_ceremony = py.last_offers is not None
    if s.has_last_ceremony:
        _row(s.last_offers, py.last_offers, n, big, "last_ceremony")
        _row(s.last_places, py.last_places, n, n, "last_ceremony")
    _copy_pending(py, s)
    return o


cdef int _copy_pending(py, State* s) except -1:
    cdef int n = s.n, i
    pending = py.pending
    s.phase = TURN
    s.resume = TURN
    if pending is None or py.over:
        _need(pending is None, "a finished game has no pending phase")
        return 0
    name = pending.name
    _need(name in _PHASE_INDEX and name != "turn", "pending")
    s.phase = _PHASE_INDEX[name]
    visit = pending if isinstance(pending, Quarry) else None
    if name in _INTERRUPTING:
        resume = pending.resume
        _need(resume is None or resume.name in ("quarry", "after"), "pending.resume")
        s.resume = TURN if resume is None else _PHASE_INDEX[resume.name]
        if isinstance(resume, Quarry):
            visit = resume
    elif isinstance(pending, Interrupting):
        raise ValueError("not a sound Kleopatra state: pending")
    if visit is not None:
        _row(s.pool, visit.pool, UNITS, 2**31 - 1, "pending pool")
        _row(s.paid, visit.paid, NUM_KINDS, MAX_CARDS, "pending paid")
        _need(len(visit.built) <= MAX_BUILDS and all(15 <= a <= 30 for a in visit.built), "pending built")
        s.built_len = len(visit.built)
        for i, a in enumerate(visit.built):
            s.built[i] = a
    if name == "refill":
        _need(1 <= len(pending.drawn) <= 3 and all(0 <= c < 2 * NUM_KINDS for c in pending.drawn), "pending drawn")
        s.drawn_len = len(pending.drawn)
        for i, c in enumerate(pending.drawn):
            s.drawn[i] = c
        for i in range(3):
            s.filled[i] = pending.filled[i]
    elif name in ("mosaic_orient", "mosaic_square"):
        _need(0 <= pending.tile < NUM_TILES, "pending tile")
        s.tile, s.scribe = pending.tile, pending.scribe
        if name == "mosaic_square":
            _need(0 <= pending.orient < 8, "pending orient")
            s.orient = pending.orient
    elif name == "mosaic_tile":
        _need(s.stack_len > 0, "no tile left in the quarry")
    elif name == "anubis":
        queue = pending.queue
        _need(1 <= len(queue) <= s.num_sanctuaries and all(0 <= q < s.num_sanctuaries for q in queue),
              "pending sanctuaries")
        s.anubis_len = len(queue)
        for i, q in enumerate(queue):
            s.anubis_queue[i] = q
    elif name == "beggar":
        _need(len(pending.queue) < n and all(0 <= q < n for q in pending.queue), "pending queue")
        s.beggar_len = len(pending.queue)
        for i, q in enumerate(pending.queue):
            s.beggar_queue[i] = q
    elif name in ("envoy_offer", "envoy_accept"):
        _need(0 <= pending.resource < 5, "pending resource")
        s.resource = pending.resource
        _row(s.offers, pending.offers, n, MAX_CARDS, "pending offers")
        if name == "envoy_accept":
            _row(s.accepted, pending.accepted, n, MAX_CARDS, "pending accepted")
            _need(0 <= pending.target < n, "pending target")
            s.target = pending.target
    elif name == "vizier":
        _row(s.vizier_drawn, pending.drawn, NUM_KINDS, 5, "pending drawn")
        _need(0 <= pending.kept <= 5, "pending kept")
        s.vizier_kept = pending.kept
    elif name == "ceremony":
        _row(s.offers, pending.offers, n, 2**31 - 1, "pending offers")
    return 0


# ---------------------------------------------------------------------- many games in one call

from .observation import SCORE_SCALE

cdef extern from *:
    """
    #include "sobek_env/kleopatra/native/vector.hpp"
    using GameVectorBatch = kleopatra_native::VectorBatch;
    """


cdef object _batch_prototype(int num_players, dict rules, State* prototype):
    native = _native_rules(make_rules(num_players, **rules))
    prototype.rules = native.ptr  # a fresh state holding the table's rules, as deal expects
    return native


cdef int _batch_observation_size(int num_players):
    return _cached_layout(num_players).size


cdef NativeState _batch_state(const State& s, object rules):
    cdef NativeState o = _empty()
    o.st = new State(s)
    o.st.log = NULL
    o._native_rules = rules
    o._seed = 0
    o._gauss = None
    o._log = None
    return o


include "../native/batch.pxi"
