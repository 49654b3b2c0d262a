# The binding of agents/search/native/playout.hpp, shared by every game's agents/<game>/_playouts.pyx, which
# includes it after naming its traits class (playout.hpp's G) in verbatim C++,
#     cdef extern from *:
#         """
#         #include "agents/<game>/native/playout.hpp"
#         using PlayoutTraits = <the game's traits class>;
#         """
# and declaring, for its own engine and baselines: State and PyRandom, PlayTable (the traits' Table), and the hooks
#   cdef int _fill_table(NativeTable table, bint memory, PlayTable* out) except -1
#   cdef State* _state_of(object state) except NULL        ValueError for anything but this game's NativeState
# The rest of a game's playouts is its traits class, declared here once.

import random

from libc.stdint cimport uint8_t, uint64_t
from libcpp.vector cimport vector

include "../../../sobek_env/native/generator.pxi"

cdef extern from "agents/search/native/playout.hpp" namespace "sobek_native" nogil:
    cdef struct SeatPolicy:
        int policy
        double tolerance
    enum:
        PLAY_RANDOM
        PLAY_GREEDY
        PLAY_HEURISTIC
        PLAYOUT_ILLEGAL_CHOICE

cdef extern from * nogil:
    enum:
        NUM_ACTIONS "PlayoutTraits::NUM_ACTIONS"
    long _play "sobek_native::playout<PlayoutTraits>" (
        State& s, const PlayTable& table, const SeatPolicy* seats, bint memory, PyRandom& rng, long max_actions,
        float* obs, uint8_t* mask, int* refusal)
    int _choose "sobek_native::choose<PlayoutTraits>" (
        const State& s, const PlayTable& table, const SeatPolicy& seat, bint memory, PyRandom& rng, float* obs,
        uint8_t* mask)
    void _outlook "PlayoutTraits::outlook" (const State& s, double* out)
    bint _is_over "PlayoutTraits::over" (const State& s)
    int _current "PlayoutTraits::current" (const State& s)
    int _num_players "PlayoutTraits::num_players" (const State& s)
    void _copy "PlayoutTraits::copy" (const State& src, State& dst)

POLICIES = ("random", "greedy", "heuristic")  # their codes in playout.hpp, in order
REFUSALS = {-1: "an observation entry out of range", -2: "no legal action in the mask",
            -3: "an unknown agent", -4: "a table it cannot seat", PLAYOUT_ILLEGAL_CHOICE: "an illegal action"}


cdef class Playouts:
    """Whole playouts at one table, one policy per seat: ``policies`` holds ``(name, tolerance)`` pairs, the
    name ``random``, ``greedy`` or ``heuristic`` (``tolerance`` is the heuristic's, from 0 to 1; ignored by the
    others); ``memory`` chooses the observation mode the baselines read."""

    cdef PlayTable table
    cdef vector[SeatPolicy] seats
    cdef vector[float] obs
    cdef vector[uint8_t] mask
    # the playout's state and generator, made once: constructing either seeds a generator, which costs more
    # than a short playout (so a Playouts object serves one thread at a time, as its buffers do)
    cdef State scratch
    cdef PyRandom generator
    cdef readonly int num_players
    cdef readonly bint memory
    cdef bint draws  # whether a seat plays random actions: without one, the generator is never read
    cdef readonly tuple policies
    cdef object _native_table  # keeps the baselines' table (which PlayTable points into) alive

    def __init__(self, NativeTable table, policies, bint memory=False):
        cdef SeatPolicy seat
        if table is None:
            raise ValueError("table must be the baselines' NativeTable, got None")
        try:
            pairs = tuple((name, tolerance) for name, tolerance in policies)
        except (TypeError, ValueError):
            raise ValueError(f"policies must be (name, tolerance) pairs, one per seat, got {policies!r}") from None
        self.seats.clear()
        self.draws = False
        if len(pairs) != table.num_players:
            raise ValueError(f"{len(pairs)} policies for a {table.num_players}-player table: give one per seat")
        for name, tolerance in pairs:
            if name not in POLICIES:
                raise ValueError(f"unknown playout policy {name!r}; use one of {', '.join(POLICIES)}")
            if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance <= 1:
                raise ValueError(f"the {name} policy's tolerance must be a number from 0 to 1, got {tolerance!r}")
            seat.policy = POLICIES.index(name)
            seat.tolerance = tolerance
            self.seats.push_back(seat)
            self.draws = self.draws or seat.policy == PLAY_RANDOM
        _fill_table(table, memory, &self.table)
        self._native_table = table
        self.num_players, self.memory, self.policies = table.num_players, memory, pairs
        self.obs.resize(table.size)
        self.mask.resize(NUM_ACTIONS)

    def __reduce__(self):  # an agent holding playouts travels to tournament workers
        return type(self), (self._native_table, self.policies, self.memory)

    def run(self, state, rng, steps=0) -> tuple:
        """Play ``state`` (a native state, left unchanged) on for ``steps`` actions (0: to the end), each seat by
        its policy, the random ones drawing from ``rng`` (a random.Random, advanced as Python's rollout would
        advance it, or a seed: random.Random(seed)); returns every seat's ``Game.outlook`` margin at the end of
        the playout and the number of actions played."""
        cdef const State* s = self._playable(state)
        cdef long limit = self._steps(steps)
        cdef double margins[8]
        cdef long played
        cdef int refusal = 0, p
        gauss = _load(rng, &self.generator) if self.draws else _check(rng)
        _copy(s[0], self.scratch)
        with nogil:
            played = _play(self.scratch, self.table, self.seats.data(), self.memory, self.generator, limit,
                           self.obs.data(), self.mask.data(), &refusal)
        if gauss is not _SEED:
            _store(&self.generator, rng, gauss)
        if refusal:
            raise RuntimeError(f"a native baseline refused the playout after {played} actions: "
                               f"{REFUSALS.get(refusal, refusal)}")
        _outlook(self.scratch, margins)
        return [margins[p] for p in range(self.num_players)], played

    def choose(self, state, rng=None) -> int:
        """The action the policy of the seat to move in ``state`` (not over) takes there, without playing it;
        ``rng`` as in :meth:`run`, needed only by a random seat."""
        cdef const State* s = self._playable(state)
        cdef int action
        if self.seats[_current(s[0])].policy == PLAY_RANDOM and rng is None:
            raise ValueError("a random seat draws its action: give rng (a random.Random or a seed)")
        random_seat = self.seats[_current(s[0])].policy == PLAY_RANDOM
        gauss = _load(rng, &self.generator) if random_seat else _SEED if rng is None else _check(rng)
        action = _choose(s[0], self.table, self.seats[_current(s[0])], self.memory, self.generator, self.obs.data(),
                         self.mask.data())
        if gauss is not _SEED:
            _store(&self.generator, rng, gauss)
        if action < 0:
            raise RuntimeError(f"a native baseline refused the state: {REFUSALS.get(action, action)}")
        return action

    def outlook(self, state) -> list:
        """``Game.outlook`` of a native state (of any progress): each seat's margin were the game to end now."""
        cdef double margins[8]
        cdef int p
        cdef const State* s = _state_of(state)
        _outlook(s[0], margins)
        return [margins[p] for p in range(_num_players(s[0]))]

    cdef const State* _playable(self, state) except NULL:
        cdef const State* s = _state_of(state)
        if _num_players(s[0]) != self.num_players:
            raise ValueError(f"the playouts were made for {self.num_players} players, the state has "
                             f"{_num_players(s[0])}")
        if _is_over(s[0]):
            raise ValueError("the game is over: there is nothing to play out")
        return s

    cdef long _steps(self, steps) except -1:
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise ValueError(f"steps must be a whole number from 0 (0: to the end of the game), got {steps!r}")
        return steps


_SEED = object()  # what _load answers for a seed: there is no generator to write back


cdef object _check(object rng):
    """:func:`_load`'s checks of ``rng`` without reading it, for playouts that never draw (answers _SEED)."""
    if isinstance(rng, int) and not isinstance(rng, bool):
        if not 0 <= rng < 2 ** 64:
            raise ValueError(f"a playout seed must be from 0 to 2**64 - 1, got {rng}")
    elif not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random or a seed (an int), got {type(rng).__name__}")
    return _SEED


cdef object _load(object rng, PyRandom* out):
    """``rng`` into ``out``: a seed (0 to 2**64 - 1) seeds it as random.Random(seed) does (the answer is _SEED),
    a random.Random's state is copied (the answer is its gauss_next, for :func:`_store`)."""
    if isinstance(rng, int) and not isinstance(rng, bool):
        if not 0 <= rng < 2 ** 64:
            raise ValueError(f"a playout seed must be from 0 to 2**64 - 1, got {rng}")
        out.seed(<uint64_t>rng)
        return _SEED
    if not isinstance(rng, random.Random):
        raise ValueError(f"rng must be a random.Random or a seed (an int), got {type(rng).__name__}")
    state = rng.getstate()
    _load_generator(out, state)
    return state[2]


cdef int _store(PyRandom* generator, object rng, object gauss) except -1:
    """``generator``'s state back into the random.Random ``rng``."""
    rng.setstate(_generator_state(generator, gauss))
    return 0
