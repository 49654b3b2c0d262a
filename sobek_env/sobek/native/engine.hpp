// Sobek's rules in C++: the same game as the Python engine (sobek_env/sobek/state.py, phases.py,
// scoring.py), bit for bit, generator included. The Python engine is the reference; the
// differential test (tests/sobek/test_native.py) holds the two together.
//
// A State is a plain struct of fixed-size arrays (hands and piles as counts per card kind), copied by
// value; nothing here allocates or touches Python. One handler per phase owns its legal actions and
// its transitions (legal_* / apply_*), dispatched on the pending phase. Names are the rules' words.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "../../native/pyrandom.hpp"

namespace sobek_native {
namespace sobek {

// ---------------------------------------------------------------------- the catalogue (catalogue.py)

constexpr int NUM_KINDS = 28;
constexpr int NUM_GOODS = 6;
constexpr int AMULET_SET = 6;         // the amulets-only set's slot
constexpr int SET_SLOTS = 7;
constexpr int AMULET = 18;
constexpr int FIRST_CHARACTER = 19;
constexpr int QUEEN = 19, VIZIER = 20, MERCHANT = 21, HIGH_PRIEST = 22, THIEF = 23, HIGH_PRIESTESS = 24,
              SCRIBE_FISH = 25, SCRIBE_WHEAT = 26, COURTESAN = 27;
constexpr int GREEN = 0, BEIGE = 1, ORANGE = 2, NUM_BACKS = 3;
constexpr int NUM_TOKEN_KINDS = 9;
constexpr int FLOOD = 4, CURSE = 5, PROSPERITY = 6, EMBALMING = 7, DECEIT = 8;
constexpr int TOKEN_COUNTS[NUM_TOKEN_KINDS] = {1, 1, 1, 1, 2, 2, 2, 1, 1};
constexpr int TOKENS_PER_ROUND = 5;
constexpr int NUMBER = 4;             // the numbered spaces' symbol
constexpr int NUM_SYMBOLS = 5;
constexpr int TRACK_CYCLE[20] = {4, 0, 1, 2, 3, 4, 1, 3, 0, 2, 4, 2, 0, 3, 1, 4, 3, 2, 1, 0};

constexpr int START_HAND = 2;             // rules §2.2
constexpr int TWO_PLAYER_SET_ASIDE = 9;   // rules §2.3
constexpr int DELIVERY_SIZE = 9;          // rules §5
constexpr int TAKE_WINDOW = 4;            // rules §3
constexpr int QUEEN_DRAW = 3;             // rules §4
constexpr int SCRIBE_HAND_LIMIT = 6;      // rules §4
constexpr int COURTESAN_MAX_CARDS = 2;    // rules §4
constexpr int SET_MIN_CARDS = 3;          // rules §6
constexpr int PROSPERITY_SCARABS = 2;     // rules §6, §7
constexpr int CURSE_WEIGHT = 2;           // rules §8.2
constexpr int POINTS_PER_LOT = 10;        // rules §8.3
constexpr int ROUNDS = 3;                 // rules §9
constexpr int EARLY_END_ROUND = 2;        // rules §9
constexpr int EARLY_END_SCORE = 100;      // rules §9
constexpr int MAX_PLAYERS = 4;
constexpr int TOTAL_CARDS = 63;
constexpr int NILE_MAX = 9;
// A document may log as many rounds as its round number (invariants.check), and scoring adds one.
constexpr int ROUND_LOG_MAX = ROUNDS + 1;

inline int kind_back(int k) { return (k >= 12 && k < 18) ? GREEN : k >= FIRST_CHARACTER ? ORANGE : BEIGE; }
inline bool face_up_on_nile(int k) { return k < FIRST_CHARACTER; }
inline bool is_prosperity_goods(int g) { return g == 3 || g == 4 || g == 5; }  // cattle, fish, wheat (§7)

// rules §1.3: the scoring track
inline int symbol_at(int position) { return TRACK_CYCLE[position % 20]; }
inline int next_space(int position, int symbol) {
    ++position;
    while (symbol_at(position) != symbol) ++position;
    return position;
}
inline int previous_space(int position, int symbol) {  // -1: no earlier space with that symbol
    for (--position; position >= 0; --position)
        if (symbol_at(position) == symbol) return position;
    return -1;
}

// ---------------------------------------------------------------------- the action ids (actions.py)

constexpr int TAKE = 0, CHARACTER = 9, SET = 18, CARD = 24, DONE = 52, TOKEN = 53, PLAYER = 62,
              GOODS_CHOICE = 66, BACK = 72, GOODS_AMULET = 75, NUM_ACTIONS = 76;
inline int slot_action(int slot) { return slot == AMULET_SET ? GOODS_AMULET : GOODS_CHOICE + slot; }
inline int action_slot(int a) { return a == GOODS_AMULET ? AMULET_SET : a - GOODS_CHOICE; }

// ---------------------------------------------------------------------- phases (phases.PHASES order)

enum Phase : int8_t {
    TURN_START, BUILD_SET, CHOOSE_TOKEN, GUILD, CURSE_TARGET, PROSPERITY_TARGET, PRIEST, VIZIER_TARGET,
    VIZIER_CARD, SCRIBE, THIEF_TARGET, THIEF_BACK, COURTESAN_SET, COURTESAN_CARD, MERCHANT_TAKE, FIRST_PLAYER,
    PRIEST_CHARACTERS, HORIZONTAL, HORIZONTAL_SET, NUM_PHASES
};

// ---------------------------------------------------------------------- the event log (state.EVENTS order)

enum Event : uint8_t {
    E_QUEEN_DREW, E_QUEEN_EMPTY, E_VIZIER_TOOK, E_VIZIER_EMPTY, E_MERCHANT_IN, E_MERCHANT_BEYOND,
    E_MERCHANT_EMPTIED, E_PRIEST_DISCARDED, E_PRIEST_NOTHING, E_PRIEST_DISCARDED_CHARACTER,
    E_PRIEST_KEPT_CHARACTER, E_THIEF_GREEN, E_THIEF_BEIGE, E_THIEF_ORANGE, E_THIEF_EMPTY, E_SCRIBE_0, E_SCRIBE_1,
    E_SCRIBE_2, E_SCRIBE_3, E_SCRIBE_DISCARD, E_COURTESAN_NO_SET, E_COURTESAN_1, E_COURTESAN_2,
    E_COURTESAN_GAVE_GOODS, E_GUILD_PUSHED, E_GUILD_SEVERAL, E_GUILD_NO_TARGET, E_FLOOD_EXTRA, E_FLOOD_CHAIN,
    E_CURSE_PLACED, E_CURSE_BOTH, E_PROSPERITY_PLACED, E_PROSPERITY_BOTH, E_PROSPERITY_NO_SET, E_EMBALMING_CARDS,
    E_EMBALMING_EMPTY, E_DECEIT_POINTS, E_DECEIT_ZERO, E_TOKEN_NONE_LEFT, E_SET_NEW, E_SET_EXTENSION,
    E_SET_AMULETS_ONLY, E_SET_AMULETS_EXTENDED, E_SET_WITH_CHARACTER, E_DELIVERY_FULL, E_DELIVERY_SHORT,
    E_ROUND_SCORED, E_ROUND_TIE, E_ROUND_NOBODY, E_ROUND_PENALISED, E_ROUND_HORIZONTAL, E_ROUND_HORIZONTAL_AMULETS,
    E_ROUND_HORIZONTAL_DECLINED, E_FIRST_TIE, E_FIRST_SELF, E_FIRST_OTHER, E_END_NORMAL, E_END_EARLY,
    E_END_SHARED, E_END_SOLE, NUM_EVENTS
};
constexpr int EVENTS_PER_APPLY = 32;  // far above what one action emits (a round's end: about ten)

// ---------------------------------------------------------------------- the state

using Cards = int8_t[NUM_KINDS];  // counts per card kind (at most 63 of anything)

struct Rules {
    int8_t num_players = 2;
    int8_t kind_goods[NUM_KINDS];    // the goods a kind counts as, -1 for the amulet
    int8_t kind_scarabs[NUM_KINDS];
    int8_t catalogue[NUM_KINDS];     // how many cards of each kind exist
    bool fits(int goods, int k) const { return k == AMULET || kind_goods[k] == goods; }
};

struct TableSet {  // scoring.TableSet
    bool present;
    int8_t prosperity;
    Cards cards;
};

struct HorizontalSet {  // (slot, cards) of a horizontal set laid at the round's end
    int8_t slot;
    Cards cards;
};

struct Pending {  // the pending sub-decision and its fields (phases.py)
    int8_t phase;
    int8_t goods;      // BuildSet, HorizontalSet, PriestCharacters: goods; CourtesanCard: slot
    int8_t target;     // VizierCard, ThiefBack
    int8_t actor;      // Scribe
    int8_t symbol;     // Guild
    int8_t queue_len;  // Scribe, Horizontal, HorizontalSet
    int8_t queue[MAX_PLAYERS];
    Cards cards;       // BuildSet, HorizontalSet, CourtesanCard
};

struct RoundEntry {  // one scored round's public summary (state.round_log)
    int32_t round;
    int32_t points[MAX_PLAYERS], corruption[MAX_PLAYERS], curses[MAX_PLAYERS], penalty[MAX_PLAYERS];
    int8_t most_corrupt_len;
    int8_t most_corrupt[MAX_PLAYERS];
    Cards horizontal[MAX_PLAYERS];
};

struct State {
    Rules rules;
    // Left unseeded when a State is made (seeding costs more than the rest of a state): every State gets its
    // generator seeded, set or copied before any draw. PyRandom is trivially copyable, so copies stay plain.
    union {
        PyRandom rng;
    };
    int32_t round = 1, first_player = 0, current_player = 0, extra_turns = 0;
    bool over = false;
    int32_t markers[MAX_PLAYERS];
    Cards hands[MAX_PLAYERS], piles[MAX_PLAYERS];
    int8_t curses[MAX_PLAYERS];
    TableSet sets[MAX_PLAYERS][SET_SLOTS];
    int8_t horizontal_len[MAX_PLAYERS];
    HorizontalSet horizontal[MAX_PLAYERS][SET_SLOTS];
    int8_t nile_len;
    int8_t nile[NILE_MAX];            // nile[0] nearest the 0 space
    int8_t deck_top, deck_end;        // the deck is deck[deck_top..deck_end), its top first
    int8_t deck[TOTAL_CARDS];
    int8_t tokens[NUM_TOKEN_KINDS], used_tokens[NUM_TOKEN_KINDS];
    Cards discard, out_of_round;
    Pending pending;
    Cards known_hands[MAX_PLAYERS][MAX_PLAYERS], known_piles[MAX_PLAYERS][MAX_PLAYERS];  // [viewer][seat]
    bool token_glimpse[MAX_PLAYERS];
    int8_t round_log_len;
    RoundEntry round_log[ROUND_LOG_MAX];
    // the event log of the last apply, kept only while logging (the binding drains it)
    bool logging = false;
    int8_t events_len = 0;
    uint8_t events[EVENTS_PER_APPLY];

    State() {}

    int n() const { return rules.num_players; }
    int deck_size() const { return deck_end - deck_top; }
    void emit(Event e) {
        if (logging && events_len < EVENTS_PER_APPLY) events[events_len++] = e;
    }
    int seat_at(int offset) const { return (current_player + offset) % n(); }
};

inline int total(const Cards c) {
    int t = 0;
    for (int k = 0; k < NUM_KINDS; ++k) t += c[k];
    return t;
}
inline bool any(const Cards c) {
    for (int k = 0; k < NUM_KINDS; ++k)
        if (c[k]) return true;
    return false;
}
inline void clear(Cards c) { std::memset(c, 0, NUM_KINDS); }
inline void backs_of(const Cards c, int out[NUM_BACKS]) {
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < NUM_KINDS; ++k) out[kind_back(k)] += c[k];
}
inline int scarabs_of(const Cards c, const Rules& r) {
    int s = 0;
    for (int k = 0; k < NUM_KINDS; ++k) s += c[k] * r.kind_scarabs[k];
    return s;
}
// rules §6: (scarabs + 2 per Prosperity) x number of cards
inline int set_value(int cards, int scarabs, int prosperity) { return (scarabs + PROSPERITY_SCARABS * prosperity) * cards; }

// ---------------------------------------------------------------------- queries used by the phases

inline int fitting_in_hand(const State& s, int p, int goods) {
    int t = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.rules.fits(goods, k)) t += s.hands[p][k];
    return t;
}
inline bool laid_horizontal(const State& s, int p, int goods) {
    for (int i = 0; i < s.horizontal_len[p]; ++i)
        if (s.horizontal[p][i].slot == goods) return true;
    return false;
}
// rules §5: the goods p may still declare a horizontal set of, as a bit mask
inline int horizontal_goods(const State& s, int p) {
    int mask = 0;
    for (int g = 0; g < NUM_GOODS; ++g)
        if (!laid_horizontal(s, p, g) && fitting_in_hand(s, p, g) >= SET_MIN_CARDS) mask |= 1 << g;
    return mask;
}
// rules §6: may kind k go on p's amulets-only set with the Courtesan?
inline bool amulet_set_fits(const State& s, int p, int k) {
    if (k == AMULET) return true;
    const TableSet* own = s.sets[p];
    bool limited = own[AMULET_SET].present && own[AMULET_SET].prosperity > 0;
    int g = s.rules.kind_goods[k];
    return !own[g].present && (!limited || is_prosperity_goods(g));
}
inline bool courtesan_fits(const State& s, int p, int slot, int k) {
    return slot != AMULET_SET ? s.rules.fits(slot, k) : amulet_set_fits(s, p, k);
}
inline bool courtesan_has_fitting(const State& s, int p, int slot) {
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.hands[p][k] && courtesan_fits(s, p, slot, k)) return true;
    return false;
}
inline bool courtesan_has_choice(const State& s) {
    int p = s.current_player;
    for (int slot = 0; slot < SET_SLOTS; ++slot)
        if (s.sets[p][slot].present && courtesan_has_fitting(s, p, slot)) return true;
    return false;
}
inline bool guild_has_target(const State& s, int symbol) {
    for (int o = 1; o < s.n(); ++o)
        if (previous_space(s.markers[s.seat_at(o)], symbol) >= 0) return true;
    return false;
}
inline bool prosperity_has_target(const State& s) {
    const TableSet* own = s.sets[s.current_player];
    return own[3].present || own[4].present || own[5].present || own[AMULET_SET].present;
}
inline bool priest_has_character(const State& s, int goods) {
    const int8_t* pile = s.piles[s.current_player];
    for (int k = FIRST_CHARACTER; k < NUM_KINDS; ++k)
        if (s.rules.kind_goods[k] == goods && pile[k]) return true;
    return false;
}

// ---------------------------------------------------------------------- moves shared by the phases (state.py)

inline void set_pending(State& s, int phase) {
    std::memset(&s.pending, 0, sizeof(Pending));
    s.pending.phase = static_cast<int8_t>(phase);
}

// rules §3, §7: close the turn; the next seat plays, or the same one after a Flood
inline void end_turn(State& s, bool again = false) {
    set_pending(s, TURN_START);
    if (again) {
        ++s.extra_turns;
    } else {
        s.extra_turns = 0;
        s.current_player = (s.current_player + 1) % s.n();
    }
}

inline void seen_entering(State& s, Cards known[MAX_PLAYERS][MAX_PLAYERS], int p, int kind) {
    int most = s.rules.catalogue[kind];
    for (int v = 0; v < s.n(); ++v)
        if (known[v][p][kind] < most) ++known[v][p][kind];
}

// rules §5: up to 9 cards from the top of the deck; the first drawn lies farthest
inline void deliver(State& s) {
    int count = s.deck_size() < DELIVERY_SIZE ? s.deck_size() : DELIVERY_SIZE;
    for (int i = 0; i < count; ++i) s.nile[count - 1 - i] = s.deck[s.deck_top + i];
    s.nile_len = static_cast<int8_t>(count);
    s.deck_top = static_cast<int8_t>(s.deck_top + count);
}

// a card leaves p's hand face up (a set, a played character): every viewer sees it go
inline void lay_from_hand(State& s, int p, int kind) {
    --s.hands[p][kind];
    for (int v = 0; v < s.n(); ++v)
        if (s.known_hands[v][p][kind]) --s.known_hands[v][p][kind];
}

// rules §6: an extension of the set of that goods; else of the amulets-only set, which takes the goods
// (unless its Prosperity forbids it); else a new set. A set made only of amulets belongs to no goods.
inline void lay_set(State& s, int p, int goods, const Cards cards) {
    TableSet* own = s.sets[p];
    bool amulets_only = cards[AMULET] == total(cards);
    TableSet& loose = own[AMULET_SET];
    int slot;
    Event event;
    if (own[goods].present) {
        slot = goods;
        event = E_SET_EXTENSION;
    } else if (loose.present && (amulets_only || !loose.prosperity || is_prosperity_goods(goods))) {
        slot = AMULET_SET;
        event = E_SET_EXTENSION;
        if (!amulets_only) {
            own[goods] = loose;
            loose.present = false;
            slot = goods;
            event = E_SET_AMULETS_EXTENDED;
        }
    } else {
        slot = amulets_only ? AMULET_SET : goods;
        std::memset(&own[slot], 0, sizeof(TableSet));
        own[slot].present = true;
        event = amulets_only ? E_SET_AMULETS_ONLY : E_SET_NEW;
    }
    for (int k = 0; k < NUM_KINDS; ++k) own[slot].cards[k] += cards[k];
    s.emit(event);
    for (int k = FIRST_CHARACTER; k < NUM_KINDS; ++k)
        if (cards[k]) {
            s.emit(E_SET_WITH_CHARACTER);
            break;
        }
}

// rules §4 Courtesan: one card onto p's set; a goods card on the amulets-only set gives it that goods
inline int add_to_set(State& s, int p, int slot, int kind) {
    TableSet* own = s.sets[p];
    if (slot == AMULET_SET && kind != AMULET) {
        slot = s.rules.kind_goods[kind];
        own[slot] = own[AMULET_SET];
        own[AMULET_SET].present = false;
        s.emit(E_COURTESAN_GAVE_GOODS);
    }
    ++own[slot].cards[kind];
    return slot;
}

// cards leave p's corruption pile face up to the discard (the High Priest's): all see them go
inline void discard_from_pile(State& s, int p, int kind, int count) {
    int8_t* pile = s.piles[p];
    pile[kind] = static_cast<int8_t>(pile[kind] - count);
    s.discard[kind] = static_cast<int8_t>(s.discard[kind] + count);
    for (int v = 0; v < s.n(); ++v) {
        int8_t& known = s.known_piles[v][p][kind];
        int left = known - count;
        known = static_cast<int8_t>(!pile[kind] ? 0 : left > 0 ? left : 0);
    }
}

// rules §7 Embalming: the whole corruption pile goes into the hand, in view of all
inline void embalm(State& s, int p) {
    for (int k = 0; k < NUM_KINDS; ++k) {
        s.hands[p][k] = static_cast<int8_t>(s.hands[p][k] + s.piles[p][k]);
        s.piles[p][k] = 0;
    }
    for (int v = 0; v < s.n(); ++v)
        for (int k = 0; k < NUM_KINDS; ++k) {
            int sum = s.known_hands[v][p][k] + s.known_piles[v][p][k];
            s.known_hands[v][p][k] = static_cast<int8_t>(sum < s.rules.catalogue[k] ? sum : s.rules.catalogue[k]);
            s.known_piles[v][p][k] = 0;
        }
}

inline void next_round_end_decider(State& s, int8_t* queue, int queue_len);

// rules §3 take (skipped cards to the corruption pile) or the Merchant's take (rules §4)
inline void take_from_nile(State& s, int p, int position, bool corruption) {
    int kind = s.nile[position];
    if (corruption) {
        for (int i = 0; i < position; ++i) {
            int skipped = s.nile[i];
            ++s.piles[p][skipped];
            if (face_up_on_nile(skipped)) seen_entering(s, s.known_piles, p, skipped);
        }
        std::memmove(s.nile, s.nile + position + 1, s.nile_len - position - 1);
        s.nile_len = static_cast<int8_t>(s.nile_len - position - 1);
    } else {
        std::memmove(s.nile + position, s.nile + position + 1, s.nile_len - position - 1);
        --s.nile_len;
    }
    ++s.hands[p][kind];
    if (face_up_on_nile(kind)) seen_entering(s, s.known_hands, p, kind);
    if (s.nile_len) {
        end_turn(s);
        return;
    }
    if (!corruption) s.emit(E_MERCHANT_EMPTIED);
    if (s.deck_size()) {  // rules §5: the Nile is emptied, so a new delivery comes at once
        s.emit(s.deck_size() >= DELIVERY_SIZE ? E_DELIVERY_FULL : E_DELIVERY_SHORT);
        deliver(s);
        end_turn(s);
    } else {  // rules §5: the last card of the last delivery ends the round at once
        set_pending(s, TURN_START);
        s.extra_turns = 0;
        int8_t queue[MAX_PLAYERS];
        for (int o = 0; o < s.n(); ++o) queue[o] = static_cast<int8_t>((p + o) % s.n());
        next_round_end_decider(s, queue, s.n());
    }
}

// ---------------------------------------------------------------------- rounds

// rules §2: gather everything, deal green hands, build the deck, deliver, draw tokens
inline void setup_round(State& s) {
    int n = s.n();
    std::memset(s.hands, 0, sizeof s.hands);
    std::memset(s.piles, 0, sizeof s.piles);
    std::memset(s.curses, 0, sizeof s.curses);
    std::memset(s.sets, 0, sizeof s.sets);
    std::memset(s.horizontal_len, 0, sizeof s.horizontal_len);
    std::memset(s.horizontal, 0, sizeof s.horizontal);
    s.nile_len = 0;
    s.deck_top = s.deck_end = 0;
    std::memset(s.tokens, 0, sizeof s.tokens);
    std::memset(s.used_tokens, 0, sizeof s.used_tokens);
    clear(s.discard);
    clear(s.out_of_round);
    set_pending(s, TURN_START);
    std::memset(s.known_hands, 0, sizeof s.known_hands);
    std::memset(s.known_piles, 0, sizeof s.known_piles);
    std::memset(s.token_glimpse, 0, sizeof s.token_glimpse);

    int8_t greens[TOTAL_CARDS];
    int count = 0;
    for (int k = 12; k < 18; ++k)
        for (int c = 0; c < s.rules.catalogue[k]; ++c) greens[count++] = static_cast<int8_t>(k);
    s.rng.shuffle(greens, count);
    for (int i = 0; i < count; ++i) {
        if (i < n * START_HAND) ++s.hands[i / START_HAND][greens[i]];
        else ++s.out_of_round[greens[i]];
    }
    count = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (kind_back(k) != GREEN)
            for (int c = 0; c < s.rules.catalogue[k]; ++c) s.deck[count++] = static_cast<int8_t>(k);
    s.rng.shuffle(s.deck, count);
    s.deck_end = static_cast<int8_t>(count);
    if (n == 2) {
        for (int i = 0; i < TWO_PLAYER_SET_ASIDE; ++i) ++s.out_of_round[s.deck[i]];
        s.deck_top = TWO_PLAYER_SET_ASIDE;
    }
    deliver(s);
    int8_t pool[12];
    count = 0;
    for (int t = 0; t < NUM_TOKEN_KINDS; ++t)
        for (int c = 0; c < TOKEN_COUNTS[t]; ++c) pool[count++] = static_cast<int8_t>(t);
    s.rng.shuffle(pool, count);
    for (int i = 0; i < TOKENS_PER_ROUND; ++i) ++s.tokens[pool[i]];
}

// rules §8.2: the seats with the highest corruption, ties broken by scarabs in the pile; as a bit mask
inline int most_corrupt(const State& s) {
    int level[MAX_PLAYERS], top = 0;
    for (int p = 0; p < s.n(); ++p) {
        level[p] = total(s.piles[p]) + CURSE_WEIGHT * s.curses[p];
        if (level[p] > top) top = level[p];
    }
    if (top == 0) return 0;  // [decision] nobody is corrupt without corruption
    int mask = 0, tied = 0, most = -1, scarabs[MAX_PLAYERS];
    for (int p = 0; p < s.n(); ++p)
        if (level[p] == top) {
            mask |= 1 << p;
            ++tied;
        }
    if (tied == 1) return mask;
    for (int p = 0; p < s.n(); ++p)
        if (mask >> p & 1) {
            scarabs[p] = scarabs_of(s.piles[p], s.rules);
            if (scarabs[p] > most) most = scarabs[p];
        }
    int out = 0;
    for (int p = 0; p < s.n(); ++p)
        if ((mask >> p & 1) && scarabs[p] == most) out |= 1 << p;
    return out;
}

// rules §8.3: move back one space with the current symbol per lot of 10 round points
inline int penalised_position(int position, int round_points) {
    int symbol = symbol_at(position);
    for (int lot = 0; lot < round_points / POINTS_PER_LOT; ++lot) {
        int earlier = previous_space(position, symbol);
        if (earlier < 0) return 0;
        position = earlier;
    }
    return position;
}

// rules §5 and §8: leftover hands to the piles, scoring, the penalty, then §9 or a new round
inline void score_round(State& s) {
    int n = s.n();
    for (int p = 0; p < n; ++p)
        for (int k = 0; k < NUM_KINDS; ++k) {
            s.piles[p][k] = static_cast<int8_t>(s.piles[p][k] + s.hands[p][k]);
            s.hands[p][k] = 0;
        }
    if (s.round_log_len == ROUND_LOG_MAX) {  // only a state that skipped the checks: keep the latest rounds
        std::memmove(s.round_log, s.round_log + 1, sizeof(RoundEntry) * (ROUND_LOG_MAX - 1));
        --s.round_log_len;
    }
    RoundEntry& entry = s.round_log[s.round_log_len++];
    std::memset(&entry, 0, sizeof entry);
    entry.round = s.round;
    int before[MAX_PLAYERS];
    for (int p = 0; p < n; ++p) {
        int points = 0;
        for (int g = 0; g < SET_SLOTS; ++g) {
            const TableSet& t = s.sets[p][g];
            if (t.present) points += set_value(total(t.cards), scarabs_of(t.cards, s.rules), t.prosperity);
        }
        for (int i = 0; i < s.horizontal_len[p]; ++i) {
            points += scarabs_of(s.horizontal[p][i].cards, s.rules);
            for (int k = 0; k < NUM_KINDS; ++k) entry.horizontal[p][k] += s.horizontal[p][i].cards[k];
        }
        entry.points[p] = points;
        s.markers[p] += points;
        before[p] = s.markers[p];
    }
    int corrupt = most_corrupt(s);
    int corrupt_count = 0;
    bool penalised = false;
    for (int p = 0; p < n; ++p) {
        if (corrupt >> p & 1) {
            s.markers[p] = penalised_position(s.markers[p], entry.points[p]);
            entry.most_corrupt[corrupt_count++] = static_cast<int8_t>(p);
        }
        entry.penalty[p] = before[p] - s.markers[p];
        penalised = penalised || entry.penalty[p];
        entry.corruption[p] = total(s.piles[p]) + CURSE_WEIGHT * s.curses[p];
        entry.curses[p] = s.curses[p];
    }
    entry.most_corrupt_len = static_cast<int8_t>(corrupt_count);
    s.emit(E_ROUND_SCORED);
    if (corrupt_count > 1) s.emit(E_ROUND_TIE);
    if (!corrupt_count) s.emit(E_ROUND_NOBODY);
    if (penalised) s.emit(E_ROUND_PENALISED);
    set_pending(s, TURN_START);
    int best = s.markers[0], low = s.markers[0];
    for (int p = 1; p < n; ++p) {
        if (s.markers[p] > best) best = s.markers[p];
        if (s.markers[p] < low) low = s.markers[p];
    }
    if (s.round == ROUNDS || (s.round == EARLY_END_ROUND && best > EARLY_END_SCORE)) {
        s.over = true;  // rules §9: the table stays as it was scored
        s.emit(s.round == ROUNDS ? E_END_NORMAL : E_END_EARLY);
        int winners = 0;
        for (int p = 0; p < n; ++p) winners += s.markers[p] == best;
        s.emit(winners > 1 ? E_END_SHARED : E_END_SOLE);
        return;
    }
    ++s.round;
    setup_round(s);
    int8_t seats[MAX_PLAYERS];
    int count = 0;
    for (int p = 0; p < n; ++p)
        if (s.markers[p] == low) seats[count++] = static_cast<int8_t>(p);
    if (count > 1) s.emit(E_FIRST_TIE);
    int chooser = count == 1 ? seats[0] : seats[s.rng.randbelow(count)];  // online edition rule
    s.first_player = s.current_player = chooser;
    set_pending(s, FIRST_PLAYER);
}

// rules §5: the next seat of the queue that can form a horizontal set decides; the others are skipped
inline void next_round_end_decider(State& s, int8_t* queue, int queue_len) {
    int8_t rest[MAX_PLAYERS];
    std::memcpy(rest, queue, queue_len);  // queue may be the pending phase's own
    for (int i = 0; i < queue_len; ++i) {
        int seat = rest[i];
        if (horizontal_goods(s, seat)) {
            s.current_player = seat;
            set_pending(s, HORIZONTAL);
            s.pending.queue_len = static_cast<int8_t>(queue_len - i - 1);
            std::memcpy(s.pending.queue, rest + i + 1, queue_len - i - 1);
            return;
        }
    }
    score_round(s);
}

// ---------------------------------------------------------------------- the phases (phases.py)

// One handler per phase, as phases.py has one class per phase: legal_<phase> writes the sorted legal ids
// into out (room for NUM_ACTIONS) and returns how many; apply_<phase> plays one of them. PHASE_HANDLERS,
// indexed by the pending phase, dispatches to them.

inline int legal_opponents(const State& s, int* out) {  // every opponent: player:1 ... player:n-1
    int count = 0;
    for (int o = 1; o < s.n(); ++o) out[count++] = PLAYER + o;
    return count;
}

inline void power(State& s, int p, int kind);

// rules §3: take a card, play a character, or start a set
inline int legal_turn_start(const State& s, int* out) {
    int count = 0;
    const int8_t* hand = s.hands[s.current_player];
    for (int i = 0; i < s.nile_len && i < TAKE_WINDOW; ++i) out[count++] = TAKE + i;
    for (int k = FIRST_CHARACTER; k < NUM_KINDS; ++k)
        if (hand[k]) out[count++] = CHARACTER + k - FIRST_CHARACTER;
    int fitting[NUM_GOODS];  // amulets fit every set, any other card the set of its goods (rules §6)
    for (int g = 0; g < NUM_GOODS; ++g) fitting[g] = hand[AMULET];
    for (int k = 0; k < NUM_KINDS; ++k) {
        int g = s.rules.kind_goods[k];
        if (g >= 0) fitting[g] += hand[k];
    }
    for (int g = 0; g < NUM_GOODS; ++g)
        if (fitting[g] >= SET_MIN_CARDS) out[count++] = SET + g;
    return count;
}
inline void apply_turn_start(State& s, int a) {
    int p = s.current_player;
    if (a < CHARACTER) {
        take_from_nile(s, p, a - TAKE, true);
    } else if (a < SET) {
        int kind = FIRST_CHARACTER + a - CHARACTER;
        lay_from_hand(s, p, kind);
        ++s.discard[kind];
        power(s, p, kind);
    } else {
        set_pending(s, BUILD_SET);
        s.pending.goods = static_cast<int8_t>(a - SET);
    }
}

// rules §5, §6: fitting cards one by one, then done once three or more are down (BuildSet, HorizontalSet)
inline int legal_set_cards(const State& s, int* out) {
    int count = 0;
    const int8_t* hand = s.hands[s.current_player];
    for (int k = 0; k < NUM_KINDS; ++k)
        if (hand[k] && s.rules.fits(s.pending.goods, k)) out[count++] = CARD + k;
    if (total(s.pending.cards) >= SET_MIN_CARDS) out[count++] = DONE;
    return count;
}
// a card of the set being laid goes down from the hand; false for DONE, which ends the set
inline bool lay_pending_card(State& s, int a) {
    if (a == DONE) return false;
    lay_from_hand(s, s.current_player, a - CARD);
    ++s.pending.cards[a - CARD];
    return true;
}
inline void apply_build_set(State& s, int a) {
    if (lay_pending_card(s, a)) return;
    int p = s.current_player;
    Pending& q = s.pending;
    Cards cards;
    std::memcpy(cards, q.cards, NUM_KINDS);
    lay_set(s, p, q.goods, cards);
    bool tokens_left = false;
    for (int t = 0; t < NUM_TOKEN_KINDS; ++t) tokens_left = tokens_left || s.tokens[t];
    if (tokens_left) {  // rules §6: laying a set triggers an event while tokens remain
        set_pending(s, CHOOSE_TOKEN);
    } else {
        s.emit(E_TOKEN_NONE_LEFT);
        end_turn(s);
    }
}

// rules §7: look through the round's remaining tokens, pick one and resolve it at once
inline int legal_choose_token(const State& s, int* out) {
    int count = 0;
    for (int t = 0; t < NUM_TOKEN_KINDS; ++t)
        if (s.tokens[t]) out[count++] = TOKEN + t;
    return count;
}
inline void apply_choose_token(State& s, int a) {
    int token = a - TOKEN, p = s.current_player;
    s.token_glimpse[p] = true;  // rules §10: he has seen which tokens remain
    --s.tokens[token];
    if (token == CURSE) {
        set_pending(s, CURSE_TARGET);
        return;
    }
    if (token == PROSPERITY) {
        if (prosperity_has_target(s)) {
            set_pending(s, PROSPERITY_TARGET);
            return;
        }
        ++s.used_tokens[token];  // no wheat, fish, cattle or amulets-only set: just discarded
        s.emit(E_PROSPERITY_NO_SET);
        end_turn(s);
        return;
    }
    ++s.used_tokens[token];
    if (token < FLOOD) {  // a Guild: token id == hieroglyph id
        s.markers[p] = next_space(s.markers[p], token);
        if (guild_has_target(s, token)) {
            set_pending(s, GUILD);
            s.pending.symbol = static_cast<int8_t>(token);
        } else {
            s.emit(E_GUILD_NO_TARGET);
            end_turn(s);
        }
    } else if (token == FLOOD) {
        s.emit(s.extra_turns ? E_FLOOD_CHAIN : E_FLOOD_EXTRA);
        end_turn(s, true);
    } else if (token == EMBALMING) {
        s.emit(any(s.piles[p]) ? E_EMBALMING_CARDS : E_EMBALMING_EMPTY);
        embalm(s, p);
        end_turn(s);
    } else if (token == DECEIT) {
        int pile = total(s.piles[p]);
        s.emit(pile ? E_DECEIT_POINTS : E_DECEIT_ZERO);
        s.markers[p] += pile;
        end_turn(s);
    }
}

// rules §7 Guild: move back an opponent who has an earlier space with the hieroglyph
inline int legal_guild(const State& s, int* out) {
    int count = 0;
    for (int o = 1; o < s.n(); ++o)
        if (previous_space(s.markers[s.seat_at(o)], s.pending.symbol) >= 0) out[count++] = PLAYER + o;
    return count;
}
inline void apply_guild(State& s, int a) {
    int targets[NUM_ACTIONS];
    s.emit(legal_guild(s, targets) > 1 ? E_GUILD_SEVERAL : E_GUILD_PUSHED);
    int target = s.seat_at(a - PLAYER);
    s.markers[target] = previous_space(s.markers[target], s.pending.symbol);
    end_turn(s);
}

// rules §7 Curse: give it to an opponent; it counts 2 corruption cards at scoring
inline void apply_curse(State& s, int a) {
    int target = s.seat_at(a - PLAYER);
    ++s.curses[target];
    s.emit(s.curses[target] > 1 ? E_CURSE_BOTH : E_CURSE_PLACED);
    end_turn(s);
}

// rules §7 Prosperity: on one of your wheat, fish or cattle sets, or your amulets-only set
inline int legal_prosperity(const State& s, int* out) {
    int count = 0;
    for (int g : {3, 4, 5, AMULET_SET})
        if (s.sets[s.current_player][g].present) out[count++] = slot_action(g);
    return count;
}
inline void apply_prosperity(State& s, int a) {
    TableSet& t = s.sets[s.current_player][action_slot(a)];
    ++t.prosperity;
    s.emit(t.prosperity > 1 ? E_PROSPERITY_BOTH : E_PROSPERITY_PLACED);
    end_turn(s);
}

// rules §4 High Priest(ess): name a goods; every goods card of it leaves the corruption pile, never amulets
inline int legal_priest(const State&, int* out) {
    for (int g = 0; g < NUM_GOODS; ++g) out[g] = GOODS_CHOICE + g;
    return NUM_GOODS;
}
inline void apply_priest(State& s, int a) {
    int p = s.current_player, goods = a - GOODS_CHOICE, discarded = 0;
    for (int k = 0; k < FIRST_CHARACTER; ++k)
        if (s.rules.kind_goods[k] == goods && s.piles[p][k]) {
            discarded += s.piles[p][k];
            discard_from_pile(s, p, k, s.piles[p][k]);
        }
    s.emit(discarded ? E_PRIEST_DISCARDED : E_PRIEST_NOTHING);
    if (priest_has_character(s, goods)) {
        set_pending(s, PRIEST_CHARACTERS);
        s.pending.goods = static_cast<int8_t>(goods);
    } else {
        end_turn(s);
    }
}

// rules §4 High Priest(ess): the family's characters in the pile may be discarded, one by one
inline int legal_priest_characters(const State& s, int* out) {
    int count = 0;
    for (int k = FIRST_CHARACTER; k < NUM_KINDS; ++k)
        if (s.rules.kind_goods[k] == s.pending.goods && s.piles[s.current_player][k]) out[count++] = CARD + k;
    out[count++] = DONE;
    return count;
}
inline void apply_priest_characters(State& s, int a) {
    if (a == DONE) {
        s.emit(E_PRIEST_KEPT_CHARACTER);
        end_turn(s);
        return;
    }
    discard_from_pile(s, s.current_player, a - CARD, 1);
    s.emit(E_PRIEST_DISCARDED_CHARACTER);
    if (!priest_has_character(s, s.pending.goods)) end_turn(s);
}

// rules §4 Vizier and Thief: any opponent (masking those with nothing to take would leak it); an empty
// pile (Vizier) or hand (Thief) ends the power with no effect
inline void choose_opponent(State& s, int a, bool vizier) {
    int target = s.seat_at(a - PLAYER);
    if (any(vizier ? s.piles[target] : s.hands[target])) {
        set_pending(s, vizier ? VIZIER_CARD : THIEF_BACK);
        s.pending.target = static_cast<int8_t>(target);
    } else {
        s.emit(vizier ? E_VIZIER_EMPTY : E_THIEF_EMPTY);
        end_turn(s);
    }
}
inline void apply_vizier(State& s, int a) { choose_opponent(s, a, true); }
inline void apply_thief(State& s, int a) { choose_opponent(s, a, false); }

// rules §4 Vizier: take one card of your choice from the searched pile
inline int legal_vizier_card(const State& s, int* out) {
    int count = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.piles[s.pending.target][k]) out[count++] = CARD + k;
    return count;
}
inline void apply_vizier_card(State& s, int a) {
    int p = s.current_player, target = s.pending.target, kind = a - CARD;
    --s.piles[target][kind];
    ++s.hands[p][kind];
    std::memcpy(s.known_piles[p][target], s.piles[target], NUM_KINDS);  // rules §10: what is left in it
    s.emit(E_VIZIER_TOOK);
    end_turn(s);
}

// rules §4 Scribe: the opponent to move puts cards of his choice from hand to pile down to 6
inline int legal_scribe(const State& s, int* out) {
    int count = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.hands[s.current_player][k]) out[count++] = CARD + k;
    return count;
}
inline void apply_scribe(State& s, int a) {
    int p = s.current_player, kind = a - CARD;
    Pending& q = s.pending;
    --s.hands[p][kind];
    ++s.piles[p][kind];  // face down: what others know of this hand stays as it was
    s.emit(E_SCRIBE_DISCARD);
    if (total(s.hands[p]) > SCRIBE_HAND_LIMIT) return;
    if (q.queue_len) {
        s.current_player = q.queue[0];
        std::memmove(q.queue, q.queue + 1, q.queue_len - 1);
        --q.queue_len;
    } else {
        s.current_player = q.actor;
        end_turn(s);
    }
}

// rules §4 Thief: name a back colour the opponent holds; a card with it is drawn at random
inline int legal_thief_back(const State& s, int* out) {
    int count = 0, backs[NUM_BACKS];
    backs_of(s.hands[s.pending.target], backs);
    for (int b = 0; b < NUM_BACKS; ++b)
        if (backs[b]) out[count++] = BACK + b;
    return count;
}
inline void apply_thief_back(State& s, int a) {
    int p = s.current_player, back = a - BACK, victim = s.pending.target, sum = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (kind_back(k) == back) sum += s.hands[victim][k];
    int64_t draw = static_cast<int64_t>(s.rng.randbelow(sum));
    int kind = 0;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (kind_back(k) == back && s.hands[victim][k]) {
            kind = k;
            draw -= s.hands[victim][k];
            if (draw < 0) break;
        }
    --s.hands[victim][kind];
    ++s.hands[p][kind];
    if (s.known_hands[p][victim][kind]) --s.known_hands[p][victim][kind];  // the thief sees which card
    s.emit(static_cast<Event>(E_THIEF_GREEN + back));
    end_turn(s);
}

// rules §4 Courtesan: choose an own set that a card in hand fits
inline int legal_courtesan_set(const State& s, int* out) {
    int count = 0, p = s.current_player;
    for (int slot = 0; slot < SET_SLOTS; ++slot)
        if (s.sets[p][slot].present && courtesan_has_fitting(s, p, slot)) out[count++] = slot_action(slot);
    return count;
}
inline void apply_courtesan_set(State& s, int a) {
    set_pending(s, COURTESAN_CARD);
    s.pending.goods = static_cast<int8_t>(action_slot(a));
}

// rules §4 Courtesan: add 1 or 2 fitting cards, done after the first stops; no event token. A goods card on
// the amulets-only set gives it that goods (rules §6).
inline int legal_courtesan_card(const State& s, int* out) {
    int count = 0, p = s.current_player;
    for (int k = 0; k < NUM_KINDS; ++k)
        if (s.hands[p][k] && courtesan_fits(s, p, s.pending.goods, k)) out[count++] = CARD + k;
    if (total(s.pending.cards)) out[count++] = DONE;
    return count;
}
inline void apply_courtesan_card(State& s, int a) {
    if (a == DONE) {
        s.emit(E_COURTESAN_1);
        end_turn(s);
        return;
    }
    int p = s.current_player, kind = a - CARD;
    Pending& q = s.pending;
    lay_from_hand(s, p, kind);
    q.goods = static_cast<int8_t>(add_to_set(s, p, q.goods, kind));
    ++q.cards[kind];
    if (total(q.cards) == COURTESAN_MAX_CARDS) {
        s.emit(E_COURTESAN_2);
        end_turn(s);
    }
}

// rules §4 Merchant: take any card of the Nile, with no corruption
inline int legal_merchant(const State& s, int* out) {
    for (int i = 0; i < s.nile_len; ++i) out[i] = TAKE + i;
    return s.nile_len;
}
inline void apply_merchant(State& s, int a) {
    int position = a - TAKE;
    s.emit(position < TAKE_WINDOW ? E_MERCHANT_IN : E_MERCHANT_BEYOND);
    take_from_nile(s, s.current_player, position, false);
}

// rules §2.6: the lowest scorer names the round's first player (offset 0 = himself)
inline int legal_first_player(const State& s, int* out) {
    for (int o = 0; o < s.n(); ++o) out[o] = PLAYER + o;
    return s.n();
}
inline void apply_first_player(State& s, int a) {
    s.emit(a == PLAYER ? E_FIRST_SELF : E_FIRST_OTHER);
    int first = s.seat_at(a - PLAYER);
    s.first_player = s.current_player = first;
    set_pending(s, TURN_START);
}

// rules §5: at the round's end, a player lays horizontal sets of his choice (set:) or no more (done)
inline int legal_horizontal(const State& s, int* out) {
    int count = 0, mask = horizontal_goods(s, s.current_player);
    for (int g = 0; g < NUM_GOODS; ++g)
        if (mask >> g & 1) out[count++] = SET + g;
    out[count++] = DONE;
    return count;
}
inline void keep_queue_as(State& s, int phase) {  // the round's end goes on with the seats still to decide
    int8_t queue[MAX_PLAYERS], len = s.pending.queue_len;
    std::memcpy(queue, s.pending.queue, MAX_PLAYERS);
    set_pending(s, phase);
    s.pending.queue_len = len;
    std::memcpy(s.pending.queue, queue, MAX_PLAYERS);
}
inline void apply_horizontal(State& s, int a) {
    if (a == DONE) {
        s.emit(E_ROUND_HORIZONTAL_DECLINED);
        next_round_end_decider(s, s.pending.queue, s.pending.queue_len);
    } else {
        keep_queue_as(s, HORIZONTAL_SET);
        s.pending.goods = static_cast<int8_t>(a - SET);
    }
}

// rules §5: the horizontal set being laid: fitting cards, then done once three are in; no event
inline void apply_horizontal_set(State& s, int a) {
    if (lay_pending_card(s, a)) return;
    int p = s.current_player;
    Pending& q = s.pending;
    bool amulets_only = q.cards[AMULET] == total(q.cards);
    if (s.horizontal_len[p] == SET_SLOTS) return;  // only a state that skipped the checks
    HorizontalSet& laid = s.horizontal[p][s.horizontal_len[p]++];
    laid.slot = static_cast<int8_t>(amulets_only ? AMULET_SET : q.goods);
    std::memcpy(laid.cards, q.cards, NUM_KINDS);
    s.emit(amulets_only ? E_ROUND_HORIZONTAL_AMULETS : E_ROUND_HORIZONTAL);
    if (horizontal_goods(s, p)) keep_queue_as(s, HORIZONTAL);
    else next_round_end_decider(s, q.queue, q.queue_len);
}

// rules §4: each character's power, once the card is on the discard
inline void power(State& s, int p, int kind) {
    switch (kind) {
        case QUEEN: {  // draw 3 cards from the deck (fewer if it has fewer)
            int drawn = s.deck_size() < QUEEN_DRAW ? s.deck_size() : QUEEN_DRAW;
            for (int i = 0; i < drawn; ++i) ++s.hands[p][s.deck[s.deck_top + i]];
            s.deck_top = static_cast<int8_t>(s.deck_top + drawn);
            s.emit(drawn ? E_QUEEN_DREW : E_QUEEN_EMPTY);
            end_turn(s);
            return;
        }
        case SCRIBE_FISH:
        case SCRIBE_WHEAT: {  // every opponent holding more than 6 cards, in seat order from the left
            int8_t over[MAX_PLAYERS];
            int count = 0;
            for (int o = 1; o < s.n(); ++o) {
                int seat = (p + o) % s.n();
                if (total(s.hands[seat]) > SCRIBE_HAND_LIMIT) over[count++] = static_cast<int8_t>(seat);
            }
            s.emit(static_cast<Event>(E_SCRIBE_0 + count));
            if (!count) {
                end_turn(s);
                return;
            }
            set_pending(s, SCRIBE);
            s.pending.actor = static_cast<int8_t>(p);
            s.pending.queue_len = static_cast<int8_t>(count - 1);
            std::memcpy(s.pending.queue, over + 1, count - 1);
            s.current_player = over[0];
            return;
        }
        case COURTESAN:
            if (courtesan_has_choice(s)) {
                set_pending(s, COURTESAN_SET);
            } else {
                s.emit(E_COURTESAN_NO_SET);
                end_turn(s);
            }
            return;
        case VIZIER: set_pending(s, VIZIER_TARGET); return;
        case MERCHANT: set_pending(s, MERCHANT_TAKE); return;
        case HIGH_PRIEST:
        case HIGH_PRIESTESS: set_pending(s, PRIEST); return;
        case THIEF: set_pending(s, THIEF_TARGET); return;
        default: return;
    }
}

struct PhaseHandler {
    int (*legal)(const State& s, int* out);
    void (*apply)(State& s, int a);
};

// In phases.PHASES order (the Phase enum).
constexpr PhaseHandler PHASE_HANDLERS[NUM_PHASES] = {
    {legal_turn_start, apply_turn_start},
    {legal_set_cards, apply_build_set},
    {legal_choose_token, apply_choose_token},
    {legal_guild, apply_guild},
    {legal_opponents, apply_curse},
    {legal_prosperity, apply_prosperity},
    {legal_priest, apply_priest},
    {legal_opponents, apply_vizier},
    {legal_vizier_card, apply_vizier_card},
    {legal_scribe, apply_scribe},
    {legal_opponents, apply_thief},
    {legal_thief_back, apply_thief_back},
    {legal_courtesan_set, apply_courtesan_set},
    {legal_courtesan_card, apply_courtesan_card},
    {legal_merchant, apply_merchant},
    {legal_first_player, apply_first_player},
    {legal_priest_characters, apply_priest_characters},
    {legal_horizontal, apply_horizontal},
    {legal_set_cards, apply_horizontal_set},
};

// The sorted legal action ids for the player to move, into out (room for NUM_ACTIONS); how many.
inline int legal(const State& s, int* out) { return s.over ? 0 : PHASE_HANDLERS[s.pending.phase].legal(s, out); }

// Plays a legal action (the caller checks legality: legal() lists the ids this accepts).
inline void apply(State& s, int a) { PHASE_HANDLERS[s.pending.phase].apply(s, a); }

// Deals a new game (GameState.new) on rules already validated; the generator seeded by the caller.
inline void new_game(State& s) {
    s.round = 1;
    s.over = false;
    s.extra_turns = 0;
    s.round_log_len = 0;
    std::memset(s.markers, 0, sizeof s.markers);
    setup_round(s);
    s.first_player = s.current_player = static_cast<int32_t>(s.rng.randbelow(s.n()));  // rules §2.6
}

}  // namespace sobek
}  // namespace sobek_native
