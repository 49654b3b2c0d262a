// Determinization (resample.py): a state one seat cannot tell from `s` in memory mode, the rest re-drawn from the
// caller's generator with the same draws, in the same order, as the Python resample.
#pragma once

#include "engine.hpp"

namespace kleopatra_native {

constexpr int MAX_RESAMPLE_ATTEMPTS = 100000;  // resample.MAX_ATTEMPTS

// The checks of a pending phase's fault() that a re-dealt state can fail (every other check only reads what the
// deal keeps): a quarry visit with nothing built must be affordable from its pool, hand and merchants (unless a
// mosaic of it is being placed), and a Beggar's victim being asked must have something to give.
inline bool deal_consistent(const State& r) {
    int phase = r.phase;
    if (phase == BEGGAR_PHASE) {
        int buffer[NUM_ACTIONS];
        if (!legal_beggar(r, buffer)) return false;
    }
    bool visit = phase == QUARRY_VISIT || (interrupting(phase) && r.resume == QUARRY_VISIT);
    bool building = phase == MOSAIC_TILE || phase == MOSAIC_ORIENT || phase == MOSAIC_SQUARE || phase == ANUBIS;
    if (visit && !building && !r.built_len) {
        int32_t pool[UNITS];
        hand_pool(r, r.active, r.pool, pool);
        if (!affordable(r, pool)) return false;
    }
    return true;
}

// One draw of resample._deal into `r` (a copy of `s` on entry).
inline void deal_for(const State& s, int player, PyRandom& rng, State& r) {
    const int n = s.n;
    int32_t pool[NUM_KINDS] = {};
    const auto& knows = s.known[player];

    int unknown_in_hand[MAX_PLAYERS] = {};  // the opponents' hands beyond what is known of them
    for (int o = 0; o < n; ++o) {
        if (o == player) continue;
        for (int k = 0; k < NUM_KINDS; ++k) {
            int extra = s.hands[o][k] - knows[o][k];
            pool[k] += extra;
            unknown_in_hand[o] += extra;
            r.hands[o][k] = knows[o][k];
        }
    }
    for (int i = 0; i < STALLS; ++i) {  // face-down cards in the stalls and in a refill
        const uint8_t* stall = s.stall(i);
        for (int j = 0; j < s.stall_len[i]; ++j)
            if (!(stall[j] & 1)) ++pool[stall[j] >> 1];
    }
    const bool refill = s.phase == REFILL;
    if (refill)
        for (int j = 0; j < s.drawn_len; ++j)
            if (!(s.drawn[j] & 1)) ++pool[s.drawn[j] >> 1];
    // the deck, but a face-up top card
    const int deck_len = s.deck_len;
    const bool top_seen = deck_len && (s.cards[deck_len - 1] & 1);
    const int hidden = deck_len ? deck_len - 1 : 0;
    int face_up_below = 0;
    for (int j = 0; j < hidden; ++j) face_up_below += s.cards[j] & 1;
    for (int j = 0; j < (top_seen ? hidden : deck_len); ++j) ++pool[s.cards[j] >> 1];
    // the discard pile beyond what is known of it
    for (int k = 0; k < NUM_KINDS; ++k) {
        pool[k] += s.discard[k] - s.known_discard[player][k];
        r.discard[k] = s.known_discard[player][k];
    }
    // another seat's Vizier draw
    const bool vizier = s.phase == VIZIER_PHASE && s.active != player;
    int vizier_count = 0;
    if (vizier) {
        for (int k = 0; k < NUM_KINDS; ++k) {
            pool[k] += s.vizier_drawn[k];
            vizier_count += s.vizier_drawn[k];
            r.vizier_drawn[k] = 0;
        }
    }

    uint8_t cards[MAX_CARDS];
    int len = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        for (int c = 0; c < pool[k]; ++c) cards[len++] = static_cast<uint8_t>(k);
    rng.shuffle(cards, len);
    if (player != s.active) {
        for (int j = 0; j < s.shown_len; ++j) {  // everybody saw him give nothing: no standard card in his hand
            int o = s.shown[j];
            if (o == player) continue;
            int want = unknown_in_hand[o], kept = 0;
            for (int i = 0; i < len; ++i) {
                if (want && !is_standard(cards[i])) {
                    ++r.hands[o][cards[i]];
                    --want;
                } else {
                    cards[kept++] = cards[i];
                }
            }
            len = kept;
            unknown_in_hand[o] = 0;
        }
    }
    int at = 0;
    for (int o = 0; o < n; ++o)
        for (int c = 0; c < unknown_in_hand[o]; ++c) ++r.hands[o][cards[at++]];
    // the stalls keep their places in the shared buffer: the deck below them keeps its length
    for (int i = 0; i < STALLS; ++i) {
        uint8_t* stall = r.cards + r.stall_begin(i);
        for (int j = 0; j < r.stall_len[i]; ++j)
            if (!(stall[j] & 1)) stall[j] = static_cast<uint8_t>(cards[at++] * 2);
    }
    if (refill)
        for (int j = 0; j < r.drawn_len; ++j)
            if (!(r.drawn[j] & 1)) r.drawn[j] = static_cast<uint8_t>(cards[at++] * 2);
    std::vector<int> positions(hidden);
    for (int j = 0; j < hidden; ++j) positions[j] = j;
    std::vector<int> ups = rng.sample(positions, face_up_below);
    for (int j = 0; j < hidden; ++j) r.cards[j] = static_cast<uint8_t>(cards[at + j] * 2);
    for (int up : ups) r.cards[up] |= 1;
    at += hidden;
    if (deck_len && !top_seen) r.cards[deck_len - 1] = static_cast<uint8_t>(cards[at++] * 2);  // its back is seen
    if (vizier)
        for (int c = 0; c < vizier_count; ++c) ++r.vizier_drawn[cards[at++]];
    for (; at < len; ++at) ++r.discard[cards[at]];

    if (s.stack_len > 1 && !s.saw_stack[player]) {
        int8_t rest[NUM_TILES];
        int rest_len = 0;
        for (int t = 0; t < NUM_TILES; ++t)  // sorted(stack[1:])
            for (int j = 1; j < s.stack_len; ++j)
                if (s.stack[j] == t) rest[rest_len++] = static_cast<int8_t>(t);
        rng.shuffle(rest, rest_len);
        for (int j = 0; j < rest_len; ++j) r.stack[j + 1] = rest[j];
    }
    if (s.phase == CEREMONY) {
        for (int q = 0; q < n; ++q)
            if (q != player && (ceremony_closed(s, q) || q == s.current))
                r.offers[q] = static_cast<int32_t>(rng.randint(0, s.talents[q]));
    }
    const int public_ = n;
    for (int w = 0; w < n; ++w) {
        if (w == player) continue;
        for (int o = 0; o < n; ++o)
            if (o != w && o != player)
                for (int k = 0; k < NUM_KINDS; ++k) r.known[w][o][k] = s.known[public_][o][k];
        for (int k = 0; k < NUM_KINDS; ++k) r.known_discard[w][k] = s.known_discard[public_][k];
    }
    if (s.active != player)
        for (int j = 0; j < s.shown_len; ++j) {
            int o = s.shown[j];
            for (int k = 0; k < NUM_KINDS; ++k) r.known[s.active][o][k] = r.hands[o][k];
        }
}

// resample.resample: the new state's generator is seeded from one draw of `rng`, then deals are drawn until one
// is consistent with what everybody saw; `seed` is the new state's seed. False if none was found (the Python
// engine raises RuntimeError).
inline bool resample(const State& s, int player, PyRandom& rng, State& out, uint64_t* seed_out) {
    uint64_t seed = rng.getrandbits(63);
    *seed_out = seed;
    for (int attempt = 0; attempt < MAX_RESAMPLE_ATTEMPTS; ++attempt) {
        out = s;
        out.log = nullptr;
        deal_for(s, player, rng, out);
        if (out.phase == TURN || deal_consistent(out)) {
            out.rng.seed(seed);
            return true;
        }
    }
    return false;
}

}  // namespace kleopatra_native
