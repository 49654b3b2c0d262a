# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""Kleopatra's ``greedy`` and ``heuristic`` at native speed: the binding of agents/kleopatra/native/baselines.cpp.

:func:`decide` takes what the Python baselines take (one seat's observation dict and the table it sits at, as a
:class:`NativeTable`) and returns the same action id. The C++ decodes the float32 vector itself, so it sees only
what the seat sees; ``tests/kleopatra/test_native_baselines.py`` holds it to the Python reference.
"""

from cpython.pycapsule cimport PyCapsule_New

import numpy as np

from sobek_env.kleopatra.actions import NUM_ACTIONS as _NUM_ACTIONS
from sobek_env.kleopatra.catalogue import NUM_KINDS as _NUM_KINDS, NUM_WALL_SLOTS, make_rules
from sobek_env.kleopatra.observation import observation_layout, observation_size
from sobek_env.kleopatra.phases import PHASE_NAMES
from sobek_env.kleopatra.view import MODES

from libc.stdint cimport uint8_t, uint64_t
from libcpp.vector cimport vector

# the phases in the order baselines.cpp's Phase enum numbers them
CPP_PHASES = ("turn", "refill", "quarry", "mosaic_tile", "mosaic_orient", "mosaic_square", "anubis", "after",
              "hand_limit", "limit_discard", "beggar", "courtesan", "envoy_resource", "envoy_offer", "envoy_accept",
              "vizier", "scribe_die", "ceremony")
if NUM_KINDS != _NUM_KINDS or NUM_ACTIONS != _NUM_ACTIONS or tuple(PHASE_NAMES) != CPP_PHASES:
    raise ImportError("agents/kleopatra/native/baselines.cpp's catalogue differs from sobek_env.kleopatra's; "
                      "update the C++ tables")

ENTRIES = "a finite number from 0 to 2**31"  # observation.decode's bounds

include "../search/native/decide.pxi"


cdef class NativeTable:
    """The C++ view of a table: its number of players, observation mode and rules options (rules §13), with the
    palace's geometry and the layout of its observations (checked against ``observation_layout``)."""

    def __init__(self, int num_players, str observation_mode="original", rules=None):
        cdef int trompe[5]
        cdef uint64_t walls[9]
        cdef vector[int] tiles, orients, squares
        cdef vector[uint64_t] masks
        if observation_mode not in MODES:
            raise ValueError(f"observation_mode must be one of {', '.join(MODES)}, got {observation_mode!r}")
        options = dict(rules or {})
        r = make_rules(num_players, **options)  # ValueError naming a bad option
        geo = r.geometry
        for i in range(5):
            trompe[i] = i in r.trompe_stands_for
        for k in range(NUM_WALL_SLOTS):
            walls[k] = geo.wall_masks[k]
        for t, placements in enumerate(geo.placements_of_tile):
            for orient, square, mask in placements:
                tiles.push_back(t)
                orients.push_back(orient)
                squares.push_back(square)
                masks.push_back(mask)
        if not make_table(self.table, num_players, observation_mode == "memory", r.hand_limit, r.max_turns, trompe,
                          r.sanctuary_max_squares, geo.garden, geo.palms, walls, <int>tiles.size(), tiles.data(),
                          orients.data(), squares.data(), masks.data()):
            raise ValueError(f"the native baselines cannot seat {num_players} players with rules {options}")
        _seated(self, num_players, "kleopatra")
        self.observation_mode = observation_mode
        self.rules = options

    def __reduce__(self):
        return NativeTable, (self.num_players, self.observation_mode, self.rules)


def decide(NativeTable table, str agent, double tolerance, observation) -> int:
    """The action id that ``agent`` (``greedy`` or ``heuristic``) chooses for ``observation`` (the dict with the
    seat's float32 ``"observation"`` vector and its ``"action_mask"``); ValueError for input it cannot read."""
    cdef int which, action, bad = -1
    cdef const float[::1] x
    cdef const uint8_t[::1] m
    if agent not in AGENTS:
        raise ValueError(f"unknown native baseline {agent!r}; use greedy or heuristic")
    which = AGENTS[agent]
    if not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance}")
    vector, mask = _checked(table, observation)
    x = vector
    m = mask.view(_UINT8)
    with nogil:
        action = native_decide(table.table, which, tolerance, &x[0], &m[0], &bad)
    return _answer(action, bad, vector, "decide")


def advise(NativeTable table, double tolerance, observation, out) -> int:
    """:class:`agents.kleopatra.features.Advice`'s entries for ``observation`` (the heuristic at ``tolerance``)
    written into ``out`` (a zeroed float32 vector of ``NUM_ACTIONS + num_players + 4`` entries); returns the
    advised action. ValueError for input it cannot read."""
    cdef int action, bad = -1
    cdef const float[::1] x
    cdef const uint8_t[::1] m
    cdef float[::1] o
    if not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance}")
    vector, mask = _checked(table, observation)
    size = NUM_ACTIONS + table.num_players + 4
    if not isinstance(out, np.ndarray) or out.dtype != _FLOAT32 or out.shape != (size,) or not out.flags.c_contiguous \
            or not out.flags.writeable:
        raise ValueError(f"the advice goes into a writable float32 vector of {size} entries at {table.num_players} "
                         "players")
    x, m, o = vector, mask.view(_UINT8), out
    with nogil:
        action = native_advise(table.table, tolerance, &x[0], &m[0], &o[0], &bad)
    return _answer(action, bad, vector, "advise on")


cdef tuple _checked(NativeTable table, object observation):
    """The observation dict's vector and mask as the C++ reads them, or ValueError saying what is wrong."""
    try:
        vector, mask = observation["observation"], observation["action_mask"]
    except (KeyError, TypeError, IndexError):
        raise ValueError("the observation must be a dict with 'observation' and 'action_mask'") from None
    if not isinstance(vector, np.ndarray) or vector.dtype != _FLOAT32 or vector.ndim != 1 \
            or vector.shape[0] != table.size or not vector.flags.c_contiguous:
        _refuse_vector(vector, table)
    if not isinstance(mask, np.ndarray) or mask.dtype.itemsize != 1 or mask.dtype.kind not in "biu" \
            or not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(np.asarray(mask) != 0)
    if mask.ndim != 1 or mask.shape[0] != NUM_ACTIONS:
        raise ValueError(f"the action mask must have {NUM_ACTIONS} entries, got shape {np.shape(mask)}")
    return vector, mask


def constants() -> dict:
    """The catalogue's averages the C++ derives at start-up (``UNSEEN_WORTH``, ``UNSEEN_CORRUPT``, ``UNSEEN_MIX``),
    for the tests to compare bit for bit with the Python modules'."""
    cdef double out[2 + 17]
    native_constants(out)
    return {"UNSEEN_WORTH": out[0], "UNSEEN_CORRUPT": out[1], "UNSEEN_MIX": [out[2 + k] for k in range(17)]}


def matvec(matrix, vector) -> np.ndarray:
    """``matrix @ vector`` summed as the C++ sums the prospects' products (the tests compare it with
    :func:`agents.kleopatra.prospects.ordered_dot`)."""
    cdef const double[:, ::1] a = np.ascontiguousarray(matrix, dtype=np.float64)
    cdef const double[::1] w = np.ascontiguousarray(vector, dtype=np.float64)
    out = np.zeros(a.shape[0], dtype=np.float64)
    cdef double[::1] o = out
    if a.shape[1] != w.shape[0] or not 1 <= a.shape[1] <= 5:
        raise ValueError(f"matvec takes a (rows, 1 to 5) matrix and a matching vector, got {np.shape(matrix)} and "
                         f"{np.shape(vector)}")
    if a.shape[0]:
        native_matvec(&a[0, 0], <int>a.shape[0], <int>a.shape[1], &w[0], &o[0])
    return out


def decide_many(NativeTable table, str agent, double tolerance, observations, masks) -> np.ndarray:
    """:func:`decide` for a batch: row ``i`` of ``observations`` (float32, one vector a row) with row ``i`` of
    ``masks`` (one flag an action), all decided in C++ without the GIL; the action ids as an int32 array."""
    cdef int which, i = 0, action, bad = -1  # i: the row refused, read after the loop
    cdef Py_ssize_t rows
    if agent not in AGENTS:
        raise ValueError(f"unknown native baseline {agent!r}; use greedy or heuristic")
    which = AGENTS[agent]
    if not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be a number from 0 to 1, got {tolerance}")
    obs = np.asarray(observations)
    flags = np.asarray(masks)
    if obs.dtype != _FLOAT32 or obs.ndim != 2 or obs.shape[1] != table.size:
        raise ValueError(f"observations must be a float32 array of shape (rows, {table.size}), got {obs.dtype} "
                         f"{obs.shape}")
    if flags.ndim != 2 or flags.shape != (obs.shape[0], NUM_ACTIONS):
        raise ValueError(f"masks must have shape ({obs.shape[0]}, {NUM_ACTIONS}), got {flags.shape}")
    cdef const float[:, ::1] x = np.ascontiguousarray(obs)
    cdef const uint8_t[:, ::1] m = np.ascontiguousarray(flags != 0).view(_UINT8)
    out = np.empty(obs.shape[0], dtype=np.int32)
    cdef int[::1] actions = out
    rows = obs.shape[0]
    with nogil:
        for i in range(rows):
            action = native_decide(table.table, which, tolerance, &x[i, 0], &m[i, 0], &bad)
            actions[i] = action
            if action < 0:
                break
    if rows and out[i] < 0:
        raise ValueError(f"row {i} refused (code {out[i]}): decide() on that row says why")
    return out


def table_capsule(NativeTable table):
    """``table``'s C++ Table as a capsule named ``kleopatra_baselines::Table``, for compiled modules that decide without
    Python (agents/training/_batch.pyx); whoever holds the capsule must keep ``table`` alive."""
    return PyCapsule_New(&table.table, b"kleopatra_baselines::Table", NULL)
