// The observation encoder (rules §15): one seat's view of a State written into a float32 buffer, entry for entry
// the vector of observation.Observer (view.py decides what a seat sees; _observe.pyx writes it; this follows
// both), and the full-information state vector of observation.state_vector.
#pragma once

#include <cstring>

#include "engine.hpp"

namespace kleopatra_native {

constexpr int CARD_COLUMNS = NUM_KINDS + 1;  // a card's visible side: its kind, or face down
constexpr int FACE_DOWN = NUM_KINDS;
constexpr int EMPTY_TOP = NUM_KINDS + 1;     // the deck's top when it is empty
constexpr int TOP_COLUMNS = NUM_KINDS + 2;
constexpr int NUM_BUILD_IDS = MOSAIC - WALL + 1;
constexpr double SCORE_SCALE = 100.0;

// The offsets of observation.observation_layout(n), in its order.
struct Layout {
    int phase, acting, active, turn, over, hand, hand_sizes, talents, amulets, merchants, statues;
    int sanctuary_squares, eliminated, winners, known_hands, known_discard, deck_face_up, shown, shown_hands;
    int stalls, deck_size, deck_top, discard_size, palms, covered, sanctuary, sanctuary_owner, tile_anchor;
    int tile_orient, walls, gate, sphinxes, obelisks, pedestal, throne, complete, cleopatra, in_quarry, top_tile;
    int removed, stack_order, altar, pool, paid, built, refill_cards, refill_filled, tile, orient;
    int offered_sanctuary, envoy_resource, envoy_offers, envoy_accepted, envoy_target, vizier_drawn, vizier_kept;
    int courtesan_discard, ceremony_offer, ceremony_closed, last_offers, last_places;
    int size;
};

inline Layout make_layout(int n) {
    Layout l;
    int at = 0;
    auto next = [&at](int size) {
        int start = at;
        at += size;
        return start;
    };
    const int k = NUM_KINDS, o = n - 1;
    l.phase = next(NUM_PHASES);
    l.acting = next(n);
    l.active = next(n);
    l.turn = next(1);
    l.over = next(1);
    l.hand = next(k);
    l.hand_sizes = next(n);
    l.talents = next(n);
    l.amulets = next(n);
    l.merchants = next(n);
    l.statues = next(n);
    l.sanctuary_squares = next(n);
    l.eliminated = next(n);
    l.winners = next(n);
    l.known_hands = next(o * k);
    l.known_discard = next(k);
    l.deck_face_up = next(1);
    l.shown = next(o);
    l.shown_hands = next(o * k);
    l.stalls = next(STALLS * CARD_COLUMNS);
    l.deck_size = next(1);
    l.deck_top = next(TOP_COLUMNS);
    l.discard_size = next(1);
    l.palms = next(SQUARES);
    l.covered = next(SQUARES);
    l.sanctuary = next(SQUARES);
    l.sanctuary_owner = next(n * SQUARES);
    l.tile_anchor = next(NUM_TILES);
    l.tile_orient = next(NUM_TILES);
    l.walls = next(NUM_WALL_SLOTS);
    l.gate = next(2);
    l.sphinxes = next(1);
    l.obelisks = next(1);
    l.pedestal = next(1);
    l.throne = next(1);
    l.complete = next(6);
    l.cleopatra = next(1);
    l.in_quarry = next(NUM_TILES);
    l.top_tile = next(NUM_TILES);
    l.removed = next(NUM_TILES);
    l.stack_order = next(NUM_TILES);
    l.altar = next(1);
    l.pool = next(UNITS);
    l.paid = next(k);
    l.built = next(NUM_BUILD_IDS);
    l.refill_cards = next(STALLS * CARD_COLUMNS);
    l.refill_filled = next(STALLS);
    l.tile = next(NUM_TILES);
    l.orient = next(ORIENTATIONS);
    l.offered_sanctuary = next(SQUARES);
    l.envoy_resource = next(5);
    l.envoy_offers = next(n);
    l.envoy_accepted = next(n);
    l.envoy_target = next(n);
    l.vizier_drawn = next(k);
    l.vizier_kept = next(1);
    l.courtesan_discard = next(k);
    l.ceremony_offer = next(1);
    l.ceremony_closed = next(n);
    l.last_offers = next(n);
    l.last_places = next(n);
    l.size = at;
    return l;
}

inline void put_squares(float* b, uint64_t mask) {
    while (mask) {
        b[__builtin_ctzll(mask)] = 1.0f;
        mask &= mask - 1;
    }
}
inline void put_row(float* b, const int32_t* counts, int size) {
    for (int i = 0; i < size; ++i) b[i] = static_cast<float>(counts[i]);
}
inline float scaled(int64_t value) { return static_cast<float>(static_cast<double>(value) / SCORE_SCALE); }

// Write `seat`'s view of `s` (rules §12, §15) into `b` (the layout `l` of s.n players; every entry written).
inline void encode(const State& s, const Layout& l, int seat, bool memory, float* b) {
    const int n = s.n;
    std::memset(b, 0, sizeof(float) * l.size);
    const bool over = s.over, revealed = memory || over;
    const bool acting = s.current == seat && !over;
    const int phase = s.phase;
    b[l.phase + phase] = 1.0f;
    b[l.acting + (s.current - seat + n) % n] = 1.0f;
    b[l.active + (s.active - seat + n) % n] = 1.0f;
    b[l.turn] = static_cast<float>(static_cast<double>(s.turn) / static_cast<double>(s.rules->max_turns));
    b[l.over] = over;
    put_row(b + l.hand, s.hands[seat], NUM_KINDS);
    for (int i = 0; i < n; ++i) {
        int p = (seat + i) % n;
        b[l.hand_sizes + i] = static_cast<float>(s.hand_size(p));
        if (i == 0 || revealed) {
            b[l.talents + i] = scaled(s.talents[p]);
            b[l.amulets + i] = scaled(s.amulets[p]);
        }
        b[l.merchants + i] = static_cast<float>(s.merchants[p]);
        b[l.statues + i] = static_cast<float>(s.statues[p]);
        if (i && memory) put_row(b + l.known_hands + (i - 1) * NUM_KINDS, s.known[seat][p], NUM_KINDS);
    }
    for (int j = 0; j < s.num_sanctuaries; ++j) {
        int owner = s.sanctuaries[j].owner;
        if (owner >= 0) b[l.sanctuary_squares + (owner - seat + n) % n] += popcount(s.sanctuaries[j].mask);
    }
    if (over) {
        int won[MAX_PLAYERS];
        int count = winners(s, won);
        for (int j = 0; j < s.eaten_len; ++j) b[l.eliminated + (s.eaten[j] - seat + n) % n] = 1.0f;
        for (int j = 0; j < count; ++j) b[l.winners + (won[j] - seat + n) % n] = 1.0f;
    }
    if (memory) {
        put_row(b + l.known_discard, s.known_discard[seat], NUM_KINDS);
        int up = 0;
        for (int i = 0; i < s.deck_len; ++i) up += s.cards[i] & 1;
        b[l.deck_face_up] = static_cast<float>(up);
    }
    if (s.active == seat) {
        for (int j = 0; j < s.shown_len; ++j) {
            int p = s.shown[j], i = (p - seat + n) % n;
            b[l.shown + i - 1] = 1.0f;
            put_row(b + l.shown_hands + (i - 1) * NUM_KINDS, s.hands[p], NUM_KINDS);
        }
    }
    for (int i = 0; i < STALLS; ++i) {
        const uint8_t* cards = s.stall(i);
        for (int j = 0; j < s.stall_len[i]; ++j)
            b[l.stalls + i * CARD_COLUMNS + ((cards[j] & 1) ? cards[j] >> 1 : FACE_DOWN)] += 1.0f;
    }
    b[l.deck_size] = static_cast<float>(s.deck_len);
    if (s.deck_len) {
        uint8_t top = s.cards[s.deck_len - 1];
        b[l.deck_top + ((top & 1) ? top >> 1 : FACE_DOWN)] = 1.0f;
    } else {
        b[l.deck_top + EMPTY_TOP] = 1.0f;
    }
    int discard = 0;
    for (int k = 0; k < NUM_KINDS; ++k) discard += s.discard[k];
    b[l.discard_size] = static_cast<float>(discard);

    // the garden
    put_squares(b + l.palms, s.rules->palms);
    put_squares(b + l.covered, s.covered);
    put_squares(b + l.sanctuary, s.sanctuary_union);
    for (int j = 0; j < s.num_sanctuaries; ++j) {
        int owner = s.sanctuaries[j].owner;
        if (owner >= 0) put_squares(b + l.sanctuary_owner + ((owner - seat + n) % n) * SQUARES, s.sanctuaries[j].mask);
    }
    for (int j = 0; j < s.num_mosaics; ++j) {
        b[l.tile_anchor + s.mosaics[j].tile] = static_cast<float>(s.mosaics[j].anchor + 1);
        b[l.tile_orient + s.mosaics[j].tile] = static_cast<float>(s.mosaics[j].orient);
    }

    // the palace
    const bool placing = phase == MOSAIC_ORIENT || phase == MOSAIC_SQUARE;
    for (int k = 0; k < NUM_WALL_SLOTS; ++k) b[l.walls + k] = (s.walls >> k) & 1;
    b[l.gate] = s.gate & 1;
    b[l.gate + 1] = (s.gate >> 1) & 1;
    b[l.sphinxes] = static_cast<float>(s.sphinxes);
    b[l.obelisks] = static_cast<float>(s.obelisks);
    b[l.pedestal] = s.pedestal;
    b[l.throne] = s.throne;
    for (int c = 0; c < 5; ++c) b[l.complete + c] = s.complete(c);
    b[l.complete + 5] = !s.stack_len && !placing;  // the chosen tile is still to be placed
    b[l.cleopatra] = static_cast<float>(s.cleopatra);
    for (int j = 0; j < s.stack_len; ++j) b[l.in_quarry + s.stack[j]] = 1.0f;
    for (int j = 0; j < s.removed_len; ++j) b[l.removed + s.removed[j]] = 1.0f;
    if (s.stack_len) {
        b[l.top_tile + s.stack[0]] = 1.0f;
        bool sees = (memory && s.saw_stack[seat]) || (acting && placing && s.scribe);
        int shown_places = sees ? s.stack_len : 1;
        for (int j = 0; j < shown_places; ++j) b[l.stack_order + s.stack[j]] = static_cast<float>(j + 1);
    }
    b[l.altar] = static_cast<float>(s.altar);

    // the pending sub-decision
    if (s.in_visit()) {
        put_row(b + l.pool, s.pool, UNITS);
        put_row(b + l.paid, s.paid, NUM_KINDS);
        for (int j = 0; j < s.built_len; ++j) b[l.built + s.built[j] - WALL] += 1.0f;
    }
    switch (phase) {
        case REFILL:
            for (int j = 0; j < s.drawn_len; ++j)
                b[l.refill_cards + j * CARD_COLUMNS + ((s.drawn[j] & 1) ? s.drawn[j] >> 1 : FACE_DOWN)] = 1.0f;
            for (int i = 0; i < STALLS; ++i) b[l.refill_filled + i] = s.filled[i];
            break;
        case MOSAIC_ORIENT:
        case MOSAIC_SQUARE:
            b[l.tile + s.tile] = 1.0f;
            if (phase == MOSAIC_SQUARE) b[l.orient + s.orient] = 1.0f;
            break;
        case ANUBIS: put_squares(b + l.offered_sanctuary, s.sanctuaries[s.anubis_queue[0]].mask); break;
        case ENVOY_OFFER:
        case ENVOY_ACCEPT:
            b[l.envoy_resource + s.resource] = 1.0f;
            for (int i = 0; i < n; ++i) b[l.envoy_offers + i] = static_cast<float>(s.offers[(seat + i) % n]);
            if (phase == ENVOY_ACCEPT) {
                for (int i = 0; i < n; ++i) b[l.envoy_accepted + i] = static_cast<float>(s.accepted[(seat + i) % n]);
                b[l.envoy_target + (s.target - seat + n) % n] = 1.0f;
            }
            break;
        case VIZIER_PHASE:
            if (acting) put_row(b + l.vizier_drawn, s.vizier_drawn, NUM_KINDS);
            b[l.vizier_kept] = static_cast<float>(s.vizier_kept);
            break;
        case COURTESAN_PHASE:
            if (acting) put_row(b + l.courtesan_discard, s.discard, NUM_KINDS);
            break;
        case CEREMONY:
            b[l.ceremony_offer] = scaled(s.offers[seat]);
            for (int i = 0; i < n; ++i) b[l.ceremony_closed + i] = ceremony_closed(s, (seat + i) % n);
            break;
        default: break;
    }
    if (s.has_last_ceremony) {
        for (int i = 0; i < n; ++i) {
            int p = (seat + i) % n;
            b[l.last_offers + i] = scaled(s.last_offers[p]);
            b[l.last_places + i] = static_cast<float>(s.last_places[p]);
        }
    }
}

// observation.state_size(n): seat 0's memory-mode view, then what no seat sees
inline int state_size(const Layout& l, int n) { return l.size + (n + STALLS + 3) * NUM_KINDS + NUM_TILES + n; }

// observation.state_vector: every hand, the stalls' and the deck's true cards, the discard pile, the Vizier's draw,
// the whole mosaic stack (1-based places) and every running ceremony offer / 100, after seat 0's memory view.
inline void encode_state(const State& s, const Layout& l, float* b) {
    const int n = s.n;
    encode(s, l, 0, true, b);
    float* extra = b + l.size;
    std::memset(extra, 0, sizeof(float) * (state_size(l, n) - l.size));
    int at = 0;
    for (int p = 0; p < n; ++p, at += NUM_KINDS) put_row(extra + at, s.hands[p], NUM_KINDS);
    for (int i = 0; i < STALLS; ++i, at += NUM_KINDS) {
        const uint8_t* cards = s.stall(i);
        for (int j = 0; j < s.stall_len[i]; ++j) extra[at + (cards[j] >> 1)] += 1.0f;
    }
    for (int j = 0; j < s.deck_len; ++j) extra[at + (s.cards[j] >> 1)] += 1.0f;
    at += NUM_KINDS;
    put_row(extra + at, s.discard, NUM_KINDS);
    at += NUM_KINDS;
    if (!s.over && s.phase == VIZIER_PHASE) put_row(extra + at, s.vizier_drawn, NUM_KINDS);
    at += NUM_KINDS;
    for (int j = 0; j < s.stack_len; ++j) extra[at + s.stack[j]] = static_cast<float>(j + 1);
    at += NUM_TILES;
    if (!s.over && s.phase == CEREMONY)
        for (int p = 0; p < n; ++p) extra[at + p] = scaled(s.offers[p]);
}

}  // namespace kleopatra_native
