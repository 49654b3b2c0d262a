# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""Sobek's whole playouts at native speed: the binding of agents/sobek/native/playout.hpp (the shared class is
agents/search/native/playouts.pxi). A playout runs the native engine from a :class:`NativeState`, each seat
playing uniformly random actions or a native baseline, with no Python between the actions; the search's
rollouts (:mod:`agents.search.ismcts`) use it on native states. Build one with
:func:`agents.sobek.native_agents.playouts`."""

from sobek_env.sobek._native cimport NativeState, PyRandom, State
from agents.sobek._baselines cimport NativeTable, Table

from libc.stdint cimport uint8_t

cdef extern from "agents/sobek/native/playout.hpp" namespace "sobek_native" nogil:
    cdef struct SeatPolicy:
        int policy
        double tolerance
    enum:
        PLAY_RANDOM
        PLAY_GREEDY
        PLAY_HEURISTIC
        PLAYOUT_ILLEGAL_CHOICE
    enum:
        NUM_ACTIONS "sobek_native::SobekPlayout::NUM_ACTIONS"
    long _play "sobek_native::playout<sobek_native::SobekPlayout>" (
        State& s, const Table& table, const SeatPolicy* seats, bint memory, PyRandom& rng, long max_actions,
        float* obs, uint8_t* mask, int* refusal)
    int _choose "sobek_native::choose<sobek_native::SobekPlayout>" (
        const State& s, const Table& table, const SeatPolicy& seat, bint memory, PyRandom& rng, float* obs,
        uint8_t* mask)
    void _outlook "sobek_native::SobekPlayout::outlook" (const State& s, double* out)

ctypedef Table PlayTable


cdef int _fill_table(NativeTable table, bint memory, PlayTable* out) except -1:
    out[0] = table.table
    return 0


cdef State* _state_of(object state) except NULL:
    if not isinstance(state, NativeState):
        raise ValueError(f"a native playout starts from a native Sobek state (engine='native'), got "
                         f"{type(state).__name__}")
    return &(<NativeState>state).s


cdef void _copy(const State* src, State* dst) noexcept:
    dst[0] = src[0]
    dst.logging = False


cdef bint _is_over(const State* s) noexcept:
    return s.over


cdef int _num_players(const State* s) noexcept:
    return s.rules.num_players


cdef int _current(const State* s) noexcept:
    return s.current_player


include "../search/native/playouts.pxi"
