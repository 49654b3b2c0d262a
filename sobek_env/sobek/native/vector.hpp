// Sobek in the batched environment (sobek_env/native/batch.hpp): the traits the batch steps it through.
#pragma once

#include "../../native/batch.hpp"
#include "engine.hpp"
#include "observe.hpp"

namespace sobek_native {
namespace sobek {

struct VectorGame {
    using State = sobek::State;
    static constexpr int NUM_ACTIONS = sobek::NUM_ACTIONS;
    static constexpr int MAX_PLAYERS = sobek::MAX_PLAYERS;

    static void deal(State& s, const State& prototype, uint64_t seed) {  // as NativeState.new deals
        s = prototype;
        s.rng.seed(seed);
        new_game(s);
    }
    static int legal(const State& s, int* out) { return sobek::legal(s, out); }
    static void apply(State& s, int action) { sobek::apply(s, action); }
    static bool over(const State& s) { return s.over; }
    static int current(const State& s) { return s.current_player; }
    static int score(const State& s, int seat) { return s.markers[seat]; }
    static int best_other(const State& s, int seat) {
        int best = -1;
        for (int p = 0; p < s.rules.num_players; ++p)
            if (p != seat && (best < 0 || s.markers[p] > best)) best = s.markers[p];
        return best;
    }
    static bool winner(const State& s, int seat) {  // rules §9: the highest score, shared on a tie
        return s.markers[seat] >= best_other(s, seat);
    }
    static double margin(const State& s, int seat) { return s.markers[seat] - best_other(s, seat); }
    static void encode(const State& s, int seat, bool memory, float* out) { sobek::encode(s, seat, memory, out); }
};

using VectorBatch = Batch<VectorGame>;

}  // namespace sobek
}  // namespace sobek_native
