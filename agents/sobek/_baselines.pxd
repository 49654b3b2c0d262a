# The C++ API of Sobek's native baselines (agents/sobek/native/baselines.hpp), for Cython modules that decide
# without Python (a batched environment, whole playouts): build a Table once with make_table, then call decide
# with a seat's observation and mask. Link agents/sobek/native/baselines.cpp and put the project root on the
# include path.
from libc.stdint cimport uint8_t

cdef extern from "agents/sobek/native/baselines.hpp" namespace "sobek_native":
    const int KINDS
    const int NUM_ACTIONS

    cdef struct Layout:
        int size

    cdef cppclass Table:
        Layout at

    cdef cppclass View:
        int phase
        double unseen[28]
        double coming[6]
        double coming_scarabs[6]
        double coming_amulets
        double coming_total
        double pile_size[4]

    bint make_table(Table& table, int num_players, const int* kind_goods, const int* kind_scarabs,
                    const int* catalogue) nogil

# the C++ decide, under a name that leaves decide to the Python binding
cdef extern from "agents/sobek/native/baselines.hpp":
    int native_decode "sobek_native::decode" (const Table& table, const float* obs, const uint8_t* mask, View& view,
                                              int* bad_entry) nogil
    int native_advise "sobek_native::advise" (const Table& table, double tolerance, const float* obs,
                                              const uint8_t* mask, float* out, int* bad_entry) nogil
    int native_decide "sobek_native::decide" (const Table& table, int agent, double tolerance, const float* obs,
                                              const uint8_t* mask, int* bad_entry) nogil


cdef class NativeTable:
    cdef Table table
    cdef readonly int num_players
    cdef readonly int size
    cdef object rules
