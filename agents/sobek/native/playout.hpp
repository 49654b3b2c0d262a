// Sobek's whole playouts (agents/search/native/playout.hpp) on the native engine, its seats deciding with the
// native baselines (baselines.hpp) from their observations.
#pragma once

#include "agents/search/native/playout.hpp"
#include "agents/sobek/native/baselines.hpp"
#include "sobek_env/sobek/native/engine.hpp"
#include "sobek_env/sobek/native/observe.hpp"

namespace sobek_native {

struct SobekPlayout {
    using State = sobek::State;
    using Table = sobek_native::Table;
    static constexpr int NUM_ACTIONS = sobek::NUM_ACTIONS;

    static int legal(const State& s, int* out) { return sobek::legal(s, out); }
    static void apply(State& s, int action) { sobek::apply(s, action); }
    static bool over(const State& s) { return s.over; }
    static int current(const State& s) { return s.current_player; }
    static int num_players(const State& s) { return s.rules.num_players; }
    static void copy(const State& from, State& to) {
        to = from;
        to.logging = false;
    }
    static void encode(const State& s, const Table&, int seat, bool memory, float* out) {
        sobek::encode(s, seat, memory, out);
    }
    static int decide(const Table& table, int policy, double tolerance, const float* obs, const uint8_t* mask) {
        return sobek_native::decide(table, policy == PLAY_GREEDY ? GREEDY : HEURISTIC, tolerance, obs, mask);
    }
    // Game.margins (Sobek scores nothing more at its end, so Game.outlook is the margins)
    static void outlook(const State& s, double* out) {
        int n = s.rules.num_players;
        for (int p = 0; p < n; ++p) {
            bool any = false;
            int best = 0;
            for (int q = 0; q < n; ++q)
                if (q != p && (!any || s.markers[q] > best)) {
                    best = s.markers[q];
                    any = true;
                }
            out[p] = static_cast<double>(s.markers[p] - best);
        }
    }
};

}  // namespace sobek_native
