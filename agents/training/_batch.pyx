# distutils: language = c++
# cython: language_level=3, boundscheck=False, wraparound=False
"""The binding of agents/training/native/batch.hpp: train.py's games stepped natively, the pool's native opponents
deciding in C++ (see :mod:`agents.training.batched`, which drives it)."""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t
from libcpp cimport bool as cbool

cimport sobek_env.kleopatra._native as kn
cimport sobek_env.sobek._native as sn


cdef extern from "agents/training/native/batch.hpp" namespace "training_native":
    const int MAX_SEATS

    cdef struct Buffers:
        float* obs
        uint8_t* masks
        float* rewards
        double* lead
        uint8_t* terminated
        float* final_obs
        int32_t* final_seat
        int32_t* final_scores
        uint8_t* final_winners
        double* final_lead
        int32_t* seats
        int32_t* options
        uint8_t* pending
        int32_t* pending_option
        int32_t* pending_seat
        float* pending_obs
        uint8_t* pending_masks


cdef extern from "agents/training/native/games.hpp" namespace "training_native" nogil:
    cdef cppclass SobekTable "sobek_native::Table":
        pass

    cdef cppclass KleopatraTable "kleopatra_baselines::Table":
        pass

    cdef cppclass SobekBatch:
        SobekBatch(int, int, int, int, cbool, int, int, double, double, const sn.State&, const SobekTable*,
                   const Buffers&) except +
        cbool set_options(int, const int*, const double*, const double*)
        void reset(uint64_t)
        void step(const int64_t*)
        void resume(const int64_t*)
        const sn.State& state(int)
        long refusals()

    cdef cppclass KleopatraBatch:
        KleopatraBatch(int, int, int, int, cbool, int, int, double, double, const kn.State&, const KleopatraTable*,
                       const Buffers&) except +
        cbool set_options(int, const int*, const double*, const double*)
        void reset(uint64_t)
        void step(const int64_t*)
        void resume(const int64_t*)
        const kn.State& state(int)
        long refusals()


# the batch's reward codes, in order; "outlook": the margin, with the lead from Game.outlook instead of Game.margins
REWARD_MODES = ("win", "margin", "score", "outlook")
KINDS = ("random", "greedy", "heuristic", "external")  # the opponents' kinds, in the batch's order
GAMES = ("sobek", "kleopatra")


cdef class TrainingBatch:
    """``num_envs`` games of ``game`` (``sobek`` or ``kleopatra``) at ``num_players``, one learner seat each; the
    learner's rows are ``observation_size + advice_size`` floats (``advice_size`` 0: no advice). ``table`` is the
    native baselines' NativeTable of the same table (its opponents and advice decide on it). Its arrays are written
    in place by :meth:`reset`, :meth:`step` and :meth:`resume`."""

    cdef SobekBatch* sobek
    cdef KleopatraBatch* kleopatra
    cdef Buffers buffers
    cdef readonly int num_envs, num_players, width
    cdef readonly str game
    cdef readonly object obs, masks, rewards, lead, terminated, final_obs, final_seat, final_scores, final_winners
    cdef readonly object final_lead, seats, options, pending, pending_option, pending_seat, pending_obs, pending_masks
    cdef object _keep  # what the C++ points into: the rules, the baselines' table

    def __cinit__(self, str game, int num_envs, int num_players, int observation_size, int advice_size,
                  int num_actions, bint memory, str reward_mode, object seat, double score_scale,
                  double advice_tolerance, dict rules, object table):
        cdef sn.State sobek_prototype
        cdef kn.State kleopatra_prototype
        if game not in GAMES:
            raise ValueError(f"no native training batch for {game!r}; one of {', '.join(GAMES)}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs}")
        if not 0 < num_players <= MAX_SEATS:
            raise ValueError(f"num_players must be from 1 to {MAX_SEATS}, got {num_players}")
        if reward_mode not in REWARD_MODES:
            raise ValueError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if seat is not None and not 0 <= seat < num_players:
            raise ValueError(f"seat must be None or from 0 to {num_players - 1}, got {seat!r}")
        capsule = _baselines_table(game, table)
        self.game, self.num_envs, self.num_players = game, num_envs, num_players
        self.width = observation_size + advice_size
        self.obs = np.zeros((num_envs, self.width), np.float32)
        self.masks = np.zeros((num_envs, num_actions), np.bool_)
        self.rewards = np.zeros(num_envs, np.float32)
        self.lead = np.zeros(num_envs, np.float64)
        self.terminated = np.zeros(num_envs, np.bool_)
        self.final_obs = np.zeros((num_envs, self.width), np.float32)
        self.final_seat = np.zeros(num_envs, np.int32)
        self.final_scores = np.zeros((num_envs, MAX_SEATS), np.int32)
        self.final_winners = np.zeros((num_envs, MAX_SEATS), np.bool_)
        self.final_lead = np.zeros(num_envs, np.float64)
        self.seats = np.zeros(num_envs, np.int32)
        self.options = np.full((num_envs, MAX_SEATS), -1, np.int32)
        self.pending = np.zeros(num_envs, np.bool_)
        self.pending_option = np.zeros(num_envs, np.int32)
        self.pending_seat = np.zeros(num_envs, np.int32)
        self.pending_obs = np.zeros((num_envs, self.width), np.float32)
        self.pending_masks = np.zeros((num_envs, num_actions), np.bool_)
        self._point()
        code, fixed = REWARD_MODES.index(reward_mode), -1 if seat is None else seat
        if game == "sobek":
            rules_owner = sn._batch_prototype(num_players, rules, &sobek_prototype)
            self.sobek = new SobekBatch(num_envs, num_players, observation_size, advice_size, memory, code, fixed,
                                        score_scale, advice_tolerance, sobek_prototype,
                                        <const SobekTable*>PyCapsule_GetPointer(capsule, b"sobek_native::Table"),
                                        self.buffers)
        else:
            rules_owner = kn._batch_prototype(num_players, rules, &kleopatra_prototype)
            self.kleopatra = new KleopatraBatch(
                num_envs, num_players, observation_size, advice_size, memory, code, fixed, score_scale,
                advice_tolerance, kleopatra_prototype,
                <const KleopatraTable*>PyCapsule_GetPointer(capsule, b"kleopatra_baselines::Table"), self.buffers)
        self._keep = (rules_owner, table, capsule)

    cdef void _point(self):
        cdef float[:, ::1] obs = self.obs, final_obs = self.final_obs, pending_obs = self.pending_obs
        cdef uint8_t[:, ::1] masks = self.masks.view(np.uint8), winners = self.final_winners.view(np.uint8)
        cdef uint8_t[:, ::1] pending_masks = self.pending_masks.view(np.uint8)
        cdef float[::1] rewards = self.rewards
        cdef double[::1] lead = self.lead, final_lead = self.final_lead
        cdef uint8_t[::1] terminated = self.terminated.view(np.uint8), pending = self.pending.view(np.uint8)
        cdef int32_t[::1] final_seat = self.final_seat, seats = self.seats
        cdef int32_t[::1] pending_option = self.pending_option, pending_seat = self.pending_seat
        cdef int32_t[:, ::1] scores = self.final_scores, options = self.options
        self.buffers.obs, self.buffers.masks, self.buffers.rewards = &obs[0, 0], &masks[0, 0], &rewards[0]
        self.buffers.lead, self.buffers.terminated = &lead[0], &terminated[0]
        self.buffers.final_obs, self.buffers.final_seat = &final_obs[0, 0], &final_seat[0]
        self.buffers.final_scores, self.buffers.final_winners = &scores[0, 0], &winners[0, 0]
        self.buffers.final_lead, self.buffers.seats, self.buffers.options = &final_lead[0], &seats[0], &options[0, 0]
        self.buffers.pending, self.buffers.pending_option = &pending[0], &pending_option[0]
        self.buffers.pending_seat, self.buffers.pending_obs = &pending_seat[0], &pending_obs[0, 0]
        self.buffers.pending_masks = &pending_masks[0, 0]

    def __dealloc__(self) -> None:
        del self.sobek
        del self.kleopatra

    def set_options(self, kinds, tolerances, weights) -> None:
        """The pool's options for the deals to come: each one's kind (:data:`KINDS`), tolerance and weight (at
        least one positive); games already dealt keep their opponents."""
        cdef int[::1] k = np.ascontiguousarray([KINDS.index(kind) for kind in kinds], dtype=np.intc)
        cdef double[::1] t = np.ascontiguousarray(tolerances, dtype=np.float64)
        cdef double[::1] w = np.ascontiguousarray(weights, dtype=np.float64)
        if not k.shape[0] or k.shape[0] != t.shape[0] or k.shape[0] != w.shape[0]:
            raise ValueError("the options need as many kinds, tolerances and weights, at least one")
        cdef cbool ok
        if self.sobek != NULL:
            ok = self.sobek.set_options(k.shape[0], &k[0], &t[0], &w[0])
        else:
            ok = self.kleopatra.set_options(k.shape[0], &k[0], &t[0], &w[0])
        if not ok:
            raise ValueError(f"no option has a positive weight: {list(weights)}")

    def reset(self, uint64_t base) -> None:
        """Deal every game, game ``i`` from a seeder seeded ``base + i``."""
        with nogil:
            if self.sobek != NULL:
                self.sobek.reset(base)
            else:
                self.kleopatra.reset(base)

    def step(self, const int64_t[::1] actions) -> None:
        """Play each game's learner action (legal: checked by the caller), then on to its next decision."""
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"actions must have {self.num_envs} entries, got {actions.shape[0]}")
        with nogil:
            if self.sobek != NULL:
                self.sobek.step(&actions[0])
            else:
                self.kleopatra.step(&actions[0])

    def resume(self, const int64_t[::1] actions) -> None:
        """The pending games' external actions (entry ``i`` for game ``i``; legal: checked by the caller)."""
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"actions must have {self.num_envs} entries, got {actions.shape[0]}")
        with nogil:
            if self.sobek != NULL:
                self.sobek.resume(&actions[0])
            else:
                self.kleopatra.resume(&actions[0])

    def state(self, int i):
        """A copy of game ``i``'s state (a native state of its engine)."""
        if not 0 <= i < self.num_envs:
            raise IndexError(f"game {i} of {self.num_envs}")
        if self.sobek != NULL:
            return sn._batch_state(self.sobek.state(i), self._keep[0])
        return kn._batch_state(self.kleopatra.state(i), self._keep[0])

    @property
    def refusals(self) -> int:
        """Decisions the native baselines refused (none on the engine's own observations: a test checks)."""
        return self.sobek.refusals() if self.sobek != NULL else self.kleopatra.refusals()


cdef object _baselines_table(str game, object table):
    """The capsule of the native baselines' table ``table`` of ``game``."""
    if game == "sobek":
        from agents.sobek import _baselines
    else:
        from agents.kleopatra import _baselines
    if not isinstance(table, _baselines.NativeTable):
        raise ValueError(f"table must be agents.{game}._baselines.NativeTable, got {type(table).__name__}")
    return _baselines.table_capsule(table)
