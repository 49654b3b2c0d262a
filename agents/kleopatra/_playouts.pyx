# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""Kleopatra's whole playouts at native speed (agents/kleopatra/native/playout.hpp's traits under the class of
agents/search/native/playouts.pxi), which the search's rollouts use on native states; made by
:func:`agents.kleopatra.native_agents.playouts`."""

from sobek_env.kleopatra._native cimport NativeState, PyRandom, State
from agents.kleopatra._baselines cimport NativeTable, Table

cdef extern from *:
    """
    #include "agents/kleopatra/native/playout.hpp"
    using PlayoutTraits = kleopatra_native::KleopatraPlayout;
    """

cdef extern from "agents/kleopatra/native/playout.hpp" namespace "kleopatra_native" nogil:
    cdef struct EngineLayout "kleopatra_native::Layout":
        int size
    EngineLayout make_layout(int n)
    cdef struct PlayTable "kleopatra_native::PlayoutTable":  # the baselines' table and the engine's layout
        const Table* baselines
        EngineLayout layout


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


include "../search/native/playouts.pxi"
