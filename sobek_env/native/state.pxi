# What every game's _native.pyx binds alike around its NativeState, included after its cimports and C++
# declarations (PyRandom, NUM_ACTIONS) with ACTION_NAMES, IllegalActionError and Integral imported: the checks and
# messages of the public protocol (actions, seats, seeds) as the Python engines word them, the legal ids as a
# list, and (generator.pxi) random.Random's state read into the C++ generator and back.

import random

from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.long cimport PyLong_AsLongAndOverflow
from cpython.ref cimport Py_INCREF

include "generator.pxi"

cdef tuple ACTION_IDS = tuple(range(NUM_ACTIONS))  # the ids legal_actions hands out, made once


cdef list _id_list(const int* ids, int count):
    """``ids[:count]`` as a list of action ids (filled in place: every step of a Python loop asks for one)."""
    cdef list out = PyList_New(count)
    cdef int i
    for i in range(count):
        item = ACTION_IDS[ids[i]]
        Py_INCREF(item)  # PyList_SET_ITEM takes the reference over
        PyList_SET_ITEM(out, i, item)
    return out


cdef object _integer_action(object action):
    """``action`` as an int; IllegalActionError for anything but an integer (a bool is not one)."""
    if type(action) is int:
        return action
    if isinstance(action, bool) or not isinstance(action, Integral):
        raise IllegalActionError(f"an action must be an integer id from 0 to {NUM_ACTIONS - 1}, "
                                 f"got {action!r:.40} ({type(action).__name__})")
    return int(action)


cdef long _legal_id(object action, const int* legal, int count):
    """The int ``action`` as a C id if it is one of the ``count`` legal ids, else -1 (huge ints included)."""
    cdef int overflow = 0, i
    cdef long a = PyLong_AsLongAndOverflow(action, &overflow)  # huge ints: overflow set, no error
    if not overflow and 0 <= a < NUM_ACTIONS:
        for i in range(count):
            if legal[i] == a:
                return a
    return -1


cdef str _illegal_message(bint over, object action, int player, str phase, list legal):
    """Why ``action`` is refused, worded as the Python engine's ``Game`` state words it."""
    if over:
        return f"action {action} is not legal: the game is over"
    if not 0 <= action < NUM_ACTIONS:
        what = f"action {action} is out of range (ids are 0 to {NUM_ACTIONS - 1})"
    else:
        what = f"action {action} ({ACTION_NAMES[action]}) is not legal now"
    names = ", ".join([f"{a} {ACTION_NAMES[a]}" for a in legal])
    return f"{what} for player {player} at {phase}; legal: {names}"


cdef int _player(object player, int n) except -1:
    """``player`` as a C int; ValueError unless it is an int (not a bool) seat from 0 to ``n - 1``."""
    if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < n:
        raise ValueError(f"player must be a seat from 0 to {n - 1}, got {player!r}")
    return player


cdef object _new_seed(object seed):
    """A new game's seed as an int (a fresh one for None); ValueError unless a non-negative integer."""
    if seed is None:
        return random.SystemRandom().randrange(2**63)
    if type(seed) is not int:
        if isinstance(seed, bool) or not isinstance(seed, Integral):
            raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
        seed = int(seed)
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return seed
