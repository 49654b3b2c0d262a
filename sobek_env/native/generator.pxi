# random.Random's state into the C++ generator (sobek_env/native/pyrandom.hpp) and back, for every binding that
# draws as Python does: the engines' _native.pyx (through state.pxi) and the playouts (agents/search/native/
# playouts.pxi). The including module declares PyRandom.

from cpython.long cimport PyLong_AsUnsignedLong, PyLong_FromUnsignedLong
from cpython.ref cimport Py_INCREF
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_New, PyTuple_SET_ITEM
from libc.stdint cimport uint32_t

cdef int MT_WORDS = 624  # random.Random's Mersenne Twister: 624 words, then the index


cdef int _load_generator(PyRandom* out, object state) except -1:
    """random.Random.getstate()'s ``state`` into ``out``; ValueError for another kind of state."""
    cdef uint32_t words[624]
    cdef unsigned long word
    cdef tuple internal
    cdef Py_ssize_t i
    version, internal, _ = state
    if version != 3 or len(internal) != MT_WORDS + 1 or not 0 <= internal[MT_WORDS] <= MT_WORDS:
        raise ValueError("the generator's state is not random.Random's (version 3, 624 words and an index "
                         "from 0 to 624)")
    for i in range(MT_WORDS):  # the tuple read directly: a resample reads one at every determinization
        word = PyLong_AsUnsignedLong(<object>PyTuple_GET_ITEM(internal, i))
        if word >> 32:
            raise ValueError("the generator's state holds a word outside 32 bits")
        words[i] = <uint32_t>word
    out.set_state(words, internal[MT_WORDS])
    return 0


cdef tuple _generator_state(PyRandom* generator, object gauss):
    """``generator``'s state as random.Random.getstate() gives it, with ``gauss`` (its spare normal draw)."""
    cdef uint32_t words[624]
    cdef int index
    cdef Py_ssize_t i
    generator.get_state(words, &index)
    internal = PyTuple_New(MT_WORDS + 1)
    for i in range(MT_WORDS + 1):
        value = PyLong_FromUnsignedLong(words[i]) if i < MT_WORDS else index
        Py_INCREF(value)  # PyTuple_SET_ITEM takes the reference over
        PyTuple_SET_ITEM(internal, i, value)
    return 3, internal, gauss
