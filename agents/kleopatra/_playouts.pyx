# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""Kleopatra's whole playouts at native speed: the binding of agents/kleopatra/native/playout.hpp (the shared
class is agents/search/native/playouts.pxi). A playout runs the native engine from a :class:`NativeState`, each
seat playing uniformly random actions or a native baseline, with no Python between the actions; the search's
rollouts (:mod:`agents.search.ismcts`) use it on native states. Build one with
:func:`agents.kleopatra.native_agents.playouts`."""

from sobek_env.kleopatra._native cimport NativeState, PyRandom, State
from agents.kleopatra._baselines cimport NativeTable, Table

from libc.stdint cimport uint8_t

cdef extern from "agents/kleopatra/native/playout.hpp" namespace "sobek_native" nogil:
    cdef struct SeatPolicy:
        int policy
        double tolerance
    enum:
        PLAY_RANDOM
        PLAY_GREEDY
        PLAY_HEURISTIC
        PLAYOUT_ILLEGAL_CHOICE

cdef extern from "agents/kleopatra/native/playout.hpp" namespace "kleopatra_native" nogil:
    cdef struct EngineLayout "kleopatra_native::Layout":
        int size
    EngineLayout make_layout(int n)
    cdef struct PlayTable "kleopatra_native::PlayoutTable":
        const Table* baselines
        EngineLayout layout
    enum:
        NUM_ACTIONS "kleopatra_native::KleopatraPlayout::NUM_ACTIONS"
    long _play "sobek_native::playout<kleopatra_native::KleopatraPlayout>" (
        State& s, const PlayTable& table, const SeatPolicy* seats, bint memory, PyRandom& rng, long max_actions,
        float* obs, uint8_t* mask, int* refusal)
    int _choose "sobek_native::choose<kleopatra_native::KleopatraPlayout>" (
        const State& s, const PlayTable& table, const SeatPolicy& seat, bint memory, PyRandom& rng, float* obs,
        uint8_t* mask)
    void _outlook "kleopatra_native::KleopatraPlayout::outlook" (const State& s, double* out)


cdef int _fill_table(NativeTable table, bint memory, PlayTable* out) except -1:
    if memory != (table.observation_mode == "memory"):
        raise ValueError(f"the baselines' table reads {table.observation_mode} observations: make the playouts "
                         f"with memory={table.observation_mode == 'memory'}")
    out.baselines = &table.table
    out.layout = make_layout(table.num_players)
    return 0


cdef State* _state_of(object state) except NULL:
    if not isinstance(state, NativeState):
        raise ValueError(f"a native playout starts from a native Kleopatra state (engine='native'), got "
                         f"{type(state).__name__}")
    return (<NativeState>state).st


cdef void _copy(const State* src, State* dst) noexcept:
    dst[0] = src[0]
    dst.log = NULL


cdef bint _is_over(const State* s) noexcept:
    return s.over


cdef int _num_players(const State* s) noexcept:
    return s.n


cdef int _current(const State* s) noexcept:
    return s.current


include "../search/native/playouts.pxi"
