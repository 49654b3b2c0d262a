// Determinization (resample.py): a state one seat cannot tell from this one in memory mode, the rest
// re-drawn, with the very draws the Python resample makes from the same generator.
#pragma once

#include <vector>

#include "engine.hpp"

namespace sobek_native {
namespace sobek {

constexpr int KEEP_MEMORY_ATTEMPTS = 500;
constexpr int MAX_ATTEMPTS = 100000;

// phases.py's fault checks: whether the pending sub-decision fits the state (true: it does)
inline bool queue_sound(const State& s) {
    int seen = 1 << s.current_player;
    for (int i = 0; i < s.pending.queue_len; ++i) {
        int seat = s.pending.queue[i];
        if (seen >> seat & 1) return false;
        seen |= 1 << seat;
    }
    return !s.nile_len && !s.deck_size();
}
inline bool cards_fit(const Cards cards, const Rules& rules, int goods) {
    for (int k = 0; k < NUM_KINDS; ++k)
        if (cards[k] && !rules.fits(goods, k)) return false;
    return true;
}
inline bool pending_sound(const State& s) {
    const Pending& q = s.pending;
    int p = s.current_player;
    switch (q.phase) {
        case BUILD_SET:
            return total(q.cards) + fitting_in_hand(s, p, q.goods) >= SET_MIN_CARDS && cards_fit(q.cards, s.rules, q.goods);
        case PRIEST_CHARACTERS:
            return priest_has_character(s, q.goods);
        case SCRIBE: {
            int seen = 1 << q.actor;
            int seats[MAX_PLAYERS + 1], count = 0;
            seats[count++] = p;
            for (int i = 0; i < q.queue_len; ++i) seats[count++] = q.queue[i];
            for (int i = 0; i < count; ++i) {
                if (seen >> seats[i] & 1) return false;
                seen |= 1 << seats[i];
            }
            for (int i = 0; i < count; ++i)
                if (total(s.hands[seats[i]]) <= SCRIBE_HAND_LIMIT) return false;
            return true;
        }
        case VIZIER_CARD:
        case THIEF_BACK:
            return q.target != p;
        case COURTESAN_CARD: {
            const TableSet& t = s.sets[p][q.goods];
            if (!t.present || total(q.cards) >= COURTESAN_MAX_CARDS) return false;
            for (int k = 0; k < NUM_KINDS; ++k)
                if (q.cards[k] > t.cards[k]) return false;
            if (q.goods == AMULET_SET) {
                for (int k = 0; k < NUM_KINDS; ++k)
                    if (k != AMULET && q.cards[k]) return false;
                return true;
            }
            return cards_fit(q.cards, s.rules, q.goods);
        }
        case FIRST_PLAYER:
            return s.first_player == p;
        case HORIZONTAL:
            return horizontal_goods(s, p) && queue_sound(s);
        case HORIZONTAL_SET:
            return !laid_horizontal(s, p, q.goods) && total(q.cards) + fitting_in_hand(s, p, q.goods) >= SET_MIN_CARDS &&
                   cards_fit(q.cards, s.rules, q.goods) && queue_sound(s);
        default:
            return true;
    }
}

struct Zone {
    int8_t* cards;           // the zone in the new state
    int need[NUM_BACKS];     // the cards it needs per back colour
    const int8_t* remembered;
};

// Put the remembered cards still in the pool back into the zone, at most need per back colour.
inline void place_remembered(Zone& zone, int pool[NUM_KINDS], PyRandom& rng) {
    for (int back = 0; back < NUM_BACKS; ++back) {
        std::vector<int> candidates;
        for (int k = 0; k < NUM_KINDS; ++k)
            if (kind_back(k) == back) {
                int c = zone.remembered[k] < pool[k] ? zone.remembered[k] : pool[k];
                for (int i = 0; i < c; ++i) candidates.push_back(k);
            }
        if (static_cast<int>(candidates.size()) > zone.need[back])
            candidates = rng.sample(candidates, static_cast<size_t>(zone.need[back]));
        for (int k : candidates) {
            ++zone.cards[k];
            --pool[k];
        }
        zone.need[back] -= static_cast<int>(candidates.size());
    }
}

enum DealResult { DEALT, NO_CARD_LEFT, TOO_FEW_TOKENS };

// One draw of everything the seat cannot see (resample._deal); r starts as a copy of s.
inline DealResult deal(const State& s, State& r, int player, int searched, bool tokens_seen, const int hidden[NUM_KINDS],
                       PyRandom& rng, bool keep_memory) {
    int n = s.n();
    int pool[NUM_KINDS];
    std::memcpy(pool, hidden, sizeof pool);
    Zone zones[2 * MAX_PLAYERS];
    int zone_count = 0;
    for (int i = 1; i < n; ++i) {
        int o = (player + i) % n;
        clear(r.hands[o]);
        Zone& hand = zones[zone_count++];
        hand.cards = r.hands[o];
        backs_of(s.hands[o], hand.need);
        hand.remembered = s.known_hands[player][o];
        if (o != searched) {
            clear(r.piles[o]);
            Zone& pile = zones[zone_count++];
            pile.cards = r.piles[o];
            backs_of(s.piles[o], pile.need);
            pile.remembered = s.known_piles[player][o];
        }
    }
    if (keep_memory)
        for (int z = 0; z < zone_count; ++z) place_remembered(zones[z], pool, rng);

    std::vector<int8_t> by_back[NUM_BACKS];
    for (int k = 0; k < NUM_KINDS; ++k)
        for (int i = 0; i < pool[k]; ++i) by_back[kind_back(k)].push_back(static_cast<int8_t>(k));
    for (auto& cards : by_back) rng.shuffle(cards);
    for (int z = 0; z < zone_count; ++z)
        for (int back = 0; back < NUM_BACKS; ++back)
            for (int i = 0; i < zones[z].need[back]; ++i) {
                if (by_back[back].empty()) return NO_CARD_LEFT;
                ++zones[z].cards[by_back[back].back()];
                by_back[back].pop_back();
            }
    for (int pos = 0; pos < s.nile_len; ++pos) {
        int k = s.nile[pos];
        if (face_up_on_nile(k)) {
            r.nile[pos] = static_cast<int8_t>(k);
        } else {
            if (by_back[ORANGE].empty()) return NO_CARD_LEFT;
            r.nile[pos] = by_back[ORANGE].back();
            by_back[ORANGE].pop_back();
        }
    }
    std::vector<int8_t> rest(by_back[BEIGE]);
    rest.insert(rest.end(), by_back[ORANGE].begin(), by_back[ORANGE].end());
    rng.shuffle(rest);
    rest.insert(rest.end(), by_back[GREEN].begin(), by_back[GREEN].end());  // rules §2: no green card in the deck
    int size = s.deck_size() < static_cast<int>(rest.size()) ? s.deck_size() : static_cast<int>(rest.size());
    r.deck_top = 0;
    r.deck_end = static_cast<int8_t>(size);
    clear(r.out_of_round);
    for (int i = 0; i < static_cast<int>(rest.size()); ++i) {
        if (i < size) r.deck[i] = rest[i];
        else ++r.out_of_round[rest[i]];
    }

    if (!tokens_seen) {
        int revealed[NUM_TOKEN_KINDS], face_down = 0;
        for (int t = 0; t < NUM_TOKEN_KINDS; ++t) {
            revealed[t] = s.used_tokens[t];
            face_down += s.tokens[t];
        }
        for (int p = 0; p < n; ++p) {
            revealed[CURSE] += s.curses[p];
            for (int g = 0; g < SET_SLOTS; ++g)
                if (s.sets[p][g].present) revealed[PROSPERITY] += s.sets[p][g].prosperity;
        }
        if (s.pending.phase == CURSE_TARGET) ++revealed[CURSE];
        if (s.pending.phase == PROSPERITY_TARGET) ++revealed[PROSPERITY];
        std::vector<int8_t> unseen;
        for (int t = 0; t < NUM_TOKEN_KINDS; ++t)
            for (int i = 0; i < TOKEN_COUNTS[t] - revealed[t]; ++i) unseen.push_back(static_cast<int8_t>(t));
        if (face_down > static_cast<int>(unseen.size())) return TOO_FEW_TOKENS;
        std::memset(r.tokens, 0, sizeof r.tokens);
        for (int8_t t : rng.sample(unseen, static_cast<size_t>(face_down))) ++r.tokens[t];
    }

    for (int i = 1; i < n; ++i) {  // nobody sees another's memory: theirs becomes what this seat remembers
        int w = (player + i) % n;
        std::memcpy(r.known_hands[w], s.known_hands[player], sizeof r.known_hands[w]);
        std::memcpy(r.known_piles[w], s.known_piles[player], sizeof r.known_piles[w]);
    }
    return DEALT;
}

enum ResampleResult { RESAMPLED, NO_DEAL, UNSOUND_STATE };

// resample.resample: r becomes the new state; seed gets the new state's seed (drawn first from rng).
inline ResampleResult resample(const State& s, int player, PyRandom& rng, State& r, uint64_t& seed) {
    seed = rng.getrandbits(63);
    bool acting = s.current_player == player && !s.over;
    int searched = acting && s.pending.phase == VIZIER_CARD ? s.pending.target : -1;
    bool tokens_seen = (acting && s.pending.phase == CHOOSE_TOKEN) || s.token_glimpse[player];
    int hidden[NUM_KINDS];
    for (int k = 0; k < NUM_KINDS; ++k) {
        int h = s.rules.catalogue[k] - s.hands[player][k] - s.piles[player][k] - s.discard[k];
        for (int p = 0; p < s.n(); ++p) {
            for (int g = 0; g < SET_SLOTS; ++g)
                if (s.sets[p][g].present) h -= s.sets[p][g].cards[k];
            for (int i = 0; i < s.horizontal_len[p]; ++i) h -= s.horizontal[p][i].cards[k];
        }
        if (s.pending.phase == BUILD_SET || s.pending.phase == HORIZONTAL_SET) h -= s.pending.cards[k];  // in view
        if (searched >= 0) h -= s.piles[searched][k];
        hidden[k] = h;
    }
    for (int pos = 0; pos < s.nile_len; ++pos)
        if (face_up_on_nile(s.nile[pos])) --hidden[s.nile[pos]];
    int legal_ids[NUM_ACTIONS];
    for (int attempt = 0; attempt < MAX_ATTEMPTS; ++attempt) {
        r = s;
        r.logging = false;
        r.events_len = 0;
        DealResult dealt = deal(s, r, player, searched, tokens_seen, hidden, rng, attempt < KEEP_MEMORY_ATTEMPTS);
        if (dealt != DEALT) return UNSOUND_STATE;
        if (s.over || (pending_sound(r) && legal(r, legal_ids) > 0)) {
            r.rng.seed(seed);
            return RESAMPLED;
        }
    }
    return NO_DEAL;
}

}  // namespace sobek
}  // namespace sobek_native
