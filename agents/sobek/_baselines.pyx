# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""Sobek's ``greedy`` and ``heuristic`` at native speed: the binding of agents/sobek/native/baselines.cpp.

:func:`decide` takes what the Python baselines take (one seat's observation dict and the table it sits at, as
a :class:`NativeTable`) and returns the same action id. The C++ decodes the float32 vector itself, so it sees
only what the seat sees; ``tests/sobek/test_native_baselines.py`` holds it to the Python reference.
"""

from cpython.pycapsule cimport PyCapsule_New

import numpy as np

from sobek_env.sobek.catalogue import NUM_KINDS, make_rules
from sobek_env.sobek.actions import NUM_ACTIONS as _NUM_ACTIONS
from sobek_env.sobek.observation import observation_layout, observation_size

from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer
from libc.stdint cimport uint8_t

assert KINDS == NUM_KINDS and NUM_ACTIONS == _NUM_ACTIONS
ENTRIES = "a number from 0 to 100"  # decode.py's bounds

include "../search/native/decide.pxi"


cdef class NativeTable:
    """The C++ view of a table: its number of players and rules options (rules §11), with the layout of its
    observations (checked against ``observation_layout``)."""

    def __init__(self, int num_players, rules=None):
        cdef int kind_goods[28]
        cdef int kind_scarabs[28]
        cdef int catalogue[28]
        options = {key: dict(value) for key, value in (rules or {}).items()}
        r = make_rules(num_players, **options)  # ValueError naming a bad option
        for k in range(KINDS):
            kind_goods[k], kind_scarabs[k], catalogue[k] = r.kind_goods[k], r.kind_scarabs[k], r.catalogue[k]
        if not make_table(self.table, num_players, kind_goods, kind_scarabs, catalogue):
            raise ValueError(f"the native baselines cannot seat {num_players} players with rules {options}")
        _seated(self, num_players, "sobek")
        self.rules = options

    def __reduce__(self):
        return NativeTable, (self.num_players, self.rules)


def decide(NativeTable table, str agent, double tolerance, observation) -> int:
    """The action id that ``agent`` (``greedy`` or ``heuristic``) chooses for ``observation`` (the dict with the
    seat's float32 ``"observation"`` vector and its ``"action_mask"``); ValueError for input it cannot read."""
    cdef int which, action, bad = -1
    cdef Py_buffer x, m
    if agent not in AGENTS:
        raise ValueError(f"unknown native baseline {agent!r}; use greedy or heuristic")
    which = AGENTS[agent]
    if not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be from 0 to 1, got {tolerance}")
    vector = _hold(table, observation, &x, &m)
    try:
        with nogil:
            action = native_decide(table.table, which, tolerance, <const float*>x.buf, <const uint8_t*>m.buf, &bad)
    finally:
        PyBuffer_Release(&m)
        PyBuffer_Release(&x)
    return _answer(action, bad, vector, "decide")


def advise(NativeTable table, double tolerance, observation, out) -> int:
    """:class:`agents.sobek.features.Advice`'s entries for ``observation`` (the heuristic at ``tolerance``)
    written into ``out`` (a zeroed float32 vector of ``2 * NUM_ACTIONS + num_players + 4`` entries); returns the
    advised action. ValueError for input it cannot read."""
    cdef int action, bad = -1
    cdef Py_buffer x, m, o
    if not 0.0 <= tolerance <= 1.0:
        raise ValueError(f"tolerance must be from 0 to 1, got {tolerance}")
    vector = _hold(table, observation, &x, &m)
    try:
        PyObject_GetBuffer(out, &o, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE)
        try:
            if o.itemsize != 4 or o.format[0] != b"f" or o.len != 4 * (2 * NUM_ACTIONS + table.num_players + 4):
                raise ValueError(f"the advice goes into a float32 vector of {2 * NUM_ACTIONS + table.num_players + 4}"
                                 f" entries at {table.num_players} players")
            with nogil:
                action = native_advise(table.table, tolerance, <const float*>x.buf, <const uint8_t*>m.buf,
                                       <float*>o.buf, &bad)
        finally:
            PyBuffer_Release(&o)
    finally:
        PyBuffer_Release(&m)
        PyBuffer_Release(&x)
    return _answer(action, bad, vector, "advise on")


cdef object _hold(NativeTable table, object observation, Py_buffer* x, Py_buffer* m):
    """Hold the observation dict's vector in ``x`` and its mask in ``m`` as the C++ reads them (the caller releases
    both), or hold neither and raise ValueError saying what is wrong; answers the vector. The buffers are taken
    directly (no typed memoryview): a good part of a call's time is spent before the C++ runs."""
    try:
        vector, mask = observation["observation"], observation["action_mask"]
    except (KeyError, TypeError, IndexError):
        raise ValueError("the observation must be a dict with 'observation' and 'action_mask'") from None
    if not _float32_vector(vector, x, table.size):
        _refuse_vector(vector, table)
    try:
        if not _flags(mask, m):
            mask = np.ascontiguousarray(np.asarray(mask) != 0)
            _flags(mask, m)
        if m.len != NUM_ACTIONS:
            PyBuffer_Release(m)
            raise ValueError(f"the action mask must have {NUM_ACTIONS} entries, got shape {np.shape(mask)}")
    except BaseException:
        PyBuffer_Release(x)
        raise
    return vector


cdef bint _float32_vector(object vector, Py_buffer* x, Py_ssize_t size):
    """Hold ``vector``'s buffer in ``x`` if it is a contiguous float32 vector of ``size`` entries (else hold none)."""
    try:
        PyObject_GetBuffer(vector, x, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (TypeError, BufferError, ValueError):  # no buffer, or not a contiguous one
        return False
    if x.ndim == 1 and x.itemsize == 4 and x.format[0] == b"f" and x.format[1] == 0 and x.shape[0] == size:
        return True
    PyBuffer_Release(x)
    return False


cdef bint _flags(object mask, Py_buffer* m):
    """Hold ``mask``'s buffer in ``m`` if it is a contiguous array of one-byte flags (else hold none)."""
    try:
        PyObject_GetBuffer(mask, m, PyBUF_C_CONTIGUOUS)
    except (TypeError, BufferError, ValueError):
        return False
    if m.itemsize == 1:
        return True
    PyBuffer_Release(m)
    return False


def derived(NativeTable table, observation) -> dict:
    """The numbers the native decoder derives rather than reads (``unseen``, ``coming``, ``coming_scarabs``,
    ``coming_amulets``, ``coming_total``, ``pile_size``), named as :class:`sobek_env.sobek.decode.View`'s
    fields, for the tests to compare bit for bit with the reference's."""
    cdef View view
    cdef int bad = -1
    cdef const float[::1] x = observation["observation"]
    cdef const uint8_t[::1] m = np.ascontiguousarray(np.asarray(observation["action_mask"]) != 0).view(_UINT8)
    if x.shape[0] != table.size or m.shape[0] != NUM_ACTIONS:
        raise ValueError(f"a {table.num_players}-player observation has {table.size} entries and {NUM_ACTIONS} flags")
    if native_decode(table.table, &x[0], &m[0], view, &bad):
        raise ValueError(f"observation entry {bad} is {x[bad]}: every entry must be {ENTRIES}")
    return {
        "unseen": [view.unseen[k] for k in range(KINDS)],
        "coming": [view.coming[g] for g in range(6)],
        "coming_scarabs": [view.coming_scarabs[g] for g in range(6)],
        "coming_amulets": view.coming_amulets,
        "coming_total": view.coming_total,
        "pile_size": [view.pile_size[p] for p in range(table.num_players)],
    }


def table_capsule(NativeTable table):
    """``table``'s C++ Table as a capsule named ``sobek_native::Table``, for compiled modules that decide without
    Python (agents/training/_batch.pyx); whoever holds the capsule must keep ``table`` alive."""
    return PyCapsule_New(&table.table, b"sobek_native::Table", NULL)
