// The training batch (batch.hpp) for each game with a native engine: the engine's traits (sobek_env's VectorGame)
// and its native baselines' entry points (agents/<game>/native/baselines.cpp, linked into the same extension).
// The baselines' headers are not included: each is compiled apart and only the functions the batch calls are
// declared here.
#pragma once

#include <cstdint>

#include "agents/training/native/batch.hpp"
#include "sobek_env/kleopatra/native/vector.hpp"
#include "sobek_env/sobek/native/vector.hpp"

namespace sobek_native {
struct Table;
int decide(const Table& table, int agent, double tolerance, const float* obs, const uint8_t* mask,
           int* bad_entry) noexcept;
int advise(const Table& table, double tolerance, const float* obs, const uint8_t* mask, float* out,
           int* bad_entry) noexcept;
}  // namespace sobek_native

namespace kleopatra_baselines {
struct Table;
int decide(const Table& table, int agent, double tolerance, const float* obs, const uint8_t* mask,
           int* bad_entry) noexcept;
int advise(const Table& table, double tolerance, const float* obs, const uint8_t* mask, float* out,
           int* bad_entry) noexcept;
}  // namespace kleopatra_baselines

namespace training_native {

struct SobekAgents {
    using Table = sobek_native::Table;
    static int decide(const Table& t, int agent, double tolerance, const float* obs, const uint8_t* mask) {
        return sobek_native::decide(t, agent, tolerance, obs, mask, nullptr);
    }
    static int advise(const Table& t, double tolerance, const float* obs, const uint8_t* mask, float* out) {
        return sobek_native::advise(t, tolerance, obs, mask, out, nullptr);
    }
};

struct KleopatraAgents {
    using Table = kleopatra_baselines::Table;
    static int decide(const Table& t, int agent, double tolerance, const float* obs, const uint8_t* mask) {
        return kleopatra_baselines::decide(t, agent, tolerance, obs, mask, nullptr);
    }
    static int advise(const Table& t, double tolerance, const float* obs, const uint8_t* mask, float* out) {
        return kleopatra_baselines::advise(t, tolerance, obs, mask, out, nullptr);
    }
};

using SobekBatch = TrainingBatch<sobek_native::sobek::VectorGame, SobekAgents>;
using KleopatraBatch = TrainingBatch<kleopatra_native::VectorGame, KleopatraAgents>;

}  // namespace training_native
