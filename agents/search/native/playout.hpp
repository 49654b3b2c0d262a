// Whole playouts in one call, for any native engine: from a state, every seat plays its own policy (uniformly
// random, or a native baseline deciding from that seat's observation) to the end of the game or for a number of
// actions. The twin of agents/search/ismcts.py's rollout loop, draw for draw:
//
// - a random seat takes legal[int(rng.random() * count)], as ISMCTSAgent._rollout does (one draw even when a
//   single action is legal);
// - a baseline seat takes the only legal action without asking (as RolloutPolicy.act does), else encodes its
//   observation (memory or original mode) and asks the baseline, which never draws.
//
// A game plugs in through a traits class G with static members:
//   using State, Table;                              Table: the baselines' view of the table
//   static constexpr int NUM_ACTIONS;
//   static int legal(const State&, int* out);       sorted legal ids of the player to act
//   static void apply(State&, int action);
//   static bool over(const State&);
//   static int current(const State&);
//   static void encode(const State&, const Table&, int seat, bool memory, float* out);
//   static int decide(const Table&, int policy, double tolerance, const float* obs, const uint8_t* mask);
//   static void outlook(const State&, double* out);  Game.outlook: each seat's margin were the game to end now
// and, for the Cython binding (playouts.pxi) only:
//   static int num_players(const State&);
//   static void copy(const State& from, State& to);  a copy that logs nothing (the scratch state of a playout)
#pragma once

#include <cstdint>
#include <cstring>

#include "sobek_env/native/pyrandom.hpp"

namespace sobek_native {

enum PlayoutPolicy { PLAY_RANDOM = 0, PLAY_GREEDY = 1, PLAY_HEURISTIC = 2 };

struct SeatPolicy {
    int policy = PLAY_RANDOM;
    double tolerance = 0.0;  // the heuristic's
};

// What a playout stopped on other than the end or its length: a baseline refused the observation (its code,
// below 0) or chose an action the mask did not allow.
constexpr int PLAYOUT_ILLEGAL_CHOICE = -100;

// Plays ``s`` on in place for at most ``max_actions`` actions (0: to the end), seat p by ``seats[p]``, random
// draws from ``rng``; ``obs`` and ``mask`` are scratch room for one observation and NUM_ACTIONS flags. Returns
// the actions played; ``*refusal`` is left alone unless a baseline refused (then the playout stops there).
template <class G>
long playout(typename G::State& s, const typename G::Table& table, const SeatPolicy* seats, bool memory,
             PyRandom& rng, long max_actions, float* obs, uint8_t* mask, int* refusal) {
    int legal[G::NUM_ACTIONS];
    long played = 0;
    while ((max_actions == 0 || played < max_actions) && !G::over(s)) {
        int count = G::legal(s, legal);
        int seat = G::current(s);
        const SeatPolicy& p = seats[seat];
        int action;
        if (p.policy == PLAY_RANDOM) {
            action = legal[static_cast<int>(rng.random() * count)];
        } else if (count == 1) {
            action = legal[0];
        } else {
            G::encode(s, table, seat, memory, obs);
            std::memset(mask, 0, G::NUM_ACTIONS);
            for (int i = 0; i < count; ++i) mask[legal[i]] = 1;
            action = G::decide(table, p.policy, p.tolerance, obs, mask);
            if (action < 0 || action >= G::NUM_ACTIONS || !mask[action]) {
                *refusal = action < 0 ? action : PLAYOUT_ILLEGAL_CHOICE;
                return played;
            }
        }
        G::apply(s, action);
        ++played;
    }
    return played;
}

// The action seat policy ``p`` takes in ``s`` (not over), without playing it; a refusal (< 0) as above.
template <class G>
int choose(const typename G::State& s, const typename G::Table& table, const SeatPolicy& p, bool memory,
           PyRandom& rng, float* obs, uint8_t* mask) {
    int legal[G::NUM_ACTIONS];
    int count = G::legal(s, legal);
    if (p.policy == PLAY_RANDOM) return legal[static_cast<int>(rng.random() * count)];
    if (count == 1) return legal[0];
    G::encode(s, table, G::current(s), memory, obs);
    std::memset(mask, 0, G::NUM_ACTIONS);
    for (int i = 0; i < count; ++i) mask[legal[i]] = 1;
    int action = G::decide(table, p.policy, p.tolerance, obs, mask);
    if (action >= 0 && (action >= G::NUM_ACTIONS || !mask[action])) return PLAYOUT_ILLEGAL_CHOICE;
    return action;
}

}  // namespace sobek_native
