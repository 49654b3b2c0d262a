// Kleopatra's baselines (greedy, heuristic) compiled: the twins of agents/kleopatra/greedy.py and heuristic.py.
// (Namespace kleopatra_baselines, not the engine's kleopatra_native: a playout includes both headers.)
//
// They read what the Python baselines read: one seat's float32 observation vector and its action mask,
// decoded as sobek_env/kleopatra/observation.py's decoder reads them, and the table (players, observation
// mode, rules options). So they work on any engine's observations and cannot see hidden state. Arithmetic
// follows the Python reference operation for operation, numpy's BLAS sums included (see baselines.cpp,
// "numpy's sums"), so the decisions are the same (tests/kleopatra/test_native_baselines.py).
#pragma once

#include <cstdint>
#include <vector>

#include "agents/search/native/decide.hpp"

namespace kleopatra_baselines {

constexpr int NUM_KINDS = 17;
constexpr int NUM_ACTIONS = 144;
constexpr int NUM_TILES = 12;
constexpr int NUM_WALL_SLOTS = 9;
constexpr int NUM_UNITS = 7;
constexpr int NUM_BUILDS = 16;
constexpr int NUM_PHASES = 18;
constexpr int STALLS = 3;
constexpr int SQUARES = 64;
constexpr int MIN_PLAYERS = 2;
constexpr int MAX_PLAYERS = 5;

// the agents and decide()'s refusals, as every game's baselines name them (a valid decision is an action id)
using sobek_native::Agent;
using sobek_native::GREEDY;
using sobek_native::HEURISTIC;
using sobek_native::Refusal;
using sobek_native::BAD_ENTRY;
using sobek_native::NO_LEGAL_ACTION;
using sobek_native::BAD_AGENT;
using sobek_native::BAD_TABLE;

// Offsets of the observation's named slices (sobek_env/kleopatra/observation.py's layout, in its order).
struct Layout {
    int phase, acting, active, turn, over, hand, hand_sizes, talents, amulets, merchants, statues,
        sanctuary_squares, eliminated, winners, known_hands, known_discard, deck_face_up, shown, shown_hands,
        stalls, deck_size, deck_top, discard_size, palms, covered, sanctuary, sanctuary_owner, tile_anchor,
        tile_orient, walls, gate, sphinxes, obelisks, pedestal, throne, complete, cleopatra, in_quarry, top_tile,
        removed, stack_order, altar, pool, paid, built, refill_cards, refill_filled, tile, orient,
        offered_sanctuary, envoy_resource, envoy_offers, envoy_accepted, envoy_target, vizier_drawn, vizier_kept,
        courtesan_discard, ceremony_offer, ceremony_closed, last_offers, last_places, size;
};

// One placement of a tile: its orientation, its anchor square and the squares it covers.
struct Placement {
    int orient;
    int square;
    uint64_t mask;
};

// A table: the number of players, the observation mode and the rules options the baselines read, with the
// palace's geometry (sobek_env/kleopatra/palace.py's Geometry) and the observation's layout.
struct Table {
    int n = 0;
    bool memory = false;
    int hand_limit = 10;
    int max_turns = 400;
    bool trompe_ok[5] = {};
    int materials[4] = {};     // the materials (1-4) a trompe unit stands for, ascending
    int n_materials = 0;
    int sanctuary_max = 8;
    uint64_t garden = 0, palms = 0;
    uint64_t wall_masks[NUM_WALL_SLOTS] = {};
    std::vector<Placement> placements[NUM_TILES];          // per tile, Geometry.placements_of_tile's order
    std::vector<uint64_t> anchored[NUM_TILES][SQUARES];   // per tile and anchor square, its placements' masks
    Layout at = {};
    int id = -1;  // set by make_table, distinct for every call
};

// Fills ``table``; false if a number is out of range. ``trompe_ok`` holds 5 flags; the placements are
// ``count`` rows of (tile, orientation, square, mask) in Geometry.placements_of_tile's order.
bool make_table(Table& table, int num_players, bool memory, int hand_limit, int max_turns, const int* trompe_ok,
                int sanctuary_max, uint64_t garden, uint64_t palms, const uint64_t* wall_masks, int count,
                const int* tiles, const int* orients, const int* squares, const uint64_t* masks) noexcept;

// The action of ``agent`` (GREEDY or HEURISTIC, the latter at ``tolerance`` from 0 to 1) for the observation
// ``obs`` (table.at.size float32 entries) and ``mask`` (NUM_ACTIONS bytes, nonzero = legal); a Refusal (< 0)
// for input it cannot read. ``*bad_entry`` (if given) receives the index of a refused entry.
int decide(const Table& table, int agent, double tolerance, const float* obs, const uint8_t* mask,
           int* bad_entry = nullptr) noexcept;

// agents/kleopatra/features.py's ``advice`` entries (the heuristic at ``tolerance``): NUM_ACTIONS + n + 4 floats
// written into ``out``, which the caller zeroes (the advised action's one-hot, then the crocodile's race);
// returns the advised action, or a Refusal.
int advise(const Table& table, double tolerance, const float* obs, const uint8_t* mask, float* out,
           int* bad_entry = nullptr) noexcept;

// the scales of the race's entries (features.py's AMULETS, STEPS, TALENTS)
constexpr double ADVICE_AMULETS = 10.0, ADVICE_STEPS = 10.0, ADVICE_TALENTS = 10.0;

// The numbers the baselines derive from the catalogue at start-up (for the tests: compared with the Python
// module constants bit for bit): UNSEEN_WORTH, UNSEEN_CORRUPT and UNSEEN_MIX's 17 entries.
void constants(double* out) noexcept;

// prospects.ordered_dot: ``matrix @ vector`` as the reference sums it (rows x width, row-major), for the tests.
void matvec(const double* matrix, int rows, int width, const double* vector, double* out) noexcept;

}  // namespace kleopatra_baselines
