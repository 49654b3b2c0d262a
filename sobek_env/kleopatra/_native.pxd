# distutils: language = c++
"""The C++ API of Kleopatra's native engine (``native/engine.hpp``, ``observe.hpp``, ``resample.hpp``), for the
binding ``_native.pyx`` and for other Cython modules (a batched environment): ``cimport`` these and step a
``State`` (``NativeState.st``) with ``legal`` / ``apply`` / ``encode``, all usable ``nogil``. The headers are
named from the project's root, so a module that cimports this one builds with ``include_dirs=["."]``."""

from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t
from libcpp cimport bool as cbool
from libcpp.vector cimport vector


cdef extern from "sobek_env/kleopatra/native/engine.hpp" namespace "sobek_native" nogil:
    cdef cppclass PyRandom:
        PyRandom()
        void seed(uint64_t s)
        void get_state(uint32_t* words, int* index)
        void set_state(const uint32_t* words, int index)
        uint64_t getrandbits(int k)


cdef extern from "sobek_env/kleopatra/native/engine.hpp" namespace "kleopatra_native" nogil:
    const int NUM_KINDS
    const int MAX_PLAYERS
    const int STALLS
    const int NUM_TILES
    const int ORIENTATIONS
    const int SQUARES
    const int NUM_WALL_SLOTS
    const int MAX_CARDS
    const int MAX_BUILDS
    const int UNITS
    const int NUM_ACTIONS
    const int NUM_PHASES
    const int NUM_EVENTS
    const int TURN
    const int QUARRY_VISIT
    const int AFTER

    cdef struct Placement:
        int square
        uint64_t mask

    cdef cppclass Rules:
        int num_players
        int card_counts[17]
        int total_cards
        int tainted_amulets
        cbool trompe_ok[5]
        int priest_faces
        int hand_limit
        int ceremony_table[5]
        int crocodile_margin
        int sanctuary_max_squares
        int max_turns
        uint64_t garden
        uint64_t palms
        uint64_t wall_masks[9]
        cbool distinct[12][8]
        int num_placements[12][8]
        Placement placements[12][8][64]
        int num_all[12]
        uint64_t all_masks[12][512]

    cdef struct Mosaic:
        int8_t tile
        int8_t orient
        int8_t anchor
        int8_t by
        uint64_t mask

    cdef struct Sanctuary:
        uint64_t mask
        int8_t owner

    cdef cppclass State:
        State()
        State(const State& other)
        const Rules* rules
        PyRandom rng
        vector[uint8_t]* log
        int n
        int turn
        int active
        int current
        int cleopatra
        int altar
        cbool over
        int32_t hands[5][17]
        int32_t talents[5]
        int32_t amulets[5]
        int32_t merchants[5]
        int32_t statues[5]
        int32_t built_by[5]
        int32_t ceremonies_won[5]
        uint8_t cards[3400]
        int deck_len
        int stall_len[3]
        int32_t discard[17]
        int32_t set_aside[17]
        int walls
        int gate
        int sphinxes
        int obelisks
        cbool pedestal
        cbool throne
        Mosaic mosaics[12]
        int num_mosaics
        uint64_t covered
        Sanctuary sanctuaries[64]
        int num_sanctuaries
        uint64_t sanctuary_union
        int8_t stack[12]
        int stack_len
        int8_t removed[12]
        int removed_len
        int8_t eaten[5]
        int eaten_len
        int32_t known[6][5][17]
        int32_t known_discard[6][17]
        cbool saw_stack[5]
        int8_t shown[5]
        int shown_len
        cbool has_last_ceremony
        int32_t last_offers[5]
        int32_t last_places[5]
        uint8_t phase
        uint8_t resume
        int32_t pool[7]
        int32_t paid[17]
        uint8_t built[33]
        int built_len
        uint8_t drawn[3]
        int drawn_len
        cbool filled[3]
        int tile
        int orient
        cbool scribe
        uint8_t anubis_queue[64]
        int anubis_len
        int8_t beggar_queue[5]
        int beggar_len
        int resource
        int target
        int32_t offers[5]
        int32_t accepted[5]
        int32_t vizier_drawn[17]
        int vizier_kept
        int stall_begin(int s)
        int score(int p)

    int legal(const State& s, int* out)
    void apply(State& s, int action)
    cbool is_legal(const State& s, int action)
    void deal(State& s, const Rules* rules)
    int winners(const State& s, int* out)


cdef extern from "sobek_env/kleopatra/native/observe.hpp" namespace "kleopatra_native" nogil:
    cdef struct Layout:
        int size
    Layout make_layout(int n)
    void encode(const State& s, const Layout& l, int seat, cbool memory, float* b)
    int state_size(const Layout& l, int n)
    void encode_state(const State& s, const Layout& l, float* b)


cdef extern from "sobek_env/kleopatra/native/resample.hpp" namespace "kleopatra_native" nogil:
    cbool resample(const State& s, int player, PyRandom& rng, State& out, uint64_t* seed)


cdef class NativeRules:
    cdef Rules* ptr
    cdef readonly object rules


cdef class NativeState:
    cdef State* st  # never NULL once made (new, from_json, from_python, clone, resample)
    cdef NativeRules _native_rules
    cdef object _seed
    cdef object _gauss
    cdef object _log
    cdef object _buffer       # the last buffer encode wrote to, and its view
    cdef float[::1] _view
    cdef vector[uint8_t] _events
    cdef int _legal[144]
    cdef int _num_legal
    cdef bint _legal_known
    cdef int _fill_legal(self) except -1
    cdef int _flush_log(self) except -1


# the batch's hooks (sobek_env/native/batch.pxi), for other batches of this engine (agents/training/_batch.pyx):
# a fresh state holding the table's rules (the returned object keeps them alive), and a state copied out
cdef object _batch_prototype(int num_players, dict rules, State* prototype)
cdef NativeState _batch_state(const State& s, object rules)
