# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""Sobek's whole playouts at native speed, the search's rollouts on native states: agents/search/native/playouts.pxi
over this game's traits (agents/sobek/native/playout.hpp). Build one with :func:`agents.sobek.native_agents.playouts`."""

from sobek_env.sobek._native cimport NativeState, PyRandom, State
from agents.sobek._baselines cimport NativeTable, Table

cdef extern from *:
    """
    #include "agents/sobek/native/playout.hpp"
    using PlayoutTraits = sobek_native::SobekPlayout;
    """

ctypedef Table PlayTable  # the baselines read the engine's observations: their table is all a playout needs


cdef int _fill_table(NativeTable table, bint memory, PlayTable* out) except -1:
    out[0] = table.table
    return 0


cdef State* _state_of(object state) except NULL:
    if not isinstance(state, NativeState):
        raise ValueError(f"a native playout starts from a native Sobek state (engine='native'), got "
                         f"{type(state).__name__}")
    return &(<NativeState>state).s


include "../search/native/playouts.pxi"
