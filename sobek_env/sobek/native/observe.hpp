// The observation vector of one seat (observation.py's Observer, both information modes) and the
// full-information state vector (observation.encode_state), written from a native State. The layout
// is observation_layout's; the binding checks these offsets against it at import.
#pragma once

#include <cstring>

#include "engine.hpp"

namespace sobek_native {
namespace sobek {

constexpr int NILE_COLUMNS = FIRST_CHARACTER + 1;  // the 19 face-up kinds, then "a character, face down"
constexpr int NUM_GLYPHS = 4;
constexpr double SCORE_SCALE = 100.0;

// The offset of each section of observation_layout(n), in its order.
struct Layout {
    int hand, pile, nile, deck_size, round, scores, to_move, first_player, track_symbol, hand_backs, pile_backs,
        curses, sets, set_cards, set_points, horizontal, known_hands, known_piles, tokens_left, used_tokens,
        token_choice, tokens_known, discard, vizier_pile, building, phase, phase_goods, phase_target, guild_symbol,
        last_points, last_corruption, last_curses, last_most_corrupt, last_penalty, last_horizontal, size;

    explicit Layout(int n) {
        const int K = NUM_KINDS, T = NUM_TOKEN_KINDS;
        int at = 0;
        auto section = [&at](int width) { int start = at; at += width; return start; };
        hand = section(K);
        pile = section(K);
        nile = section(NILE_MAX * NILE_COLUMNS);
        deck_size = section(1);
        round = section(ROUNDS);
        scores = section(n);
        to_move = section(n);
        first_player = section(n);
        track_symbol = section(n * NUM_SYMBOLS);
        hand_backs = section(n * NUM_BACKS);
        pile_backs = section(n * NUM_BACKS);
        curses = section(n);
        sets = section(n * SET_SLOTS * 3);
        set_cards = section(n * K);
        set_points = section(n);
        horizontal = section(n * K);
        known_hands = section((n - 1) * K);
        known_piles = section((n - 1) * K);
        tokens_left = section(1);
        used_tokens = section(T);
        token_choice = section(T);
        tokens_known = section(T);
        discard = section(K);
        vizier_pile = section(K);
        building = section(K);
        phase = section(NUM_PHASES);
        phase_goods = section(SET_SLOTS);
        phase_target = section(n);
        guild_symbol = section(NUM_GLYPHS);
        last_points = section(n);
        last_corruption = section(n);
        last_curses = section(n);
        last_most_corrupt = section(n);
        last_penalty = section(n);
        last_horizontal = section(n * K);
        size = at;
    }
};

inline int observation_size(int n) { return Layout(n).size; }
inline int state_size(int n) { return observation_size(n) + (2 * n + NILE_MAX + 1) * NUM_KINDS + NUM_TOKEN_KINDS; }

inline void put_cards(float* out, const Cards c) {
    for (int k = 0; k < NUM_KINDS; ++k) out[k] = c[k];
}
inline void add_cards(float* out, const Cards c) {
    for (int k = 0; k < NUM_KINDS; ++k) out[k] += c[k];
}
inline void put_backs(float* out, const Cards c) {
    int backs[NUM_BACKS];
    backs_of(c, backs);
    for (int b = 0; b < NUM_BACKS; ++b) out[b] = static_cast<float>(backs[b]);
}

// What seat sees (rules §10, view.view) written into out (observation_size(n) floats).
inline void encode(const State& s, int seat, bool memory, float* out) {
    const int n = s.n(), K = NUM_KINDS, T = NUM_TOKEN_KINDS;
    const Layout L(n);
    std::memset(out, 0, sizeof(float) * L.size);
    auto relative = [n, seat](int p) { return (p - seat + n) % n; };
    put_cards(out + L.hand, s.hands[seat]);
    put_cards(out + L.pile, s.piles[seat]);
    for (int pos = 0; pos < s.nile_len; ++pos) {
        int kind = s.nile[pos];
        out[L.nile + pos * NILE_COLUMNS + (face_up_on_nile(kind) ? kind : FIRST_CHARACTER)] = 1;
    }
    out[L.deck_size] = static_cast<float>(s.deck_size());
    out[L.round + s.round - 1] = 1;
    out[L.to_move + relative(s.current_player)] = 1;
    out[L.first_player + relative(s.first_player)] = 1;
    int curses_on_players = 0, prosperity_on_sets = 0;
    for (int i = 0; i < n; ++i) {
        int p = (seat + i) % n;
        out[L.scores + i] = static_cast<float>(s.markers[p] / SCORE_SCALE);
        out[L.track_symbol + i * NUM_SYMBOLS + symbol_at(s.markers[p])] = 1;
        put_backs(out + L.hand_backs + i * NUM_BACKS, s.hands[p]);
        if (i == 0 || memory) put_backs(out + L.pile_backs + i * NUM_BACKS, s.piles[p]);
        out[L.curses + i] = s.curses[p];
        curses_on_players += s.curses[p];
        long points = 0;
        for (int g = 0; g < SET_SLOTS; ++g) {
            const TableSet& t = s.sets[p][g];
            if (!t.present) continue;
            int cards = total(t.cards), scarabs = scarabs_of(t.cards, s.rules);
            add_cards(out + L.set_cards + i * K, t.cards);
            float* row = out + L.sets + (i * SET_SLOTS + g) * 3;
            row[0] = static_cast<float>(cards);
            row[1] = static_cast<float>(scarabs);
            row[2] = t.prosperity;
            points += set_value(cards, scarabs, t.prosperity);
            prosperity_on_sets += t.prosperity;
        }
        out[L.set_points + i] = static_cast<float>(points / SCORE_SCALE);
        for (int h = 0; h < s.horizontal_len[p]; ++h) add_cards(out + L.horizontal + i * K, s.horizontal[p][h].cards);
        if (i && memory) {  // what he remembers of each opponent's hand and pile, glimpses included
            put_cards(out + L.known_hands + (i - 1) * K, s.known_hands[seat][p]);
            put_cards(out + L.known_piles + (i - 1) * K, s.known_piles[seat][p]);
        }
    }
    int left = 0;
    for (int t = 0; t < T; ++t) left += s.tokens[t];
    out[L.tokens_left] = static_cast<float>(left);
    const Pending& q = s.pending;
    bool acting = s.current_player == seat && !s.over;
    if (acting && q.phase == CHOOSE_TOKEN)
        for (int t = 0; t < T; ++t) out[L.token_choice + t] = s.tokens[t];
    if (memory && s.token_glimpse[seat])
        for (int t = 0; t < T; ++t) out[L.tokens_known + t] = s.tokens[t];
    if (acting && q.phase == VIZIER_CARD) put_cards(out + L.vizier_pile, s.piles[q.target]);
    put_cards(out + L.discard, s.discard);
    // revealed tokens: used this round, plus the Curses on players and the Prosperity on sets
    for (int t = 0; t < T; ++t) out[L.used_tokens + t] = s.used_tokens[t];
    out[L.used_tokens + CURSE] += static_cast<float>(curses_on_players);
    out[L.used_tokens + PROSPERITY] += static_cast<float>(prosperity_on_sets);
    out[L.phase + q.phase] = 1;
    switch (q.phase) {
        case CURSE_TARGET: out[L.used_tokens + CURSE] += 1; break;  // chosen, not yet placed
        case PROSPERITY_TARGET: out[L.used_tokens + PROSPERITY] += 1; break;
        case BUILD_SET:
        case HORIZONTAL_SET:
        case COURTESAN_CARD:
            put_cards(out + L.building, q.cards);
            out[L.phase_goods + q.goods] = 1;
            break;
        case VIZIER_CARD:
        case THIEF_BACK: out[L.phase_target + relative(q.target)] = 1; break;
        case SCRIBE: out[L.phase_target + relative(q.actor)] = 1; break;
        case GUILD: out[L.guild_symbol + q.symbol] = 1; break;
        default: break;
    }
    if (s.round_log_len) {  // rules §10: the public summary of the last scored round
        const RoundEntry& last = s.round_log[s.round_log_len - 1];
        for (int i = 0; i < n; ++i) {
            int p = (seat + i) % n;
            out[L.last_points + i] = static_cast<float>(last.points[p] / SCORE_SCALE);
            out[L.last_corruption + i] = static_cast<float>(last.corruption[p] - CURSE_WEIGHT * last.curses[p]);
            out[L.last_curses + i] = static_cast<float>(last.curses[p]);
            out[L.last_penalty + i] = static_cast<float>(last.penalty[p] / SCORE_SCALE);
            put_cards(out + L.last_horizontal + i * K, last.horizontal[p]);
        }
        for (int j = 0; j < last.most_corrupt_len; ++j) out[L.last_most_corrupt + relative(last.most_corrupt[j])] = 1;
    }
}

// observation.encode_state: seat 0's memory-mode view, then every hand and pile, the Nile's true kinds,
// the deck and the face-down tokens by kind (state_size(n) floats).
inline void encode_state(const State& s, float* out) {
    const int n = s.n(), K = NUM_KINDS;
    encode(s, 0, true, out);
    float* extra = out + observation_size(n);
    std::memset(extra, 0, sizeof(float) * (state_size(n) - observation_size(n)));
    for (int p = 0; p < n; ++p) put_cards(extra + p * K, s.hands[p]);
    for (int p = 0; p < n; ++p) put_cards(extra + (n + p) * K, s.piles[p]);
    float* nile = extra + 2 * n * K;
    for (int pos = 0; pos < s.nile_len; ++pos) nile[pos * K + s.nile[pos]] = 1;
    float* deck = nile + NILE_MAX * K;
    for (int i = s.deck_top; i < s.deck_end; ++i) deck[s.deck[i]] += 1;
    for (int t = 0; t < NUM_TOKEN_KINDS; ++t) deck[K + t] = s.tokens[t];
}

}  // namespace sobek
}  // namespace sobek_native
