// Kleopatra's whole playouts (agents/search/native/playout.hpp) on the native engine, its seats deciding with
// the native baselines (baselines.hpp, namespace kleopatra_baselines) from their observations.
#pragma once

#include "agents/kleopatra/native/baselines.hpp"
#include "agents/search/native/playout.hpp"
#include "sobek_env/kleopatra/native/engine.hpp"
#include "sobek_env/kleopatra/native/observe.hpp"

namespace kleopatra_native {

// The baselines' table and the engine's observation layout for the same number of players.
struct PlayoutTable {
    const kleopatra_baselines::Table* baselines = nullptr;
    Layout layout = {};
};

struct KleopatraPlayout {
    using State = kleopatra_native::State;
    using Table = PlayoutTable;
    static constexpr int NUM_ACTIONS = kleopatra_native::NUM_ACTIONS;

    static int legal(const State& s, int* out) { return kleopatra_native::legal(s, out); }
    static void apply(State& s, int action) { kleopatra_native::apply(s, action); }
    static bool over(const State& s) { return s.over; }
    static int current(const State& s) { return s.current; }
    static int num_players(const State& s) { return s.n; }
    static void copy(const State& from, State& to) {
        to = from;
        to.log = nullptr;
    }
    static void encode(const State& s, const Table& table, int seat, bool memory, float* out) {
        kleopatra_native::encode(s, table.layout, seat, memory, out);
    }
    static int decide(const Table& table, int policy, double tolerance, const float* obs, const uint8_t* mask) {
        int agent = policy == sobek_native::PLAY_GREEDY ? kleopatra_baselines::GREEDY : kleopatra_baselines::HEURISTIC;
        return kleopatra_baselines::decide(*table.baselines, agent, tolerance, obs, mask);
    }
    // KleopatraGame.outlook: rules §11 applied as the state stands (the eaten counted as 0, then each seat's
    // score minus the best other); a finished game's margins
    static void outlook(const State& s, double* out) {
        int8_t eaten[MAX_PLAYERS];
        int eaten_len = s.eaten_len;
        if (s.over) {
            for (int i = 0; i < eaten_len; ++i) eaten[i] = s.eaten[i];
        } else {
            int32_t amulets[MAX_PLAYERS];
            final_amulets(s, amulets);
            eaten_len = crocodile(amulets, s.n, s.rules->crocodile_margin, eaten);
        }
        int effective[MAX_PLAYERS];
        for (int p = 0; p < s.n; ++p) {
            effective[p] = s.score(p);
            for (int i = 0; i < eaten_len; ++i)
                if (eaten[i] == p) effective[p] = 0;
        }
        for (int p = 0; p < s.n; ++p) {
            bool any = false;
            int best = 0;
            for (int q = 0; q < s.n; ++q)
                if (q != p && (!any || effective[q] > best)) {
                    best = effective[q];
                    any = true;
                }
            out[p] = static_cast<double>(effective[p] - best);
        }
    }
};

}  // namespace kleopatra_native
