// Kleopatra in the batched environment (sobek_env/native/batch.hpp): the traits the batch steps it through.
#pragma once

#include <array>

#include "../../native/batch.hpp"
#include "engine.hpp"
#include "observe.hpp"

namespace kleopatra_native {

struct VectorGame {
    using State = kleopatra_native::State;
    static constexpr int NUM_ACTIONS = kleopatra_native::NUM_ACTIONS;
    static constexpr int MAX_PLAYERS = kleopatra_native::MAX_PLAYERS;

    // prototype: a fresh State holding the table's rules (deal expects a fresh state)
    static void deal(State& s, const State& prototype, uint64_t seed) {  // as the module's new() deals
        s = prototype;
        s.rng.seed(seed);
        kleopatra_native::deal(s, prototype.rules);
    }
    static int legal(const State& s, int* out) { return kleopatra_native::legal(s, out); }
    static void apply(State& s, int action) { kleopatra_native::apply(s, action); }
    static bool over(const State& s) { return s.over; }
    static int current(const State& s) { return s.current; }
    static int score(const State& s, int seat) { return s.score(seat); }
    static bool winner(const State& s, int seat) {
        int out[MAX_PLAYERS];
        int count = kleopatra_native::winners(s, out);
        for (int i = 0; i < count; ++i)
            if (out[i] == seat) return true;
        return false;
    }
    // rules §11.5 (KleopatraGame.margins): the eaten count as 0, then own minus the best other
    static double margin(const State& s, int seat) {
        int best = 0;
        bool any = false;
        for (int p = 0; p < s.n; ++p) {
            if (p == seat) continue;
            int v = s.is_eaten(p) ? 0 : s.score(p);
            if (!any || v > best) best = v;
            any = true;
        }
        return (s.is_eaten(seat) ? 0 : s.score(seat)) - best;
    }
    static void encode(const State& s, int seat, bool memory, float* out) {
        // made once, before any use, however many threads step the batch (a static's initialisation is)
        static const std::array<Layout, MAX_PLAYERS + 1> layouts = [] {
            std::array<Layout, MAX_PLAYERS + 1> made{};
            for (int n = 2; n <= MAX_PLAYERS; ++n) made[n] = make_layout(n);  // the game is for 2 and more
            return made;
        }();
        kleopatra_native::encode(s, layouts[s.n], seat, memory, out);
    }
};

using VectorBatch = sobek_native::Batch<VectorGame>;

}  // namespace kleopatra_native
