// The training batch (batch.hpp) for each game with a native engine: the engine's traits (sobek_env's VectorGame),
// its native baselines (agents/<game>/native/baselines.cpp, linked into the same extension) and its Game.outlook
// (the playouts' traits, agents/<game>/native/playout.hpp).
#pragma once

#include <cstdint>

#include "agents/kleopatra/native/baselines.hpp"
#include "agents/kleopatra/native/playout.hpp"
#include "agents/sobek/native/baselines.hpp"
#include "agents/sobek/native/playout.hpp"
#include "agents/training/native/batch.hpp"
#include "sobek_env/kleopatra/native/vector.hpp"
#include "sobek_env/sobek/native/vector.hpp"

namespace training_native {

// A game's baselines as the batch calls them: its Table and its decide and advise, which report no refused entry
template <class T, auto Decide, auto Advise>
struct Agents {
    using Table = T;
    static int decide(const Table& t, int agent, double tolerance, const float* obs, const uint8_t* mask) {
        return Decide(t, agent, tolerance, obs, mask, nullptr);
    }
    static int advise(const Table& t, double tolerance, const float* obs, const uint8_t* mask, float* out) {
        return Advise(t, tolerance, obs, mask, out, nullptr);
    }
};

using SobekAgents = Agents<sobek_native::Table, sobek_native::decide, sobek_native::advise>;
using KleopatraAgents = Agents<kleopatra_baselines::Table, kleopatra_baselines::decide, kleopatra_baselines::advise>;

using SobekBatch = TrainingBatch<sobek_native::sobek::VectorGame, SobekAgents, sobek_native::SobekPlayout>;
using KleopatraBatch = TrainingBatch<kleopatra_native::VectorGame, KleopatraAgents, kleopatra_native::KleopatraPlayout>;

}  // namespace training_native
