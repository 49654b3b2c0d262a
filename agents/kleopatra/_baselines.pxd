# The C++ API of Kleopatra's native baselines (agents/kleopatra/native/baselines.hpp), for Cython modules that
# decide without Python (a batched environment, whole playouts): build a NativeTable once (or fill a Table with
# make_table), then call native_decide with a seat's observation and mask. Link
# agents/kleopatra/native/baselines.cpp and put the project root on the include path.
from libc.stdint cimport uint8_t, uint64_t

cdef extern from "agents/kleopatra/native/baselines.hpp" namespace "kleopatra_baselines":
    const int NUM_KINDS
    const int NUM_ACTIONS

    cdef struct Layout:
        int size

    cdef cppclass Table:
        Layout at

    bint make_table(Table& table, int num_players, bint memory, int hand_limit, int max_turns, const int* trompe_ok,
                    int sanctuary_max, uint64_t garden, uint64_t palms, const uint64_t* wall_masks, int count,
                    const int* tiles, const int* orients, const int* squares, const uint64_t* masks) nogil

# the C++ functions, under names that leave decide to the Python binding
cdef extern from "agents/kleopatra/native/baselines.hpp":
    int native_decide "kleopatra_baselines::decide" (const Table& table, int agent, double tolerance, const float* obs,
                                                  const uint8_t* mask, int* bad_entry) nogil
    int native_advise "kleopatra_baselines::advise" (const Table& table, double tolerance, const float* obs,
                                                  const uint8_t* mask, float* out, int* bad_entry) nogil
    void native_constants "kleopatra_baselines::constants" (double* out) nogil
    void native_matvec "kleopatra_baselines::matvec" (const double* matrix, int rows, int width, const double* vector,
                                                   double* out) nogil


cdef class NativeTable:
    cdef Table table
    cdef readonly int num_players
    cdef readonly int size
    cdef readonly str observation_mode
    cdef object rules
