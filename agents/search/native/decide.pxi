# The binding every game's agents/<game>/_baselines.pyx shares, included after its imports: the agents and
# refusals of decide.hpp, and the checks and messages around a decide call. The including module has numpy as np,
# its NativeTable (a C++ ``table`` whose ``at.size`` is the observation's length, ``num_players``, ``size``), its
# game's ``observation_layout`` and ``observation_size``, and ENTRIES: what every observation entry must be.

import numpy as np

cdef extern from "agents/search/native/decide.hpp" namespace "sobek_native":
    cdef enum Agent:
        GREEDY
        HEURISTIC

    cdef enum Refusal:
        BAD_ENTRY
        NO_LEGAL_ACTION
        BAD_AGENT
        BAD_TABLE

AGENTS = {"greedy": GREEDY, "heuristic": HEURISTIC}
_FLOAT32 = np.dtype(np.float32)
_UINT8 = np.dtype(np.uint8)


cdef int _seated(NativeTable table, int num_players, str game) except -1:
    """Record the filled C++ table's sizes, once its observation layout is the Python one's length."""
    stops = [part.stop for part in observation_layout(num_players).values()]
    if table.table.at.size != observation_size(num_players) or max(stops) != table.table.at.size:
        raise RuntimeError(f"agents/{game}/native/baselines.cpp's observation layout differs from "
                           f"sobek_env.{game}.observation's; update its Layout")
    table.num_players = num_players
    table.size = table.table.at.size
    return 0


cdef int _refuse_vector(object vector, NativeTable table) except -1:
    """The ValueError that says what is wrong with an observation vector the C++ cannot read."""
    if not isinstance(vector, np.ndarray) or vector.dtype != _FLOAT32 or vector.ndim != 1:
        raise ValueError(f"the observation vector must be a 1-D float32 numpy array, got "
                         f"{type(vector).__name__} of {getattr(vector, 'dtype', '?')}")
    if vector.shape[0] != table.size:
        raise ValueError(f"the observation vector has {vector.shape[0]} entries; a {table.num_players}-player "
                         f"table's has {table.size}")
    raise ValueError("the observation vector is not contiguous; pass np.ascontiguousarray(vector)")


cdef int _answer(int code, int bad, object vector, str what) except -1:
    """The C++'s answer ``code`` to a call to ``what`` (decide, advise on) if it is an action id, else the
    ValueError for its refusal."""
    if code >= 0:
        return code
    if code == BAD_ENTRY:
        raise ValueError(f"observation entry {bad} is {vector[bad]}: every entry must be {ENTRIES}")
    if code == NO_LEGAL_ACTION:
        raise ValueError(f"the action mask has no legal action: there is nothing to {what.split()[0]}")
    raise ValueError(f"the native baseline refused the table or agent (code {code})")
