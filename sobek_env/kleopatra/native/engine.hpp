// Kleopatra's rules in C++: the same game as the Python engine (state.py, phases.py, palace.py), bit for bit.
//
// A State is a plain struct of fixed-size arrays: copying it is cloning it (a search copies states freely), and
// nothing in legal() / apply() allocates. Hands and piles are counts per card kind; the deck and the stalls are
// ordered cards (kind * 2 + face up) sharing one buffer, [deck bottom .. deck top][stall 0][stall 1][stall 2].
// Every chance event draws from the state's PyRandom in the Python engine's order, so the generator state after
// every action is the Python one's. The pending phase is `phase` plus, for a phase that interrupts another, the
// phase it hands back to (`resume`: the start of the turn, the quarry visit or `after`); the quarry visit's data
// outlive the interruption. One handler per phase (legal_<phase>, apply_<phase>), dispatched on `phase`.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "../../native/pyrandom.hpp"

namespace kleopatra_native {

using sobek_native::PyRandom;

// ---------------------------------------------------------------------- catalogue (rules §1)

constexpr int NUM_KINDS = 17;
constexpr int MAX_PLAYERS = 5;
constexpr int STALLS = 3;
constexpr int DICE = 5;
constexpr int DIE_FACES = 6;
constexpr int NUM_TILES = 12;
constexpr int ORIENTATIONS = 8;
constexpr int SQUARES = 64;
constexpr int NUM_WALL_SLOTS = 9;
constexpr int ALL_WALLS = (1 << NUM_WALL_SLOTS) - 1;
constexpr int MAX_CARDS = NUM_KINDS * 200;  // catalogue.MAX_CARDS_OF_A_KIND per kind
constexpr int MAX_BUILDS = 33;              // the elements of the quarry
constexpr int UNITS = 7;                    // artisan, stone, marble, wood, lapis, trompe, merchant (rules §5)
constexpr int TROMPE_UNIT = 5, MERCHANT_UNIT = 6;
constexpr int CLEOPATRA_END = 5;            // rules §11
constexpr int MERCHANT_VALUE = 3;           // rules §11.5
constexpr int START_HAND = 3, START_TALENTS = 5, START_MERCHANTS = 3, START_STATUES = 2;
constexpr int REFILL_DRAW = 3, VIZIER_DRAW = 5, BEGGAR_TALENTS = 2, SCRIBE_CHOOSE_AMULETS = 2;

enum Kind : int {
    ARTISAN, STONE, MARBLE, WOOD, LAPIS, ARTISAN2, STONE2, MARBLE2, WOOD2, LAPIS2, TROMPE,
    BEGGAR, COURTESAN, ENVOY, SCRIBE, SMUGGLER, VIZIER,
};
inline bool is_standard(int k) { return k <= LAPIS; }
inline bool is_tainted(int k) { return k >= ARTISAN2 && k <= TROMPE; }
inline bool is_corrupt(int k) { return k >= ARTISAN2; }
// rules §8: the fixed amulets of a character when played (the Envoy and the Vizier pay per card)
constexpr int CHARACTER_AMULETS[NUM_KINDS] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0, 1, 0};
// per resource kind: the unit it gives and how many (rules §1.1)
constexpr int KIND_UNIT[11] = {0, 1, 2, 3, 4, 0, 1, 2, 3, 4, TROMPE_UNIT};
constexpr int KIND_AMOUNT[11] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 1};

enum Category : int { WALLS, SPHINXES, OBELISKS, GATE_CAT, THRONE_CAT, MOSAICS };
constexpr int COSTS[6][5] = {
    {1, 1, 0, 1, 0}, {1, 1, 1, 0, 0}, {3, 2, 0, 2, 0}, {2, 0, 1, 1, 1}, {3, 0, 2, 0, 2}, {2, 1, 1, 0, 1},
};
constexpr int SPHINX_PIECES = 6, OBELISK_PIECES = 2;
constexpr int SPHINX_VALUES[6] = {2, 5, 2, 5, 2, 5};
constexpr int WALL_BASE = 3, GATE_BASE = 4, MOSAIC_BASE = 4, OBELISK_VALUE = 12, PEDESTAL_VALUE = 12, THRONE_VALUE = 12;
constexpr int BUILD_BONUS_TWO = 2, BUILD_BONUS_THREE_OR_MORE = 5;
constexpr int BID_STEPS[4] = {1, 2, 5, 10};

// ---------------------------------------------------------------------- actions (rules §14.1)

enum Action : int {
    MARKET = 0, QUARRY = 3, CHARACTER = 4, END_TURN = 10, STALL = 11, MERCHANT = 14, WALL = 15, GATE = 24,
    SPHINX = 26, OBELISK = 27, PEDESTAL = 28, THRONE = 29, MOSAIC = 30, TILE = 31, ORIENT = 43, SQUARE = 51,
    CARD = 115, DONE = 132, YES = 133, NO = 134, TALENTS = 135, DIE_ADD = 136, DIE_REMOVE = 137, LIMIT_KEEP = 138,
    LIMIT_DISCARD = 139, BID = 140, NUM_ACTIONS = 144,
};
inline int character_action(int kind) { return CHARACTER + kind - BEGGAR; }
inline int category_of_build(int a) {
    if (a < GATE) return WALLS;
    if (a < SPHINX) return GATE_CAT;
    if (a == SPHINX) return SPHINXES;
    if (a == OBELISK) return OBELISKS;
    if (a == MOSAIC) return MOSAICS;
    return THRONE_CAT;
}

// ---------------------------------------------------------------------- phases (rules §14.2, PHASES order)

enum Phase : uint8_t {
    TURN, REFILL, QUARRY_VISIT, MOSAIC_TILE, MOSAIC_ORIENT, MOSAIC_SQUARE, ANUBIS, AFTER, HAND_LIMIT,
    LIMIT_DISCARD_PHASE, BEGGAR_PHASE, COURTESAN_PHASE, ENVOY_RESOURCE, ENVOY_OFFER, ENVOY_ACCEPT, VIZIER_PHASE,
    SCRIBE_DIE, CEREMONY, NUM_PHASES,
};
// Phases that interrupt another and hand back to `resume` (phases.Interrupting).
inline bool interrupting(int phase) {
    return phase == MOSAIC_TILE || phase == MOSAIC_ORIENT || phase == MOSAIC_SQUARE || phase == ANUBIS ||
           phase >= BEGGAR_PHASE;
}

// ---------------------------------------------------------------------- the event log (state.EVENTS order)

enum Event : uint8_t {
    EV_market, EV_market_empty, EV_refill_short, EV_refill_nothing, EV_reshuffle, EV_quarry, EV_quarry_paid_card,
    EV_quarry_paid_tainted, EV_quarry_paid_merchant, EV_quarry_built_wall, EV_quarry_built_gate,
    EV_quarry_built_sphinx, EV_quarry_built_obelisk, EV_quarry_built_pedestal, EV_quarry_built_throne,
    EV_quarry_built_mosaic, EV_quarry_bonus_2, EV_quarry_bonus_5, EV_quarry_surplus_lost, EV_cleopatra_advanced,
    EV_cleopatra_two_steps, EV_mosaic_scribe_choice, EV_sanctuary_formed, EV_sanctuary_formed_far,
    EV_sanctuary_claimed, EV_sanctuary_unclaimed, EV_tile_removed, EV_mosaic_complete_by_removal, EV_dice_rolled,
    EV_character_beggar, EV_character_courtesan, EV_character_envoy, EV_character_scribe, EV_character_smuggler,
    EV_character_vizier, EV_beggar_gave_card, EV_beggar_gave_talents, EV_beggar_showed_hand, EV_courtesan_took,
    EV_courtesan_empty_discard, EV_envoy_offered, EV_envoy_no_offer, EV_envoy_accepted, EV_envoy_declined,
    EV_envoy_amulet_from_supply, EV_scribe_die_added, EV_scribe_die_removed, EV_vizier_kept_0, EV_vizier_kept_1,
    EV_vizier_kept_2, EV_vizier_kept_3, EV_vizier_kept_4, EV_vizier_kept_5, EV_vizier_nothing_drawn, EV_ceremony,
    EV_ceremony_from_dice, EV_ceremony_from_scribe, EV_ceremony_all_tied, EV_ceremony_tie, EV_hand_limit_keep,
    EV_hand_limit_discard, EV_end_cleopatra, EV_end_max_turns, EV_crocodile_eaten, EV_crocodile_several_eaten,
    EV_crocodile_hungry, EV_end_sole_winner, EV_end_tie_broken_by_amulets, EV_end_shared_victory, NUM_EVENTS,
};

// ---------------------------------------------------------------------- rules options and geometry (rules §1.4, §13)

struct Placement {
    int square;
    uint64_t mask;
};

// One game's parameters, with the palace geometry precomputed (palace.Geometry, copied from it by the binding).
struct Rules {
    int num_players = 3;
    int card_counts[NUM_KINDS] = {};
    int total_cards = 0;
    int tainted_amulets = 1;
    bool trompe_ok[5] = {};
    int priest_faces = 1;
    int hand_limit = 10;
    int ceremony_table[MAX_PLAYERS] = {};
    int crocodile_margin = 1;
    int sanctuary_max_squares = 8;
    int max_turns = 400;
    uint64_t garden = 0, palms = 0;
    uint64_t wall_masks[NUM_WALL_SLOTS] = {};
    bool distinct[NUM_TILES][ORIENTATIONS] = {};
    int num_placements[NUM_TILES][ORIENTATIONS] = {};
    Placement placements[NUM_TILES][ORIENTATIONS][SQUARES];  // ascending squares
    int num_all[NUM_TILES] = {};
    uint64_t all_masks[NUM_TILES][ORIENTATIONS * SQUARES];    // every placement of the tile

    // rules §6.2: a placement avoiding `blocked`
    bool tile_placeable(int tile, uint64_t blocked) const {
        for (int i = 0; i < num_all[tile]; ++i)
            if (!(all_masks[tile][i] & blocked)) return true;
        return false;
    }
    // rules §6.4: a placement lying inside `area`
    bool fits_inside(int tile, uint64_t area) const {
        for (int i = 0; i < num_all[tile]; ++i)
            if (!(all_masks[tile][i] & ~area)) return true;
        return false;
    }
    bool orient_legal(int tile, int r, uint64_t blocked) const {
        if (!distinct[tile][r]) return false;
        for (int i = 0; i < num_placements[tile][r]; ++i)
            if (!(placements[tile][r][i].mask & blocked)) return true;
        return false;
    }
    uint64_t placement_mask(int tile, int r, int square) const {
        for (int i = 0; i < num_placements[tile][r]; ++i)
            if (placements[tile][r][i].square == square) return placements[tile][r][i].mask;
        return 0;
    }
};

constexpr uint64_t COLUMN_0 = 0x0101010101010101ULL;
constexpr uint64_t NOT_FIRST_COLUMN = ~COLUMN_0;
constexpr uint64_t NOT_LAST_COLUMN = ~(COLUMN_0 << 7);
inline uint64_t neighbours(uint64_t m) {
    return ((m << 1) & NOT_FIRST_COLUMN) | ((m >> 1) & NOT_LAST_COLUMN) | (m << 8) | (m >> 8);
}
inline int popcount(uint64_t m) { return __builtin_popcountll(m); }

// rules §1.4: the walls in the unbroken run from the door frame of `side` (0 left from W1, 1 right from W9)
inline int gate_run(int walls, int side) {
    int run = 0;
    for (int i = 0; i < NUM_WALL_SLOTS; ++i) {
        int k = side == 0 ? i : NUM_WALL_SLOTS - 1 - i;
        if (!((walls >> k) & 1)) break;
        ++run;
    }
    return run;
}

// ---------------------------------------------------------------------- the state

struct Mosaic {
    int8_t tile, orient, anchor, by;
    uint64_t mask;
};
struct Sanctuary {
    uint64_t mask;
    int8_t owner;  // -1: nobody
};

struct State {
    const Rules* rules = nullptr;
    PyRandom rng;
    std::vector<uint8_t>* log = nullptr;  // the event log when enabled; a copy must not share it

    int n = 3;
    int turn = 1;
    int active = 0, current = 0;
    int cleopatra = 0;
    int altar = 0;
    bool over = false;

    int32_t hands[MAX_PLAYERS][NUM_KINDS] = {};
    int32_t talents[MAX_PLAYERS] = {};
    int32_t amulets[MAX_PLAYERS] = {};
    int32_t merchants[MAX_PLAYERS] = {};
    int32_t statues[MAX_PLAYERS] = {};
    int32_t built_by[MAX_PLAYERS] = {};
    int32_t ceremonies_won[MAX_PLAYERS] = {};

    uint8_t cards[MAX_CARDS];  // [deck bottom .. top][stall 0 bottom .. top][stall 1][stall 2]
    int deck_len = 0;
    int stall_len[STALLS] = {};
    int32_t discard[NUM_KINDS] = {};
    int32_t set_aside[NUM_KINDS] = {};

    int walls = 0, gate = 0, sphinxes = 0, obelisks = 0;
    bool pedestal = false, throne = false;
    Mosaic mosaics[NUM_TILES];
    int num_mosaics = 0;
    uint64_t covered = 0;
    Sanctuary sanctuaries[SQUARES];
    int num_sanctuaries = 0;
    uint64_t sanctuary_union = 0;
    int8_t stack[NUM_TILES];  // top first
    int stack_len = 0;
    int8_t removed[NUM_TILES];
    int removed_len = 0;

    int8_t eaten[MAX_PLAYERS];
    int eaten_len = 0;
    // rules §12: known[v][o] per kind, viewer n is the public
    int32_t known[MAX_PLAYERS + 1][MAX_PLAYERS][NUM_KINDS] = {};
    int32_t known_discard[MAX_PLAYERS + 1][NUM_KINDS] = {};
    bool saw_stack[MAX_PLAYERS] = {};
    int8_t shown[MAX_PLAYERS];
    int shown_len = 0;
    bool has_last_ceremony = false;
    int32_t last_offers[MAX_PLAYERS] = {};
    int32_t last_places[MAX_PLAYERS] = {};

    // the pending phase
    uint8_t phase = TURN;
    uint8_t resume = TURN;  // for an interrupting phase: TURN, QUARRY_VISIT or AFTER
    // the quarry visit (phase QUARRY_VISIT, or the phase it resumes)
    int32_t pool[UNITS] = {};
    int32_t paid[NUM_KINDS] = {};
    uint8_t built[MAX_BUILDS];
    int built_len = 0;
    // refill
    uint8_t drawn[STALLS];
    int drawn_len = 0;
    bool filled[STALLS] = {};
    // mosaic
    int tile = 0, orient = 0;
    bool scribe = false;
    // anubis: indices of sanctuaries still to ask about
    uint8_t anubis_queue[SQUARES];
    int anubis_len = 0;
    // beggar: opponents still to answer after the current player
    int8_t beggar_queue[MAX_PLAYERS];
    int beggar_len = 0;
    // envoy
    int resource = 0, target = 0;
    int32_t offers[MAX_PLAYERS] = {};  // the envoy's offers, or the ceremony's running offers
    int32_t accepted[MAX_PLAYERS] = {};
    // vizier
    int32_t vizier_drawn[NUM_KINDS] = {};
    int vizier_kept = 0;

    // ------------------------------------------------------------------ helpers

    void note(Event e) {
        if (log) log->push_back(e);
    }
    int stall_begin(int s) const {
        int at = deck_len;
        for (int i = 0; i < s; ++i) at += stall_len[i];
        return at;
    }
    int piles_end() const { return deck_len + stall_len[0] + stall_len[1] + stall_len[2]; }
    const uint8_t* stall(int s) const { return cards + stall_begin(s); }
    int hand_size(int p) const {
        int t = 0;
        for (int k = 0; k < NUM_KINDS; ++k) t += hands[p][k];
        return t;
    }
    bool discard_empty() const {
        for (int k = 0; k < NUM_KINDS; ++k)
            if (discard[k]) return false;
        return true;
    }
    int score(int p) const { return talents[p] + MERCHANT_VALUE * merchants[p]; }
    bool complete(int category) const {
        switch (category) {
            case WALLS: return walls == ALL_WALLS;
            case SPHINXES: return sphinxes == SPHINX_PIECES;
            case OBELISKS: return obelisks == OBELISK_PIECES;
            case GATE_CAT: return gate == 3;
            case THRONE_CAT: return throne;
            default: return stack_len == 0;
        }
    }
    // the quarry visit in progress, pending or interrupted
    bool in_visit() const {
        return phase == QUARRY_VISIT || (interrupting(phase) && resume == QUARRY_VISIT);
    }
    bool is_eaten(int p) const {
        for (int i = 0; i < eaten_len; ++i)
            if (eaten[i] == p) return true;
        return false;
    }
    bool in_shown(int p) const {
        for (int i = 0; i < shown_len; ++i)
            if (shown[i] == p) return true;
        return false;
    }
};

// ---------------------------------------------------------------------- memory (rules §12; state.py)

inline void seen_in(State& s, int p, int kind, int count = 1) {
    for (int v = 0; v <= s.n; ++v)
        if (v != p) s.known[v][p][kind] += count;
}
inline void seen_out(State& s, int p, int kind) {
    for (int v = 0; v <= s.n; ++v)
        if (s.known[v][p][kind]) --s.known[v][p][kind];
}
// `count` cards left p's hand unseen by all but the two seats informed (-1: none)
inline void unseen_out(State& s, int p, int count, int informed_a, int informed_b) {
    for (int v = 0; v <= s.n; ++v) {
        if (v == informed_a || v == informed_b) continue;
        int32_t* row = s.known[v][p];
        for (int k = 0; k < NUM_KINDS; ++k)
            if (row[k]) row[k] = row[k] > count ? row[k] - count : 0;
    }
}
inline void offered(State& s, int o, int kind, int count) {
    for (int v = 0; v <= s.n; ++v)
        if (v != o && s.known[v][o][kind] < count) s.known[v][o][kind] = count;
}
inline void discard_public(State& s, int kind, int count) {
    s.discard[kind] += count;
    for (int v = 0; v <= s.n; ++v) s.known_discard[v][kind] += count;
}
inline void discard_private(State& s, int p, int kind, int count = 1) {
    s.discard[kind] += count;
    s.known_discard[p][kind] += count;
}

// ---------------------------------------------------------------------- piles

inline uint8_t deck_pop(State& s) {
    int top = s.deck_len - 1;
    uint8_t card = s.cards[top];
    int tail = s.piles_end() - s.deck_len;
    std::memmove(s.cards + top, s.cards + top + 1, tail);
    --s.deck_len;
    return card;
}
inline void stall_push(State& s, int stall, uint8_t card) {
    int at = s.stall_begin(stall) + s.stall_len[stall];
    std::memmove(s.cards + at + 1, s.cards + at, s.piles_end() - at);
    s.cards[at] = card;
    ++s.stall_len[stall];
}
inline void stall_clear(State& s, int stall) {
    int at = s.stall_begin(stall), len = s.stall_len[stall];
    std::memmove(s.cards + at, s.cards + at + len, s.piles_end() - at - len);
    s.stall_len[stall] = 0;
}
// rules §2.3: the `len` kinds at the front of the buffer, shuffled, half (rounded down) face up, shuffled again
inline void make_deck(State& s, int len) {
    s.rng.shuffle(s.cards, len);
    int up = len / 2;
    for (int i = 0; i < len; ++i) s.cards[i] = static_cast<uint8_t>(s.cards[i] * 2 + (i < up));
    s.rng.shuffle(s.cards, len);
    s.deck_len = len;
}
// rules §4.1: the top card, the discard pile reshuffled first if the deck is empty; -1 if there is none
inline int draw(State& s) {
    if (!s.deck_len) {
        int len = 0;
        for (int k = 0; k < NUM_KINDS; ++k) len += s.discard[k];
        if (!len) return -1;
        int tail = s.piles_end();
        std::memmove(s.cards + len, s.cards, tail);
        int at = 0;
        for (int k = 0; k < NUM_KINDS; ++k)
            for (int c = 0; c < s.discard[k]; ++c) s.cards[at++] = static_cast<uint8_t>(k);
        make_deck(s, len);
        std::memset(s.discard, 0, sizeof s.discard);
        std::memset(s.known_discard, 0, sizeof s.known_discard);
        s.note(EV_reshuffle);
    }
    return deck_pop(s);
}

// ---------------------------------------------------------------------- the quarry pool (rules §5)

inline bool cover(const int32_t* pool, const int* cost, const bool* trompe_ok) {
    int64_t trompe_need = 0, merchant_need = 0;
    for (int r = 0; r < 5; ++r) {
        int64_t short_ = static_cast<int64_t>(cost[r]) - pool[r];
        if (short_ > 0) {
            if (trompe_ok[r]) trompe_need += short_;
            else merchant_need += short_;
        }
    }
    if (trompe_need > pool[TROMPE_UNIT]) merchant_need += trompe_need - pool[TROMPE_UNIT];
    return merchant_need <= pool[MERCHANT_UNIT];
}
inline void consume(int32_t* pool, const int* cost, const bool* trompe_ok) {
    for (int r = 0; r < 5; ++r) {
        int need = cost[r];
        if (!need) continue;
        int take = pool[r] < need ? pool[r] : need;
        pool[r] -= take;
        need -= take;
        if (need && trompe_ok[r]) {
            take = pool[TROMPE_UNIT] < need ? pool[TROMPE_UNIT] : need;
            pool[TROMPE_UNIT] -= take;
            need -= take;
        }
        pool[MERCHANT_UNIT] -= need;
    }
}
// whether `pool` covers some element still in the quarry
inline bool affordable(const State& s, const int32_t* pool) {
    const bool* ok = s.rules->trompe_ok;
    return (s.walls != ALL_WALLS && cover(pool, COSTS[WALLS], ok)) ||
           (s.sphinxes < SPHINX_PIECES && cover(pool, COSTS[SPHINXES], ok)) ||
           (s.obelisks < OBELISK_PIECES && cover(pool, COSTS[OBELISKS], ok)) ||
           (s.gate != 3 && cover(pool, COSTS[GATE_CAT], ok)) || (!s.throne && cover(pool, COSTS[THRONE_CAT], ok)) ||
           (s.stack_len && cover(pool, COSTS[MOSAICS], ok));
}
// `base` plus p's resource cards and merchants
inline void hand_pool(const State& s, int p, const int32_t* base, int32_t* out) {
    for (int u = 0; u < UNITS; ++u) out[u] = base ? base[u] : 0;
    for (int k = 0; k <= TROMPE; ++k)
        if (s.hands[p][k]) out[KIND_UNIT[k]] += KIND_AMOUNT[k] * s.hands[p][k];
    out[MERCHANT_UNIT] += s.merchants[p];
}
inline bool can_visit_quarry(const State& s, int p) {
    int32_t pool[UNITS];
    hand_pool(s, p, nullptr, pool);
    return affordable(s, pool);
}

// ---------------------------------------------------------------------- shared moves (state.py)

inline void hand_back(State& s) {
    s.phase = s.resume;
    s.current = s.active;
}

void end_game(State& s, Event reason);

inline void next_turn(State& s) {
    s.shown_len = 0;
    if (s.turn >= s.rules->max_turns) {  // rules §11 [decision]
        end_game(s, EV_end_max_turns);
        return;
    }
    ++s.turn;
    s.active = s.current = (s.active + 1) % s.n;
    s.phase = TURN;
}

inline void end_turn(State& s) {
    int p = s.active;
    for (int k = 0; k < NUM_KINDS; ++k) {  // rules §8 [decision]: played characters reach the discard now
        if (s.set_aside[k]) discard_public(s, k, s.set_aside[k]);
        s.set_aside[k] = 0;
    }
    if (s.hand_size(p) > s.rules->hand_limit) s.phase = HAND_LIMIT;
    else next_turn(s);
}

inline void start_ceremony(State& s, int resume) {
    s.note(EV_ceremony);
    s.phase = CEREMONY;
    s.resume = static_cast<uint8_t>(resume);
    for (int p = 0; p < s.n; ++p) s.offers[p] = 0;
    s.current = s.active;
}

// rules §8 Beggar: the next opponent who can give answers; one who cannot shows his hand instead
inline void ask_beggar_victims(State& s) {
    int p = s.active;
    while (s.beggar_len) {
        int victim = s.beggar_queue[0];
        for (int i = 1; i < s.beggar_len; ++i) s.beggar_queue[i - 1] = s.beggar_queue[i];
        --s.beggar_len;
        const int32_t* hand = s.hands[victim];
        bool can = s.talents[victim] >= BEGGAR_TALENTS;
        for (int k = ARTISAN; k <= LAPIS && !can; ++k) can = hand[k] > 0;
        if (can) {
            s.current = victim;
            s.phase = BEGGAR_PHASE;
            return;
        }
        if (!s.in_shown(victim)) s.shown[s.shown_len++] = static_cast<int8_t>(victim);
        for (int k = 0; k < NUM_KINDS; ++k) s.known[p][victim][k] = hand[k];
        s.note(EV_beggar_showed_hand);
    }
    s.current = p;
    s.phase = s.resume;
}

// rules §8: the card is set aside, its fixed amulets taken, its power resolved, interrupting `resume`
inline void play_character(State& s, int kind, int resume) {
    int p = s.active, n = s.n;
    --s.hands[p][kind];
    seen_out(s, p, kind);
    s.amulets[p] += CHARACTER_AMULETS[kind];
    ++s.set_aside[kind];
    s.note(static_cast<Event>(EV_character_beggar + kind - BEGGAR));
    s.resume = static_cast<uint8_t>(resume);
    switch (kind) {
        case BEGGAR:
            s.beggar_len = 0;
            for (int i = 1; i < n; ++i) s.beggar_queue[s.beggar_len++] = static_cast<int8_t>((p + i) % n);
            ask_beggar_victims(s);
            break;
        case COURTESAN:
            if (!s.discard_empty()) {
                for (int k = 0; k < NUM_KINDS; ++k) s.known_discard[p][k] = s.discard[k];  // he searches the pile
                s.phase = COURTESAN_PHASE;
            } else {
                s.note(EV_courtesan_empty_discard);
                s.phase = static_cast<uint8_t>(resume);
            }
            break;
        case ENVOY: s.phase = ENVOY_RESOURCE; break;
        case SCRIBE: s.phase = SCRIBE_DIE; break;
        case VIZIER: {
            int32_t drawn[NUM_KINDS] = {};
            bool any = false;
            for (int i = 0; i < VIZIER_DRAW; ++i) {
                int card = draw(s);
                if (card < 0) break;
                ++drawn[card >> 1];
                any = true;
            }
            if (any) {
                std::memcpy(s.vizier_drawn, drawn, sizeof drawn);
                s.vizier_kept = 0;
                s.phase = VIZIER_PHASE;
            } else {
                s.note(EV_vizier_nothing_drawn);
                s.phase = static_cast<uint8_t>(resume);
            }
            break;
        }
        default: break;
    }
}

inline void visit_market(State& s, int stall) {
    int p = s.active;
    const uint8_t* cards = s.stall(stall);
    int len = s.stall_len[stall];
    for (int i = 0; i < len; ++i) {
        int kind = cards[i] >> 1;
        ++s.hands[p][kind];
        if (cards[i] & 1) seen_in(s, p, kind);
    }
    stall_clear(s, stall);
    s.note(len ? EV_market : EV_market_empty);
    s.drawn_len = 0;
    for (int i = 0; i < REFILL_DRAW; ++i) {
        int card = draw(s);
        if (card < 0) break;
        s.drawn[s.drawn_len++] = static_cast<uint8_t>(card);
    }
    if (!s.drawn_len) {
        s.note(EV_refill_nothing);
        s.phase = AFTER;
        return;
    }
    if (s.drawn_len < REFILL_DRAW) s.note(EV_refill_short);
    for (int i = 0; i < STALLS; ++i) s.filled[i] = false;
    s.phase = REFILL;
}

// rules §5.1: the element's cost leaves the pool and the piece is placed
inline void build(State& s, int action) {
    consume(s.pool, COSTS[category_of_build(action)], s.rules->trompe_ok);
    if (action < GATE) s.note(EV_quarry_built_wall);
    else if (action < SPHINX) s.note(EV_quarry_built_gate);
    else s.note(static_cast<Event>(EV_quarry_built_sphinx + action - SPHINX));
    if (action == MOSAIC) {
        s.phase = MOSAIC_TILE;
        s.resume = QUARRY_VISIT;
        return;
    }
    if (action < GATE) s.walls |= 1 << (action - WALL);
    else if (action < SPHINX) s.gate |= 1 << (action - GATE);
    else if (action == SPHINX) ++s.sphinxes;
    else if (action == OBELISK) ++s.obelisks;
    else if (action == PEDESTAL) s.pedestal = true;
    else s.throne = true;
    s.built[s.built_len++] = static_cast<uint8_t>(action);
}

// rules §6.4: the free areas that become sanctuaries now, in the order of their lowest square
inline int new_sanctuaries(const State& s, uint64_t* out) {
    const Rules& g = *s.rules;
    int count = 0;
    uint64_t free = g.garden & ~s.covered;
    uint32_t tiles = 0;
    for (int i = 0; i < s.stack_len; ++i) tiles |= 1u << s.stack[i];
    while (free) {
        uint64_t area = free & (~free + 1);
        for (;;) {
            uint64_t grown = (area | neighbours(area)) & free;
            if (grown == area) break;
            area = grown;
        }
        free &= ~area;
        bool known = false;
        for (int i = 0; i < s.num_sanctuaries && !known; ++i) known = s.sanctuaries[i].mask == area;
        if (known || popcount(area) > g.sanctuary_max_squares) continue;
        bool fits = false;
        for (int t = 0; t < NUM_TILES && !fits; ++t)
            if ((tiles >> t) & 1) fits = g.fits_inside(t, area);
        if (!fits) out[count++] = area;
    }
    return count;
}

// rules §6.2-6.5: place the tile, form sanctuaries, remove unplaceable tiles, ask about statues
inline void place_mosaic(State& s, int square) {
    int p = s.active;
    const Rules& g = *s.rules;
    uint64_t mask = g.placement_mask(s.tile, s.orient, square);
    s.covered |= mask;
    s.mosaics[s.num_mosaics++] = Mosaic{static_cast<int8_t>(s.tile), static_cast<int8_t>(s.orient),
                                        static_cast<int8_t>(square), static_cast<int8_t>(p), mask};
    s.built[s.built_len++] = MOSAIC;
    int first = s.num_sanctuaries;
    uint64_t areas[SQUARES];
    int fresh = new_sanctuaries(s, areas);
    for (int i = 0; i < fresh; ++i) {
        s.sanctuaries[s.num_sanctuaries++] = Sanctuary{areas[i], -1};
        s.sanctuary_union |= areas[i];
        s.note(neighbours(mask) & areas[i] ? EV_sanctuary_formed : EV_sanctuary_formed_far);
    }
    bool had_tiles = s.stack_len > 0;
    uint64_t blocked = s.covered | s.sanctuary_union;
    while (s.stack_len && !g.tile_placeable(s.stack[0], blocked)) {  // rules §6.5
        s.removed[s.removed_len++] = s.stack[0];
        for (int i = 1; i < s.stack_len; ++i) s.stack[i - 1] = s.stack[i];
        --s.stack_len;
        s.note(EV_tile_removed);
    }
    if (had_tiles && !s.stack_len) s.note(EV_mosaic_complete_by_removal);
    if (fresh && s.statues[p]) {
        s.anubis_len = 0;
        for (int i = 0; i < fresh; ++i) s.anubis_queue[s.anubis_len++] = static_cast<uint8_t>(first + i);
        s.phase = ANUBIS;
        s.resume = QUARRY_VISIT;
        return;
    }
    for (int i = 0; i < fresh; ++i) s.note(EV_sanctuary_unclaimed);
    s.phase = QUARRY_VISIT;
}

// rules §5.2-5.5: the payment row to the discard, talents, Cleopatra, the end or the dice
inline void finish_quarry(State& s) {
    int p = s.active;
    const Rules& g = *s.rules;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.paid[k]) discard_public(s, k, s.paid[k]);
    int sphinx = s.sphinxes, mosaic = s.num_mosaics;
    for (int i = 0; i < s.built_len; ++i) {
        if (s.built[i] == SPHINX) --sphinx;
        if (s.built[i] == MOSAIC) --mosaic;
    }
    int gained = 0;
    for (int i = 0; i < s.built_len; ++i) {  // rules §5.3: valued on the palace as it stands now
        int a = s.built[i];
        if (a < GATE) gained += WALL_BASE + popcount(g.wall_masks[a - WALL] & s.covered);
        else if (a < SPHINX) gained += GATE_BASE + gate_run(s.walls, a - GATE);
        else if (a == SPHINX) gained += SPHINX_VALUES[sphinx++];
        else if (a == OBELISK) gained += OBELISK_VALUE;
        else if (a == PEDESTAL) gained += PEDESTAL_VALUE;
        else if (a == THRONE) gained += THRONE_VALUE;
        else gained += MOSAIC_BASE + popcount(s.mosaics[mosaic++].mask & g.palms);
    }
    if (s.built_len >= 3) gained += BUILD_BONUS_THREE_OR_MORE;
    else if (s.built_len == 2) gained += BUILD_BONUS_TWO;
    s.talents[p] += gained;
    s.built_by[p] += s.built_len;
    int step = 0;
    for (int c = 0; c < 6; ++c) step += s.complete(c);
    if (step > CLEOPATRA_END) step = CLEOPATRA_END;
    if (s.built_len >= 2) s.note(s.built_len >= 3 ? EV_quarry_bonus_5 : EV_quarry_bonus_2);
    bool surplus = false;
    for (int u = 0; u < UNITS; ++u) surplus = surplus || s.pool[u];
    if (surplus) s.note(EV_quarry_surplus_lost);
    if (step > s.cleopatra) s.note(step == s.cleopatra + 1 ? EV_cleopatra_advanced : EV_cleopatra_two_steps);
    s.cleopatra = step;
    if (step >= CLEOPATRA_END) {
        end_game(s, EV_end_cleopatra);
        return;
    }
    int rolls = DICE - s.altar;  // rules §5.5: roll the dice not on the altar
    for (int i = 0; i < rolls; ++i)
        if (static_cast<int>(s.rng.randrange(DIE_FACES)) < g.priest_faces) ++s.altar;
    s.note(EV_dice_rolled);
    if (s.altar == DICE) {
        s.note(EV_ceremony_from_dice);
        start_ceremony(s, AFTER);
    } else {
        s.phase = AFTER;
    }
}

// rules §10.2-10.5: offers revealed and paid; places; amulets by place; dice off the altar
inline void reveal_ceremony(State& s) {
    int n = s.n;
    int places[MAX_PLAYERS];
    bool all_first = true;
    for (int p = 0; p < n; ++p) {
        places[p] = 1;
        for (int q = 0; q < n; ++q) places[p] += s.offers[q] > s.offers[p];
        all_first = all_first && places[p] == 1;
    }
    for (int p = 0; p < n; ++p) {
        s.talents[p] -= s.offers[p];
        int a = s.amulets[p] + s.rules->ceremony_table[places[p] - 1];
        s.amulets[p] = a > 0 ? a : 0;
        if (places[p] == 1) ++s.ceremonies_won[p];
    }
    if (all_first) {
        s.note(EV_ceremony_all_tied);
    } else {
        bool tie = false;
        for (int p = 0; p < n && !tie; ++p)
            for (int q = p + 1; q < n && !tie; ++q) tie = places[p] == places[q];
        if (tie) s.note(EV_ceremony_tie);
    }
    s.has_last_ceremony = true;
    for (int p = 0; p < n; ++p) {
        s.last_offers[p] = s.offers[p];
        s.last_places[p] = places[p];
    }
    s.altar = 0;
    hand_back(s);
}

// rules §11.1, §11.3: the amulets each seat ends with were the game to end now
inline void final_amulets(const State& s, int32_t* out) {
    for (int p = 0; p < s.n; ++p) {
        int corrupt = 0;
        for (int k = ARTISAN2; k < NUM_KINDS; ++k) corrupt += s.hands[p][k];
        out[p] = s.amulets[p] + corrupt;
    }
    for (int i = 0; i < s.num_sanctuaries; ++i) {
        int o = s.sanctuaries[i].owner;
        if (o >= 0) {
            int a = out[o] - popcount(s.sanctuaries[i].mask);
            out[o] = a > 0 ? a : 0;
        }
    }
}

// rules §11.4: the seats fed to the crocodile
inline int crocodile(const int32_t* amulets, int n, int margin, int8_t* out) {
    int high = amulets[0], low = amulets[0];
    for (int p = 1; p < n; ++p) {
        if (amulets[p] > high) high = amulets[p];
        if (amulets[p] < low) low = amulets[p];
    }
    if (high - low < margin) return 0;
    int count = 0;
    for (int p = 0; p < n; ++p)
        if (amulets[p] == high) out[count++] = static_cast<int8_t>(p);
    return count;
}

// rules §11.6: the best survivors, ties going to the fewest amulets (empty until the game is over)
inline int winners(const State& s, int* out) {
    if (!s.over) return 0;
    int best = -2147483647 - 1;
    for (int p = 0; p < s.n; ++p)
        if (!s.is_eaten(p) && s.score(p) > best) best = s.score(p);
    int fewest = 2147483647;
    for (int p = 0; p < s.n; ++p)
        if (!s.is_eaten(p) && s.score(p) == best && s.amulets[p] < fewest) fewest = s.amulets[p];
    int count = 0;
    for (int p = 0; p < s.n; ++p)
        if (!s.is_eaten(p) && s.score(p) == best && s.amulets[p] == fewest) out[count++] = p;
    return count;
}

// rules §11: corrupt cards in hand, sanctuaries, the crocodile; the table stays as scored
inline void end_game(State& s, Event reason) {
    int n = s.n;
    int32_t amulets[MAX_PLAYERS];
    final_amulets(s, amulets);
    for (int p = 0; p < n; ++p) s.amulets[p] = amulets[p];
    for (int k = 0; k < NUM_KINDS; ++k) {
        if (s.set_aside[k]) discard_public(s, k, s.set_aside[k]);
        s.set_aside[k] = 0;
    }
    for (int p = 0; p < n; ++p)
        for (int k = 0; k < NUM_KINDS; ++k) {
            if (s.hands[p][k]) discard_public(s, k, s.hands[p][k]);
            s.hands[p][k] = 0;
        }
    std::memset(s.known, 0, sizeof s.known);
    s.eaten_len = crocodile(s.amulets, n, s.rules->crocodile_margin, s.eaten);
    s.over = true;
    s.phase = TURN;
    s.shown_len = 0;
    s.current = s.active;
    if (s.log) {
        s.note(reason);
        if (!s.eaten_len) s.note(EV_crocodile_hungry);
        else s.note(s.eaten_len == 1 ? EV_crocodile_eaten : EV_crocodile_several_eaten);
        int won[MAX_PLAYERS];
        int count = winners(s, won);
        int tied = 0;
        for (int p = 0; p < n; ++p) tied += !s.is_eaten(p) && s.score(p) == s.score(won[0]);
        if (count > 1) s.note(EV_end_shared_victory);
        else if (tied > 1) s.note(EV_end_tie_broken_by_amulets);
        else s.note(EV_end_sole_winner);
    }
}

// ---------------------------------------------------------------------- the phases: legal actions and transitions

// The characters that can be played at will (the Smuggler only at the hand limit, rules §3).
inline int free_characters(const State& s, int* out, int count) {
    const int32_t* hand = s.hands[s.active];
    for (int k = BEGGAR; k <= VIZIER; ++k)
        if (k != SMUGGLER && hand[k]) out[count++] = character_action(k);
    return count;
}

// rules §3: characters at will, then a market visit or a quarry visit
inline int legal_turn(const State& s, int* out) {
    int count = 0;
    if (s.stall_len[0] || s.stall_len[1] || s.stall_len[2]) {
        for (int i = 0; i < STALLS; ++i)
            if (s.stall_len[i]) out[count++] = MARKET + i;
    } else {  // rules §4.1 [decision]: all empty, any stall may be chosen
        for (int i = 0; i < STALLS; ++i) out[count++] = MARKET + i;
    }
    if (can_visit_quarry(s, s.active)) out[count++] = QUARRY;
    return free_characters(s, out, count);
}
inline void apply_turn(State& s, int a) {
    if (a < QUARRY) {
        visit_market(s, a - MARKET);
    } else if (a == QUARRY) {
        s.note(EV_quarry);
        std::memset(s.pool, 0, sizeof s.pool);
        std::memset(s.paid, 0, sizeof s.paid);
        s.built_len = 0;
        s.phase = QUARRY_VISIT;
    } else {
        play_character(s, BEGGAR + a - CHARACTER, TURN);
    }
}

// rules §4.2: give each drawn card a stall; the last one left goes by itself
inline int legal_refill(const State& s, int* out) {
    int count = 0;
    for (int i = 0; i < STALLS; ++i)
        if (!s.filled[i]) out[count++] = STALL + i;
    return count;
}
inline void apply_refill(State& s, int a) {
    int stall = a - STALL;
    for (;;) {
        stall_push(s, stall, s.drawn[0]);
        for (int i = 1; i < s.drawn_len; ++i) s.drawn[i - 1] = s.drawn[i];
        --s.drawn_len;
        s.filled[stall] = true;
        int free = 0, last = -1;
        for (int i = 0; i < STALLS; ++i)
            if (!s.filled[i]) {
                ++free;
                last = i;
            }
        if (s.drawn_len && free == 1) {
            stall = last;
            continue;
        }
        if (!s.drawn_len) s.phase = AFTER;
        return;
    }
}

// rules §3.3-3.4: characters at will, then end_turn
inline int legal_after(const State& s, int* out) {
    int count = free_characters(s, out, 0);
    out[count++] = END_TURN;
    return count;
}
inline void apply_after(State& s, int a) {
    if (a == END_TURN) end_turn(s);
    else play_character(s, BEGGAR + a - CHARACTER, AFTER);
}

// rules §5: pay cards and merchants into the pool, build what it covers, play characters; done
inline int legal_quarry(const State& s, int* out) {
    int p = s.active;
    const int32_t* hand = s.hands[p];
    const bool* ok = s.rules->trompe_ok;
    int count = free_characters(s, out, 0);
    if (s.merchants[p]) out[count++] = MERCHANT;
    if (s.walls != ALL_WALLS && cover(s.pool, COSTS[WALLS], ok))
        for (int k = 0; k < NUM_WALL_SLOTS; ++k)
            if (!((s.walls >> k) & 1)) out[count++] = WALL + k;
    if (s.gate != 3 && cover(s.pool, COSTS[GATE_CAT], ok))
        for (int side = 0; side < 2; ++side)
            if (!((s.gate >> side) & 1)) out[count++] = GATE + side;
    if (s.sphinxes < SPHINX_PIECES && cover(s.pool, COSTS[SPHINXES], ok)) out[count++] = SPHINX;
    if (s.obelisks < OBELISK_PIECES && cover(s.pool, COSTS[OBELISKS], ok)) out[count++] = OBELISK;
    if (!s.throne && cover(s.pool, COSTS[THRONE_CAT], ok)) out[count++] = s.pedestal ? THRONE : PEDESTAL;
    if (s.stack_len && cover(s.pool, COSTS[MOSAICS], ok)) out[count++] = MOSAIC;
    for (int k = 0; k <= TROMPE; ++k)
        if (hand[k]) out[count++] = CARD + k;
    if (s.built_len) out[count++] = DONE;
    return count;
}
inline void apply_quarry(State& s, int a) {
    int p = s.active;
    if (a >= CARD) {
        if (a == DONE) {
            finish_quarry(s);
            return;
        }
        int kind = a - CARD;  // rules §5.1: pay a card into the payment row
        --s.hands[p][kind];
        seen_out(s, p, kind);
        ++s.paid[kind];
        s.pool[KIND_UNIT[kind]] += KIND_AMOUNT[kind];
        if (is_tainted(kind)) s.amulets[p] += s.rules->tainted_amulets;
        s.note(is_tainted(kind) ? EV_quarry_paid_tainted : EV_quarry_paid_card);
    } else if (a == MERCHANT) {
        --s.merchants[p];
        ++s.pool[MERCHANT_UNIT];
        s.note(EV_quarry_paid_merchant);
    } else if (a >= WALL) {
        build(s, a);
    } else {
        play_character(s, BEGGAR + a - CHARACTER, QUARRY_VISIT);
    }
}

// rules §6.1: the top tile, or any placeable tile by playing a Scribe (2 amulets)
inline int legal_mosaic_tile(const State& s, int* out) {
    int top = s.stack[0];
    if (!s.hands[s.active][SCRIBE]) {
        out[0] = TILE + top;
        return 1;
    }
    uint64_t blocked = s.covered | s.sanctuary_union;
    bool in_stack[NUM_TILES] = {};
    for (int i = 0; i < s.stack_len; ++i) in_stack[s.stack[i]] = true;
    int count = 0;
    for (int t = 0; t < NUM_TILES; ++t)
        if (in_stack[t] && (t == top || s.rules->tile_placeable(t, blocked))) out[count++] = TILE + t;
    return count;
}
inline void apply_mosaic_tile(State& s, int a) {
    int tile = a - TILE;
    bool scribe = tile != s.stack[0];
    if (scribe) {  // rules §6.1, §8: a Scribe chooses the tile; its player sees the whole stack
        int p = s.active;
        --s.hands[p][SCRIBE];
        seen_out(s, p, SCRIBE);
        s.amulets[p] += SCRIBE_CHOOSE_AMULETS;
        ++s.set_aside[SCRIBE];
        s.saw_stack[p] = true;
        s.note(EV_character_scribe);
        s.note(EV_mosaic_scribe_choice);
    }
    int at = 0;
    while (s.stack[at] != tile) ++at;
    for (int i = at + 1; i < s.stack_len; ++i) s.stack[i - 1] = s.stack[i];
    --s.stack_len;
    s.tile = tile;
    s.scribe = scribe;
    s.phase = MOSAIC_ORIENT;
}

// rules §6.2: the orientation, then the anchor's square
inline int legal_mosaic_orient(const State& s, int* out) {
    uint64_t blocked = s.covered | s.sanctuary_union;
    int count = 0;
    for (int r = 0; r < ORIENTATIONS; ++r)
        if (s.rules->orient_legal(s.tile, r, blocked)) out[count++] = ORIENT + r;
    return count;
}
inline void apply_mosaic_orient(State& s, int a) {
    s.orient = a - ORIENT;
    s.phase = MOSAIC_SQUARE;
}
inline int legal_mosaic_square(const State& s, int* out) {
    uint64_t blocked = s.covered | s.sanctuary_union;
    const Rules& g = *s.rules;
    int count = 0;
    for (int i = 0; i < g.num_placements[s.tile][s.orient]; ++i) {
        const Placement& pl = g.placements[s.tile][s.orient][i];
        if (!(pl.mask & blocked)) out[count++] = SQUARE + pl.square;
    }
    return count;
}
inline void apply_mosaic_square(State& s, int a) { place_mosaic(s, a - SQUARE); }

// rules §6.4: for each new sanctuary, in order, a statue of Anubis or not
inline int legal_yes_no(const State&, int* out) {
    out[0] = YES;
    out[1] = NO;
    return 2;
}
inline void apply_anubis(State& s, int a) {
    int p = s.active;
    int index = s.anubis_queue[0];
    for (int i = 1; i < s.anubis_len; ++i) s.anubis_queue[i - 1] = s.anubis_queue[i];
    --s.anubis_len;
    if (a == YES) {
        s.sanctuaries[index].owner = static_cast<int8_t>(p);
        --s.statues[p];
        s.note(EV_sanctuary_claimed);
    } else {
        s.note(EV_sanctuary_unclaimed);
    }
    if (!s.anubis_len) {
        hand_back(s);
    } else if (!s.statues[p]) {  // rules §6.4: no question once his statues are used
        for (int i = 0; i < s.anubis_len; ++i) s.note(EV_sanctuary_unclaimed);
        hand_back(s);
    }
}

// rules §9: keep, discard, or a Smuggler
inline int legal_hand_limit(const State& s, int* out) {
    int count = 0;
    if (s.hands[s.active][SMUGGLER]) out[count++] = character_action(SMUGGLER);
    out[count++] = LIMIT_KEEP;
    out[count++] = LIMIT_DISCARD;
    return count;
}
inline void apply_hand_limit(State& s, int a) {
    int p = s.active;
    if (a == LIMIT_KEEP) {
        s.amulets[p] += s.hand_size(p) - s.rules->hand_limit;
        s.note(EV_hand_limit_keep);
        next_turn(s);
    } else if (a == LIMIT_DISCARD) {
        s.amulets[p] += 1;
        s.note(EV_hand_limit_discard);
        s.phase = LIMIT_DISCARD_PHASE;
    } else {  // rules §8 Smuggler: keep every other card for its own amulet
        --s.hands[p][SMUGGLER];
        seen_out(s, p, SMUGGLER);
        s.amulets[p] += CHARACTER_AMULETS[SMUGGLER];
        discard_public(s, SMUGGLER, 1);
        s.note(EV_character_smuggler);
        next_turn(s);
    }
}
inline int legal_limit_discard(const State& s, int* out) {
    int count = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.hands[s.active][k]) out[count++] = CARD + k;
    return count;
}
inline void apply_limit_discard(State& s, int a) {
    int p = s.active, kind = a - CARD;
    --s.hands[p][kind];
    unseen_out(s, p, 1, p, -1);
    discard_private(s, p, kind);
    if (s.hand_size(p) <= s.rules->hand_limit) next_turn(s);
}

// rules §8 Beggar: 2 talents or a standard resource card
inline int legal_beggar(const State& s, int* out) {
    int count = 0;
    const int32_t* hand = s.hands[s.current];
    for (int k = ARTISAN; k <= LAPIS; ++k)
        if (hand[k]) out[count++] = CARD + k;
    if (s.talents[s.current] >= BEGGAR_TALENTS) out[count++] = TALENTS;
    return count;
}
inline void apply_beggar(State& s, int a) {
    int victim = s.current, p = s.active;
    if (a == TALENTS) {
        s.talents[victim] -= BEGGAR_TALENTS;
        s.talents[p] += BEGGAR_TALENTS;
        s.note(EV_beggar_gave_talents);
    } else {  // only the two of them see which card
        int kind = a - CARD;
        --s.hands[victim][kind];
        ++s.hands[p][kind];
        if (s.known[p][victim][kind]) --s.known[p][victim][kind];
        unseen_out(s, victim, 1, victim, p);
        ++s.known[victim][p][kind];
        s.note(EV_beggar_gave_card);
    }
    ask_beggar_victims(s);
}

// rules §8 Courtesan: one card of his choice from the discard pile
inline int legal_courtesan(const State& s, int* out) {
    int count = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.discard[k]) out[count++] = CARD + k;
    return count;
}
inline void apply_courtesan(State& s, int a) {
    int p = s.active, kind = a - CARD;
    --s.discard[kind];
    ++s.hands[p][kind];
    for (int v = 0; v <= s.n; ++v) {
        int32_t* row = s.known_discard[v];
        if (v == p) {
            for (int k = 0; k < NUM_KINDS; ++k) row[k] = s.discard[k];
        } else {
            for (int k = 0; k < NUM_KINDS; ++k)
                if (row[k]) --row[k];
        }
    }
    s.note(EV_courtesan_took);
    hand_back(s);
}

// rules §8 Envoy: the resource named, each opponent's offer, then the acceptances
inline int legal_envoy_resource(const State&, int* out) {
    for (int k = ARTISAN; k <= LAPIS; ++k) out[k] = CARD + k;
    return 5;
}
inline void apply_envoy_resource(State& s, int a) {
    s.resource = a - CARD;
    for (int p = 0; p < s.n; ++p) s.offers[p] = 0;
    s.phase = ENVOY_OFFER;
    s.current = (s.active + 1) % s.n;
}
// the opponents who offered something, in turn order, after `after` (the active player: all of them)
inline int next_offering(const State& s, int after) {
    int n = s.n;
    for (int i = (after - s.active + n) % n + 1; i < n; ++i) {
        int q = (s.active + i) % n;
        if (s.offers[q]) return q;
    }
    return -1;
}
inline int legal_envoy_offer(const State& s, int* out) {
    int o = s.current;
    if (s.hands[o][s.resource] > s.offers[o]) {
        out[0] = YES;
        out[1] = NO;
        return 2;
    }
    out[0] = NO;
    return 1;
}
inline void apply_envoy_offer(State& s, int a) {
    int o = s.current;
    if (a == YES) {
        ++s.offers[o];
        offered(s, o, s.resource, s.offers[o]);
        s.note(EV_envoy_offered);
        return;
    }
    int nxt = (o + 1) % s.n;
    if (nxt != s.active) {
        s.current = nxt;
        return;
    }
    int first = next_offering(s, s.active);
    if (first < 0) {
        s.note(EV_envoy_no_offer);
        hand_back(s);
        return;
    }
    for (int p = 0; p < s.n; ++p) s.accepted[p] = 0;
    s.target = first;
    s.phase = ENVOY_ACCEPT;
    s.current = s.active;
}
inline void apply_envoy_accept(State& s, int a) {
    int t = s.target, p = s.active;
    if (a == YES) {  // the card to the active player, and an amulet with it
        ++s.accepted[t];
        --s.hands[t][s.resource];
        ++s.hands[p][s.resource];
        seen_out(s, t, s.resource);
        seen_in(s, p, s.resource);
        if (s.amulets[t]) --s.amulets[t];
        else s.note(EV_envoy_amulet_from_supply);  // rules §8 [decision]: from the supply
        ++s.amulets[p];
        s.note(EV_envoy_accepted);
        if (s.accepted[t] < s.offers[t]) return;
    } else {
        s.note(EV_envoy_declined);
    }
    int later = next_offering(s, t);
    if (later >= 0) s.target = later;
    else hand_back(s);
}

// rules §8 Vizier: keep drawn cards one at a time (1 amulet each), done discards the rest
inline int legal_vizier(const State& s, int* out) {
    int count = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.vizier_drawn[k]) out[count++] = CARD + k;
    out[count++] = DONE;
    return count;
}
inline void finish_vizier(State& s) {
    s.note(static_cast<Event>(EV_vizier_kept_0 + s.vizier_kept));
    hand_back(s);
}
inline void apply_vizier(State& s, int a) {
    int p = s.active;
    if (a == DONE) {
        for (int k = 0; k < NUM_KINDS; ++k)
            if (s.vizier_drawn[k]) discard_private(s, p, k, s.vizier_drawn[k]);
        std::memset(s.vizier_drawn, 0, sizeof s.vizier_drawn);
        finish_vizier(s);
        return;
    }
    int kind = a - CARD;
    --s.vizier_drawn[kind];
    ++s.hands[p][kind];
    ++s.amulets[p];
    ++s.vizier_kept;
    bool any = false;
    for (int k = 0; k < NUM_KINDS; ++k) any = any || s.vizier_drawn[k];
    if (!any) finish_vizier(s);
}

// rules §8 Scribe: one die onto the altar or off it
inline int legal_scribe_die(const State& s, int* out) {
    int count = 0;
    if (s.altar < DICE) out[count++] = DIE_ADD;
    if (s.altar) out[count++] = DIE_REMOVE;
    return count;
}
inline void apply_scribe_die(State& s, int a) {
    if (a == DIE_ADD) {
        ++s.altar;
        s.note(EV_scribe_die_added);
        if (s.altar == DICE) {
            s.note(EV_ceremony_from_scribe);
            start_ceremony(s, s.resume);
            return;
        }
    } else {
        --s.altar;
        s.note(EV_scribe_die_removed);
    }
    hand_back(s);
}

// rules §10, §14.3: each raises his secret offer, then closes it; then the reveal
inline int legal_ceremony(const State& s, int* out) {
    int b = s.current;
    int64_t room = static_cast<int64_t>(s.talents[b]) - s.offers[b];
    int count = 0;
    out[count++] = DONE;
    for (int i = 0; i < 4; ++i)
        if (BID_STEPS[i] <= room) out[count++] = BID + i;
    return count;
}
inline void apply_ceremony(State& s, int a) {
    int b = s.current;
    if (a != DONE) {
        s.offers[b] += BID_STEPS[a - BID];
        return;
    }
    int nxt = (b + 1) % s.n;
    if (nxt == s.active) reveal_ceremony(s);
    else s.current = nxt;
}
// per seat: has closed his offer (the seats before the current bidder in the bidding order)
inline bool ceremony_closed(const State& s, int p) {
    int n = s.n;
    return (p - s.active + n) % n < (s.current - s.active + n) % n;
}

// ---------------------------------------------------------------------- the dispatch

using LegalFn = int (*)(const State&, int*);
using ApplyFn = void (*)(State&, int);
constexpr LegalFn LEGAL[NUM_PHASES] = {
    legal_turn, legal_refill, legal_quarry, legal_mosaic_tile, legal_mosaic_orient, legal_mosaic_square,
    legal_yes_no, legal_after, legal_hand_limit, legal_limit_discard, legal_beggar, legal_courtesan,
    legal_envoy_resource, legal_envoy_offer, legal_yes_no, legal_vizier, legal_scribe_die, legal_ceremony,
};
constexpr ApplyFn APPLY[NUM_PHASES] = {
    apply_turn, apply_refill, apply_quarry, apply_mosaic_tile, apply_mosaic_orient, apply_mosaic_square,
    apply_anubis, apply_after, apply_hand_limit, apply_limit_discard, apply_beggar, apply_courtesan,
    apply_envoy_resource, apply_envoy_offer, apply_envoy_accept, apply_vizier, apply_scribe_die, apply_ceremony,
};

// The sorted legal action ids of the player to move, into `out` (room for NUM_ACTIONS); 0 once the game is over.
inline int legal(const State& s, int* out) {
    if (s.over) return 0;
    return LEGAL[s.phase](s, out);
}
// Play a legal action (the caller checks legality: apply does not).
inline void apply(State& s, int action) { APPLY[s.phase](s, action); }

inline bool is_legal(const State& s, int action) {
    int buffer[NUM_ACTIONS];
    int count = legal(s, buffer);
    for (int i = 0; i < count; ++i)
        if (buffer[i] == action) return true;
    return false;
}

// ---------------------------------------------------------------------- a new game (rules §2)

// Deal a new game; the generator must already be seeded as random.Random(seed).
inline void deal(State& s, const Rules* rules) {
    s.rules = rules;
    int n = s.n = rules->num_players;
    for (int p = 0; p < n; ++p) {
        s.talents[p] = START_TALENTS;
        s.merchants[p] = START_MERCHANTS;
        s.statues[p] = START_STATUES;
    }
    int len = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        for (int c = 0; c < rules->card_counts[k]; ++c) s.cards[len++] = static_cast<uint8_t>(k);
    s.rng.shuffle(s.cards, len);
    for (int p = 0; p < n; ++p)
        for (int i = 0; i < START_HAND; ++i) ++s.hands[p][s.cards[--len]];
    make_deck(s, len);
    for (int i = 0; i < STALLS; ++i)
        if (s.deck_len) stall_push(s, i, deck_pop(s));
    for (int t = 0; t < NUM_TILES; ++t) s.stack[t] = static_cast<int8_t>(t);
    s.stack_len = NUM_TILES;
    s.rng.shuffle(s.stack, NUM_TILES);
    s.active = s.current = static_cast<int>(s.rng.randrange(n));  // rules §2.8 [decision]
}

}  // namespace kleopatra_native
