// Kleopatra's greedy and heuristic baselines in C++: see baselines.hpp. Each function names the Python one it
// follows (agents/kleopatra/common.py, greedy.py, heuristic.py, prospects.py); the comments say only where the
// C++ has to do something the Python does implicitly.
//
// Sums of products. prospects.py values a hand with products of a matrix and a vector, summed by its
// ordered_dot from 0 left to right with each product rounded on its own, not by numpy's BLAS (whose order and
// fused multiply-adds change between releases: OpenBLAS 0.3.31 under numpy 2.4.6 changed a one-row product's
// last bit). dot() sums the same way, and the build's -ffp-contract=off keeps the compiler from fusing them.
#include "baselines.hpp"

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstring>
#include <limits>
#include <unordered_map>

namespace kleopatra_baselines {
namespace {

// ---------------------------------------------------------------------- the catalogue (catalogue.py, actions.py)

constexpr int CARD_COUNTS[NUM_KINDS] = {30, 18, 11, 9, 7, 3, 3, 3, 3, 3, 8, 2, 2, 2, 2, 2, 1};
constexpr int KIND_UNIT[11] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5};
constexpr int KIND_AMOUNT[11] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1};
constexpr int RESOURCE_KINDS = 11;  // kinds 0-10 are resource cards, 11-16 characters
constexpr int TROMPE = 10, BEGGAR = 11, COURTESAN = 12, ENVOY = 13, SCRIBE = 14, SMUGGLER = 15, VIZIER = 16;
constexpr int TROMPE_UNIT = 5, MERCHANT_UNIT = 6;
constexpr int WALLS = 0, SPHINXES = 1, OBELISKS = 2, GATE = 3, THRONE = 4, MOSAICS = 5;
constexpr int COSTS[6][5] = {{1, 1, 0, 1, 0}, {1, 1, 1, 0, 0}, {3, 2, 0, 2, 0},
                             {2, 0, 1, 1, 1}, {3, 0, 2, 0, 2}, {2, 1, 1, 0, 1}};
constexpr int WALL_BASE = 3, GATE_BASE = 4, MOSAIC_BASE = 4, OBELISK_VALUE = 12, PEDESTAL_VALUE = 12,
              THRONE_VALUE = 12, MERCHANT_VALUE = 3;
constexpr int SPHINX_VALUES[6] = {2, 5, 2, 5, 2, 5};
constexpr int SPHINX_PIECES = 6, OBELISK_PIECES = 2;
constexpr int BID_STEPS[4] = {1, 2, 5, 10};

inline bool corrupt(int kind) { return kind >= 5; }
inline bool character(int kind) { return kind >= BEGGAR; }

enum Phase {
    P_TURN, P_REFILL, P_QUARRY, P_MOSAIC_TILE, P_MOSAIC_ORIENT, P_MOSAIC_SQUARE, P_ANUBIS, P_AFTER, P_HAND_LIMIT,
    P_LIMIT_DISCARD, P_BEGGAR, P_COURTESAN, P_ENVOY_RESOURCE, P_ENVOY_OFFER, P_ENVOY_ACCEPT, P_VIZIER,
    P_SCRIBE_DIE, P_CEREMONY
};

namespace A {
constexpr int MARKET = 0, QUARRY = 3, CHARACTER = 4, END_TURN = 10, STALL = 11, MERCHANT = 14, WALL = 15,
              GATE = 24, SPHINX = 26, OBELISK = 27, PEDESTAL = 28, THRONE = 29, MOSAIC = 30, TILE = 31,
              ORIENT = 43, SQUARE = 51, CARD = 115, DONE = 132, YES = 133, NO = 134, TALENTS = 135,
              DIE_ADD = 136, DIE_REMOVE = 137, LIMIT_KEEP = 138, LIMIT_DISCARD = 139, BID = 140;
inline int character_action(int kind) { return CHARACTER + kind - BEGGAR; }
}  // namespace A

// ---------------------------------------------------------------------- the agents' constants

constexpr int MAX_BUILDS = 5;
constexpr double UNIT_VALUE[5] = {1.2, 1.3, 1.6, 1.4, 1.9};
constexpr double UNIT_VALUE_MAX_MATERIAL = 1.9;  // max(UNIT_VALUE[1:])
constexpr double LEFTOVER = 0.5;
constexpr double EXTRA_MOSAIC = 4.5;
// greedy.py
constexpr double AMULET_PRICE = 1.5, CHARACTER_WORTH = 1.0;
constexpr int GREEDY_BID = 3, BEGGAR_TALENTS = 2;
// heuristic.py
constexpr double MARGIN = 4.0, SAFE_LOW = 2.0, SAFE_HIGH = 0.7, DANGER_PRICE = 5.0, PRICE_SLOPE = 1.5,
                 OPPONENT_RATE = 0.14, OPPONENT_HAND = 0.3;
constexpr int LATE = 3, SMALL_SANCTUARY = 2, TILES_LEFT = 5;
constexpr int CEREMONY_PLACES[5] = {-3, 1, 2, 3, 4};
constexpr double MARKET_KEPT = 0.6, PROSPECT_WEIGHT = 0.85, ENDING = 0.6, BEGGAR_GAIN = 1.6, COURTESAN_GAIN = 2.0,
                 VIZIER_GAIN = 1.5, CHARACTER_OPTION = 0.5, ENVOY_SWING = 1.5, LIMIT_CARD = 0.6;
// prospects.py
constexpr int DEPTH = 4;
constexpr double MISSING[5] = {2.1, 2.0, 2.75, 2.75, 3.25};
constexpr double FAR = 0.12;
constexpr double LEFTOVERS[5] = {0.5, 0.35, 0.45, 0.45, 0.55};
constexpr double TROMPE_LEFTOVER = 0.5;
constexpr double NEG_INF = -std::numeric_limits<double>::infinity();

constexpr int TOTAL_CARDS = 109;

// common.unit_worth: the loose units' worth (a trompe unit as the dearest material)
template <typename T>
double unit_worth(const T* units) {
    double sum = 0.0;
    for (int r = 0; r < 5; r++) sum = sum + UNIT_VALUE[r] * static_cast<double>(units[r]);
    return sum + UNIT_VALUE_MAX_MATERIAL * static_cast<double>(units[TROMPE_UNIT]);
}

void hand_units(const long* hand, long* units) {
    for (int u = 0; u < NUM_UNITS; u++) units[u] = 0;
    for (int k = 0; k < RESOURCE_KINDS; k++) units[KIND_UNIT[k]] += KIND_AMOUNT[k] * hand[k];
}

double kind_worth(int kind) {  // unit_worth(hand_units(one card of kind))
    long hand[NUM_KINDS] = {}, units[NUM_UNITS];
    hand[kind] = 1;
    hand_units(hand, units);
    return unit_worth(units);
}

struct Constants {
    double unseen_worth, unseen_corrupt, unseen_mix[NUM_KINDS];
    Constants() {
        double worth = 0.0;  // common.unseen_mean_worth
        for (int k = 0; k < RESOURCE_KINDS; k++) worth = worth + CARD_COUNTS[k] * kind_worth(k);
        unseen_worth = worth / TOTAL_CARDS;
        int corrupt_cards = 0;
        for (int k = 0; k < NUM_KINDS; k++) corrupt_cards += corrupt(k) ? CARD_COUNTS[k] : 0;
        unseen_corrupt = static_cast<double>(corrupt_cards) / TOTAL_CARDS;
        for (int k = 0; k < NUM_KINDS; k++) unseen_mix[k] = static_cast<double>(CARD_COUNTS[k]) / TOTAL_CARDS;
    }
};
const Constants C;

// ---------------------------------------------------------------------- prospects.ordered_dot's sums

// ``a . w`` over ``m`` entries, summed from 0 left to right, each product rounded (see the file's head)
inline __attribute__((always_inline)) double dot(const double* a, const double* w, int m) {
    double acc = 0.0;
    for (int i = 0; i < m; i++) acc = acc + a[i] * w[i];
    return acc;
}

// ---------------------------------------------------------------------- the decoded observation (view.py)

struct View {
    int n = 0;
    int phase = 0;
    long turn = 0;
    long hand[NUM_KINDS] = {};
    long hand_sizes[MAX_PLAYERS] = {}, talents[MAX_PLAYERS] = {}, amulets[MAX_PLAYERS] = {},
         merchants[MAX_PLAYERS] = {}, statues[MAX_PLAYERS] = {}, sanctuary_squares[MAX_PLAYERS] = {};
    long known_hands[MAX_PLAYERS - 1][NUM_KINDS] = {};
    long stalls[STALLS][NUM_KINDS + 1] = {};  // face-up counts per kind, then face down
    long deck_size = 0, discard_size = 0;
    uint64_t covered = 0, sanctuaries = 0;
    int walls = 0, gate = 0;
    long sphinxes = 0, obelisks = 0, cleopatra = 0, altar = 0;
    bool pedestal = false, throne = false;
    bool in_quarry[NUM_TILES] = {};
    int top_tile = -1;
    long pool[NUM_UNITS] = {};
    long built[NUM_BUILDS] = {};
    int refill_first = -1;  // the visible side of the first card still to place (kind or face down), -1: none
    int tile = -1, orient = -1, envoy_resource = -1;
    int offered = 0;        // squares of the sanctuary offered to a statue
    long envoy_offers[MAX_PLAYERS] = {};
    long ceremony_offer = 0;
    long last_offers[MAX_PLAYERS] = {}, last_places[MAX_PLAYERS] = {};
};

constexpr double DECODABLE = 2147483648.0;  // 2**31, as the compiled decoder of _observe.pyx

int first(const float* x, int at, int size) {
    for (int i = 0; i < size; i++)
        if (x[at + i] != 0) return i;
    return -1;
}

long scaled(float value) { return static_cast<long>(std::nearbyint(static_cast<double>(value) * 100.0)); }

uint64_t square_mask(const float* x, int at) {
    uint64_t out = 0;
    for (int i = 0; i < SQUARES; i++)
        if (x[at + i] != 0) out |= uint64_t(1) << i;
    return out;
}

int read_view(const Table& t, const float* x, View& v, int* bad_entry) {
    const Layout& at = t.at;
    for (int i = 0; i < at.size; i++) {
        const float e = x[i];
        if (!std::isfinite(e) || e < 0 || e >= DECODABLE) {
            if (bad_entry) *bad_entry = i;
            return BAD_ENTRY;
        }
    }
    const int n = t.n;
    v.n = n;
    v.phase = std::max(0, first(x, at.phase, NUM_PHASES));
    v.turn = static_cast<long>(std::nearbyint(static_cast<double>(x[at.turn]) * t.max_turns));
    for (int k = 0; k < NUM_KINDS; k++) v.hand[k] = static_cast<long>(x[at.hand + k]);
    for (int i = 0; i < n; i++) {
        v.hand_sizes[i] = static_cast<long>(x[at.hand_sizes + i]);
        v.talents[i] = scaled(x[at.talents + i]);
        v.amulets[i] = scaled(x[at.amulets + i]);
        v.merchants[i] = static_cast<long>(x[at.merchants + i]);
        v.statues[i] = static_cast<long>(x[at.statues + i]);
        v.sanctuary_squares[i] = static_cast<long>(x[at.sanctuary_squares + i]);
        v.envoy_offers[i] = static_cast<long>(x[at.envoy_offers + i]);
        v.last_offers[i] = scaled(x[at.last_offers + i]);
        v.last_places[i] = static_cast<long>(x[at.last_places + i]);
    }
    for (int i = 0; i < n - 1; i++)
        for (int k = 0; k < NUM_KINDS; k++) v.known_hands[i][k] = static_cast<long>(x[at.known_hands + i * NUM_KINDS + k]);
    for (int s = 0; s < STALLS; s++)
        for (int k = 0; k <= NUM_KINDS; k++) v.stalls[s][k] = static_cast<long>(x[at.stalls + s * (NUM_KINDS + 1) + k]);
    v.deck_size = static_cast<long>(x[at.deck_size]);
    v.discard_size = static_cast<long>(x[at.discard_size]);
    v.covered = square_mask(x, at.covered);
    v.sanctuaries = square_mask(x, at.sanctuary);
    for (int k = 0; k < NUM_WALL_SLOTS; k++)
        if (x[at.walls + k] != 0) v.walls |= 1 << k;
    for (int s = 0; s < 2; s++)
        if (x[at.gate + s] != 0) v.gate |= 1 << s;
    v.sphinxes = static_cast<long>(x[at.sphinxes]);
    v.obelisks = static_cast<long>(x[at.obelisks]);
    v.pedestal = x[at.pedestal] != 0;
    v.throne = x[at.throne] != 0;
    v.cleopatra = static_cast<long>(x[at.cleopatra]);
    for (int i = 0; i < NUM_TILES; i++) v.in_quarry[i] = x[at.in_quarry + i] != 0;
    v.top_tile = first(x, at.top_tile, NUM_TILES);
    v.altar = static_cast<long>(x[at.altar]);
    for (int u = 0; u < NUM_UNITS; u++) v.pool[u] = static_cast<long>(x[at.pool + u]);
    for (int b = 0; b < NUM_BUILDS; b++) v.built[b] = static_cast<long>(x[at.built + b]);
    for (int row = 0; row < STALLS && v.refill_first < 0; row++)
        v.refill_first = first(x, at.refill_cards + row * (NUM_KINDS + 1), NUM_KINDS + 1);
    v.tile = first(x, at.tile, NUM_TILES);
    v.orient = first(x, at.orient, 8);
    for (int i = 0; i < SQUARES; i++) v.offered += x[at.offered_sanctuary + i] != 0;
    v.envoy_resource = first(x, at.envoy_resource, 5);
    v.ceremony_offer = scaled(x[at.ceremony_offer]);
    return 0;
}

// ---------------------------------------------------------------------- the palace (palace.py)

constexpr uint64_t COLUMN_0 = 0x0101010101010101ULL;
constexpr uint64_t NOT_FIRST_COLUMN = ~COLUMN_0;
constexpr uint64_t NOT_LAST_COLUMN = ~(COLUMN_0 << 7);

inline int popcount(uint64_t m) { return __builtin_popcountll(m); }

int gate_run(int walls, int side) {
    int run = 0;
    for (int i = 0; i < NUM_WALL_SLOTS; i++) {
        const int k = side == 0 ? i : NUM_WALL_SLOTS - 1 - i;
        if (!((walls >> k) & 1)) break;
        run++;
    }
    return run;
}

// palace._free_areas: the edge-connected free groups, in the order of their lowest square
int free_areas(uint64_t free, uint64_t* out) {
    int count = 0;
    while (free) {
        uint64_t area = free & (~free + 1);
        while (true) {
            const uint64_t grown = (area | ((area << 1) & NOT_FIRST_COLUMN) | ((area >> 1) & NOT_LAST_COLUMN)
                                    | (area << 8) | (area >> 8)) & free;
            if (grown == area) break;
            area = grown;
        }
        out[count++] = area;
        free &= ~area;
    }
    return count;
}

bool fits_inside(const Table& t, int tile, uint64_t area) {
    const uint64_t outside = ~area;
    uint64_t rest = area;
    while (rest) {
        const int sq = __builtin_ctzll(rest);
        for (uint64_t m : t.anchored[tile][sq])
            if (!(m & outside)) return true;
        rest &= rest - 1;
    }
    return false;
}

// ---------------------------------------------------------------------- the planner (common.py)

struct Plan {
    int counts[6] = {};
    int walls[NUM_WALL_SLOTS] = {};
    int n_walls = 0;
    int gates[2] = {};
    int n_gates = 0;
    int pay[64] = {};  // card kinds in paying order (a visit needs at most 5 x 7 units)
    int n_pay = 0;
    int merchants = 0;
    double talents = 0.0;
    double value = 0.0;
    long left[NUM_KINDS] = {};  // the hand it leaves
};

struct Candidate {
    int counts[6];
    int need[5];
};

// common.candidate_costs: every multiset of at most ``depth`` elements within ``limit``, in grow()'s order
void grow(const int* limit, int* counts, int start, int left, std::vector<Candidate>& out) {
    for (int c = start; c < 6; c++) {
        if (counts[c] < limit[c] && left) {
            counts[c]++;
            Candidate cand;
            for (int i = 0; i < 6; i++) cand.counts[i] = counts[i];
            for (int r = 0; r < 5; r++) {
                int sum = 0;
                for (int i = 0; i < 6; i++) sum += counts[i] * COSTS[i][r];
                cand.need[r] = sum;
            }
            out.push_back(cand);
            grow(limit, counts, c, left - 1, out);
            counts[c]--;
        }
    }
}

int bonus(int count) { return count >= 3 ? 5 : count == 2 ? 2 : 0; }

// phases.cover
bool cover(const long* pool, const int* cost, const bool* trompe_ok) {
    long trompe_need = 0, merchant_need = 0;
    for (int r = 0; r < 5; r++) {
        const long short_ = cost[r] - pool[r];
        if (short_ > 0) {
            if (trompe_ok[r]) trompe_need += short_;
            else merchant_need += short_;
        }
    }
    if (trompe_need > pool[TROMPE_UNIT]) merchant_need += trompe_need - pool[TROMPE_UNIT];
    return merchant_need <= pool[MERCHANT_UNIT];
}

struct Prospects {
    int room[6];
    int rows = 0;
    std::vector<int> counts;      // rows x 6
    std::vector<double> talents;  // rows
    std::vector<double> need;     // rows x 5
};

// What depends on the palace alone (common.palace_memo) and the hands valued on it (Prospects.known), kept from
// decision to decision while the palace stays: most decisions of a game share their palace, and a quarry visit's
// payment steps value the same hands again. One per thread, so that nogil callers may decide in parallel.
struct PalaceKey {
    int table = -1;  // Table::id
    uint64_t covered = 0, blocked = 0;
    long walls = 0, gate = 0, sphinxes = 0, obelisks = 0, pedestal = 0, throne = 0, top_tile = 0, quarry = 0;
    bool operator==(const PalaceKey& o) const {
        return table == o.table && covered == o.covered && blocked == o.blocked && walls == o.walls && gate == o.gate
               && sphinxes == o.sphinxes && obelisks == o.obelisks && pedestal == o.pedestal && throne == o.throne
               && top_tile == o.top_tile && quarry == o.quarry;
    }
};

struct WorthKey {
    uint64_t units[6];  // the bits of the 6 unit counts (doubles)
    int merchants;
    int built[6];       // -1 in built[0]: no built
    bool operator==(const WorthKey& o) const {
        return std::equal(units, units + 6, o.units) && merchants == o.merchants && std::equal(built, built + 6, o.built);
    }
};

struct WorthHash {
    size_t operator()(const WorthKey& k) const {
        uint64_t h = 1469598103934665603ULL;
        auto mix = [&h](uint64_t x) { h = (h ^ x) * 1099511628211ULL; h ^= h >> 29; };
        for (uint64_t u : k.units) mix(u);
        mix(static_cast<uint64_t>(k.merchants));
        for (int b : k.built) mix(static_cast<uint64_t>(b) + 7);
        return static_cast<size_t>(h);
    }
};

constexpr size_t KNOWN_HANDS = 4096;  // hands remembered per palace (then it forgets all)

struct PalaceMemo {
    PalaceKey key;
    bool have_candidates = false, have_prospects = false;
    std::vector<Candidate> candidates;  // candidate_costs(room, MAX_BUILDS)
    Prospects pr;
    std::unordered_map<WorthKey, double, WorthHash> known;

    void reset(const PalaceKey& k) {
        key = k;
        have_candidates = have_prospects = false;
        candidates.clear();
        pr = Prospects();
        known.clear();
    }
};

thread_local PalaceMemo memo;

struct Ctx {
    const Table& t;
    const View& v;
    const uint8_t* mask;
    double tolerance;  // the heuristic's
    uint64_t blocked = 0;
    int room[6] = {};
    // per-decision memos (common.palace_memo's values for this palace)
    bool have_walls[NUM_WALL_SLOTS + 1] = {};
    int wall_choice[NUM_WALL_SLOTS + 1][NUM_WALL_SLOTS] = {};
    int wall_count[NUM_WALL_SLOTS + 1] = {};
    int walls_after[NUM_WALL_SLOTS + 1] = {};
    int mosaic_value = -1;

    Ctx(const Table& table, const View& view, const uint8_t* m, double tol)
        : t(table), v(view), mask(m), tolerance(tol) {
        blocked = v.covered | v.sanctuaries;
        room[0] = NUM_WALL_SLOTS - popcount(static_cast<uint64_t>(v.walls));
        room[1] = SPHINX_PIECES - static_cast<int>(v.sphinxes);
        room[2] = OBELISK_PIECES - static_cast<int>(v.obelisks);
        room[3] = 2 - popcount(static_cast<uint64_t>(v.gate));
        room[4] = 2 - int(v.pedestal) - int(v.throne);
        int tiles = 0;
        for (int i = 0; i < NUM_TILES; i++) tiles += v.in_quarry[i];
        room[5] = tiles;
        PalaceKey key;
        key.table = t.id;
        key.covered = v.covered;
        key.blocked = blocked;
        key.walls = v.walls;
        key.gate = v.gate;
        key.sphinxes = v.sphinxes;
        key.obelisks = v.obelisks;
        key.pedestal = v.pedestal;
        key.throne = v.throne;
        key.top_tile = v.top_tile;
        for (int i = 0; i < NUM_TILES; i++) key.quarry |= long(v.in_quarry[i]) << i;
        if (!(memo.key == key)) memo.reset(key);
    }

    bool legal(int action) const { return action >= 0 && action < NUM_ACTIONS && mask[action]; }
    int first_legal() const {
        for (int a = 0; a < NUM_ACTIONS; a++)
            if (mask[a]) return a;
        return 0;
    }
    // Of the ids first .. first + count - 1, the offset of the legal one with the highest worth(offset), the
    // lowest on a tie (Python's max over them in order); -1 if none is legal. worth is asked of legal ones only.
    template <class Worth>
    int best_legal(int first, int count, Worth worth) {
        int best = -1;
        double best_worth = 0.0;
        for (int i = 0; i < count; i++) {
            if (!legal(first + i)) continue;
            const double w = worth(i);
            if (best < 0 || w > best_worth) best = i, best_worth = w;
        }
        return best;
    }

    // common.wall_slot_score
    double wall_slot_score(int slot, int walls, int gate) const {
        double score = static_cast<double>(WALL_BASE + popcount(t.wall_masks[slot] & v.covered));
        for (int side = 0; side < 2; side++)
            if (!((gate >> side) & 1) && gate_run(walls | (1 << slot), side) > gate_run(walls, side)) score += 0.5;
        return score;
    }

    // common.choose_walls, remembered per count
    void choose_walls(int count) {
        if (have_walls[count]) return;
        have_walls[count] = true;
        int walls = v.walls, chosen = 0;
        for (int i = 0; i < count; i++) {
            int best = -1;
            double best_score = 0.0;
            for (int k = 0; k < NUM_WALL_SLOTS; k++) {
                if ((walls >> k) & 1) continue;
                const double score = wall_slot_score(k, walls, v.gate);
                if (best < 0 || score > best_score) best = k, best_score = score;  // ties: the lowest slot
            }
            if (best < 0) break;
            wall_choice[count][chosen++] = best;
            walls |= 1 << best;
        }
        wall_count[count] = chosen;
        walls_after[count] = walls;
    }

    // common.best_mosaic_value
    int best_mosaic_value() {
        if (mosaic_value >= 0) return mosaic_value;
        if (v.top_tile < 0) return mosaic_value = MOSAIC_BASE;
        int most = 0;
        bool any = false;
        for (const Placement& pl : t.placements[v.top_tile]) {
            if (pl.mask & blocked) continue;
            const int palms = popcount(pl.mask & t.palms);
            if (!any || palms > most) most = palms;
            any = true;
        }
        return mosaic_value = MOSAIC_BASE + most;
    }

    // common.value_counts: talents of the elements (no bonus), the wall slots and gate parts they take
    double value_counts(const int* counts, Plan* plan) {
        const int nw = counts[WALLS];
        choose_walls(nw);
        const int walls = walls_after[nw];
        double talents = 0.0;
        int wall_sum = 0;
        for (int i = 0; i < wall_count[nw]; i++)
            wall_sum += WALL_BASE + popcount(t.wall_masks[wall_choice[nw][i]] & v.covered);
        talents = static_cast<double>(wall_sum);
        int sphinx_sum = 0;
        for (int i = 0; i < counts[SPHINXES]; i++) sphinx_sum += SPHINX_VALUES[v.sphinxes + i];
        talents += sphinx_sum;
        talents += OBELISK_VALUE * counts[OBELISKS];
        int parts[2], n_parts = 0;
        for (int s = 0; s < 2; s++)
            if (!((v.gate >> s) & 1)) parts[n_parts++] = s;
        if (n_parts == 2 && gate_run(walls, 1) > gate_run(walls, 0)) std::swap(parts[0], parts[1]);
        n_parts = std::min(n_parts, counts[GATE]);
        int gate_sum = 0;
        for (int i = 0; i < n_parts; i++) gate_sum += GATE_BASE + gate_run(walls, parts[i]);
        talents += gate_sum;
        talents += (!v.pedestal ? PEDESTAL_VALUE : THRONE_VALUE) * std::min(counts[THRONE], 1);
        talents += THRONE_VALUE * std::max(0, counts[THRONE] - 1);
        if (counts[MOSAICS]) talents += best_mosaic_value() + EXTRA_MOSAIC * (counts[MOSAICS] - 1);
        if (plan) {
            plan->n_walls = wall_count[nw];
            for (int i = 0; i < plan->n_walls; i++) plan->walls[i] = wall_choice[nw][i];
            plan->n_gates = n_parts;
            for (int i = 0; i < n_parts; i++) plan->gates[i] = parts[i];
        }
        return talents;
    }

    const std::vector<Candidate>& visit_candidates() {
        if (!memo.have_candidates) {
            memo.have_candidates = true;
            int counts[6] = {};
            grow(room, counts, 0, MAX_BUILDS, memo.candidates);
        }
        return memo.candidates;
    }

    // common.payment (tainted_first): cards and merchants added to ``pool`` to cover ``need``; false: none
    bool payment(const long* pool, const int* need, const long* hand_in, int merchants, Plan& plan) const {
        long hand[NUM_KINDS], units[NUM_UNITS];
        for (int k = 0; k < NUM_KINDS; k++) hand[k] = hand_in[k];
        for (int u = 0; u < NUM_UNITS; u++) units[u] = pool[u];
        plan.n_pay = 0;
        auto take = [&](int kind) {
            hand[kind]--;
            plan.pay[plan.n_pay++] = kind;
            units[KIND_UNIT[kind]] += KIND_AMOUNT[kind];
        };
        for (int r = 0; r < 5; r++) {
            const int single = r, dbl = r + 5;
            while (need[r] - units[r] >= 2 && hand[dbl]) take(dbl);
            while (need[r] - units[r] >= 1 && hand[single]) take(single);
            while (need[r] - units[r] >= 1 && hand[dbl]) take(dbl);
        }
        long short_ = 0;
        for (int r = 1; r < 5; r++)
            if (t.trompe_ok[r]) short_ += std::max(0L, need[r] - units[r]);
        short_ -= units[TROMPE_UNIT];
        while (short_ > 0 && hand[TROMPE]) {
            take(TROMPE);
            short_--;
        }
        for (int k = 0; k < NUM_KINDS; k++) plan.left[k] = hand[k];
        if (cover(units, need, t.trompe_ok)) {
            plan.merchants = 0;
            return true;
        }
        for (int m = 1; m <= merchants; m++) {
            units[MERCHANT_UNIT]++;
            if (cover(units, need, t.trompe_ok)) {
                plan.merchants = m;
                return true;
            }
        }
        return false;
    }

    // common.affordable_plans: calls ``visit(plan)`` for every visit the pool, the hand and the merchants pay for
    template <typename F>
    void affordable_plans(const long* hand, int merchants, const long* pool, int already, F visit) {
        long units[NUM_UNITS], from_hand[NUM_UNITS];
        hand_units(hand, from_hand);
        for (int u = 0; u < NUM_UNITS; u++) units[u] = pool[u] + from_hand[u];
        units[MERCHANT_UNIT] += merchants;
        Plan plan;
        for (const Candidate& cand : visit_candidates()) {
            if (!cover(units, cand.need, t.trompe_ok)) continue;
            if (!payment(pool, cand.need, hand, merchants, plan)) continue;
            int size = 0;
            for (int c = 0; c < 6; c++) plan.counts[c] = cand.counts[c], size += cand.counts[c];
            plan.talents = value_counts(cand.counts, &plan);
            plan.talents += bonus(already + size) - bonus(already);
            plan.value = 0.0;
            visit(plan);
        }
    }

    // common.best_plan with Pricing(tainted=0.0): greedy's pricing, and the fallback of heuristic.quarry
    bool best_plan(const long* hand, int merchants, const long* pool, int already, bool nonempty, Plan& best) {
        long units[NUM_UNITS];
        hand_units(hand, units);
        const double base = unit_worth(units) * LEFTOVER;
        bool found = false;
        double best_value = nonempty ? NEG_INF : base;
        affordable_plans(hand, merchants, pool, already, [&](Plan& plan) {
            int corrupt_paid = 0;
            for (int i = 0; i < plan.n_pay; i++) corrupt_paid += corrupt(plan.pay[i]);
            long left_units[NUM_UNITS];
            hand_units(plan.left, left_units);
            const double value = (plan.talents - MERCHANT_VALUE * plan.merchants) - 0.0 * corrupt_paid
                                 + unit_worth(left_units) * LEFTOVER;
            if (value > best_value) {
                best_value = plan.value = value;
                best = plan;
                found = true;
            }
        });
        return found;
    }

    // common.build_action: a build of ``plan`` the pool covers now (walls first, the gate last); -1: none
    int build_action(const Plan& plan) const {
        static const int order[6] = {WALLS, SPHINXES, OBELISKS, THRONE, MOSAICS, GATE};
        for (int c : order) {
            if (!plan.counts[c]) continue;
            if (c == WALLS) {
                for (int i = 0; i < plan.n_walls; i++)
                    if (legal(A::WALL + plan.walls[i])) return A::WALL + plan.walls[i];
            } else if (c == GATE) {
                for (int i = 0; i < plan.n_gates; i++)
                    if (legal(A::GATE + plan.gates[i])) return A::GATE + plan.gates[i];
            } else {
                const int action = c == SPHINXES ? A::SPHINX : c == OBELISKS ? A::OBELISK : c == MOSAICS ? A::MOSAIC
                                   : v.pedestal ? A::THRONE : A::PEDESTAL;
                if (legal(action)) return action;
            }
        }
        return -1;
    }

    // common.pay_action
    int pay_action(const Plan& plan) const {
        for (int i = 0; i < plan.n_pay; i++)
            if (legal(A::CARD + plan.pay[i])) return A::CARD + plan.pay[i];
        if (plan.merchants && legal(A::MERCHANT)) return A::MERCHANT;
        return -1;
    }

    long built_total() const {
        long sum = 0;
        for (int b = 0; b < NUM_BUILDS; b++) sum += v.built[b];
        return sum;
    }

    // common.quarry_step
    int quarry_step() {
        const long already = built_total();
        Plan plan;
        if (best_plan(v.hand, static_cast<int>(v.merchants[0]), v.pool, static_cast<int>(already), !already, plan)) {
            int action = build_action(plan);
            if (action < 0) action = pay_action(plan);
            if (action >= 0) return action;
        }
        if (legal(A::DONE)) return A::DONE;
        for (int a = A::WALL; a <= A::MOSAIC; a++)
            if (legal(a)) return a;
        for (int k = 0; k < NUM_KINDS; k++)
            if (legal(A::CARD + k)) return A::CARD + k;
        if (legal(A::MERCHANT)) return A::MERCHANT;
        return first_legal();
    }

    // ------------------------------------------------------------------ mosaics

    // common._sanctuaries_after: the largest new sanctuary (squares) if ``tile`` covered ``m``; 0: none
    int largest_sanctuary_after(uint64_t m, int tile) const {
        const uint64_t covered = v.covered | m;
        int stack_tiles = 0;
        for (int i = 0; i < NUM_TILES; i++)
            if (v.in_quarry[i] && i != tile) stack_tiles |= 1 << i;
        uint64_t before[SQUARES], known[SQUARES], after[SQUARES];
        const int n_before = free_areas(t.garden & ~v.covered, before);
        int n_known = 0;
        for (int i = 0; i < n_before; i++)
            if ((before[i] & v.sanctuaries) == before[i]) known[n_known++] = before[i];
        const int n_after = free_areas(t.garden & ~covered, after);
        int largest = 0;
        bool any = false;
        for (int i = 0; i < n_after; i++) {
            const uint64_t area = after[i];
            bool is_known = false;
            for (int j = 0; j < n_known; j++) is_known |= known[j] == area;
            if (is_known || popcount(area) > t.sanctuary_max) continue;
            bool fits = false;
            for (int tl = 0; tl < NUM_TILES && !fits; tl++)
                if ((stack_tiles >> tl) & 1) fits = fits_inside(t, tl, area);
            if (!fits) {
                largest = std::max(largest, popcount(area));
                any = true;
            }
        }
        return any ? largest : -1;
    }

    // common.placement_score
    double placement_score(int tile, uint64_t m, double statue_worth, double future_walls) const {
        double score = static_cast<double>(popcount(m & t.palms));
        for (int k = 0; k < NUM_WALL_SLOTS; k++) {
            const int touched = popcount(t.wall_masks[k] & m);
            if (v.built[k]) score += touched;
            else if (!((v.walls >> k) & 1)) score += future_walls * touched;
        }
        if (v.statues[0]) {
            const int largest = largest_sanctuary_after(m, tile);
            if (largest >= 0) score += statue_worth * largest;
        }
        return score;
    }

    // common.mosaic_step (best_placement)
    int mosaic_step(double statue_worth, double future_walls) const {
        const int tile = v.tile >= 0 ? v.tile : 0;
        int best_r = 0, best_sq = 0;
        double best_score = NEG_INF;
        for (const Placement& pl : t.placements[tile]) {
            if ((pl.mask & blocked) || (v.orient >= 0 && pl.orient != v.orient)) continue;
            const double score = placement_score(tile, pl.mask, statue_worth, future_walls);
            if (score > best_score) best_r = pl.orient, best_sq = pl.square, best_score = score;
        }
        return v.phase == P_MOSAIC_ORIENT ? A::ORIENT + best_r : A::SQUARE + best_sq;
    }

    // common.bid_step
    int bid_step(long target) const {
        const long gap = target - v.ceremony_offer;
        for (int i = 3; i >= 0; i--)
            if (BID_STEPS[i] <= gap && legal(A::BID + i)) return A::BID + i;
        return A::DONE;
    }

    // common.least_useful
    int least_useful(const long* hand, double keep_worth) const {
        int best = -1;
        double best_loss = 0.0;
        for (int k = 0; k < NUM_KINDS; k++) {
            if (!hand[k]) continue;
            const double worth = k < RESOURCE_KINDS ? kind_worth(k) : 1.0;
            const double loss = (worth - (corrupt(k) ? keep_worth : 0.0)) + (character(k) ? 0.3 : 0.0);
            if (best < 0 || loss < best_loss) best = k, best_loss = loss;
        }
        return best;
    }

    static constexpr long ZERO_POOL[NUM_UNITS] = {};

    double greedy_hand_worth(const long* hand) {
        Plan plan;
        if (best_plan(hand, static_cast<int>(v.merchants[0]), ZERO_POOL, 0, false, plan)) return plan.value;
        long units[NUM_UNITS];
        hand_units(hand, units);
        return unit_worth(units) * LEFTOVER;
    }

    // ------------------------------------------------------------------ greedy.py

    double card_worth(int kind) {
        const double worth = kind < RESOURCE_KINDS ? kind_worth(kind) : CHARACTER_WORTH;
        return worth - AMULET_PRICE * (corrupt(kind) ? 1 : 0);
    }

    double stall_worth(int s) {
        const long* row = v.stalls[s];
        const long down = row[NUM_KINDS];
        long hand[NUM_KINDS];
        long size = 0;
        for (int k = 0; k < NUM_KINDS; k++) hand[k] = v.hand[k] + row[k], size += hand[k];
        double gain = greedy_hand_worth(hand) - greedy_hand_worth(v.hand);
        double characters = 0.0;
        for (int k = RESOURCE_KINDS; k < NUM_KINDS; k++) characters = characters + row[k] * CHARACTER_WORTH;
        gain += characters;
        gain += down * (C.unseen_worth * LEFTOVER - C.unseen_corrupt * AMULET_PRICE);
        long corrupt_up = 0;
        for (int k = 0; k < NUM_KINDS; k++) corrupt_up += corrupt(k) ? row[k] : 0;
        gain -= AMULET_PRICE * corrupt_up;
        const long over = size + down - t.hand_limit;
        if (over > 0) gain -= AMULET_PRICE * std::min(over, 1L) + 0.5 * over;
        return gain;
    }

    int greedy_character() {
        if (legal(A::character_action(BEGGAR)) && (v.n - 1) * BEGGAR_TALENTS > 2 * AMULET_PRICE)
            return A::character_action(BEGGAR);
        if (legal(A::character_action(COURTESAN)) && v.discard_size) return A::character_action(COURTESAN);
        if (legal(A::character_action(VIZIER)) && v.deck_size + v.discard_size) return A::character_action(VIZIER);
        return -1;
    }

    int greedy_turn() {
        const int action = greedy_character();
        if (action >= 0) return action;
        if (legal(A::QUARRY)) {
            Plan plan;
            if (best_plan(v.hand, static_cast<int>(v.merchants[0]), ZERO_POOL, 0, true, plan)
                && plan.talents - 3 * plan.merchants > 0)
                return A::QUARRY;
        }
        const int best = best_legal(A::MARKET, STALLS, [this](int s) { return stall_worth(s); });
        return best >= 0 ? A::MARKET + best : first_legal();
    }

    int first_stall() const {
        for (int s = 0; s < STALLS; s++)
            if (legal(A::STALL + s)) return A::STALL + s;
        return first_legal();
    }

    int mosaic_tile() const {
        if (v.top_tile >= 0 && legal(A::TILE + v.top_tile)) return A::TILE + v.top_tile;
        return first_legal();
    }

    int greedy_hand_limit() const {
        if (legal(A::character_action(SMUGGLER))) return A::character_action(SMUGGLER);
        long size = 0;
        for (int k = 0; k < NUM_KINDS; k++) size += v.hand[k];
        return size - t.hand_limit <= 1 ? A::LIMIT_KEEP : A::LIMIT_DISCARD;
    }

    int greedy_beggar() {
        int best = -1;
        double best_worth = 0.0;
        for (int k = 0; k < 5; k++) {
            if (!legal(A::CARD + k)) continue;
            const double worth = card_worth(k);
            if (best < 0 || worth < best_worth) best = k, best_worth = worth;
        }
        if (best >= 0 && (!legal(A::TALENTS) || best_worth < BEGGAR_TALENTS)) return A::CARD + best;
        return A::TALENTS;
    }

    int most_worth_card() {  // max(kinds, key=(card_worth, -k)) over the legal cards; -1: none
        return best_legal(A::CARD, NUM_KINDS, [this](int k) { return card_worth(k); });
    }

    int greedy_envoy_resource() {
        int best = 0;
        double best_gain = 0.0;
        for (int r = 0; r < 5; r++) {
            long hand[NUM_KINDS];
            for (int k = 0; k < NUM_KINDS; k++) hand[k] = v.hand[k];
            hand[r] += 2;
            const double gain = greedy_hand_worth(hand);
            if (r == 0 || gain > best_gain) best = r, best_gain = gain;
        }
        return A::CARD + best;
    }

    int greedy() {
        switch (v.phase) {
            case P_TURN: return greedy_turn();
            case P_REFILL: return first_stall();
            case P_QUARRY: return quarry_step();
            case P_MOSAIC_TILE: return mosaic_tile();
            case P_MOSAIC_ORIENT:
            case P_MOSAIC_SQUARE: return mosaic_step(AMULET_PRICE, 0.0);
            case P_ANUBIS: return A::YES;
            case P_AFTER: {
                const int action = greedy_character();
                return action >= 0 ? action : A::END_TURN;
            }
            case P_HAND_LIMIT: return greedy_hand_limit();
            case P_LIMIT_DISCARD: return A::CARD + least_useful(v.hand, AMULET_PRICE);
            case P_BEGGAR: return greedy_beggar();
            case P_COURTESAN: {
                const int k = most_worth_card();
                return k >= 0 ? A::CARD + k : first_legal();
            }
            case P_ENVOY_RESOURCE: return greedy_envoy_resource();
            case P_ENVOY_OFFER: {
                const int r = v.envoy_resource;
                return r >= 0 && legal(A::YES) && card_worth(r) < AMULET_PRICE ? A::YES : A::NO;
            }
            case P_ENVOY_ACCEPT: {
                const int r = v.envoy_resource;
                return r >= 0 && legal(A::YES) && card_worth(r) > AMULET_PRICE ? A::YES : A::NO;
            }
            case P_VIZIER: {
                const int k = most_worth_card();
                return k >= 0 && card_worth(k) > AMULET_PRICE ? A::CARD + k : A::DONE;
            }
            case P_SCRIBE_DIE: return legal(A::DIE_REMOVE) ? A::DIE_REMOVE : A::DIE_ADD;
            case P_CEREMONY: return bid_step(std::min<long>(GREEDY_BID, v.talents[0]));
            default: return first_legal();
        }
    }

#include "heuristic.inc"
};

int fill_layout(Layout& at, int n) {
    int pos = 0;
    auto put = [&pos](int& field, int size) {
        field = pos;
        pos += size;
    };
    const int k = NUM_KINDS, o = n - 1;
    put(at.phase, NUM_PHASES); put(at.acting, n); put(at.active, n); put(at.turn, 1); put(at.over, 1);
    put(at.hand, k); put(at.hand_sizes, n); put(at.talents, n); put(at.amulets, n); put(at.merchants, n);
    put(at.statues, n); put(at.sanctuary_squares, n); put(at.eliminated, n); put(at.winners, n);
    put(at.known_hands, o * k); put(at.known_discard, k); put(at.deck_face_up, 1); put(at.shown, o);
    put(at.shown_hands, o * k); put(at.stalls, STALLS * (k + 1)); put(at.deck_size, 1); put(at.deck_top, k + 2);
    put(at.discard_size, 1); put(at.palms, SQUARES); put(at.covered, SQUARES); put(at.sanctuary, SQUARES);
    put(at.sanctuary_owner, n * SQUARES); put(at.tile_anchor, NUM_TILES); put(at.tile_orient, NUM_TILES);
    put(at.walls, NUM_WALL_SLOTS); put(at.gate, 2); put(at.sphinxes, 1); put(at.obelisks, 1); put(at.pedestal, 1);
    put(at.throne, 1); put(at.complete, 6); put(at.cleopatra, 1); put(at.in_quarry, NUM_TILES);
    put(at.top_tile, NUM_TILES); put(at.removed, NUM_TILES); put(at.stack_order, NUM_TILES); put(at.altar, 1);
    put(at.pool, NUM_UNITS); put(at.paid, k); put(at.built, NUM_BUILDS); put(at.refill_cards, STALLS * (k + 1));
    put(at.refill_filled, STALLS); put(at.tile, NUM_TILES); put(at.orient, 8); put(at.offered_sanctuary, SQUARES);
    put(at.envoy_resource, 5); put(at.envoy_offers, n); put(at.envoy_accepted, n); put(at.envoy_target, n);
    put(at.vizier_drawn, k); put(at.vizier_kept, 1); put(at.courtesan_discard, k); put(at.ceremony_offer, 1);
    put(at.ceremony_closed, n); put(at.last_offers, n); put(at.last_places, n);
    at.size = pos;
    return pos;
}

// What decide and advise refuse, in this order: a table out of range, an unknown agent or a tolerance outside
// [0, 1], a mask with no legal action, an observation entry out of range; else 0, with ``view`` read.
int read_input(const Table& table, bool known_agent, double tolerance, const float* obs, const uint8_t* mask,
               View& view, int* bad_entry) {
    if (table.n < MIN_PLAYERS || table.n > MAX_PLAYERS) return BAD_TABLE;
    if (!known_agent || !(tolerance >= 0.0 && tolerance <= 1.0)) return BAD_AGENT;
    bool any = false;
    for (int a = 0; a < NUM_ACTIONS && !any; a++) any = mask[a] != 0;
    if (!any) return NO_LEGAL_ACTION;
    return read_view(table, obs, view, bad_entry);
}

}  // namespace

bool make_table(Table& table, int num_players, bool memory, int hand_limit, int max_turns, const int* trompe_ok,
                int sanctuary_max, uint64_t garden, uint64_t palms, const uint64_t* wall_masks, int count,
                const int* tiles, const int* orients, const int* squares, const uint64_t* masks) noexcept {
    if (num_players < MIN_PLAYERS || num_players > MAX_PLAYERS || max_turns < 1 || hand_limit < 0 || count < 0)
        return false;
    table.n = num_players;
    table.memory = memory;
    table.hand_limit = hand_limit;
    table.max_turns = max_turns;
    table.n_materials = 0;
    for (int r = 0; r < 5; r++) {
        table.trompe_ok[r] = trompe_ok[r] != 0;
        if (r >= 1 && table.trompe_ok[r]) table.materials[table.n_materials++] = r;
    }
    table.sanctuary_max = sanctuary_max;
    table.garden = garden;
    table.palms = palms;
    for (int k = 0; k < NUM_WALL_SLOTS; k++) table.wall_masks[k] = wall_masks[k];
    try {
        for (int tile = 0; tile < NUM_TILES; tile++) {
            table.placements[tile].clear();
            for (int sq = 0; sq < SQUARES; sq++) table.anchored[tile][sq].clear();
        }
        for (int i = 0; i < count; i++) {
            if (tiles[i] < 0 || tiles[i] >= NUM_TILES || squares[i] < 0 || squares[i] >= SQUARES) return false;
            table.placements[tiles[i]].push_back(Placement{orients[i], squares[i], masks[i]});
            table.anchored[tiles[i]][squares[i]].push_back(masks[i]);
        }
    } catch (...) {
        return false;
    }
    fill_layout(table.at, num_players);
    static std::atomic<int> tables{0};
    table.id = tables++;  // a new id for every filled table: the palace memos never mix two tables' rules
    return true;
}

int decide(const Table& table, int agent, double tolerance, const float* obs, const uint8_t* mask,
           int* bad_entry) noexcept {
    View view;
    const int refused = read_input(table, agent == GREEDY || agent == HEURISTIC, tolerance, obs, mask, view,
                                   bad_entry);
    if (refused) return refused;
    try {
        Ctx ctx(table, view, mask, tolerance);
        const int action = agent == HEURISTIC ? ctx.heuristic_decide() : ctx.greedy();
        return ctx.legal(action) ? action : ctx.first_legal();  // the Python baselines' safety net
    } catch (...) {  // only an allocation can throw
        return BAD_TABLE;
    }
}

int advise(const Table& table, double tolerance, const float* obs, const uint8_t* mask, float* out,
           int* bad_entry) noexcept {
    View view;
    const int refused = read_input(table, true, tolerance, obs, mask, view, bad_entry);
    if (refused) return refused;
    try {
        Ctx ctx(table, view, mask, tolerance);
        int action = ctx.heuristic_decide();
        action = ctx.legal(action) ? action : ctx.first_legal();
        out[action] = 1.0f;
        // the crocodile's race, as agents/kleopatra/features.py's Advice reads it: in doubles, then rounded once
        float* race = out + NUM_ACTIONS;
        const double own = ctx.own_final();
        double top = ctx.opponent_final(1);
        for (int i = 1; i < view.n; i++) {
            const double other = ctx.opponent_final(i);
            race[i] = static_cast<float>(other / ADVICE_AMULETS);
            if (other > top) top = other;
        }
        const int n = view.n;
        race[0] = static_cast<float>(own / ADVICE_AMULETS);
        race[n] = static_cast<float>((own - top) / ADVICE_AMULETS);
        race[n + 1] = static_cast<float>(static_cast<double>(view.cleopatra) / ADVICE_STEPS);
        race[n + 2] = static_cast<float>(static_cast<double>(view.ceremony_offer) / ADVICE_TALENTS);
        race[n + 3] = static_cast<float>(static_cast<double>(view.ceremony_offer)
                                         / static_cast<double>(std::max(1L, view.talents[0])));
        return action;
    } catch (...) {  // only an allocation can throw
        return BAD_TABLE;
    }
}

void constants(double* out) noexcept {
    out[0] = C.unseen_worth;
    out[1] = C.unseen_corrupt;
    for (int k = 0; k < NUM_KINDS; k++) out[2 + k] = C.unseen_mix[k];
}

void matvec(const double* matrix, int rows, int width, const double* vector, double* out) noexcept {
    for (int i = 0; i < rows; i++) out[i] = dot(matrix + i * width, vector, width);
}

}  // namespace kleopatra_baselines
