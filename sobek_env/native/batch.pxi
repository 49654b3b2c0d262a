# The binding of sobek_env/native/batch.hpp, shared by every game's _native.pyx, which includes it after naming
# its Batch<VectorGame> in verbatim C++,
#     cdef extern from *:
#         """
#         #include "sobek_env/<game>/native/vector.hpp"
#         using GameVectorBatch = <the game's VectorBatch>;
#         """
# and declaring, for its own engine: State, NUM_ACTIONS, MAX_PLAYERS, SCORE_SCALE, and the three hooks
#   cdef object _batch_prototype(int num_players, dict rules, State* prototype)  the table's fresh state
#   cdef int _batch_observation_size(int num_players)
#   cdef NativeState _batch_state(const State& s, object rules)                   a state of the batch, copied

from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libcpp cimport bool as cbool

cdef extern from * nogil:
    cdef cppclass VectorBatch "GameVectorBatch":
        VectorBatch(int, int, int, cbool, int, int, double, const State&, int)
        void reset(uint64_t, float*, uint8_t*) except +
        void step(const int64_t*, float*, uint8_t*, float*, uint8_t*, float*, int32_t*, int32_t*, uint8_t*) except +
        int seat(int)
        const State& state(int)
        @staticmethod
        size_t bytes_per_game()

REWARD_MODES = ("win", "margin", "score")  # the batch's reward codes, in order


cdef class NativeBatch:
    """``num_envs`` games stepped natively in one call, one learner seat each, the other seats playing random
    legal actions (``sobek_native::Batch``): the native path of :func:`sobek_env.vector_env`, drawing exactly
    as its Python path does. Its arrays are written in place by :meth:`reset` and :meth:`step`, on
    ``num_threads`` threads (the games shared out in blocks; the same results for any number)."""

    cdef VectorBatch* b
    cdef readonly int num_envs, num_players, size, num_threads
    cdef readonly object obs, masks, rewards, terminated, final_obs, final_seat, final_scores, final_winners
    cdef object _rules      # what keeps the table's rules alive while the batch steps

    def __cinit__(self, int num_envs, int num_players, bint memory, str reward_mode, object seat, dict rules,
                  int num_threads=1):
        if num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs}")
        if num_threads < 1:
            raise ValueError(f"num_threads must be a positive integer, got {num_threads}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if seat is not None and not 0 <= seat < num_players:
            raise ValueError(f"seat must be None or from 0 to {num_players - 1}, got {seat!r}")
        cdef State prototype
        self._rules = _batch_prototype(num_players, rules, &prototype)
        self.num_envs, self.num_players, self.num_threads = num_envs, num_players, num_threads
        self.size = _batch_observation_size(num_players)
        self.b = new VectorBatch(num_envs, num_players, self.size, memory, REWARD_MODES.index(reward_mode),
                                 -1 if seat is None else seat, SCORE_SCALE, prototype, num_threads)
        self.obs = np.zeros((num_envs, self.size), np.float32)
        self.masks = np.zeros((num_envs, NUM_ACTIONS), np.bool_)
        self.rewards = np.zeros(num_envs, np.float32)
        self.terminated = np.zeros(num_envs, np.bool_)
        self.final_obs = np.zeros((num_envs, self.size), np.float32)
        self.final_seat = np.zeros(num_envs, np.int32)
        self.final_scores = np.zeros((num_envs, MAX_PLAYERS), np.int32)
        self.final_winners = np.zeros((num_envs, MAX_PLAYERS), np.bool_)

    def __dealloc__(self) -> None:
        del self.b

    def reset(self, uint64_t base) -> None:
        """Deal every game, game ``i`` from the seeder ``random.Random(base + i)``."""
        cdef float[:, ::1] obs = self.obs
        cdef uint8_t[:, ::1] masks = self.masks.view(np.uint8)
        with nogil:
            self.b.reset(base, &obs[0, 0], &masks[0, 0])

    def step(self, const int64_t[::1] actions) -> None:
        """Play each game's learner action (legal: checked by the caller) and its opponents' replies."""
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"actions must have {self.num_envs} entries, got {actions.shape[0]}")
        cdef float[:, ::1] obs = self.obs, final_obs = self.final_obs
        cdef uint8_t[:, ::1] masks = self.masks.view(np.uint8), winners = self.final_winners.view(np.uint8)
        cdef float[::1] rewards = self.rewards
        cdef uint8_t[::1] terminated = self.terminated.view(np.uint8)
        cdef int32_t[::1] seats = self.final_seat
        cdef int32_t[:, ::1] scores = self.final_scores
        with nogil:
            self.b.step(&actions[0], &obs[0, 0], &masks[0, 0], &rewards[0], &terminated[0], &final_obs[0, 0],
                        &seats[0], &scores[0, 0], &winners[0, 0])

    @property
    def bytes_per_game(self) -> int:
        """The memory one game takes: its native state, generators and seat, and its rows of the arrays."""
        rows = (2 * self.size * sizeof(float) + NUM_ACTIONS * sizeof(uint8_t) + sizeof(float) + sizeof(uint8_t)
                + sizeof(int32_t) + MAX_PLAYERS * (sizeof(int32_t) + sizeof(uint8_t)))
        return VectorBatch.bytes_per_game() + rows

    @property
    def state_bytes(self) -> int:
        """The bytes of one game's native state alone (the ``State`` struct)."""
        return sizeof(State)

    def seat(self, int i) -> int:
        """Game ``i``'s learner seat."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"game {i} of {self.num_envs}")
        return self.b.seat(i)

    def state(self, int i) -> NativeState:
        """A copy of game ``i``'s state."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"game {i} of {self.num_envs}")
        return _batch_state(self.b.state(i), self._rules)
