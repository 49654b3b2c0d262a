# The native engine's C++ API (sobek_env/sobek/native/*.hpp), for this binding and for any other Cython
# module that steps states without Python objects (``from sobek_env.sobek._native cimport ...``). Every
# function here takes no Python object and may run ``nogil``.
#
# A State is a value: copy one (``cdef State s = native_state.s``) to get a game another module owns.
# ``legal(s, out)`` writes the sorted legal ids into ``out`` (room for NUM_ACTIONS) and returns how many;
# ``apply(s, a)`` plays an id that ``legal`` listed (it does not check: checking is the caller's);
# ``s.over`` and ``s.markers`` are is_over and the scores; ``encode(s, seat, memory, out)`` writes
# observation_size(n) floats; ``resample`` is the determinization (its generator is advanced as Python's).

from libc.stdint cimport int8_t, int32_t, uint8_t, uint32_t, uint64_t


cdef extern from "sobek_env/sobek/native/engine.hpp" namespace "sobek_native":
    cdef cppclass PyRandom:
        PyRandom()
        void seed(uint64_t) nogil
        void get_state(uint32_t*, int*) nogil
        void set_state(const uint32_t*, int) nogil
        uint64_t getrandbits(int) nogil
        uint64_t randbelow(uint64_t) nogil


cdef extern from "sobek_env/sobek/native/engine.hpp" namespace "sobek_native::sobek":
    enum:
        NUM_KINDS
        SET_SLOTS
        MAX_PLAYERS
        NUM_TOKEN_KINDS
        NUM_ACTIONS
        NUM_PHASES
        NUM_EVENTS
        TOTAL_CARDS
        NILE_MAX
        ROUNDS
        TURN_START

    cdef struct RulesTable "sobek_native::sobek::Rules":
        int8_t num_players
        int8_t kind_goods[28]
        int8_t kind_scarabs[28]
        int8_t catalogue[28]

    cdef struct SetOnTable "sobek_native::sobek::TableSet":
        bint present
        int8_t prosperity
        int8_t cards[28]

    cdef struct LaidSet "sobek_native::sobek::HorizontalSet":
        int8_t slot
        int8_t cards[28]

    cdef struct Pending:
        int8_t phase
        int8_t goods
        int8_t target
        int8_t actor
        int8_t symbol
        int8_t queue_len
        int8_t queue[4]
        int8_t cards[28]

    cdef struct RoundEntry:
        int32_t round
        int32_t points[4]
        int32_t corruption[4]
        int32_t curses[4]
        int32_t penalty[4]
        int8_t most_corrupt_len
        int8_t most_corrupt[4]
        int8_t horizontal[4][28]

    cdef cppclass State:
        State()
        RulesTable rules
        PyRandom rng
        int32_t round, first_player, current_player, extra_turns
        bint over
        int32_t markers[4]
        int8_t hands[4][28]
        int8_t piles[4][28]
        int8_t curses[4]
        SetOnTable sets[4][7]
        int8_t horizontal_len[4]
        LaidSet horizontal[4][7]
        int8_t nile_len
        int8_t nile[9]
        int8_t deck_top, deck_end
        int8_t deck[63]
        int8_t tokens[9]
        int8_t used_tokens[9]
        int8_t discard[28]
        int8_t out_of_round[28]
        Pending pending
        int8_t known_hands[4][4][28]
        int8_t known_piles[4][4][28]
        bint token_glimpse[4]
        int8_t round_log_len
        RoundEntry round_log[4]
        bint logging
        int8_t events_len
        uint8_t events[32]

    int legal(const State&, int*) nogil
    void apply(State&, int) nogil
    void new_game(State&) nogil


cdef extern from "sobek_env/sobek/native/observe.hpp" namespace "sobek_native::sobek":
    cdef cppclass Layout:
        Layout(int)
        int size

    int observation_size(int) nogil
    int state_size(int) nogil
    void encode(const State&, int, bint, float*) nogil
    void encode_state(const State&, float*) nogil


cdef extern from "sobek_env/sobek/native/resample.hpp" namespace "sobek_native::sobek":
    enum ResampleResult:
        RESAMPLED
        NO_DEAL
        UNSOUND_STATE
    ResampleResult resample(const State&, int, PyRandom&, State&, uint64_t&) nogil


cdef class NativeState:
    cdef State s
    cdef object _rules     # the Python Rules (catalogue.make_rules), shared by states of the same rules
    cdef object _seed      # a Python int: a document may carry any non-negative seed
    cdef object _gauss     # the generator state's third item (random.Random's gauss_next), kept as given
    cdef object _log       # None, or the list the event names are appended to
    cdef int _legal[76]
    cdef int _legal_len    # -1: not computed since the last change
    cdef object _out_owner  # the buffer encode wrote last, and a view of it
    cdef float[::1] _out

    cdef int _fill_legal(self) noexcept nogil


# the batch's hooks (sobek_env/native/batch.pxi), for other batches of this engine (agents/training/_batch.pyx):
# a fresh state holding the table's rules (the returned object keeps them alive), and a state copied out
cdef object _batch_prototype(int num_players, dict rules, State* prototype)
cdef NativeState _batch_state(const State& s, object rules)
